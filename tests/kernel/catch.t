#!/usr/bin/env bash
# SPDX-License-Identifier: MIT
# catch.t: uml-kernel/catch.sh, the tool behind make broken and make historic, says caught or missed from the runner's JSON report: judged on reports a runner of this test's own writes, with no kernel.
set -uo pipefail
top=$(cd "$(dirname "$0")/../.." && pwd)
. "$top/tests/lib/strict.sh"
. "$top/tests/lib/tap.sh"
command -v jq >/dev/null || prereq_skip_all "no jq (Debian package jq)"

tmp=$(mktemp -d "${TMPDIR:-/tmp}/umlbed-catch-t.XXXXXX")
trap 'rm -rf "$tmp"' EXIT
export BUILD=$tmp/build
mkdir -p "$BUILD/runner"
# The runner of this test: its report has, for each catch_run=I it is given and each line "RUN VERDICT [DIAG]" of
# the kernel's folder's "verdicts" file whose RUN is I or *, one run with that verdict. It keeps its arguments in
# the kernel's folder's "args", so that the test sees what catch.sh asked for.
cat >"$BUILD/runner/umlbed" <<'EOF'
#!/usr/bin/env bash
set -eu
params=() targets=() json= kernel=
while [ $# -gt 0 ]; do
	case $1 in
	--kernel) kernel=$2; shift 2 ;;
	--json) json=$2; shift 2 ;;
	--param) params+=("$2"); shift 2 ;;
	-j) shift 2 ;;
	run) shift ;;
	*) targets+=("$1"); shift ;;
	esac
done
dir=$(dirname "$(dirname "$kernel")")
printf '%s\n' "${params[@]}" "${targets[@]}" >"$dir/args"
for p in "${params[@]}"; do
	[ "${p%%=*}" = catch_run ] || continue
	i=${p#catch_run=}
	k=0
	while read -r run verdict diag; do
		k=$((k + 1))
		[ "$run" = '*' ] || [ "$run" = "$i" ] || continue
		printf 'scenario %s [catch_run=%s]\t%s\t%s\n' "$k" "$i" "$verdict" "$diag"
	done <"$dir/verdicts"
done | jq -Rs '{results: [split("\n")[] | select(. != "") | split("\t") |
	{name: .[0], verdict: .[1], diag: (if .[2] == "" then null else .[2] end)}]}' >"$json"
EOF
chmod +x "$BUILD/runner/umlbed"

# kernel VARIANT LINE...: a kernel of VARIANT whose runs end as the lines say.
kernel() {
	local v=$1
	shift
	mkdir -p "$BUILD/kernel/$v/obj"
	printf '#!/bin/sh\n' >"$BUILD/kernel/$v/obj/linux"
	chmod +x "$BUILD/kernel/$v/obj/linux"
	printf '%s\n' "$@" >"$BUILD/kernel/$v/verdicts"
}

# catch ARG...: catch.sh's TAP in $out, its exit status in $rc.
catch() {
	out=$("$top/uml-kernel/catch.sh" --built "$@" 2>"$tmp/err")
	rc=$?
}

# A broken kernel: a FAILED run catches it, a CRASHED one does not (a crash says nothing about the expectations).
kernel broken-rounding '* ok' '* FAILED expected 4096, got 0' '* CRASHED'
catch broken-rounding
check "broken: a kernel that some run FAILS on is caught (exit 0)" [ "$rc" = 0 ]
check "... in TAP: its version, one result and the plan" [ "$out" = "TAP version 13
ok 1 - broken-rounding is caught (FAILED) in 1 of 1 runs of the suite (got: 1 CRASHED, 1 FAILED, 1 ok)
1..1" ]
check "... the catching run and the run not counted are diagnostics" \
	grep -qx '#   scenario 2 \[catch_run=1\]' "$tmp/err"
check "... and the crash is listed as not counted" grep -qx '# scenario 3 \[catch_run=1\]: CRASHED' "$tmp/err"
check "... the whole suite ran, once" [ "$(cat "$BUILD/kernel/broken-rounding/args")" = "catch_run=1
$top/scenarios" ]
BROKEN_SCENARIOS="$top/scenarios/rounding.lua $top/scenarios/vma-merge.lua" catch broken-rounding
check "broken: BROKEN_SCENARIOS runs those files instead of the suite" [ "$(cat "$BUILD/kernel/broken-rounding/args")" = "catch_run=1
$top/scenarios/rounding.lua
$top/scenarios/vma-merge.lua" ]
kernel broken-rounding '* ok' '* CRASHED'
catch broken-rounding
check "broken: a kernel that only crashes is missed (exit 1)" [ "$rc" = 1 ]
check "... with no list of catching runs" not grep -q "caught by" "$tmp/err"
check "... and said so" grep -qx 'not ok 1 - broken-rounding is caught (FAILED) in 0 of 1 runs of the suite (got: 1 CRASHED, 1 ok)' <<<"$out"
kernel broken-rounding '1 FAILED' '* ok'
catch --runs 2 broken-rounding
check "broken: caught in one run of two is missed (exit 1)" [ "$rc" = 1 ] && grep -q '^not ok 1 .* in 1 of 2 runs' <<<"$out"
# A broken race: its KASAN or lockdep report is what the forced races bring out, so a CRASHED run counts.
race=$("$top/uml-kernel/generation.sh" get "$("$top/uml-kernel/generation.sh" default)" broken-races | cut -d' ' -f1)
kernel "$race" '* ok' '* CRASHED BUG: KASAN: use-after-free'
catch "$race"
check "broken race: $race is caught by a CRASHED run (exit 0)" [ "$rc" = 0 ] && grep -q "^ok 1 - $race is caught (FAILED|CRASHED)" <<<"$out"
catch broken-pgoff
check "broken: a kernel that is not built is a failure with --built (exit 1), not a build" \
	[ "$rc" = 1 ] && grep -qx 'not ok 1 - broken-pgoff builds' <<<"$out"
check "... saying which" grep -q "no kernel $BUILD/kernel/broken-pgoff/obj/linux" "$tmp/err"

# A historic kernel: its corpus's scenario, with its parameters, passes on the fixed kernel and FAILS on it, every run.
kernel full '* ok'
kernel historic-merge-pgoff '* FAILED vm_pgoff'
catch --runs 3 --fault merge-pgoff --gen 6.1 historic
check "historic: a fault caught in 3 runs of 3 while the fixed kernel passes them is two ok results (exit 0)" \
	[ "$rc" = 0 ] && [ "$(grep -c '^ok ' <<<"$out")" = 2 ] && grep -qx '1..2' <<<"$out"
check "... its corpus's scenario and parameters, 3 runs" [ "$(cat "$BUILD/kernel/historic-merge-pgoff/args")" = "impl=seed
catch_run=1
catch_run=2
catch_run=3
$top/scenarios/vma-merge.lua" ]
kernel historic-merge-pgoff '* FAILED' '2 ok'
catch --runs 3 --fault merge-pgoff --gen 6.1 historic
check "historic: a run of 3 that passes on the historic kernel is a miss (exit 1)" \
	[ "$rc" = 1 ] && grep -q '^not ok 2 - .*historic-merge-pgoff is caught (FAILED) .* (got: 3 FAILED, 1 ok)' <<<"$out"
kernel historic-merge-pgoff '* FAILED'
kernel full '* ok' '3 FAILED'
catch --runs 3 --fault merge-pgoff --gen 6.1 historic
check "historic: a fixed kernel that fails a run is a failure too (exit 1)" \
	[ "$rc" = 1 ] && grep -q '^not ok 1 - .*the fixed kernel (full) passes' <<<"$out" && grep -q '^ok 2 ' <<<"$out"
# "caught CRASHED ERE": every run must crash with the kernel's report matching ERE.
kernel full '* ok'
kernel historic-punch-disconnected '* CRASHED kernel BUG: VM_BUG_ON_FOLIO(folio_mapped(folio))'
catch --runs 2 --fault punch-disconnected --gen 6.1 historic
check "historic: a fault the corpus says crashes is caught by its report (exit 0)" [ "$rc" = 0 ]
kernel historic-punch-disconnected '* CRASHED BUG: soft lockup'
catch --runs 2 --fault punch-disconnected --gen 6.1 historic
check "... and missed when the crash is another (exit 1)" [ "$rc" = 1 ] && grep -q '^not ok 2 ' <<<"$out"
check "... whose report is a diagnostic" grep -q '^#   BUG: soft lockup' "$tmp/err"

# Bad arguments are refused before anything runs.
"$top/uml-kernel/catch.sh" --built full >/dev/null 2>"$tmp/err"
check "a variant that is neither broken nor historic is refused (exit 2)" [ $? = 2 ] && grep -q 'neither a broken nor a historic' "$tmp/err"
"$top/uml-kernel/catch.sh" --built --gen 0.0 broken >/dev/null 2>"$tmp/err"
check "an unknown generation is refused (exit 2)" [ $? = 2 ] && grep -q 'no generation 0.0' "$tmp/err"
"$top/uml-kernel/catch.sh" --built >/dev/null 2>"$tmp/err"
check "nothing to catch is refused (exit 2), with the usage" [ $? = 2 ] && grep -q 'usage: catch.sh' "$tmp/err"
echo "1..$n"

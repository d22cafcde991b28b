#!/usr/bin/env bash
# SPDX-License-Identifier: MIT
# make check: builds the kernels the tests boot, runs every test file through prove, and prints the table of where the time went.
#
# Each phase (a kernel build, the runner's sanitizer build, the prove run) is timed by scripts/phases.pl
# into BUILD/check-times.jsonl; prove's state file gives each test file's own seconds. At the end, pass or fail,
# the table is printed and written to BUILD/check-times.json. The first failing phase ends the check with its
# status, after the table.
#
# What it builds, per generation (uml-kernel/generations/), is what its "check" key names: the "variants" (full and
# gpl-only, which share every object but the export's, so the second costs a link), and for the default generation
# the "kasan" variant (no DWARF: see uml-kernel/config/nodebuginfo.config). Each is a cold build on a new machine:
# the other generations' KASAN kernels, the mm kernels and the coverage kernel (make check-slow, tests/outside-check),
# the broken variants (make broken) and mutation testing (make mutate) have targets of their own, whose smokes are in
# make check (tests/targets/smokes): HACKING.md says why and what each costs.
#
# Each test file's whole output (its TAP and its standard error, in the order they came) is kept in
# BUILD/check-logs/FILE.tap by scripts/check-log.pl, which prove runs each file through; after a failed prove run,
# and after the table, each failed file's failing lines and the diagnostics that followed them are printed (and
# kept in BUILD/check-logs/summary.log), with the files that ran beside it. The clean room copies the logs out.
#
# CHECK_JOBS (default 2) is prove's -j: the test files run two at a time.
set -uo pipefail
top=$(cd "$(dirname "$0")/.." && pwd)
BUILD=${BUILD:-$top/build}
export BUILD
gen_sh=$top/uml-kernel/generation.sh
phases=$top/scripts/phases.pl
log=$BUILD/check-times.jsonl
state=$BUILD/check-prove.state
mkdir -p "$BUILD"
"$phases" start "$log"

status=0
# phase NAME CMD...: runs CMD as a timed phase unless an earlier one failed.
phase() {
	local name=$1
	shift
	[ "$status" = 0 ] || return 0
	echo "check: $name"
	"$phases" run "$log" "$name" -- "$@" || status=$?
}

report() {
	"$phases" report "$log" "$BUILD/check-times.json" "$state"
}
trap 'report; exit 130' INT
trap 'report; exit 143' TERM

# The runner's sanitizer build, a C build of its own, runs beside the kernel phases: a kernel that is up to date or
# comes from the kernel cache is mostly one process copying files, so the second CPU would idle. Its output is
# shown only when it fails, so that it does not interleave with the kernels'.
echo "check: runner (ASan/UBSan build), beside the kernels"
"$phases" run "$log" "runner (ASan/UBSan build, beside the kernels)" -- make -s -C "$top/runner" SAN=1 >"$BUILD/runner-san.log" 2>&1 &
san=$!
gens=$("$gen_sh" list)
# The pristine trees of the generations after the first are unpacked beside the first one's kernel phases: a warm
# kernel phase copies a cached build folder, an unpacking writes 1.7 GB, and the two share no file. The later
# generations' kernel phases wait for their trees.
mapfile -t genlist <<<"$gens"
trees=
if [ ${#genlist[@]} -gt 1 ]; then
	echo "check: pristine trees of ${genlist[*]:1}, beside the kernels of ${genlist[0]}"
	"$phases" run "$log" "pristine trees of ${genlist[*]:1} (beside the kernels)" -- \
		bash -c 'for g in "${@:2}"; do "$1" --tree "$g" >/dev/null || exit; done' - "$top/uml-kernel/build.sh" \
		"${genlist[@]:1}" &
	trees=$!
fi
for g in $gens; do
	if [ "$g" != "${genlist[0]}" ] && [ -n "$trees" ]; then
		wait "$trees" || status=$?
		trees=
	fi
	for v in $("$gen_sh" checked "$g"); do
		phase "kernel $v" make -s -C "$top" kernel modules GEN="$g" VARIANT="$v"
	done
done
san_rc=0
wait "$san" || san_rc=$?
if [ "$san_rc" != 0 ]; then
	cat "$BUILD/runner-san.log" >&2
	[ "$status" = 0 ] && status=$san_rc
fi
phase "agent tests (build)" make -s -C "$top/tests/agent"

# One prove run over every test file. The runner's own tests (and every test that sources tests/runner/common.sh)
# drive the ASan/UBSan build, so its checks run once, under the sanitizers; the plain build is the one the scenario
# suite, the smoke tests and valgrind (tests/runner/valgrind.t, beside the others) run.
cd "$top" || exit 2
# Every test file but those that tests/outside-check gives to make check-slow, the longest first so that two at a
# time end together: on a build folder that has run make check, prove's state file knows each file's time
# (--state=slow); else the files that build kernels or boot many guests go first.
first='^tests/(kernel|mutate|scenarios|targets)/|^tests/runner/(jail|hostile|uml|fake)\.t$'
mapfile -t files < <(find tests -name '*.t' | sort |
	grep -vxF -f <(sed -n 's/^\(tests\/[^[:space:]]*\.t\)[[:space:]].*/\1/p' tests/outside-check) |
	{ t=$(cat); grep -E "$first" <<<"$t"; grep -vE "$first" <<<"$t"; })
# Each file's output is kept whole: no earlier run's log is left to be read as this run's.
logs=$BUILD/check-logs
rm -rf "$logs"
mkdir -p "$logs"
phase "prove tests/" env UMLBED_BUILD="$BUILD" UMLBED_RUNNER_DIR="$BUILD/runner-san" \
	UMLBED_VARIANTS="$("$gen_sh" all variants)" UMLBED_CHECK_LOGS="$logs" \
	prove --directives -j "${CHECK_JOBS:-2}" --state=slow,save --statefile="$state" \
	--exec "$top/scripts/check-log.pl" "${files[@]}"
prove_rc=$status
report
# What failed, last, where a reader of the output looks: prove itself says only how many checks of a file failed.
if [ "$prove_rc" != 0 ] && [ -d "$logs" ]; then
	"$top/scripts/check-log.pl" --summary "$logs" | tee "$logs/summary.log"
fi
exit "$status"

#!/usr/bin/env bash
# SPDX-License-Identifier: MIT
# Asks whether the scenarios catch a kernel that is wrong on purpose, in TAP: catch.sh [--runs N] [--gen GEN]... [--fault NAME]... [--built] broken|historic|VARIANT...
#
# A broken variant (broken-NAME: a bug this project made, uml-kernel/broken/) is caught when, in each of N runs of
# the whole suite (default 1), some scenario run ends FAILED: an expectation failed. A crash, a timeout or an error
# of the set-up says nothing about whether the suite can tell the kernel is wrong, so it is listed and not counted;
# the exception is a broken race (its generation's "broken-races" key), whose use of freed memory or unlocked flush
# the forced races turn into a kernel report (KASAN, lockdep, RCU), so a CRASHED run counts too.
# A historic variant (historic-NAME: a real fault of the API's history, uml-kernel/historic/corpus) gives two
# results: its corpus "catch" scenario passes in every one of N runs (default 10) on the generation's full kernel,
# and ends FAILED in every one on the historic kernel, or, where the corpus says "caught CRASHED ERE", CRASHED with
# the kernel's own report matching ERE. A race's interleaving is forced by its scenario, so N of N is the verdict.
#
# The words broken and historic name sets: "broken" is the broken and broken-races keys of each --gen (default: the
# default generation), "historic" the historic key of each --gen (default: every generation), of which --fault
# (again for more) keeps only the faults named. Each variant is built first (uml-kernel/build.sh, and its modules),
# unless --built says to use the kernels already built and build nothing. The verdicts come from the runner's JSON
# report; the run's own output is kept only as a diagnostic of a failure. BROKEN_SCENARIOS='FILE|DIR...' runs those
# instead of scenarios/ on a broken kernel (a smoke that has one fault's file).
set -uo pipefail
top=$(cd "$(dirname "$0")/.." && pwd)
BUILD=${BUILD:-$top/build}
UMLBED=${UMLBED:-$BUILD/runner/umlbed}
gen_sh=$top/uml-kernel/generation.sh
corpus=$top/uml-kernel/historic/corpus
. "$top/tests/lib/tap.sh"
usage="usage: catch.sh [--runs N] [--gen GEN]... [--fault NAME]... [--built] broken|historic|VARIANT..."

# refuse MESSAGE: bad input is refused before any build.
refuse() { echo "catch.sh: $1" >&2; exit 2; }

runs_given=
runs=
gens=()
only=()
built=0
while [ $# -gt 0 ]; do
	case $1 in
	--runs) runs_given=${2:?$usage}; shift 2 ;;
	--gen) gens+=("${2:?$usage}"); shift 2 ;;
	--fault) only+=("${2:?$usage}"); shift 2 ;;
	--built) built=1; shift ;;
	-h | --help) sed -n '3,/^set -uo pipefail$/{/^set /d;s/^# \{0,1\}//;p}' "$0"; exit 0 ;;
	-*) refuse "unknown option $1 ($usage)" ;;
	*) break ;;
	esac
done
[ $# -gt 0 ] || refuse "nothing to catch ($usage)"
[ -z "$runs_given" ] || [[ $runs_given =~ ^[1-9][0-9]*$ ]] || refuse "--runs wants a positive count, not '$runs_given'"
for f in "${only[@]}"; do
	grep -qx "fault $f" "$corpus" || refuse "no fault $f in uml-kernel/historic/corpus"
done
for g in "${gens[@]}"; do
	"$gen_sh" get "$g" suffix >/dev/null 2>&1 || refuse "no generation $g (uml-kernel/generations/)"
done

# The variants to catch, in the order named; a set word expands to its generations' keys.
variants=()
for w in "$@"; do
	case $w in
	broken)
		gs=("${gens[@]}")
		[ ${#gs[@]} -gt 0 ] || gs=("$("$gen_sh" default)")
		for g in "${gs[@]}"; do
			read -ra vs <<<"$("$gen_sh" get "$g" broken) $("$gen_sh" get "$g" broken-races)"
			variants+=("${vs[@]}")
		done
		;;
	historic)
		gs=("${gens[@]}")
		[ ${#gs[@]} -gt 0 ] || mapfile -t gs < <("$gen_sh" list)
		for g in "${gs[@]}"; do
			read -ra vs <<<"$("$gen_sh" get "$g" historic)"
			variants+=("${vs[@]}")
		done
		;;
	*)
		"$gen_sh" of "$w" >/dev/null 2>&1 || refuse "no variant $w (uml-kernel/variants/)"
		variants+=("$w")
		;;
	esac
done
for v in "${variants[@]}"; do
	case $("$gen_sh" base "$v") in
	broken-* | historic-*) ;;
	*) refuse "$v is neither a broken nor a historic variant: nothing says what must catch it" ;;
	esac
done
command -v jq >/dev/null || refuse "jq is missing to read the runner's report (Debian package jq)"
[ -x "$UMLBED" ] || refuse "no runner $UMLBED (make runner)"

read -ra scenarios <<<"${BROKEN_SCENARIOS:-$top/scenarios}"
# Failed runs keep their folders; here failures are the point, so they go to a private folder that goes away.
scratch=$(mktemp -d "${TMPDIR:-/tmp}/umlbed-catch.XXXXXX")
trap 'rm -rf "$scratch"' EXIT
trap 'exit 130' INT TERM

status=0
# result STATUS DESCRIPTION: the next TAP result; any failure fails the whole run.
result() { ok "$@"; [ "$1" = 0 ] || status=1; }

# field FAULT KEY: the value of KEY in FAULT's block of the corpus.
field() {
	awk -v f="$1" -v k="$2" '
		$1 == "fault" { on = ($2 == f); next }
		on && $1 == k { sub(/^[^[:space:]]+[[:space:]]+/, ""); print; exit }' "$corpus"
}

# kernel VARIANT: builds VARIANT (or, with --built, finds it built) and prints its UML binary; a failure is a
# diagnostic and a non-zero status.
kernel() {
	local bin=$BUILD/kernel/$1/obj/linux
	if [ $built = 1 ]; then
		[ -x "$bin" ] || { echo "no kernel $bin (--built builds nothing)" | diag; return 1; }
	elif ! "$top/uml-kernel/build.sh" "$1" >"$scratch/build.log" 2>&1; then
		tail -n 20 "$scratch/build.log" | diag
		return 1
	else
		# A scenario that needs the test modules skips without them; that is not a reason to stop here.
		make -s -C "$top/uml-kernel/modules" VARIANT="$1" >/dev/null 2>&1 || true
	fi
	echo "$bin"
}

# run KERNEL TARGET... [-- PARAM...]: runs the runs of the TARGETs (files or folders) N times on KERNEL, each time
# with catch_run=I in its name, into the report $scratch/r.json.
run() {
	local kernel=$1 i
	shift
	local targets=() args=()
	while [ $# -gt 0 ] && [ "$1" != -- ]; do targets+=("$1"); shift; done
	[ $# = 0 ] || shift
	for p in "$@"; do args+=(--param "$p"); done
	for ((i = 1; i <= runs; i++)); do args+=(--param "catch_run=$i"); done
	rm -f "$scratch/r.json"
	TMPDIR=$scratch "$UMLBED" run -j auto --kernel "$kernel" --json "$scratch/r.json" "${args[@]}" "${targets[@]}" \
		>"$scratch/out" 2>&1
	jq -e '(.results | type) == "array"' "$scratch/r.json" >/dev/null 2>&1 && return 0
	echo "the runner wrote no report; its last words:" | diag
	tail -n 20 "$scratch/out" | diag
	return 1
}

# counts: the count of each verdict in the report, as "10 FAILED, 2 ok".
counts() { jq -r '[.results[].verdict] | group_by(.) | map("\(length) \(.[0])") | join(", ")' "$scratch/r.json"; }

# show JQ-FILTER [JQ-ARG...]: the runs the filter keeps, with the first lines of their diagnostics, as TAP
# diagnostics.
show() {
	jq -r "${@:2}" "$1"' | "\(.name): \(.verdict)", (.diag // "" | split("\n") | map(select(. != "")) | .[:8][] | "  " + .)' \
		"$scratch/r.json" | head -n 40 | diag
}

# catch_broken VARIANT: some scenario run catches VARIANT in each of the N runs of the suite.
catch_broken() {
	local v=$1 bin verdicts=FAILED r caught
	bin=$(kernel "$v") || { result 1 "$v builds"; return; }
	for r in $("$gen_sh" get "$("$gen_sh" of "$v")" broken-races); do
		[ "$r" = "$v" ] && verdicts='FAILED|CRASHED'
	done
	run "$bin" "${scenarios[@]}" || { result 1 "$v is caught ($verdicts): the suite ran"; return; }
	local catching='($c | split("|")) as $c | .results[] | select(.verdict | IN($c[]))'
	local other='($c | split("|")) as $c | .results[] |
		select(.verdict != "ok" and .verdict != "SKIP" and (.verdict | IN($c[]) | not))'
	# The repetitions (catch_run=I) in which some run was caught.
	caught=$(jq -r --arg c "$verdicts" "[$catching | .name | capture(\"catch_run=(?<i>[0-9]+)\").i] | unique | length" \
		"$scratch/r.json")
	[ "$caught" = 0 ] || {
		echo "caught by:"
		jq -r --arg c "$verdicts" "$catching | \"  \" + .name" "$scratch/r.json" | head -n 20
	} | diag
	[ -z "$(jq -r --arg c "$verdicts" "$other | .name" "$scratch/r.json")" ] || {
		echo "other non-ok runs (not counted):" | diag
		show "$other" --arg c "$verdicts"
	}
	[ "$caught" = "$runs" ]
	result $? "$v is caught ($verdicts) in $caught of $runs runs of the suite (got: $(counts))"
}

# catch_historic VARIANT: the fixed kernel passes the fault's catching scenario in every run, VARIANT fails it in
# every run.
catch_historic() {
	local v=$1 g name file params what bin fixed fixed_bin got want report
	g=$("$gen_sh" of "$v")
	name=$("$gen_sh" base "$v")
	name=${name#historic-}
	read -r file params <<<"$(field "$name" catch)"
	what="$name on $g (fix $(field "$name" fix | cut -d' ' -f1), $(field "$name" release | cut -d' ' -f1))"
	if [ -z "$file" ] || [ ! -f "$top/$file" ]; then
		result 1 "$what: the corpus names a catching scenario that exists ('$file')"
		return
	fi
	bin=$(kernel "$v") || { result 1 "$what: the historic kernel $v builds"; return; }
	fixed=full$("$gen_sh" get "$g" suffix)
	# shellcheck disable=SC2086 # params is a list of KEY=VALUE words.
	if fixed_bin=$(kernel "$fixed") && run "$fixed_bin" "$top/$file" -- $params; then
		got=$(counts)
		[ "$got" = "$runs ok" ] || show '.results[] | select(.verdict != "ok")'
	else
		got=
	fi
	[ "$got" = "$runs ok" ]
	result $? "$what: the fixed kernel ($fixed) passes ${file##*/} [$params] in $runs of $runs runs (got: ${got:-no report})"
	read -r want report <<<"$(field "$name" caught)"
	want=${want:-FAILED}
	# shellcheck disable=SC2086 # params is a list of KEY=VALUE words.
	if run "$bin" "$top/$file" -- $params; then
		got=$(counts)
	else
		got=
	fi
	local rc=1
	if [ "$got" = "$runs $want" ]; then
		rc=0
		[ -z "$report" ] || jq -e --arg re "$report" '[.results[].diag // "" | test($re)] | all' "$scratch/r.json" \
			>/dev/null || rc=1
	fi
	[ $rc = 0 ] || [ -z "$got" ] || show '.results[] | select(.verdict != $w or ($re != "" and (.diag // "" | test($re) | not)))' \
		--arg w "$want" --arg re "$report"
	local how=$want
	[ -z "$report" ] || how="$want with the kernel's report /$report/"
	result $rc "$what: $v is caught ($how) by ${file##*/} [$params] in $runs of $runs runs (got: ${got:-no report})"
}

echo "TAP version 13"
for v in "${variants[@]}"; do
	base=$("$gen_sh" base "$v")
	if [ "${base#broken-}" != "$base" ]; then
		runs=${runs_given:-1}
		catch_broken "$v"
	else
		name=${base#historic-}
		[ ${#only[@]} -eq 0 ] || [[ " ${only[*]} " == *" $name "* ]] || continue
		runs=${runs_given:-10}
		catch_historic "$v"
	fi
done
echo "1..$n"
exit $status

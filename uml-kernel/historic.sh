#!/usr/bin/env bash
# Re-finds the real faults of uml-kernel/historic/corpus: each historic kernel must fail its catching scenario in every run, the fixed kernel pass it: historic.sh [--runs N] [--fault NAME]... [GEN...].
#
# For each generation (default: every one) and each variant its "historic" key names (historic-NAME, with the
# generation's suffix, whose last patch is uml-kernel/historic/GEN/NAME.patch), the variant is built, then its
# "catch" scenario runs N times (default 10) on the generation's full kernel and N times on the historic one. Each
# fault is two TAP results: every run on the fixed kernel is ok (the scenario can see the fixed behaviour), and every
# run on the historic kernel is FAILED (an expectation caught it; a crash, timeout or error of the set-up does not
# count), or, where the corpus says "caught CRASHED ERE", CRASHED with the kernel's own report matching ERE in every
# run. A race's interleaving is forced by its scenario (the schedule points), so 10 of 10 is the verdict, not luck.
# The verdicts are read from the runner's JSON report.
set -uo pipefail
top=$(cd "$(dirname "$0")/.." && pwd)
BUILD=${BUILD:-$top/build}
UMLBED=${UMLBED:-$BUILD/runner/umlbed}
gen_sh=$top/uml-kernel/generation.sh
corpus=$top/uml-kernel/historic/corpus
runs=10
# --fault NAME (again for more): only those faults of the corpus, for the loop of adding one.
only=()
while [ $# -gt 0 ]; do
	case $1 in
	--runs) runs=${2:?usage: historic.sh [--runs N] [--fault NAME]... [GEN...]}; shift 2 ;;
	--fault) only+=("${2:?usage: historic.sh [--runs N] [--fault NAME]... [GEN...]}"); shift 2 ;;
	*) break ;;
	esac
done
for f in "${only[@]}"; do
	grep -qx "fault $f" "$corpus" || { echo "historic.sh: no fault $f in uml-kernel/historic/corpus" >&2; exit 2; }
done
[[ $runs =~ ^[1-9][0-9]*$ ]] || { echo "historic.sh: --runs wants a positive count, not '$runs'" >&2; exit 2; }
gens=("$@")
[ ${#gens[@]} -gt 0 ] || mapfile -t gens < <("$gen_sh" list)
command -v jq >/dev/null || { echo "historic.sh: jq is missing (Debian package jq)" >&2; exit 2; }
[ -x "$UMLBED" ] || { echo "historic.sh: no runner $UMLBED (make runner)" >&2; exit 2; }

# Failed runs keep their folders; here failures are the point, so they go to a private folder that goes away.
scratch=$(mktemp -d "${TMPDIR:-/tmp}/umlbed-historic.XXXXXX")
trap 'rm -rf "$scratch"' EXIT
trap 'exit 130' INT TERM

# field FAULT KEY: the value of KEY in FAULT's block of the corpus.
field() {
	awk -v f="$1" -v k="$2" '
		$1 == "fault" { on = ($2 == f); next }
		on && $1 == k { sub(/^[^[:space:]]+[[:space:]]+/, ""); print; exit }' "$corpus"
}

n=0
status=0
result() {
	n=$((n + 1))
	if [ "$1" = 0 ]; then echo "ok $n - $2"; else echo "not ok $n - $2"; status=1; fi
}

# verdicts KERNEL FILE PARAM...: runs FILE's chosen runs N times on KERNEL and prints the count of each verdict.
verdicts() {
	local kernel=$1 file=$2 i
	shift 2
	local args=()
	for p in "$@"; do args+=(--param "$p"); done
	for ((i = 1; i <= runs; i++)); do args+=(--param "historic_run=$i"); done
	rm -f "$scratch/r.json"
	TMPDIR=$scratch "$UMLBED" run -j auto --kernel "$kernel" --json "$scratch/r.json" "${args[@]}" "$top/$file" \
		>"$scratch/out" 2>&1
	jq -r '[.results[].verdict] | group_by(.) | map("\(length) \(.[0])") | join(", ")' "$scratch/r.json" 2>/dev/null
}

# diag WANT: the runs just made whose verdict is not WANT, with the first lines of their diagnostics, from the report
# (or the runner's output when it wrote none), as TAP comments.
diag() {
	if [ -f "$scratch/r.json" ]; then
		jq -r --arg w "$1" '.results[] | select(.verdict != $w) |
			"\(.name): \(.verdict)", (.diag // "" | split("\n") | map(select(. != "")) | .[:8][] | "  " + .)' \
			"$scratch/r.json" | head -n 40
	else
		tail -n 20 "$scratch/out"
	fi | sed 's/^/# /'
}

# caught: the historic runs just made (got, the report's verdict counts) all ended as wanted, and a CRASHED one with
# the kernel's report matching the corpus's ERE.
caught() {
	[ "$got" = "$runs $want" ] || return 1
	[ "$want" = CRASHED ] || return 0
	jq -e --arg re "$report" '[.results[].diag // "" | test($re)] | all' "$scratch/r.json" >/dev/null
}

echo "TAP version 13"
for g in "${gens[@]}"; do
	suffix=$("$gen_sh" get "$g" suffix) || exit 2
	fixed=$BUILD/kernel/full$suffix/obj/linux
	for v in $("$gen_sh" get "$g" historic); do
		name=$("$gen_sh" base "$v")
		name=${name#historic-}
		[ ${#only[@]} -eq 0 ] || [[ " ${only[*]} " == *" $name "* ]] || continue
		read -r file params <<<"$(field "$name" catch)"
		what="$name on $g (fix $(field "$name" fix | cut -d' ' -f1), $(field "$name" release | cut -d' ' -f1))"
		if [ -z "$file" ] || [ ! -f "$top/$file" ]; then
			result 1 "$what: the corpus names a catching scenario that exists ('$file')"
			continue
		fi
		if ! "$top/uml-kernel/build.sh" "$v" >"$scratch/build.log" 2>&1; then
			sed 's/^/# /' "$scratch/build.log" | tail -n 20
			result 1 "$what: the historic kernel $v builds"
			continue
		fi
		"$top/uml-kernel/build.sh" "full$suffix" >/dev/null 2>&1 || { result 1 "$what: the fixed kernel full$suffix builds"; continue; }
		# shellcheck disable=SC2086 # params is a list of KEY=VALUE words.
		got=$(verdicts "$fixed" "$file" $params)
		[ "$got" = "$runs ok" ] || diag ok
		[ "$got" = "$runs ok" ]
		result $? "$what: the fixed kernel (full$suffix) passes ${file##*/} [$params] in $runs of $runs runs (got: ${got:-no report})"
		read -r want report <<<"$(field "$name" caught)"
		want=${want:-FAILED}
		# shellcheck disable=SC2086
		got=$(verdicts "$BUILD/kernel/$v/obj/linux" "$file" $params)
		caught || diag "$want"
		caught
		rc=$?
		how=$want
		[ -n "$report" ] && how="$want with the kernel's report /$report/"
		result $rc "$what: $v is caught ($how) by ${file##*/} [$params] in $runs of $runs runs (got: ${got:-no report})"
	done
done
echo "1..$n"
exit $status

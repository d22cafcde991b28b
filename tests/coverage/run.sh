#!/usr/bin/env bash
# make coverage: runs the scenario suite on a gcov kernel and reports the series' coverage: run.sh [GEN] [SCENARIO...].
#
# The kernel is BUILD/kernel/coverage(-6.12)/obj/linux (uml-kernel/variants/coverage*). Each run's instances write
# their gcov data under BUILD/coverage/VARIANT/runs (umlbed run --coverage); report.pl sums them and writes
# BUILD/coverage/VARIANT/report/{summary.txt,series.info,series.totals,html/}. Fails when a scenario fails or
# when the series' coverage is below tests/coverage/threshold.
set -euo pipefail

top=$(cd "$(dirname "$0")/../.." && pwd)
BUILD=${BUILD:-$top/build}
gen=${1:-6.1}
[ $# -gt 0 ] && shift
case $gen in
6.1) variant=coverage ;;
6.12) variant=coverage-6.12 ;;
*) echo "run.sh: generation 6.1 or 6.12 (got '$gen')" >&2; exit 2 ;;
esac
scenarios=("$@")
[ ${#scenarios[@]} -gt 0 ] || scenarios=("$top/scenarios/")
vdir=$BUILD/kernel/$variant
[ -x "$vdir/obj/linux" ] || { echo "run.sh: no $vdir/obj/linux (uml-kernel/build.sh $variant)" >&2; exit 2; }
out=$BUILD/coverage/$variant
pristine=$("$top/uml-kernel/build.sh" --tree "$gen")

# The series' source files: the .c files its patches touch (patches/GEN/series).
mapfile -t files < <(grep -v -e '^#' -e '^[[:space:]]*$' "$top/patches/$gen/series" |
	while read -r p; do sed -n 's|^+++ b/\([^[:space:]]*\.c\)$|\1|p' "$top/patches/$gen/$p"; done | sort -u)

# Every report starts from no data: runs of an older build or an earlier suite must not add up with these.
rm -rf "$out/runs" "$out/report"
mkdir -p "$out"
status=0
"$BUILD/runner/umlbed" run -j "${JOBS:-auto}" --variant "$variant" --coverage="$out/runs" "${scenarios[@]}" ||
	status=$?
args=(--runs "$out/runs" --obj "$vdir/obj" --src "$vdir/src" --pristine "$pristine" --out "$out/report"
	--threshold "$top/tests/coverage/threshold" --unreachable "$top/tests/coverage/unreachable")
for f in "${files[@]}"; do args+=(--series-file "$f"); done
"$top/tests/coverage/report.pl" "${args[@]}" || status=1
exit $status

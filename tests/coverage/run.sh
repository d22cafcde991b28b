#!/usr/bin/env bash
# make coverage: runs the scenario suite on a gcov kernel and reports the series' coverage: run.sh [GEN] [SCENARIO...].
#
# GEN defaults to the default generation; the kernel is BUILD/kernel/VARIANT/obj/linux, VARIANT being the generation's
# "coverage" variant (uml-kernel/generations/GEN: coverage, coverage-6.12, ...). Each run's instances write
# their gcov data under BUILD/coverage/VARIANT/runs (umlbed run --coverage); report.pl sums them and writes
# BUILD/coverage/VARIANT/report/{summary.txt,series.info,series.totals,html/}. Fails when a scenario fails or
# when the series' coverage is below tests/coverage/threshold.
set -euo pipefail

top=$(cd "$(dirname "$0")/../.." && pwd)
BUILD=${BUILD:-$top/build}
generation=$top/uml-kernel/generation.sh
gen=${1:-$("$generation" default)}
[ $# -gt 0 ] && shift
variant=$("$generation" get "$gen" coverage)
series=$top/$("$generation" get "$gen" series)
scenarios=("$@")
[ ${#scenarios[@]} -gt 0 ] || scenarios=("$top/scenarios/")
vdir=$BUILD/kernel/$variant
[ -x "$vdir/obj/linux" ] || { echo "run.sh: no $vdir/obj/linux (uml-kernel/build.sh $variant)" >&2; exit 2; }
out=$BUILD/coverage/$variant
pristine=$("$top/uml-kernel/build.sh" --tree "$gen")

# The series' source files: the .c files its patches touch (the generation's series folder, e.g. patches/6.1/series).
mapfile -t files < <(grep -v -e '^#' -e '^[[:space:]]*$' "$series/series" |
	while read -r p; do sed -n 's|^+++ b/\([^[:space:]]*\.c\)$|\1|p' "$series/$p"; done | sort -u)

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

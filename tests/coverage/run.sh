#!/usr/bin/env bash
# SPDX-License-Identifier: MIT
# make coverage: runs the scenario suite on a gcov kernel and reports the series' coverage: run.sh [GEN] [SCENARIO...].
#
# GEN defaults to the default generation; the kernel is BUILD/kernel/VARIANT/obj/linux, VARIANT being the generation's
# "coverage" variant (uml-kernel/generations/GEN: coverage, coverage-6.12, ...). Each run's instances write
# their gcov data under BUILD/coverage/VARIANT/runs (umlbed run --coverage) and the runner's report to
# BUILD/coverage/VARIANT/suite.json; report.pl sums them and writes BUILD/coverage/VARIANT/report/{summary.txt,
# reach.txt,reach-lines.json,series.info,series.totals,html/}: reach.txt is what make mutate reads to choose a
# mutant's runs. Fails when a scenario fails or when the series' coverage is below the gate (tests/coverage/threshold,
# or the file COVERAGE_THRESHOLD names: make check's smoke runs a few scenarios, which reach less).
set -euo pipefail

top=$(cd "$(dirname "$0")/../.." && pwd)
BUILD=${BUILD:-$top/build}
generation=$top/uml-kernel/generation.sh
gen=${1:-$("$generation" default)}
[ $# -gt 0 ] && shift
variant=$("$generation" get "$gen" coverage)
scenarios=("$@")
[ ${#scenarios[@]} -gt 0 ] || scenarios=("$top/scenarios/")
vdir=$BUILD/kernel/$variant
[ -x "$vdir/obj/linux" ] || { echo "run.sh: no $vdir/obj/linux (uml-kernel/build.sh $variant)" >&2; exit 2; }
out=$BUILD/coverage/$variant
pristine=$("$top/uml-kernel/build.sh" --tree "$gen")

# The series' source files: the .c files its patches touch (the generation's series folder, e.g. patches/6.1/series,
# as generation.sh reads it).
mapfile -t files < <("$generation" series "$("$generation" get "$gen" series)" |
	while read -r p; do sed -n 's|^+++ b/\([^[:space:]]*\.c\)$|\1|p' "$top/$p"; done | sort -u)

# Every report starts from no data: runs of an older build or an earlier suite must not add up with these.
rm -rf "$out/runs" "$out/report" "$out/suite.json"
mkdir -p "$out"
status=0
"$BUILD/runner/umlbed" run -j "${JOBS:-auto}" --variant "$variant" --coverage="$out/runs" --json "$out/suite.json" \
	"${scenarios[@]}" || status=$?
args=(--runs "$out/runs" --obj "$vdir/obj" --src "$vdir/src" --pristine "$pristine" --out "$out/report"
	--threshold "${COVERAGE_THRESHOLD:-$top/tests/coverage/threshold}" --unreachable "$top/tests/coverage/unreachable")
# The runs' scenario files, for reach-lines.json: from the runner's report, if it wrote one.
[ ! -s "$out/suite.json" ] || args+=(--results "$out/suite.json")
for f in "${files[@]}"; do args+=(--series-file "$f"); done
"$top/tests/coverage/report.pl" "${args[@]}" || status=1
exit $status

#!/usr/bin/env bash
# SPDX-License-Identifier: MIT
# merge.t: the coverage kernel's data, per run folder, sums to the same series totals from -j 2 runs as from -j 1.
# Also: each run folder is named after its run and has one vmN folder per instance, and a kernel that is killed
# rather than powered off is reported as having lost its data.
# Its subject is the kernel's coverage data, not the runner: it drives the runner's build without sanitizers.
PLAIN_RUNNER=1
. "$(dirname "$0")/../runner/common.sh"
# The default generation's coverage variant (uml-kernel/generations/), which make check builds.
GEN=$("$SRC/uml-kernel/generation.sh" default)
COV=$("$SRC/uml-kernel/generation.sh" get "$GEN" coverage)
KERNEL=$BUILD/kernel/$COV/obj/linux
if [ ! -x "$KERNEL" ] || [ ! -f "$BUILD/guest/umlbed-agent" ] || [ ! -x "$UMLBED" ]; then
  prereq_skip_all "no coverage kernel ($KERNEL; uml-kernel/build.sh $COV), agent or runner ($UMLBED)"
fi
command -v gcov >/dev/null || prereq_skip_all "no gcov (Debian package gcc)"
need_jq
echo "1..19"
S=$SRC/scenarios
# Scenarios whose trigger calls do not depend on timing: the same lines run however the runs are scheduled.
set -- "$S/trigger-input.lua" "$S/rounding.lua" "$S/zero-length.lua" "$S/shared-refault.lua"
pristine=$("$SRC/uml-kernel/build.sh" --tree "$GEN")
report() {
  "$SRC/tests/coverage/report.pl" --runs "$1" --obj "$BUILD/kernel/$COV/obj" --src "$BUILD/kernel/$COV/src" \
    --pristine "$pristine" --out "$2" --no-html --series-file mm/memory.c --series-file mm/invalidate_mmap_range_sysfs.c \
    "${@:3}"
}
for j in 1 2; do
  run run -j "$j" --variant "$COV" --coverage="$T/cov$j" "$@"
  check "-j $j: the runs pass on the coverage kernel (exit 0)" [ "$rc" = 0 ]
  [ "$rc" = 0 ] || { diag "$T/out"; diag "$T/err"; }
  runs=$(count ok)
  check "-j $j: one coverage folder per run ($runs runs)" [ "$(find "$T/cov$j" -mindepth 1 -maxdepth 1 | wc -l)" = "$runs" ]
  check "-j $j: no run lost its data: every instance wrote some" \
    jtrue '[.results[].coverage | .lost == 0 and .written >= 1] | all'
  report "$T/cov$j" "$T/rep$j" >"$T/sum$j" 2>&1
  check "-j $j: report.pl sums the runs (exit 0)" [ $? = 0 ]
  [ -s "$T/rep$j/series.totals" ] || diag "$T/sum$j"
done
# Every miss of the subset, with a reason: the input of the gate's passing case below.
sed -n 's/^  \([^:]*\):[0-9]* (\([^)]*\)) .*never [a-z]*: \(.*\)$/\1\t\2\t\3\treason/p' "$T/sum1" >"$T/all-reasons"
first=$(find "$T/cov1" -mindepth 1 -maxdepth 1 -printf '%f\n' | sort | head -n 1)
check "a run's folder holds its label and vm0/mm/memory.gcda" \
  test -s "$T/cov1/$first/label" -a -s "$T/cov1/$first/vm0/mm/memory.gcda"
check "the series has lines and branches the runs reach" \
  awk '$1 == "lines_hit" && $2 > 0 { l = 1 } $1 == "branches_hit" && $2 > 0 { b = 1 } END { exit !(l && b) }' \
  "$T/rep1/series.totals"
# The same lines of the series reached, and the same hit and total counts: -j 2 loses and double-counts nothing.
grep -v '^runs ' "$T/rep1/series.totals" >"$T/t1"
grep -v '^runs ' "$T/rep2/series.totals" >"$T/t2"
check "-j 1 and -j 2 give the same series totals and the same lines hit" cmp -s "$T/t1" "$T/t2"
cmp -s "$T/t1" "$T/t2" || diff "$T/t1" "$T/t2" | head -20 | diag

# The gate: a threshold above what was reached fails, and so does a miss without a reason.
printf 'lines 101\n' >"$T/th-high"
report "$T/cov1" "$T/rep-high" --threshold "$T/th-high" >"$T/gate1" 2>&1
check "the gate fails below its line threshold (exit 1)" [ $? = 1 ]
check "... and says so" grep -q 'coverage gate: series lines .* is below the threshold 101%' "$T/gate1"
printf 'unexplained 0\n' >"$T/th-unexp"
: >"$T/no-reasons"
report "$T/cov1" "$T/rep-unexp" --threshold "$T/th-unexp" --unreachable "$T/no-reasons" >"$T/gate2" 2>&1
check "the gate fails on a miss without a reason (exit 1)" [ $? = 1 ]
report "$T/cov1" "$T/rep-ok" --threshold "$T/th-unexp" --unreachable "$T/all-reasons" >"$T/gate3" 2>&1
check "... and passes once every miss has one" [ $? = 0 ]
grep -q 'gate: passed' "$T/gate3" || diag "$T/gate3"

# A failed run says whether its coverage survived: a timeout still powers the instance off, a panic exits UML through
# exit(); both write their data. (An instance that does not power off within the limit is killed: "wrote no gcov
# data".)
run run --variant "$COV" --coverage="$T/cov3" --timeout 5 "$SCEN/uml-hang.lua"
check "a hung run times out" verdict_is "hung guest is TIMEOUT" TIMEOUT
check "... powers off all the same: its one instance wrote its data" \
  jtrue '.results[0].coverage | .written == 1 and .lost == 0'
run run --variant "$COV" --coverage="$T/cov4" "$SCEN/uml-panic.lua"
check "a panic is CRASHED" verdict_is "guest panic is CRASHED" CRASHED
check "... and its one instance wrote its data" jtrue '.results[0].coverage | .written == 1 and .lost == 0'

#!/usr/bin/env bash
# SPDX-License-Identifier: MIT
# reach.t: the smoke of make coverage and make mutate: coverage's script on a few scenarios writes its report and the reach data, and mutate.pl judges one mutant with its runs chosen by that data.
#
# make coverage runs the whole suite on the gcov kernel and make mutate hundreds of mutants: neither fits in make
# check, and both rotted unseen once they left it (the coverage kernel lost GCOV, so mutate.pl found no reach data
# and ran the whole suite for every mutant without anyone asking why). Here tests/coverage/run.sh, the script of make
# coverage, runs four scenario files on the default generation's coverage kernel (make check-slow builds it: a cold
# gcov build with DWARF is more than make check's budget has room for; make check configures it) with a
# gate of the smoke's own (the committed one is for the whole suite), and mutate.pl run, the command of make
# mutate, judges one mutant of the series with the full variant (judge's configuration would be a cold build) by
# the same files. Both run with BUILD=BUILD/targets, a folder of links to the build's kernels, runner, agent and
# sources with coverage/ and mutate/ of its own: the reach data lands where mutate.pl reads it without replacing a
# user's make coverage report, and the mutate tree keeps one path, so kbuild finds it up to date the next time.
# Costs: the four files on the gcov kernel, the mutate tree's first build (ccache hits from full's objects; a copy
# from the kernel cache in a warm clean room), one object and a link for the mutant, and its runs.
PLAIN_RUNNER=1
. "$(dirname "$0")/../runner/common.sh"
gen_sh=$SRC/uml-kernel/generation.sh
GEN=$("$gen_sh" default)
COV=$("$gen_sh" get "$GEN" coverage)
if [ ! -x "$BUILD/kernel/$COV/obj/linux" ] || [ ! -x "$BUILD/kernel/full/obj/linux" ] ||
  [ ! -f "$BUILD/guest/umlbed-agent" ] || [ ! -x "$UMLBED" ]; then
  prereq_skip_all "no coverage or full kernel ($BUILD/kernel/$COV, $BUILD/kernel/full: make check-slow and make check build them), agent or runner"
fi
command -v gcov >/dev/null || prereq_skip_all "no gcov (Debian package gcc)"
need_jq

S=$BUILD/targets
mkdir -p "$S/coverage" "$S/mutate"
for d in kernel runner guest src; do
  [ -L "$S/$d" ] || ln -sfn "$BUILD/$d" "$S/$d"
done
SC=$SRC/scenarios
# Scenarios whose trigger calls do not depend on timing (merge.t's): the reach data is the same on every run.
FILES=("$SC/trigger-input.lua" "$SC/rounding.lua" "$SC/zero-length.lua" "$SC/shared-refault.lua")

# ---- make coverage, on four files ----
printf 'lines 50\nbranches 25\nunexplained 1000\n' >"$T/threshold"
BUILD=$S COVERAGE_THRESHOLD=$T/threshold JOBS=2 "$SRC/tests/coverage/run.sh" "$GEN" "${FILES[@]}" >"$T/cov.out" 2>&1
rc=$?
check "make coverage's script on four scenario files (exit $rc)" [ "$rc" = 0 ]
[ "$rc" = 0 ] || diag "$T/cov.out"
R=$S/coverage/$COV/report
check "... its gate ran, on the smoke's threshold" grep -q '^coverage gate: passed' "$T/cov.out"
check "... its HTML report is written" [ -s "$R/html/index.html" ]
# reach.txt, in the format mutate.pl reads: "FUNCTION (FILE): N runs", then each run's name indented, a name that
# umlbed list gives for one of the files (mutate.pl maps names to files with umlbed list).
"$UMLBED" list "${FILES[@]}" | cut -f2 | sort >"$T/names"
check "reach.txt: the series' functions, each with the runs reaching it" \
  grep -qE '^invalidate_mmap_range[a-z_]* \(mm/memory\.c\): [1-9][0-9]* runs$' "$R/reach.txt"
sed -n 's/^  //p' "$R/reach.txt" | sort -u >"$T/reached"
check "reach.txt: its runs are runs of the four files, by the names umlbed list gives ($(wc -l <"$T/reached") names)" \
  eval '[ -s "$T/reached" ] && [ -z "$(comm -23 "$T/reached" "$T/names")" ]'
# reach-lines.json (docs/coverage.md): the runs executing each line, consistent with the line's count.
L=$R/reach-lines.json
check "reach-lines.json: format 1, every run with its scenario file, one of the four" \
  jq -e --arg s "$SC/" '.format == 1 and (.runs | length) > 0 and
    ([.runs[] | .file | startswith($s) and test("/(trigger-input|rounding|zero-length|shared-refault)\\.lua$")] | all)' "$L"
check "reach-lines.json: a line is executed by some run exactly when its count is not 0" \
  jq -e '[.files[][] | ((.count > 0) == ((.runs | length) > 0))] | all' "$L"
check "reach-lines.json: the series' lines are marked, and the runs reach some of them" \
  jq -e '[.files[][] | select(.series and (.runs | length) > 0)] | length > 0' "$L"

# ---- make mutate, one mutant, by the reach data above ----
# The mutant: the seed's last page of the hole one page further (hea = hba + hlen - 0), which rounding.lua's exact
# pages see. Found by its text, not its line number, which moves with the series.
id=$("$SRC/uml-kernel/mutate.pl" list --gen "$GEN" |
  awk -F'\t' 'index($1, ":const:") && index($2, "hea = hba + hlen - 1") && index($3, "hlen - 0") { print $1; exit }')
check "the mutant is in the list ($id)" [ -n "$id" ]
BUILD=$S "$SRC/uml-kernel/mutate.pl" run --gen "$GEN" --variant full --only "$id" "${FILES[@]/#/--scenario=}" \
  --out "$T/mutate" >"$T/mut.out" 2>"$T/mut.err"
rc=$?
check "make mutate's command, one mutant, judged by the full variant (exit $rc)" [ "$rc" = 0 ]
[ "$rc" = 0 ] || { diag "$T/mut.out"; tail -n 20 "$T/mut.err" | diag; tail -n 30 "$T/mutate/log.txt" 2>/dev/null | diag; }
# The words are what is tested: they are how make mutate tells its user that it chose runs by the reach data.
check "... reports that it chose the runs by make coverage's line reach" \
  grep -qF "mutate: line reach from $R/reach-lines.json (" "$T/mut.err"
check "... and does not say it has none" not grep -qE '^mutate: no (coverage|line) reach' "$T/mut.err"
M=$T/mutate/results.json
check "... results.json says which reach data it used" jq -e --arg f "line reach from $R/reach-lines.json (" \
  '.reach | type == "string" and startswith($f)' "$M"
check "... the mutant is killed, by a run of rounding.lua" \
  jq -e --arg id "$id" '[.results[] | select(.id == $id and .verdict == "killed" and
    ([.killed_by[].file] | any(endswith("rounding.lua"))))] | length == 1' "$M"
BUILD=$S "$SRC/uml-kernel/mutate.pl" report --gen "$GEN" --out "$T/report" "$M" >"$T/rep.out" 2>&1
rc=$?
check "make mutate's report and gate on that result (exit $rc)" [ "$rc" = 0 ]
[ "$rc" = 0 ] || diag "$T/rep.out"
echo "1..$n"

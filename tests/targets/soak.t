#!/usr/bin/env bash
# SPDX-License-Identifier: MIT
# soak.t: the smoke of make soak: bench/soak.sh, one condition and one suite run of one scenario file, passes, and fails on a scenario that fails.
#
# make soak runs the whole suite ten times under each of eight hostile conditions (-j, taskset, stress-ng
# neighbours, time travel): hours. Here bench/soak.sh runs one file once at -j 2, which must pass and say so, and a
# file whose run FAILS, which must fail the soak with its name.
PLAIN_RUNNER=1
. "$(dirname "$0")/../runner/common.sh"
if [ ! -x "$BUILD/kernel/full/obj/linux" ] || [ ! -f "$BUILD/guest/umlbed-agent" ] || [ ! -x "$UMLBED" ]; then
  prereq_skip_all "no full kernel, agent or runner ($BUILD: make check builds them)"
fi
SOAK_RUNS=1 SOAK_CONDITIONS=j2 UMLBED=$UMLBED "$SRC/bench/soak.sh" "$SRC/scenarios/rounding.lua" >"$T/soak.out" 2>&1
rc=$?
check "make soak's script, one condition, one run of rounding.lua (exit $rc)" [ "$rc" = 0 ]
[ "$rc" = 0 ] || diag "$T/soak.out"
# soak.sh's summary lines are its report to its user: their words are what is tested.
check "... its line says every scenario run was ok" grep -qE '^soak: j2 1/1: [1-9][0-9]* scenario runs, 0 skipped, 0 not ok,' "$T/soak.out"
SOAK_RUNS=1 SOAK_CONDITIONS=j2 UMLBED=$UMLBED "$SRC/bench/soak.sh" "$SCEN/fake-fail.lua" >"$T/fail.out" 2>&1
rc=$?
check "... and a scenario that fails fails the soak (exit $rc)" [ "$rc" != 0 ]
check "... naming the run" grep -q 'FAILED: fake fail' "$T/fail.out"
[ "$rc" != 0 ] || diag "$T/fail.out"
echo "1..$n"

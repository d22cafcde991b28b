# SPDX-License-Identifier: MIT
# tap.sh: the one TAP helper library of the shell tests (sourced): results, checks, diagnostics and skips.
# shellcheck shell=bash
# The count of results so far is $n; a test file prints its plan "1..$n" at the end (or first, if it knows it).
# Source tests/lib/strict.sh first: the skips for a missing prerequisite are failures under its strict mode.
n=0
# ok STATUS DESCRIPTION: the next result, passed when STATUS is 0.
ok() { n=$((n + 1)); if [ "$1" = 0 ]; then echo "ok $n - $2"; else echo "not ok $n - $2"; fi; }
# check DESCRIPTION COMMAND...: the next result, passed when COMMAND succeeds.
check() { desc=$1; shift; if "$@"; then ok 0 "$desc"; else ok 1 "$desc"; fi; }
# Diagnostics go to stderr, as Test::More's do: prove shows them next to a failure without --verbose.
diag() { sed 's/^/# /' "$@" >&2; }
# not COMMAND...: succeeds when COMMAND fails (a negative check must first show that its probe works).
not() { if "$@"; then return 1; else return 0; fi; }
# skip REASON [COUNT]: the next COUNT results (default 1) are SKIPs with REASON, under strict mode too, as
# Test::More's skip: what they check does not apply here (a kernel without lockdep, a variant only make broken
# builds). What CI must have is a prerequisite: prereq_skip.
skip() {
  local i
  for ((i = 0; i < ${2:-1}; i++)); do
    n=$((n + 1))
    echo "ok $n # SKIP $1"
  done
}
# prereq_skip REASON: the next result is a SKIP naming what is missing, or under strict mode a failure.
prereq_skip() { n=$((n + 1)); prereq_result "$n" "$1"; }
# prereq_skip_all REASON: ends the test file before its first result: a SKIP plan, or under strict mode a failure.
prereq_skip_all() {
  if strict; then
    echo "1..1"
    prereq_result 1 "$1"
    exit 1
  fi
  echo "1..0 # SKIP $1"
  exit 0
}

#!/usr/bin/env bash
# SPDX-License-Identifier: MIT
# phases.t: scripts/phases.pl, make check's table of phases: each row's seconds and status, and a total that is the wall time from the first start to the last end, so a phase run beside others is not counted twice.
. "$(dirname "$0")/../lib/strict.sh"
. "$(dirname "$0")/../lib/tap.sh"
top=$(cd "$(dirname "$0")/../.." && pwd)
P=$top/scripts/phases.pl
need_jq() { command -v jq >/dev/null || prereq_skip_all "no jq (Debian package jq)"; }
need_jq
T=$(mktemp -d "${TMPDIR:-/tmp}/phases-t.XXXXXX")
trap 'rm -rf "$T"' EXIT

# A run: its row has the command's status, and start <= end with seconds their difference.
"$P" start "$T/log"
"$P" run "$T/log" ok-phase -- true
check "run: a command that succeeds: exit 0" [ $? = 0 ]
"$P" run "$T/log" bad-phase -- sh -c 'exit 3'
rc=$?
check "run: a command that exits 3: exit 3 (got $rc)" [ "$rc" = 3 ]
check "run: two rows, with their status" \
  eval '[ "$(jq -sc "[.[] | [.phase, .status]]" "$T/log")" = "[[\"ok-phase\",0],[\"bad-phase\",3]]" ]'
check "run: each row has start <= end" eval '[ "$(jq -s "all(.[]; .start <= .end)" "$T/log")" = true ]'

# Made-up rows with known times: a 10 s phase, a 4 s one beside it, a 5 s one after: 15 s of wall, not 19.
printf '%s\n' '{"phase":"a","seconds":10,"status":0,"start":100,"end":110}' \
  '{"phase":"b","seconds":4,"status":0,"start":102,"end":106}' \
  '{"phase":"c","seconds":5,"status":1,"start":110,"end":115}' >"$T/made"
"$P" report "$T/made" "$T/made.json" >"$T/out"
check "report: the JSON's total is the wall time, 15 s (got $(jq .total_seconds "$T/made.json"))" \
  [ "$(jq .total_seconds "$T/made.json")" = 15 ]
check "report: ... and so is the table's" grep -qE '^total \(wall\) +15\.0$' "$T/out"
check "report: every phase is a row, a failed one with its status" \
  eval 'grep -qE "^a +10\.0  ok$" "$T/out" && grep -qE "^b +4\.0  ok$" "$T/out" && grep -qE "^c +5\.0  exit 1$" "$T/out"'
# An older log, whose rows have no times: the phases add up.
printf '%s\n' '{"phase":"a","seconds":10,"status":0}' '{"phase":"b","seconds":4,"status":0}' >"$T/old"
"$P" report "$T/old" "$T/old.json" >/dev/null
check "report: rows without times add up (14 s, got $(jq .total_seconds "$T/old.json"))" \
  [ "$(jq .total_seconds "$T/old.json")" = 14 ]
echo "1..$n"

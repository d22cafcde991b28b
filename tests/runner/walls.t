#!/usr/bin/env bash
# SPDX-License-Identifier: MIT
# walls.t: what the host kernel and the runner hold against a hostile scenario: it cannot order the reaper or the
# runner to remove a folder or kill a process group it did not start, nor write into the runner's TAP stream.
. "$(dirname "$0")/common.sh"
export UMLBED_FAKE=agent
F=(--fake-uml --kernel "$UMLBED_TEST" --agent "$UMLBED_TEST")
need_jq

# ---- A. Orders to the reaper and the runner, and the runner's TAP stream. ----
# The victims: a folder outside TMPDIR and a process group the test started, both seen before the run.
export VICTIM_DIR=$T/victim
mkdir -p "$VICTIM_DIR/inside"
mkfifo "$T/victim.fifo"
setsid sh -c 'exec cat "$0" >/dev/null' "$T/victim.fifo" &
exec 7>"$T/victim.fifo"
victim=$!
export VICTIM_PGID=$victim
check "A: the victim folder is there before the run" test -d "$VICTIM_DIR/inside"
check "A: the victim group is alive before the run" kill -0 -- "-$victim"
# Sandboxed, the scenario cannot read its own /proc files, so it cannot even find its runner's pid; with
# --unsafe-lua it can, and the runner's files are out of reach all the same.
for mode in sandbox unsafe; do
  extra=()
  [ "$mode" = unsafe ] && extra=(--unsafe-lua)
  grun run "${F[@]}" "${extra[@]}" "$SCEN/hostile-reaper.lua"
  check "A ($mode): the runner ended" [ "$hung" = 0 ]
  check "A ($mode): the scenario reached none of its runner's descriptors" verdict_is "hostile reaper orders" ok
  field "hostile reaper orders" diag | diag
  if [ "$mode" = unsafe ]; then
    check "A ($mode): ... having read its runner's pid" not grep -q 'pid is unknown' "$T/out"
  fi
  check "A ($mode): the victim folder outlived the runner and its reaper" test -d "$VICTIM_DIR/inside"
  check "A ($mode): the victim group outlived the runner and its reaper" kill -0 -- "-$victim"
  # The TAP stream is what is tested here: a forged line in it is the failure.
  check "A ($mode): nothing forged in the TAP stream" not grep -q forged "$T/out"
  check "A ($mode): no run folder left" [ "$(leftover_dirs)" = 0 ]
  rm -rf "$TMPDIR"/umlbed-*
done
exec 7>&-
wait "$victim" 2>/dev/null

# ---- B. Sandboxed Lua against its own process and the host's files. ----
# A folder outside TMPDIR that the scenario tries to write into; the test's own file there shows the probe sees it.
export HOSTILE_OUTSIDE=$T/lua-outside
mkdir -p "$HOSTILE_OUTSIDE"
: >"$HOSTILE_OUTSIDE/test-own"
check "B: the probe of the outside folder sees the test's own file" [ "$(ls -A "$HOSTILE_OUTSIDE")" = test-own ]
grun run "${F[@]}" "$SCEN/hostile-procmem.lua"
name="sandboxed Lua reaches neither its own /proc files nor files outside TMPDIR"
check "B: the scenario opened no /proc file of its own and wrote nothing outside TMPDIR (its control inside did)" \
  verdict_is "$name" ok
field "$name" diag | diag
check "B: nothing was made in the outside folder" [ "$(ls -A "$HOSTILE_OUTSIDE")" = test-own ]
check "B: no run folder left" [ "$(leftover_dirs)" = 0 ]

echo "1..$n"

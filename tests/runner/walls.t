#!/usr/bin/env bash
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
grun run "${F[@]}" "$SCEN/hostile-reaper.lua"
check "A: the runner ended" [ "$hung" = 0 ]
check "A: the scenario reached none of its runner's descriptors" verdict_is "hostile reaper orders" ok
field "hostile reaper orders" diag | diag
check "A: the victim folder outlived the runner and its reaper" test -d "$VICTIM_DIR/inside"
check "A: the victim group outlived the runner and its reaper" kill -0 -- "-$victim"
# The TAP stream is what is tested here: a forged line in it is the failure.
check "A: nothing forged in the TAP stream" not grep -q forged "$T/out"
check "A: no run folder left" [ "$(leftover_dirs)" = 0 ]
rm -rf "$TMPDIR"/umlbed-*
exec 7>&-
wait "$victim" 2>/dev/null

echo "1..$n"

#!/usr/bin/env bash
# SPDX-License-Identifier: MIT
# clean-room.t: scripts/clean-room.sh runs its command in fresh namespaces on a clone of HEAD, passes its exit status
# on, and leaves no process, mount or folder behind after an end, a Ctrl-C or a SIGKILL.
# The root here is a tiny busybox tarball (UMLBED_CLEAN_ROOM_TARBALL), so the test needs no mirror.
. "$(dirname "$0")/../runner/common.sh"
CR=$SRC/scripts/clean-room.sh
BUSYBOX=/bin/busybox

if [ "$(id -u)" != 0 ] || [ ! -x "$BUSYBOX" ] || ! git -C "$SRC" rev-parse -q --verify HEAD >/dev/null; then
  prereq_skip_all "clean-room.sh needs root, $BUSYBOX (busybox-static) and a git checkout"
fi

echo "1..25"
export UMLBED_CLEAN_ROOM_CACHE=$T/cache UMLBED_CLEAN_ROOM_OUT=$T/out
mkdir -p "$T/r/bin" "$T/r/etc" "$T/r/proc" "$T/r/sys" "$T/r/dev" "$T/r/tmp" "$T/r/root" "$T/r/var/cache/apt/archives"
cp "$BUSYBOX" "$T/r/bin/busybox"
for a in sh env date umount rmdir sleep cat ls grep tr; do ln -s busybox "$T/r/bin/$a"; done
tar -C "$T/r" -cf "$T/root.tar" .
export UMLBED_CLEAN_ROOM_TARBALL=$T/root.tar

# The probe for "a process is alive": the processes whose command line is exactly this, read from /proc itself.
procs() {
  local p
  for p in /proc/[0-9]*; do
    [ "$(tr '\0' ' ' 2>/dev/null <"$p/cmdline")" = "$1 " ] && echo "${p#/proc/}"
  done
  return 0
}
runs() { find "$T/cache/runs" -mindepth 1 -maxdepth 1 2>/dev/null | wc -l; }
mounted() { grep -c " $T/" /proc/self/mountinfo || true; }

# An end: the exit status, the output copied out, and a fresh PID namespace on a clone that does not see the host.
touch "$T/host-marker"
"$CR" --no-ccache -- "echo inside; cat /proc/1/cmdline | tr '\\0' ' '; echo; ls /proc | grep -c '^[0-9]'; \
  [ -e '$T/host-marker' ] && echo host-'visible'; [ -f /umlbed/scripts/clean-room.sh ] && echo cloned; \
  mkdir -p /umlbed/build/x /umlbed/build/check-logs/tests/x; echo report >/umlbed/build/x/r.json; \
  echo 'not ok 1 - kept' | tee /umlbed/build/check-logs/tests/x/a.t.tap >/umlbed/build/check-logs/tests/x/a.t.fail.log; \
  echo 'Result: PASS'; exit 7" >"$T/o1" 2>&1
rc=$?
check "an end: the command's exit status is the script's (7, got $rc)" [ "$rc" = 7 ]
check "an end: the command ran inside" grep -qx inside "$T/o1"
check "an end: PID 1 is the root's shell that runs the steps, in a PID namespace of its own" \
  grep -q '^/bin/sh -c for s do' "$T/o1"
check "an end: the step's time is said" grep -q '^clean-room: step "echo inside;.*" took [0-9]* s (exit 7)$' "$T/o1"
check "an end: the host's file is there on the host" [ -e "$T/host-marker" ]
check "an end: ... and not in the root" not grep -q host-visible "$T/o1"
check "an end: the command runs in a clone of HEAD" grep -qx cloned "$T/o1"
check "an end: the output is copied out" grep -qx inside "$T/out/run.log"
check "an end: the build folder's reports are copied out" grep -qx report "$T/out/logs/build/x/r.json"
check "an end: ... and make check's logs of each test file (check-logs/)" eval \
  'grep -qx "not ok 1 - kept" "$T/out/logs/build/check-logs/tests/x/a.t.tap" &&
    grep -qx "not ok 1 - kept" "$T/out/logs/build/check-logs/tests/x/a.t.fail.log"'
check "an end: prove's closing line is the last line" [ "$(tail -n 1 "$T/o1")" = "Result: PASS" ]
check "an end: no run folder is left" [ "$(runs)" = 0 ]
check "an end: nothing is left mounted" [ "$(mounted)" = 0 ]

# A command the root does not have: the failure names it, wherever it was said (here, in a log under build/).
"$CR" --no-ccache -- "mkdir -p /umlbed/build/x; nosuchcmd-umlbed 2>/umlbed/build/x/step.log; exit 127" >"$T/o4" 2>&1
rc=$?
check "a missing command: the exit status is the command's (127, got $rc)" [ "$rc" = 127 ]
check "... and the script names the missing command, found in a log" \
  grep -q '^clean-room: commands not found in the root (declare their packages in scripts/deps.sh): nosuchcmd-umlbed$' "$T/o4"

# Starts the script on a command that waits forever, in a process group of its own (job control) as a terminal's
# foreground job would be, and waits until the probe sees the command's process.
start_waiting() {
  set -m
  # With the stop signals at their defaults, as a terminal's job has them, whatever this test inherited: a script
  # cannot trap a signal that was ignored when it started.
  env --default-signal "$CR" --no-ccache -- "sleep 3001 & sleep 3002" >"$T/o2" 2>&1 &
  crpid=$!
  set +m
  local guard=$(($(date +%s) + $(scaled 60)))
  while [ -z "$(procs 'sleep 3002')" ] && [ "$(date +%s)" -lt "$guard" ] && kill -0 "$crpid" 2>/dev/null; do
    sleep 0.05
  done
}
# Waits until the probe no longer sees the command's processes (the namespace is torn down asynchronously).
wait_gone() {
  local guard=$(($(date +%s) + $(scaled 30)))
  while [ -n "$(procs 'sleep 3001')$(procs 'sleep 3002')" ] && [ "$(date +%s)" -lt "$guard" ]; do sleep 0.05; done
}

start_waiting
check "Ctrl-C: the probe sees the command's processes while they run" [ -n "$(procs 'sleep 3002')" ]
check "Ctrl-C: ... and the run folder" [ "$(runs)" = 1 ]
kill -INT "$crpid"
wait "$crpid"
rc=$?
wait_gone
check "Ctrl-C: the script exits 130 (got $rc)" [ "$rc" = 130 ]
check "Ctrl-C: no process of the command is left" [ -z "$(procs 'sleep 3001')$(procs 'sleep 3002')" ]
check "Ctrl-C: no run folder is left" [ "$(runs)" = 0 ]
check "Ctrl-C: nothing is left mounted" [ "$(mounted)" = 0 ]

start_waiting
check "SIGKILL: the probe sees the command's processes while they run" [ -n "$(procs 'sleep 3002')" ]
kill -KILL "$crpid"
{ wait "$crpid"; } 2>/dev/null
wait_gone
check "SIGKILL: no process of the command is left" [ -z "$(procs 'sleep 3001')$(procs 'sleep 3002')" ]
check "SIGKILL: nothing is left mounted" [ "$(mounted)" = 0 ]
left=$(runs)
"$CR" --no-ccache -- true >"$T/o3" 2>&1
check "SIGKILL: the killed run's folder stays until the next run ($left), which removes it and says so" \
  eval '[ "$left" = 1 ] && [ "$(runs)" = 0 ] && grep -q "left by a run that did not end" "$T/o3"'

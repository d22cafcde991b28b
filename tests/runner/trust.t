#!/usr/bin/env bash
# SPDX-License-Identifier: MIT
# trust.t: the trusted side trusts nothing the untrusted side can write: a scenario's (or a kernel's) attacks on what
# the runner reads, opens, signals or executes, each a finding that once got through, as root and as a user.
# Cost: the fake UML but for two boots of the full kernel in D; about 25 s on 2 cores, warm or cold.
. "$(dirname "$0")/common.sh"
export UMLBED_FAKE=agent
F=(--fake-uml --kernel "$UMLBED_TEST" --agent "$UMLBED_TEST")
need_jq
GUARD=$(scaled 60)
# What a scenario must not reach: a folder outside its walls, holding the test's own file, seen there first.
OUT=$T/outside
mkdir -p "$OUT"
: >"$OUT/victim"
outside_clean() {
  [ "$(ls -A "$OUT")" = victim ] && return 0
  echo "# outside: $(find "$OUT" -mindepth 1 -printf '%f ')"
  rm -f "$OUT"/[!v]*
  return 1
}
check "the probe of the outside folder sees the test's file" outside_clean
show() { diag "$T/out"; diag "$T/err"; }
clean() { rm -rf "$TMPDIR"/umlbed-*; }
# bg_run NAME ARGS...: a runner in the background with UMLBED_READY_FIFO=$T/NAME.fifo (and its .NEXT FIFOs made by
# the caller); pid is its PID, J its report.
bg_run() {
  local fifo=$T/$1.fifo
  shift
  with_json "$@"
  UMLBED_READY_FIFO=$fifo "$UMLBED" "${RUN_ARGS[@]}" >"$T/out" 2>"$T/err" &
  pid=$!
}
# bg_end: waits for the runner of bg_run (a hang guard: SIGKILL after GUARD seconds, hung=1); rc is its status.
bg_end() {
  hung=0
  timeout "$GUARD" tail -s 0.1 --pid="$pid" -f /dev/null || { hung=1; kill -KILL "$pid"; }
  wait "$pid"
  rc=$?
}

# ---- A. A file's top-level code runs when the runner describes it (run, list): inside the run's walls. ----
# The runner's output is a pipe, as in CI: a write through /proc/self/fd/1 would land in the stream (a file opened
# anew there would be written at its start, and then overwritten).
export HOSTILE_OUTSIDE=$OUT
with_json run "${F[@]}" "$SCEN/hostile-describe.lua"
timeout "$GUARD" "$UMLBED" "${RUN_ARGS[@]}" 2>"$T/err" | cat >"$T/out"
check "A: run: the file's run is ok" verdict_is "hostile describe" ok
check "A: run: its top-level code opened no memory to write and wrote nothing outside its walls" outside_clean
check "A: run: ... nor into the runner's TAP stream" not grep -q forged "$T/out"
timeout "$GUARD" "$UMLBED" list "$SCEN/hostile-describe.lua" 2>"$T/err" | cat >"$T/out"
check "A: list: the file is listed" listed_has "hostile describe"
check "A: list: its top-level code opened no memory to write and wrote nothing outside its walls" outside_clean
check "A: list: ... nor into the list" not grep -q forged "$T/out"
unset HOSTILE_OUTSIDE
clean

# ---- B. UML's pid file (uml/UMID/pid, which the kernel and the run may write) never decides a kill. ----
setsid sleep 100000 </dev/null >/dev/null 2>&1 &
victim=$!
check "B: the victim is alive before the run" kill -0 "$victim"
mkfifo "$T/b.fifo" "$T/b.fifo.written"
bg_run b run "${F[@]}" "$SCEN/hostile-pidfile.lua"
written=no
if ready_wait "$T/b.fifo"; then
  # The instance: the process working in the run's vm0 folder; its umid is on its command line.
  for p in /proc/[0-9]*; do
    d=$(readlink "$p/cwd" 2>/dev/null) || continue
    case $d in "$TMPDIR/umlbed-$pid-"*/vm0) kdir=$d kpid=${p#/proc/} ;; esac
  done
  umid=$(tr '\0' '\n' <"/proc/${kpid:-0}/cmdline" 2>/dev/null | sed -n 's/^umid=//p')
  [ -n "$umid" ] && mkdir -p "$kdir/uml/$umid" && echo "$victim" >"$kdir/uml/$umid/pid" && written=yes
fi
ready_wait "$T/b.fifo.written"
bg_end
check "B: the test wrote the instance's pid file, naming the victim ($written)" [ "$written" = yes ]
check "B: the run is ok" verdict_is "hostile pid file" ok
check "B: the victim outlived the instance's end" kill -0 "$victim"
kill "$victim" 2>/dev/null
wait "$victim" 2>/dev/null
clean

# ---- C. A pack is unpacked where no run may write, and its runner executed through a descriptor. ----
mkdir -p "$T/cpack/umlbed-pack/build/runner" "$T/cpack/umlbed-pack/scenarios"
echo "id 0123456789abcdef" >"$T/cpack/umlbed-pack/MANIFEST"
cp "$UMLBED" "$T/cpack/umlbed-pack/build/runner/umlbed"
# Run first (-j 1, in name order), the hostile file moves its program over the pack's runner; the second is a run
# process the runner starts after that.
cp "$SCEN/hostile-pack-runner.lua" "$T/cpack/umlbed-pack/scenarios/a-hostile.lua"
cp "$SCEN/fake-ok.lua" "$T/cpack/umlbed-pack/scenarios/b-ok.lua"
tar -C "$T/cpack" -czf "$T/cpack.tar.gz" umlbed-pack
cp "$UMLBED" "$T/real-umlbed"
# The program: it leaves a mark where the test looks, then runs the real runner on.
printf '#!/bin/sh\necho "$*" >>"%s"\nexec "%s" "$@"\n' "$OUT/pack-runner-replaced" "$T/real-umlbed" >"$TMPDIR/evil"
chmod 755 "$TMPDIR/evil"
# The options' values as --kernel=PATH: a pack's runner once took a value that is a file (--kernel PATH) for a
# scenario argument, and then ran nothing of the pack.
HOSTILE_EVIL=$TMPDIR/evil grun run --pack "$T/cpack.tar.gz" --fake-uml --kernel="$UMLBED_TEST" --agent="$UMLBED_TEST" -j 1
check "C: both runs of the pack are ok" jtrue '.summary.ok == 2'
field "hostile pack runner" diag | diag
check "C: nothing ran in the pack runner's place" outside_clean
rm -f "$TMPDIR/evil"
clean

# ---- D. The wall opens its folders at their numbers whatever the caller holds (--gdb's wall, umlbed boot). ----
# The program is a shell, walled as gdb is (--debug): it may read and execute everywhere, and write only in the two
# folders, which it names as /proc/self/fd/7 and 8 (the control); the outside folder is the attack.
mkdir -p "$T/d/root" "$T/d/dir"
for held in "3 4 5 6" "3 4 5 6 7 8 9" "5 6"; do
  rm -f "$T/d/root/control" "$T/d/dir/control"
  (
    for fd in $held; do eval "exec $fd</dev/null"; done
    exec "$UMLBED" __wall --fd 7="$T/d/root" --fd 8="$T/d/dir" --debug -- \
      sh -c 'echo x >/proc/self/fd/7/control; echo x >/proc/self/fd/8/control; echo x >"$1/wall-wrote"' sh "$OUT"
  ) 2>"$T/err"
  check "D: descriptors $held held: the walled program wrote into its two folders" \
    eval '[ -e "$T/d/root/control" ] && [ -e "$T/d/dir/control" ]'
  check "D: descriptors $held held: ... and nothing outside them" outside_clean
done
KERNEL=${UMLBED_KERNEL:-$BUILD/kernel/full/obj/linux}
AGENT=${UMLBED_AGENT:-$BUILD/guest/umlbed-agent}
if [ -x "$KERNEL" ] && [ -f "$AGENT" ]; then
  for held in "5 6" "5 6 7 8 9"; do
    HELD=$held KERNEL=$KERNEL AGENT=$AGENT perl -I"$SRC/tests/agent" -MUmbAgent -e '
      my $a = UmbAgent->uml(agent => $ENV{AGENT}, kernel => $ENV{KERNEL}, hold => [split / /, $ENV{HELD}]);
      my $ok = $a->wait_ready(60);
      $a->close;
      exit($ok ? 0 : 1)' >"$T/out" 2>&1
    check "D: umlbed boot with descriptors $held held: the kernel boots its agent" [ $? = 0 ]
  done
else
  prereq_skip "D: umlbed boot: no kernel $KERNEL or agent $AGENT (make builds them)"
fi

# kept_plain DIR: DIR is kept, marked by a plain file (no link, no FIFO).
kept_plain() { [ -f "$1/.umlbed-kept" ] && [ ! -L "$1/.umlbed-kept" ]; }
# ---- E. The kept mark of a failed run is made through the run folder's descriptor: no link, no FIFO. ----
# The link leads to a file beneath TMPDIR, where the run process itself could once write: what follows it is seen
# whoever follows it.
for what in link fifo; do
  rm -f "$T"/e.fifo* "$TMPDIR/kept-target"
  mkfifo "$T/e.fifo" "$T/e.fifo.planted"
  bg_run e run "${F[@]}" "$SCEN/hostile-kept.lua"
  planted=no
  if ready_wait "$T/e.fifo"; then
    for d in "$TMPDIR/umlbed-$pid-"*; do
      if [ "$what" = link ]; then ln -s "$TMPDIR/kept-target" "$d/.umlbed-kept"; else mkfifo "$d/.umlbed-kept"; fi &&
        planted=yes
    done
  fi
  ready_wait "$T/e.fifo.planted"
  bg_end
  check "E: $what: the test put a $what where the mark goes ($planted)" [ "$planted" = yes ]
  check "E: $what: the runner ended" [ "$hung" = 0 ]
  check "E: $what: the run is FAILED" verdict_is "hostile kept mark" FAILED
  check "E: $what: its folder is kept, marked by a plain file" kept_plain "$(field "hostile kept mark" kept)"
  check "E: $what: nothing was made where the link led" [ ! -e "$TMPDIR/kept-target" ]
  clean
done

# ---- F. Terminals: the runner's input and another terminal of the uid are out of a run's reach. ----
if command -v python3 >/dev/null; then
  mkfifo "$T/pts.ready" "$T/pts.go"
  python3 "$SRC/tests/runner/trust/terminal.py" "$T/pts" &
  ptsjob=$!
  ready_wait "$T/pts.ready"
  pts=$(cat "$T/pts.name" 2>/dev/null)
  printf 'typed into the runner\n' >"$T/stdin"
  with_json run "${F[@]}" "$SCEN/hostile-terminal.lua"
  HOSTILE_PTS=$pts timeout "$GUARD" "$UMLBED" "${RUN_ARGS[@]}" <"$T/stdin" >"$T/out" 2>"$T/err"
  ready_wait "$T/pts.go"
  wait "$ptsjob"
  check "F: the terminal was there ($pts)" [ -n "$pts" ]
  check "F: the run read neither the runner's input nor the terminal, and opened it for no write" \
    verdict_is "hostile terminal" ok
  field "hostile terminal" diag | diag
  check "F: nothing was written into the terminal" [ ! -s "$T/pts.got" ]
else
  prereq_skip "F: terminals: no python3 to make one (Debian package python3)"
fi
clean

# ---- G. A run's Lua reaches no /dev/shm: memory there would be past its cap (--lua-memory). ----
HOSTILE_SHM_MIB=96 grun run "${F[@]}" --lua-memory 64 "$SCEN/hostile-shm.lua"
check "G: nothing was written into /dev/shm, past the Lua state's cap of 64 MiB" verdict_is "hostile /dev/shm" ok
field "hostile /dev/shm" diag | diag
clean

# ---- H. Each instance has a process limit of its own ($UMLBED_NPROC), whatever the runner's uid. ----
UMLBED_NPROC=40 HOSTILE_FORKS=60 grun run "${F[@]}" "$SCEN/hostile-forks.lua"
check "H: two instances forking at once each stop at their own limit" verdict_is "hostile forks" ok
field "hostile forks" diag | diag
clean

# ---- I. Without Landlock, no sandboxed scenario runs (as no kernel does), unless --unsafe-lua says so. ----
if gcc -std=c11 -O2 -Wall -Wextra -Werror -o "$T/nolandlock" "$SRC/tests/runner/trust/nolandlock.c" 2>"$T/cc.err"; then
  "$T/nolandlock" "$UMLBED" run "${F[@]}" --json "$T/r.json" "$SCEN/fake-ok.lua" >"$T/out" 2>"$T/err"
  J=$T/r.json
  # The file is not described: its one line is an ERROR named after the file, saying why.
  check "I: run: a sandboxed scenario is refused: ERROR" jtrue '.summary.ERROR == 1 and (.results | length) == 1'
  check "I: run: ... saying why, as the kernel's wall does" \
    jtrue '.results[0].diag | contains("the wall around the scenario: this host has no Landlock")'
  # --unsafe-lua runs the scenario's code unwalled on purpose; its kernel still is refused, with the same words.
  "$T/nolandlock" "$UMLBED" run --unsafe-lua "${F[@]}" --json "$T/r.json" "$SCEN/fake-ok.lua" >"$T/out" 2>"$T/err"
  check "I: run --unsafe-lua: the scenario runs, and its kernel is refused, saying why" \
    diag_has "fake ok" "the wall around the kernel: this host has no Landlock"
  "$T/nolandlock" "$UMLBED" list "$SCEN/fake-ok.lua" >"$T/out" 2>"$T/err"
  check "I: list: the file is not described, saying why" grep -q "the wall around the scenario: this host has no Landlock" "$T/err"
  "$T/nolandlock" "$UMLBED" list --unsafe-lua "$SCEN/fake-ok.lua" >"$T/out" 2>"$T/err"
  check "I: list --unsafe-lua: the file is described, unwalled on purpose" listed_has "fake ok"
else
  prereq_skip "I: no Landlock: cannot build the wrapper: $(head -n 1 "$T/cc.err")"
fi
clean

# ---- J. The runner's lock file in TMPDIR is out of a run's reach: later runs still run. ----
lock=$TMPDIR/.umlbed-$(id -u).lock
HOSTILE_LOCK=$lock grun run "${F[@]}" "$SCEN/hostile-lock.lua"
field "hostile lock file" diag | diag
check "J: the lock is still a file" test -f "$lock"
grun run "${F[@]}" "$SCEN/fake-ok.lua"
check "J: a later run is ok" verdict_is "fake ok" ok
clean

check "no run folder left" [ "$(leftover_dirs)" = 0 ]
echo "1..$n"

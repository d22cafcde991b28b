#!/usr/bin/env bash
# SPDX-License-Identifier: MIT
# hostile.t: reliability and containment: hostile scenarios, names, bytes and guests cannot crash, hang,
# forge TAP or reach the host outside the run folder. The fake UML where no kernel is needed, the patched kernel
# for the guest-side checks ([UML], skipped without it, and failed without it under strict mode).
. "$(dirname "$0")/common.sh"
export UMLBED_FAKE=agent
F=(--fake-uml --kernel "$UMLBED_TEST" --agent "$UMLBED_TEST")
need_jq
KERNEL=${UMLBED_KERNEL:-$BUILD/kernel/full/obj/linux}
AGENT=${UMLBED_AGENT:-$BUILD/guest/umlbed-agent}
# Every runner started here is bounded by this guard; the scenarios' own timers are exact (--timeout 1), the guard
# only ends a runner that hangs.
GUARD=$(scaled 60)

ended() { [ "$hung" = 0 ]; }
clean() { rm -rf "$TMPDIR"/umlbed-*; }
# The TAP line whose text matches the ERE $1 and the diagnostics after it, up to the next result line.
block() { re=$1 awk 'BEGIN { re = ENVIRON["re"] } /^(not )?ok [0-9]+ / { on = ($0 ~ re) } on' "$T/out"; }
in_block() { block "$1" | grep -qE -- "$2"; }
# prove accepts the TAP as a passing (or, with not, failing) test file.
prove_ok() { prove -e cat "$T/out" >"$T/prove" 2>&1; }
# Diagnostics of a check that failed: stdout and stderr of the last run.
show() { diag "$T/out"; diag "$T/err"; }

# ---- A. Error objects whose __tostring raises or returns no string: ERROR, never a PANIC of the runner. ----
for where in run task-waited task-unwaited; do
  grun run "${F[@]}" --filter "*where=$where*" "$SCEN/hostile-errobj.lua"
  for how in raises not-a-string; do
    check "A: error object whose __tostring $how, in $where: ERROR" \
      verdict_is "hostile error object [how=$how, where=$where]" ERROR
  done
  check "A: $where: exit status 1, not a signal (got $rc)" [ "$rc" = 1 ]
  # Lua's own panic message: a run process that panics aborts, which the runner would also report as an ERROR.
  check "A: $where: no PANIC on stderr" not grep -q PANIC "$T/err"
  [ "$rc" = 1 ] || show
  clean
done
# Beyond the spec: an error object whose __tostring never returns must end at the deadline too.
grun run "${F[@]}" --timeout 1 "$SCEN/hostile-errobj-loop.lua"
check "A: error object whose __tostring loops: ERROR or TIMEOUT, and the runner ends (beyond the spec)" \
  verdict_is "hostile error object that loops" "ERROR|TIMEOUT"
ended || show
clean

# ---- A process the run started in a session of its own, working in the run's folder, does not outlive the run
# (the runner, a subreaper, finds it below itself). ----
rm -f "$T/escapee.pid"
ESCAPEE_PID=$T/escapee.pid grun run "${F[@]}" --unsafe-lua "$SCEN/hostile-escapee.lua"
esc=$(cat "$T/escapee.pid" 2>/dev/null)
check "escapee: it ran, alive in a session of its own (pid ${esc:-none})" verdict_is "hostile escapee" ok
# A killed process the runner did not reap is a zombie until init takes it: that is not alive.
alive() { [ -n "$1" ] && [ -e "/proc/$1" ] && [ "$(awk '{ print $3 }' "/proc/$1/stat" 2>/dev/null)" != Z ]; }
check "escapee: it did not outlive the run" not alive "$esc"
alive "$esc" && kill -9 "$esc"
clean

# ---- B. The sandbox: what escapes it is nil, binary chunks are refused, --unsafe-lua turns it off. ----
grun run "${F[@]}" "$SCEN/hostile-exit.lua"
check "B: os.exit(0): the run has its verdict (the runner went on): ERROR" verdict_is "hostile os.exit" ERROR
# Where an error is and what it says are what a sandbox ERROR gives the reader: those texts are tested here and below.
l=$(line_of "$SCEN/hostile-exit.lua" 'os.exit(0)')
check "B: os.exit(0): the ERROR names hostile-exit.lua:$l" diag_has "hostile os.exit" "hostile-exit.lua:$l:"
check "B: os.exit(0): exit status 1 (got $rc)" [ "$rc" = 1 ]
# Only a folder of this test's TMPDIR is removed, whatever the report says.
kept=$(field "hostile os.exit" kept)
case $kept in "$TMPDIR"/umlbed-*) rm -rf "$kept" ;; esac
check "B: os.exit(0): no run folder left but the one reported kept" [ "$(leftover_dirs)" = 0 ]
[ "$rc" = 1 ] || show
clean
grun run "${F[@]}" "$SCEN/hostile-exit-pcall.lua"
check "B: pcall(os.exit, 0) fails and the run is ok" verdict_is "hostile os.exit under pcall" ok
check "B: pcall(os.exit, 0): exit status 0 (got $rc)" [ "$rc" = 0 ]
check "B: pcall(os.exit, 0): the run folder is gone" [ "$(leftover_dirs)" = 0 ]
[ "$rc" = 0 ] || show
clean

grun run "${F[@]}" "$SCEN/hostile-sandbox-call.lua"
l=$(line_of "$SCEN/hostile-sandbox-call.lua" 'f(table.unpack(args[p.fn]))')
for fn in os.execute io.popen package.loadlib debug.sethook debug.setlocal debug.setupvalue; do
  check "B: calling $fn is an ERROR" verdict_is "hostile sandbox call [fn=$fn]" ERROR
  check "B: ... naming hostile-sandbox-call.lua:$l" diag_has "hostile sandbox call [fn=$fn]" "hostile-sandbox-call.lua:$l:"
done
clean

# A precompiled scenario file: from luac5.4, else from string.dump in lua5.4.
cat >"$T/binsrc.lua" <<'EOF'
return { name = "hostile binary", run = function(t) end }
EOF
if command -v luac5.4 >/dev/null; then
  luac5.4 -o "$T/hostile-binary.lua" "$T/binsrc.lua"
elif command -v lua5.4 >/dev/null; then
  lua5.4 - "$T/binsrc.lua" "$T/hostile-binary.lua" <<'EOF'
local f = assert(io.open(arg[2], "wb")); f:write(string.dump(assert(loadfile(arg[1])))); f:close()
EOF
fi
export HOSTILE_BINARY=$T/hostile-binary.lua
grun run "${F[@]}" "$SCEN/hostile-sandbox.lua"
check "B: sandbox: the escapes are nil, binary chunks refused, debug.getinfo and debug.traceback kept" \
  verdict_is "hostile sandbox" ok
[ "$rc" = 0 ] || show
clean
if [ -s "$HOSTILE_BINARY" ]; then
  grun run "${F[@]}" "$HOSTILE_BINARY"
  binary_refused() { [ "$rc" = 2 ] || { [ "$rc" = 1 ] && jtrue '[.results[].verdict] == ["ERROR"]'; }; }
  check "B: a precompiled scenario file is an ERROR (or a setup error), never a crash (exit $rc)" binary_refused
  binary_refused || show
  clean
  grun list "$HOSTILE_BINARY"
  check "B: umlbed list refuses a precompiled scenario file (exit 2, got $rc)" [ "$rc" = 2 ]
else
  prereq_skip "neither luac5.4 nor lua5.4 to make a precompiled chunk (Debian package lua5.4)"
  prereq_skip "neither luac5.4 nor lua5.4 to make a precompiled chunk (Debian package lua5.4)"
fi

grun run "${F[@]}" --unsafe-lua "$SCEN/hostile-unsafe.lua"
check "B: --unsafe-lua: os.execute(\"true\") works" verdict_is "hostile unsafe lua" ok
[ "$rc" = 0 ] || show
clean

# Beyond the spec: require's C searchers load shared objects like package.loadlib; the module's constructor
# leaves a mark if it ever runs.
mkdir -p "$T/cmod"
if gcc -shared -fPIC -o "$T/cmod/hostilemod.so" "$SRC/tests/runner/hostile/hostilemod.c" 2>"$T/cc.err"; then
  export HOSTILE_CPATH="$T/cmod/?.so" HOSTILE_MARK="$T/cmod/loaded"
  grun run "${F[@]}" "$SCEN/hostile-require.lua"
  check "B: require cannot load a C module (beyond the spec)" [ ! -e "$HOSTILE_MARK" ]
  check "B: ... and the scenario ran to its verdict" verdict_is "hostile require of a C module" ok
  clean
else
  prereq_skip "cannot build a shared object: $(head -n 1 "$T/cc.err")"
fi

# ---- C. Deadlines that Lua cannot escape (--timeout 1: exact for the text; the guard bounds a hang). ----
for how in pcall xpcall; do
  grun run "${F[@]}" --timeout 1 --filter "*how=$how*" "$SCEN/hostile-pcall-loop.lua"
  check "C: a busy loop under $how that catches the deadline's error: TIMEOUT" \
    verdict_is "hostile pcall loop [how=$how]" TIMEOUT
  check "C: ... not before 1 s, and the runner ended within the guard (${secs}s)" within "$secs" 1 "$GUARD"
  check "C: ... exit status 1, not a signal (got $rc)" [ "$rc" = 1 ]
  [ "$rc" = 1 ] || show
  clean
done
grun run "${F[@]}" --timeout 1 "$SCEN/hostile-timeout-fn.lua"
check "C: a timeout function that never returns: TIMEOUT or ERROR, bounded by --timeout" \
  verdict_is "hostile timeout function" "TIMEOUT|ERROR"
check "C: ... and the runner ended within the guard (${secs}s)" ended
check "C: ... exit status 1, not a signal (got $rc)" [ "$rc" = 1 ]
[ "$rc" = 1 ] || show
clean
# Beyond the spec: a scenario file that loops while it loads (top-level code).
cat >"$T/hostile-load-loop.lua" <<'EOF'
-- hostile-load-loop.lua: the file's own code never returns.
while true do end
return { name = "hostile load loop", run = function(t) end }
EOF
grun run "${F[@]}" --timeout 1 "$T/hostile-load-loop.lua"
check "C: a scenario file that loops while loading: ERROR or TIMEOUT, and the runner ends (beyond the spec)" \
  verdict_is "$T/hostile-load-loop.lua" "TIMEOUT|ERROR"
check "C: ... exit status 1, not a signal (got $rc, beyond the spec)" [ "$rc" = 1 ]
[ "$rc" = 1 ] || show
clean
for f in gc-loop gc-close; do
  grun run "${F[@]}" --timeout 1 "$SCEN/hostile-$f.lua"
  check "C: a __gc that loops forever ($f): the run has a verdict" [ "$(count "" '^hostile gc')" = 1 ]
  check "C: ... and the runner exits within the guard (${secs}s)" ended
  check "C: ... by itself: exit status 0 or 1, not a signal (got $rc)" [ "$rc" -le 1 ]
  [ "$rc" -le 1 ] || show
  clean
done

# SIGINT while Lua loops without a timeout: the scenario says (on a FIFO) that its loop starts.
fifo=$T/ready.fifo
mkfifo "$fifo"
rm -f "$T/r.json"
UMLBED_READY_FIFO=$fifo "$UMLBED" run "${F[@]}" --json "$T/r.json" --timeout 0 "$SCEN/hostile-busy.lua" >"$T/out" 2>"$T/err" &
pid=$!
if ready_wait "$fifo" "$GUARD"; then ready=0; else ready=1; fi
ok $ready "C: SIGINT: the busy loop started (the plan was printed before it)"
# TAP streams: the plan is out while the run still loops. The TAP text so far is what is tested.
check "C: SIGINT: the plan 1..1 was printed" grep -q '^1\.\.1$' "$T/out"
# What the checks after the signal and the last check look for, seen first: the guest (it works in its run
# folder) and the run folder.
check "C: SIGINT: the fake guest was running" saw "cwd:$TMPDIR/umlbed-"
check "C: SIGINT: its run folder was there" run_folder $pid
reaper=$(child_of $pid "$UMLBED ")
kill -INT $pid
if timeout "$GUARD" tail -s 0.1 --pid=$pid -f /dev/null; then hung=0; else hung=1; kill -KILL $pid; fi
wait $pid
rc=$?
[ -n "$reaper" ] && timeout "$(scaled 30)" tail -s 0.1 --pid="$reaper" -f /dev/null
check "C: SIGINT: the runner ended within the guard" ended
check "C: SIGINT: exit status 130 (got $rc)" [ "$rc" = 130 ]
check "C: SIGINT: the interrupted run is an ERROR" verdict_is "hostile busy loop" ERROR
check "C: SIGINT: no run folder left" [ "$(leftover_dirs)" = 0 ]
[ "$rc" = 130 ] || show
clean

# Code stuck where Lua cannot stop it: a C call that does not return (a backtracking string.find, io.open of a FIFO
# nobody writes) or a pcall loop where the deadline hook cannot yield (a sort comparator, a gsub callback, a
# required module's top level). Each run is a process of its own, which the runner kills a little after the
# deadline (or a signal), whatever that process is doing.
STUCK=(find fifo sort gsub require)
nstuck=${#STUCK[@]}
mkfifo "$T/nobody.fifo"
export HOSTILE_FIFO=$T/nobody.fifo
start=$(date +%s.%N)
rm -f "$T/r.json"
timeout -k 5 "$GUARD" "$UMLBED" run "${F[@]}" -j "$nstuck" --json "$T/r.json" --timeout 1 "$SCEN/hostile-stuck.lua" \
  >"$T/out" 2>"$T/err"
rc=$?
secs=$(awk -v a="$start" -v b="$(date +%s.%N)" 'BEGIN { printf "%.3f", b - a }')
for how in "${STUCK[@]}"; do
  check "C: stuck in $how (Lua cannot stop it): TIMEOUT" verdict_is "hostile stuck [how=$how]" TIMEOUT
done
check "C: ... each at its deadline: not before 1 s, and long before the guard (${secs}s)" within "$secs" 1 "$(scaled 10)"
check "C: ... each TIMEOUT says the run's process was killed" \
  jtrue '[.results[].diag // "" | contains("the runner killed the process")] | all'
check "C: ... exit status 1 (got $rc)" [ "$rc" = 1 ]
[ "$rc" = 1 ] || show
clean
# The same without a timeout, stopped by SIGINT once every run says it is about to get stuck: each opens a FIFO of
# its own.
for how in "${STUCK[@]}"; do mkfifo "$fifo.$how"; done
rm -f "$T/r.json"
UMLBED_READY_FIFO=$fifo "$UMLBED" run "${F[@]}" -j "$nstuck" --json "$T/r.json" --timeout 0 "$SCEN/hostile-stuck.lua" \
  >"$T/out" 2>"$T/err" &
pid=$!
waits=()
for how in "${STUCK[@]}"; do
  ready_wait "$fifo.$how" "$GUARD" &
  waits+=($!)
done
ready=0
for w in "${waits[@]}"; do wait "$w" || ready=1; done
ok $ready "C: SIGINT: all $nstuck stuck runs got ready"
check "C: SIGINT: their run folders were there" run_folder $pid
start=$(date +%s.%N)
kill -INT $pid
if timeout "$GUARD" tail -s 0.05 --pid=$pid -f /dev/null; then hung=0; else hung=1; kill -KILL $pid; fi
wait $pid
rc=$?
secs=$(awk -v a="$start" -v b="$(date +%s.%N)" 'BEGIN { printf "%.3f", b - a }')
check "C: SIGINT: the runner ended within 2 s of it (${secs}s)" within "$secs" 0 "$(scaled 2)"
check "C: SIGINT: exit status 130 (got $rc)" [ "$rc" = 130 ]
check "C: SIGINT: every stuck run is an ERROR" [ "$(count ERROR '^hostile stuck ')" = "$nstuck" ]
check "C: SIGINT: no run folder left" [ "$(leftover_dirs)" = 0 ]
[ "$rc" = 130 ] || show
clean
# umlbed list and run of a file whose top-level code loops in pcall: refused at the load deadline.
printf '%s\n' '-- hostile-load-pcall.lua: the file'"'"'s own code loops in pcall, where the deadline'"'"'s error is caught.' \
  'while true do pcall(function() while true do end end) end' \
  'return { name = "hostile load pcall loop", run = function(t) end }' >"$T/hostile-load-pcall.lua"
start=$(date +%s.%N)
timeout -k 5 "$GUARD" "$UMLBED" list --timeout 1 "$T/hostile-load-pcall.lua" >"$T/out" 2>"$T/err"
rc=$?
secs=$(awk -v a="$start" -v b="$(date +%s.%N)" 'BEGIN { printf "%.3f", b - a }')
check "C: umlbed list of a file that loops in pcall while loading: exit 2 (got $rc)" [ "$rc" = 2 ]
# umlbed list has no report: its message, naming the file and why, is what the user gets.
check "C: ... naming the file and its load deadline" grep -q 'hostile-load-pcall.lua: loading it took longer than its deadline of 1.0 s' "$T/err"
check "C: ... at the deadline, long before the guard (${secs}s)" within "$secs" 1 "$(scaled 10)"
grun run "${F[@]}" --timeout 1 "$T/hostile-load-pcall.lua"
check "C: umlbed run of it: an ERROR" verdict_is "$T/hostile-load-pcall.lua" ERROR
[ "$rc" = 1 ] || show
clean
# A finalizer that loops in pcall (--unsafe-lua lets a scenario set __gc): the verdict came, the process did not end.
grun run "${F[@]}" --unsafe-lua --timeout 2 "$SCEN/hostile-gc-pcall.lua"
check "C: a __gc that loops in pcall after an ok verdict: TIMEOUT" verdict_is "hostile gc pcall loop" TIMEOUT
check "C: ... saying the verdict was ok and the process did not end" \
  diag_has "hostile gc pcall loop" "the run's verdict was ok, but its process did not end"
[ "$rc" = 1 ] || show
clean
# A C call that returns only after the deadline: the run overran its timeout, so it is TIMEOUT, never ok. The test
# opens the FIFO once the deadline has certainly passed: 1.5 s after the scenario said it reads, which is after the
# run started (the deadline counts from there). UMLBED_TIMEOUT_SCALE=30 stretches the runner's kill margin far
# beyond that, so the call returns before any kill; --timeout itself is not scaled.
rm -f "$T/r.json"
UMLBED_TIMEOUT_SCALE=30 UMLBED_READY_FIFO=$fifo "$UMLBED" run "${F[@]}" --json "$T/r.json" --timeout 1 \
  "$SCEN/hostile-overrun.lua" >"$T/out" 2>"$T/err" &
pid=$!
if ready_wait "$fifo" "$GUARD"; then ready=0; else ready=1; fi
ok $ready "C: overrun: the scenario reads its FIFO"
sleep 1.5
echo data >"$HOSTILE_FIFO"
if timeout "$GUARD" tail -s 0.05 --pid=$pid -f /dev/null; then hung=0; else hung=1; kill -KILL $pid; fi
wait $pid
rc=$?
check "C: overrun: a call that returned after the deadline is a TIMEOUT" verdict_is "hostile overrun" TIMEOUT
check "C: ... saying the code returned only after its timeout" \
  diag_has "hostile overrun" 'returned only after its timeout of 1.0 s'
[ "$rc" = 1 ] || show
clean

# ---- D. Reports stay valid on any bytes: invalid UTF-8 is U+00NN; in XML, control bytes are the text \xNN. ----
grun run "${F[@]}" -j 1 --json "$T/r.json" --junit "$T/r.xml" "$SCEN/hostile-bytes.lua" "$SCEN/hostile-badname.lua"
check "D: the JSON report parses" python3 -c 'import json, sys; json.load(open(sys.argv[1]))' "$T/r.json"
check "D: every JSON result has a name" python3 -c '
import json, sys
r = json.load(open(sys.argv[1]))["results"]
sys.exit(not (len(r) == 2 and all("name" in x for x in r)))' "$T/r.json"
check "D: JSON: the byte 0xff of a name is U+00FF" python3 -c '
import json, sys
sys.exit(not any(x.get("name") == "bad \u00ff name" for x in json.load(open(sys.argv[1]))["results"]))' "$T/r.json"
# The bytes of a message are what is tested: the report must keep them all.
check "D: JSON: the diagnostics keep every byte (0xff 0xfe 0x01 0x02 as U+00NN)" python3 -c '
import json, sys
sys.exit(not any("binary \x02: got \u00ff\u00fe\x01, want x" in (x.get("diag") or "")
                 for x in json.load(open(sys.argv[1]))["results"]))' "$T/r.json"
if command -v xmllint >/dev/null; then
  check "D: xmllint accepts the JUnit report" xmllint --noout "$T/r.xml"
else
  prereq_skip "no xmllint (Debian package libxml2-utils)"
fi
check "D: JUnit: the name with 0xff is U+00FF, control bytes are the text backslash-xNN" python3 -c '
import sys, xml.etree.ElementTree as ET
cases = ET.parse(sys.argv[1]).getroot().iter("testcase")
names, texts = [], []
for c in cases:
    names.append(c.get("name"))
    texts += [e.text or "" for e in c]
ok = "bad \u00ff name" in names and any("binary \\x02: got \u00ff\u00fe\\x01, want x" in s for s in texts)
sys.exit(not ok)' "$T/r.xml"
clean

# ---- E. TAP integrity: # \ newline CR and control bytes escaped in names; print() is a comment. ----
# The TAP text itself is what these checks are about: what a TAP reader would take for a result or a directive.
grun run "${F[@]}" "$SCEN/hostile-todo.lua"
check "E: a failing run named with a hash-TODO directive: the hash is escaped" \
  grep -qxF 'not ok 1 - x \# TODO not really # FAILED' "$T/out"
check "E: ... and prove counts it as a failure" not prove_ok
clean
grun run "${F[@]}" -j 1 "$SCEN/hostile-tap-names.lua"
check "E: a hash in a name is written as backslash-hash" grep -qxF 'ok 1 - hostile tap names [s=a\#b]' "$T/out"
check "E: a backslash in a name is doubled" grep -qxF 'ok 2 - hostile tap names [s=back\\slash]' "$T/out"
check "E: a newline in a name is backslash-n" grep -qxF 'ok 3 - hostile tap names [s=nl\nok 9 - forged]' "$T/out"
check "E: a CR in a name is backslash-r" grep -qxF 'ok 4 - hostile tap names [s=cr\rx]' "$T/out"
check "E: a control byte in a name is backslash-x01" grep -qxF 'ok 5 - hostile tap names [s=ctl\x01x]' "$T/out"
check "E: five results numbered 1 to 5: a newline in a name makes no extra TAP line" tap_is 5
check "E: prove accepts the TAP" prove_ok
prove_ok || diag "$T/prove"
clean
grun run "${F[@]}" "$SCEN/hostile-print.lua"
check "E: print() shows as a hash-print comment line" grep -qx '# print: ok 5 - injected' "$T/out"
check "E: print() cannot make a TAP line, even after a newline: one result" tap_is 1
check "E: the printing run is ok and prove accepts the TAP" eval 'verdict_is "hostile print" ok && prove_ok'
clean
# Beyond the spec: io.write and io.stdout write to the same standard output.
grun run "${F[@]}" "$SCEN/hostile-iowrite.lua"
check "E: io.write and io.stdout:write cannot make TAP lines (beyond the spec): one result" tap_is 1
check "E: ... and prove accepts the TAP (beyond the spec)" prove_ok
clean

# ---- Memory: a scenario that allocates without end is an ERROR at its Lua state's cap (--lua-memory), without any
# ulimit, and the runner's peak memory stays near the cap. python3 reads the peak (ru_maxrss of the waited child).
maxrss() {
  python3 -c 'import resource, subprocess, sys
r = subprocess.run(sys.argv[2:], stdout=open(sys.argv[1] + "/out", "w"), stderr=open(sys.argv[1] + "/err", "w"))
print(r.returncode, resource.getrusage(resource.RUSAGE_CHILDREN).ru_maxrss // 1024)' "$T" "$@"
}
rm -f "$T/r.json"
read -r mrc mpeak < <(maxrss "$UMLBED" run "${F[@]}" --json "$T/r.json" --lua-memory 64 "$SCEN/hostile-memory.lua")
check "memory: the bomb under --lua-memory 64 is an ERROR (exit $mrc)" verdict_is "hostile memory bomb" ERROR
# The ERROR must say which cap it hit and the option that sets it.
check "... naming the cap" diag_has "hostile memory bomb" 'memory cap of 64 MiB (--lua-memory)'
# peak WHAT LIMIT FILE [OPTION...]: the runner's peak memory in the run just made of FILE is under LIMIT MiB. Under
# the ASan build the peak is the sanitizer's (shadow memory, redzones around every string), not the runner's: the
# build without sanitizers then runs FILE again with the OPTIONs for the figure (after the checks of the first run).
peak() {
  local what=$1 limit=$2 file=$3 p=$mpeak
  shift 3
  if [ -n "$SANITIZED" ]; then
    [ -x "$PLAIN_UMLBED" ] || { prereq_skip "$what: no build without sanitizers at $PLAIN_UMLBED (make runner)"; return; }
    read -r _ p < <(maxrss "$PLAIN_UMLBED" run --fake-uml --kernel "$PLAIN_TEST" --agent "$PLAIN_TEST" \
      --json "$T/peak.json" "$@" "$file")
  fi
  check "$what ($p MiB)" [ "$p" -lt "$limit" ]
}
peak "... and the runner's peak stayed under 64 MiB plus 48 for itself" 112 "$SCEN/hostile-memory.lua" --lua-memory 64
# The default cap: the check above ran the cap's code under the sanitizers, so this one runs the build without them
# only (when there is one), once, for both its verdict and its peak: half a GiB through ASan costs seconds.
rm -f "$T/r.json"
if [ -n "$SANITIZED" ] && [ -x "$PLAIN_UMLBED" ]; then
  read -r mrc mpeak < <(maxrss "$PLAIN_UMLBED" run --fake-uml --kernel "$PLAIN_TEST" --agent "$PLAIN_TEST" \
    --json "$T/r.json" "$SCEN/hostile-memory.lua")
else
  read -r mrc mpeak < <(maxrss "$UMLBED" run "${F[@]}" --json "$T/r.json" "$SCEN/hostile-memory.lua")
fi
check "memory: the default cap (512 MiB) ends the bomb too (exit $mrc)" \
  diag_has "hostile memory bomb" 'memory cap of 512 MiB'
check "... under 512 MiB plus 48 ($mpeak MiB)" [ "$mpeak" -lt 560 ]
grun list --lua-memory 64 "$SCEN/hostile-memory-load.lua"
check "memory: umlbed list of a file that allocates while loading: exit 2 (got $rc)" [ "$rc" = 2 ]
# umlbed list has no report: its message is what the user gets.
check "... naming the file and the cap" grep -q 'hostile-memory-load.lua: its Lua state reached the memory cap of 64 MiB' "$T/err"
for v in abc -1 1x 99999999999999999999; do
  grun run "${F[@]}" --lua-memory "$v" "$SCEN/fake-ok.lua"
  check "memory: --lua-memory $v: exit status 2 (got $rc)" [ "$rc" = 2 ]
done
grun run "${F[@]}" --lua-memory 0 "$SCEN/fake-ok.lua"
check "memory: --lua-memory 0 (no cap) runs" [ "$rc" = 0 ]
clean

# Output: print() and t:note() keep at most 1 MiB each per run, with a mark saying how much was dropped. Under the
# sanitizers the flood is 16 MiB of each, which crosses the caps as 300 does; the peak is then measured on the build
# without them, with the whole 300.
flood=300
[ -n "$SANITIZED" ] && flood=16
rm -f "$T/flood.json"
read -r mrc mpeak < <(HOSTILE_FLOOD_MIB=$flood maxrss "$UMLBED" run "${F[@]}" --json "$T/flood.json" \
  "$SCEN/hostile-output.lua")
J=$T/flood.json
check "output: a flood of $flood MiB of prints and notes: the run is ok" verdict_is "hostile output flood" ok
check "... the TAP stays under 3 MiB ($(wc -c <"$T/out") bytes)" [ "$(wc -c <"$T/out")" -lt 3145728 ]
check "... the JSON report under 3 MiB ($(wc -c <"$T/flood.json") bytes)" [ "$(wc -c <"$T/flood.json")" -lt 3145728 ]
# The mark's text is what tells a reader that bytes were dropped, and how many.
check "... whose print output says how many bytes were dropped" \
  jtrue '.results[0].print | test("[0-9]+ more bytes of print output dropped: the cap is 1024 KiB")'
check "... and whose diagnostics say how many note bytes" \
  jtrue '.results[0].diag | test("[0-9]+ more bytes of notes and failures dropped: the cap is 1024 KiB")'
peak "... and the runner's peak stayed under 64 MiB" 64 "$SCEN/hostile-output.lua"
clean

# ---- F. Smaller ones. ----
for f in timeout-neg timeout-str skip-true; do
  grun run "${F[@]}" "$SCEN/hostile-$f.lua"
  check "F: $f: ERROR, not silently ignored" jtrue '[.results[].verdict] == ["ERROR"]'
  check "F: $f: the error text names hostile-$f.lua" jtrue --arg f "hostile-$f.lua" '.results[0].diag | contains($f)'
  [ "$rc" = 1 ] || show
  clean
done
for v in abc -1 nan; do
  grun run "${F[@]}" --timeout "$v" "$SCEN/fake-ok.lua"
  check "F: --timeout $v: exit status 2 (got $rc)" [ "$rc" = 2 ]
  # A usage error's message must name the option: that text is what is tested, here and below.
  check "F: --timeout $v: a message about --timeout" grep -q 'timeout' "$T/err"
  clean
done
for k in 32 31; do
  grun list "$SCEN/hostile-matrix$k.lua"
  check "F: matrix of $k keys x 2: umlbed list exits 2 (got $rc)" [ "$rc" = 2 ]
  check "F: ... naming the file" grep -q "hostile-matrix$k\.lua" "$T/err"
  grun run "${F[@]}" "$SCEN/hostile-matrix$k.lua"
  check "F: matrix of $k keys x 2: run gives an ERROR, not an empty plan (exit $rc)" \
    jtrue '[.results[].verdict] == ["ERROR"]'
  check "F: ... naming the file" jtrue --arg f "hostile-matrix$k.lua" '.results[0].diag | contains($f)'
  clean
done
# Repeatable options past their limit are usage errors, never silently dropped.
mapfile -t breaks < <(for i in $(seq 1 65); do printf '%s\n' --break "sym$i"; done)
grun run "${F[@]}" --gdb --batch "${breaks[@]}" "$SCEN/fake-ok.lua"
check "F: 65 --break options: exit status 2 (got $rc)" [ "$rc" = 2 ]
check "F: ... naming the limit" grep -q -- '--break: at most 64 breakpoints' "$T/err"
mapfile -t ignores < <(for i in $(seq 1 64); do printf '%s\n' --ignore-warning "text$i"; done)
grun run "${F[@]}" "${ignores[@]}" "$SCEN/fake-ok.lua"
check "F: 64 --ignore-warning options: exit status 2 (got $rc)" [ "$rc" = 2 ]
check "F: ... naming the limit" grep -q -- '--ignore-warning: at most 63 texts' "$T/err"
grun run "${F[@]}" "${ignores[@]:2}" "$SCEN/fake-ok.lua"
check "F: 63 --ignore-warning options are taken (exit $rc)" [ "$rc" = 0 ]
clean
mkdir -p "$T/empty"
grun run "${F[@]}" "$T/empty"
check "F: a folder without *.lua: exit status 2 (got $rc), not an empty plan" [ "$rc" = 2 ]
check "F: ... with a message" [ -s "$T/err" ]
TMPDIR=/nonexistent timeout -k 5 "$GUARD" "$UMLBED" run "${F[@]}" "$SCEN/fake-ok.lua" >"$T/out" 2>"$T/err"
rc=$?
check "F: TMPDIR=/nonexistent: exit status 2 (got $rc)" [ "$rc" = 2 ]
grun run "${F[@]}" "$SCEN/hostile-request.lua"
check "F: a newline in vm:request's verb: ERROR" verdict_is "hostile request [part=verb]" ERROR
l=$(line_of "$SCEN/hostile-request.lua" 'vm:request(1, "hello')
check "F: ... naming hostile-request.lua:$l" diag_has "hostile request [part=verb]" "hostile-request.lua:$l:"
check "F: a newline in a vm:request field: ERROR" verdict_is "hostile request [part=field]" ERROR
l=$(line_of "$SCEN/hostile-request.lua" 'vm:request(1, "echo"')
check "F: ... naming hostile-request.lua:$l" diag_has "hostile request [part=field]" "hostile-request.lua:$l:"
clean
grun run "${F[@]}" "$SCEN/hostile-file-blank.lua"
check "F: vm:file with a blank in the name: ERROR" verdict_is "hostile file name with a blank" ERROR
l=$(line_of "$SCEN/hostile-file-blank.lua" 'vm:file(')
check "F: ... naming hostile-file-blank.lua:$l" diag_has "hostile file name with a blank" "hostile-file-blank.lua:$l:"
clean
grun run "${F[@]}" "$SCEN/hostile-file-nul.lua"
check "F: vm:file with a NUL in the name: ERROR" verdict_is "hostile file name with NUL" ERROR
l=$(line_of "$SCEN/hostile-file-nul.lua" 'vm:file(')
check "F: ... naming hostile-file-nul.lua:$l" diag_has "hostile file name with NUL" "hostile-file-nul.lua:$l:"
clean
# The kernel command line is an allow-list: t:vm{cmdline=} (by the fake UML, which boots whatever it is given).
grun run "${F[@]}" "$SCEN/hostile-cmdline.lua"
check "F: t:vm{cmdline=} refuses hostfs=, rootflags=, uml_dir=, init=, mem=100G and the rest: bad-argument errors naming the option and file:line; the allowed ones boot" \
  verdict_is "hostile kernel command line" ok
[ "$rc" = 0 ] || show
clean
grun run "${F[@]}" --cmdline "mem=128M kmemleak=on time-travel=inf-cpu lpj=0" "$SCEN/fake-ok.lua"
check "F: --cmdline with allowed options runs (exit $rc)" [ "$rc" = 0 ]
for c in "hostfs=/" "uml_dir=$T/elsewhere" "mem=100G" "quiet init=/bin/sh"; do
  grun run "${F[@]}" --cmdline "$c" "$SCEN/fake-ok.lua"
  check "F: --cmdline '$c': exit status 2 (got $rc)" [ "$rc" = 2 ]
  # The usage error must name the refused option: that text is what is tested.
  o=${c##* }
  check "F: ... naming option '${o%%=*}'" grep -qF "option '${o%%=*}'" "$T/err"
  clean
done
check "F: ... and nothing was made at the uml_dir= it named" [ ! -e "$T/elsewhere" ]

# The sandbox's os.tmpname() makes its file in the run folder, which goes with the run.
grun run "${F[@]}" "$SCEN/hostile-tmpname.lua"
check "F: os.tmpname() makes a file inside the run folder under TMPDIR, not in /tmp" verdict_is "hostile os.tmpname" ok
tmpname=$(field "hostile os.tmpname" diag | sed -n 's/^note: tmpname //p')
check "F: ... and the file went with the run folder ($tmpname)" eval '[ -n "$tmpname" ] && [ ! -e "$tmpname" ]'
case $tmpname in /tmp/lua_*) rm -f "$tmpname" ;; esac
clean

# Files named on the command line are regular files, read with a bound: a FIFO or /dev/zero is an error at once.
mkdir -p "$T/fifos"
mkfifo "$T/fifos/fifo.lua" "$T/fifo.json"
run run "${F[@]}" --shard 1/1 --json "$T/shard.json" "$SCEN/fake-ok.lua"
printf '{"points": [{"name": "t", "labels": {}, "median": 1, "min": 1, "max": 1, "mad": 0}]}\n' >"$T/bench.json"
truncate -s 300M "$T/huge.json"
GUARD=$(scaled 10)
grun merge --json "$T/merged.json" "$T/shard.json"
check "F: CLI files: umlbed merge of a shard's report works (exit $rc)" [ "$rc" = 0 ]
grun list "$SCEN/fake-ok.lua"
check "F: CLI files: umlbed list of a scenario file works (exit $rc)" [ "$rc" = 0 ]
grun bench --compare "$T/bench.json" "$T/bench.json"
check "F: CLI files: umlbed bench --compare of two results works (exit $rc)" [ "$rc" = 0 ]
for cmd in "merge $T/fifo.json" "merge $T/huge.json" "list $T/fifos/fifo.lua" "list $T/fifos" "run ${F[*]} $T/fifos/fifo.lua" \
  "bench --compare $T/fifo.json $T/bench.json" "bench --compare $T/bench.json $T/fifo.json"; do
  read -ra argv <<<"$cmd"
  grun "${argv[@]}"
  check "F: CLI files: umlbed $cmd: exit status 2 at once, not a hang (got $rc in ${secs}s)" \
    eval '[ "$rc" = 2 ] && ended'
  # The message must say what is wrong with the file: that text is what is tested.
  check "F: ... saying the file is not a regular file or too large" grep -qE 'not a regular file|too large' "$T/err"
done
# /dev/zero would fill memory before any guard ends it: the build without sanitizers runs it under an address-space
# limit (ASan's shadow memory cannot live under one).
if [ -x "$PLAIN_UMLBED" ]; then
  start=$(date +%s.%N)
  (ulimit -v 4194304 && exec timeout -k 5 "$GUARD" "$PLAIN_UMLBED" bench --compare /dev/zero "$T/bench.json") \
    >"$T/out" 2>"$T/err"
  rc=$?
  secs=$(awk -v a="$start" -v b="$(date +%s.%N)" 'BEGIN { printf "%.3f", b - a }')
  check "F: CLI files: umlbed bench --compare /dev/zero: exit status 2 at once (got $rc in ${secs}s)" [ "$rc" = 2 ]
  check "F: ... saying it is not a regular file" grep -qF '/dev/zero: not a regular file' "$T/err"
else
  prereq_skip "F: CLI files: bench --compare /dev/zero: no build without sanitizers at $PLAIN_UMLBED (make runner)"
fi
unset GUARD
GUARD=$(scaled 60)
clean
cat >"$T/hostile-syntax.lua" <<'EOF'
-- hostile-syntax.lua: a syntax error on line 5.
return {
  name = "hostile syntax",
  run = function(t) end
  oops
}
EOF
grun run "${F[@]}" "$T/hostile-syntax.lua"
check "F: a syntax error: ERROR" verdict_is "$T/hostile-syntax.lua" ERROR
check "F: ... naming file:line" diag_has "$T/hostile-syntax.lua" "$T/hostile-syntax.lua:5:"
clean
grun run "${F[@]}" "$SCEN/hostile-matrix-value.lua"
check "F: a matrix value that is not a list: ERROR" jtrue '[.results[].verdict] == ["ERROR"]'
check "F: ... naming file:line" jtrue '.results[0].diag | test("hostile-matrix-value\\.lua:[0-9]+:")'
grun list "$SCEN/hostile-matrix-value.lua"
check "F: ... and umlbed list exits 2 naming file:line" \
  eval '[ "$rc" = 2 ] && grep -qE "hostile-matrix-value\.lua:[0-9]+:" "$T/err"'
clean

# ---- [UML] Boots, command-line checks, console scanning and guest containment on the patched kernel. ----
if [ ! -x "$KERNEL" ] || [ ! -f "$AGENT" ]; then
  prereq_skip "[UML] checks: no patched kernel ($KERNEL) or agent ($AGENT)"
  check "no UML/fake process of this test left at the end" none_left "cwd:$TMPDIR/umlbed-"
  echo "1..$n"
  exit 0
fi
K=(--kernel "$KERNEL" --agent "$AGENT")

grun run "${K[@]}" "$SCEN/hostile-uml-boot.lua"
check "[UML] a boot refused with E2BIG, then t:vm() works (no EEXIST)" verdict_is "hostile failed boot" ok
[ "$rc" = 0 ] || show
clean
for size in lots 1M; do
  opt="--mem $size"
  grun run "${K[@]}" --mem "$size" "$SCEN/hostile-uml-plain.lua"
  check "[UML] $opt: a setup error, exit status 2 (got $rc)" [ "$rc" = 2 ]
  # The usage error must name the option: that text is what is tested.
  check "[UML] $opt: the message names --mem" grep -q -e '--mem' "$T/err"
  clean
done
grun run --kernel /bin/true --agent "$AGENT" "$SCEN/hostile-uml-plain.lua"
check "[UML] --kernel /bin/true: a setup error, exit status 2 (got $rc)" [ "$rc" = 2 ]
check "[UML] --kernel /bin/true: the message names the option (--kernel, or kernel /bin/true)" \
  grep -qE -e '--kernel|kernel /bin/true' "$T/err"
clean
# umlbed boot checks its arguments before it execs anything (--print: nothing boots).
mkdir -p "$T/boot/root" "$T/boot/dir"
: >"$T/boot/file"
B=(boot --print --root "$T/boot/root" --dir "$T/boot/dir")
grun "${B[@]}" --kernel "$KERNEL" --umid "hostile-$$" --cmdline "mem=128M kmemleak=on UMLBED_VARIANT=full lpj=0"
check "[UML] boot: good arguments print the command line (exit $rc)" eval '[ "$rc" = 0 ] && grep -qx "lpj=0" "$T/out"'
long=$(printf 'u%.0s' $(seq 1 64))
for a in "--kernel /bin/true" "--kernel $AGENT" "--kernel $T/fifo.json" "--root $T/boot/file" "--umid ../../../x" \
  "--umid $long" "--cmdline hostfs=/" "--cmdline uml_dir=$T/boot" "--cmdline mem=100G"; do
  read -ra argv <<<"$a"
  grun "${B[@]}" --kernel "$KERNEL" "${argv[@]}"
  check "[UML] boot $a: exit status 2 (got $rc)" eval '[ "$rc" = 2 ] && ended'
  # The usage error must name the option it refuses: that text is what is tested.
  check "[UML] boot $a: the message names ${argv[0]}" grep -qF -- "${argv[0]}" "$T/err"
done
grun "${B[@]}" --kernel "$KERNEL" --umid ""
check "[UML] boot --umid '': exit status 2 (got $rc)" [ "$rc" = 2 ]
check "[UML] boot --umid '': the message names --umid" grep -qF -- "--umid" "$T/err"
grun run "${K[@]}" "$SCEN/hostile-uml-mem.lua"
check "[UML] t:vm{mem = \"0\"} and {mem = \"lots\"} return nil, EINVAL (not CRASHED)" \
  verdict_is "hostile vm memory size" ok
[ "$rc" = 0 ] || show
clean

grun run "${K[@]}" --keep "$SCEN/hostile-uml-usertext.lua"
check "[UML] BUG:, Oops:, WARNING: and Kernel panic text from user space: the run is ok" \
  verdict_is "hostile user-space console text" ok
[ "$rc" = 0 ] || show
check "[UML] ... the text did reach the console" grep -q '^BUG: not really' "$TMPDIR"/umlbed-*/vm0/console.log
clean

grun run "${K[@]}" --timeout "$(scaled 120)" "$SCEN/hostile-uml-flood.lua"
check "[UML] over 2 MiB of console text, then sysrq c: CRASHED" verdict_is "console flood then a crash" CRASHED
# The panic line itself: a "sysrq: Trigger a crash" line can slip into a full excerpt buffer by its shortness. The
# excerpt is the console's text, which is what is tested.
check "[UML] ... and the excerpt shows the panic line, not only the flood" \
  diag_has "console flood then a crash" 'Kernel panic - not syncing'
diag_has "console flood then a crash" 'Kernel panic - not syncing' || show
clean

# ---- G. [UML] Guest containment: a static helper (hostile/helper.c) the scenario installs in /shared. ----
if ! gcc -static -O2 -Wall -o "$T/helper.bin" "$SRC/tests/runner/hostile/helper.c" 2>"$T/cc.err"; then
  prereq_skip "[UML] containment: cannot build a static helper: $(head -n 1 "$T/cc.err")"
else
  # The scenario installs the helper in its shared folder (vm:install: a copy, mode 0555); a sandboxed run may read
  # it anywhere, and write only in its own folder.
  export HOSTILE_HELPER=$TMPDIR/helper
  cp "$T/helper.bin" "$HOSTILE_HELPER"
  grun run "${K[@]}" "$SCEN/hostile-uml-mount.lua"
  check "[UML] G: a guest's hostfs mount of / shows the run folder, not the host's root" \
    verdict_is "hostile hostfs mount" ok
  [ "$rc" = 0 ] || show
  clean
  cp "$T/helper.bin" "$HOSTILE_HELPER"
  grun run "${K[@]}" "$SCEN/hostile-uml-dotdot.lua"
  check "[UML] G: a guest's hostfs mount of /../../.. does not climb out either (beyond the spec)" \
    verdict_is "hostile hostfs mount with .." ok
  [ "$rc" = 0 ] || show
  clean

  # The agent given to the runner, on the run folders' filesystem (where a hard link would share its mode).
  cp "$AGENT" "$T/agent"
  chmod 0755 "$T/agent"
  cp "$T/helper.bin" "$HOSTILE_HELPER"
  grun run --kernel "$KERNEL" --agent "$T/agent" "$SCEN/hostile-uml-chmod.lua"
  check "[UML] G: the guest's chmod 0777 /umlbed-agent ran" verdict_is "hostile chmod of the agent" ok
  check "[UML] G: ... and the host's agent kept its mode (got $(stat -c %a "$T/agent"))" [ "$(stat -c %a "$T/agent")" = 755 ]
  [ "$rc" = 0 ] || show
  clean

  export HOSTILE_SCRATCH=$T/scratch
  printf 'scratch\n' >"$HOSTILE_SCRATCH"
  cp "$T/helper.bin" "$HOSTILE_HELPER"
  grun run "${K[@]}" "$SCEN/hostile-uml-symlink.lua"
  check "[UML] G: vm:file(\"l\"):write through a guest-made link to a host file fails" \
    verdict_is "hostile symlink in the shared folder" ok
  check "[UML] G: ... and the host file is unchanged" [ "$(cat "$HOSTILE_SCRATCH")" = scratch ]
  [ "$rc" = 0 ] || show
  clean

  export HOSTILE_VICTIM_DIR=$T/victim
  mkdir -p "$HOSTILE_VICTIM_DIR"
  printf 'victim\n' >"$HOSTILE_VICTIM_DIR/victim"
  cp "$T/helper.bin" "$HOSTILE_HELPER"
  grun run "${K[@]}" "$SCEN/hostile-uml-swapshared.lua"
  check "[UML] G: host-side writes do not follow /shared swapped for a link (beyond the spec)" \
    verdict_is "hostile shared folder swapped for a link" ok
  check "[UML] G: ... and the host file is unchanged (beyond the spec)" [ "$(cat "$HOSTILE_VICTIM_DIR/victim")" = victim ]
  [ "$rc" = 0 ] || show
  clean
fi

check "no UML/fake process of this test left at the end" none_left "cwd:$TMPDIR/umlbed-"
echo "1..$n"

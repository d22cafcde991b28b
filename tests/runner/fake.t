#!/usr/bin/env bash
# SPDX-License-Identifier: MIT
# fake.t: the umlbed command line against a fake UML (umlbed-test re-run as the kernel): verdicts, reports, cleanup.
. "$(dirname "$0")/common.sh"
export UMLBED_FAKE=agent
F=(--fake-uml --kernel "$UMLBED_TEST" --agent "$UMLBED_TEST")
need_jq
# Timeouts that must fire: long enough that the fake boot surely ended and the intended call is the one pending
# (the verdict does not change with it), scaled for slow hosts. Times are checked only as "not before the timer"
# and, as a hang guard, "not long after".
TO=$(scaled 2)
GUARD=$((TO + $(scaled 60)))

run run "${F[@]}" "$SCEN/fake-ok.lua"
check "ok scenario: exit status 0" [ "$rc" = 0 ]
check "ok scenario: ok" verdict_is "fake ok" ok
check "ok scenario: no run folder left" [ "$(leftover_dirs)" = 0 ]

run run "${F[@]}" "$SCEN/fake-fail.lua"
check "failed expectation: exit status 1" [ "$rc" = 1 ]
check "failed expectation: FAILED verdict" verdict_is "fake fail" FAILED
# What a failure says is what these two check: where it is and what differs.
check "failed expectation: names file:line" diag_has "fake fail" \
  "fake-fail.lua:$(line_of "$SCEN/fake-fail.lua" '"deliberate mismatch"'): deliberate mismatch: expected \"b\", seen \"a\""
check "failed expectation: per-page diff" \
  diag_has "fake fail" 'page 3: expected A present, anonymous (COW copy), seen - not present'
# The scenario's last step records a sample (t:metric): it went on after its failed expectations.
check "failed expectation: the scenario went on" \
  jtrue --arg n "fake fail" '[.results[] | select(.name == $n) | .metrics[]? | select(.name == "went_on")] | length == 1'
kept=$(field "fake fail" kept)
check "failed run: folder kept and named" test -f "$kept/vm0/console.log"
rm -rf "$kept"

run run "${F[@]}" "$SCEN/fake-error.lua"
check "Lua error: ERROR verdict" verdict_is "fake error" ERROR
# The error's text: its file:line and Lua's traceback are what a reader needs.
check "Lua error: file:line of the error" \
  diag_has "fake error" "fake-error.lua:$(line_of "$SCEN/fake-error.lua" 'return x.field'): attempt to index a nil value"
check "Lua error: traceback" diag_has "fake error" 'stack traceback'
rm -rf "$TMPDIR"/umlbed-*

run run "${F[@]}" --timeout "$TO" "$SCEN/fake-hang.lua"
check "hung guest: TIMEOUT verdict" verdict_is "fake hang" TIMEOUT
# A TIMEOUT's text says which timer fired and what each task waited for: that text is what is tested.
check "hung guest: the ${TO} s timer fired" diag_has "fake hang" "no verdict after $TO.0 s"
check "hung guest: says what it waited for" diag_has "fake hang" 'waiting for hang'
check "hung guest: not before the limit, no hang past it (${secs}s for ${TO}s)" within "$secs" "$TO" "$GUARD"
rm -rf "$TMPDIR"/umlbed-*

run run "${F[@]}" --timeout "$TO" "$SCEN/fake-busy.lua"
check "Lua busy loop: TIMEOUT, the loop is not blocked forever" verdict_is "fake busy loop" TIMEOUT
check "Lua busy loop: stopped by the deadline hook (the TIMEOUT says so)" \
  diag_has "fake busy loop" 'ran past the timeout without waiting for the guest'
check "Lua busy loop: not before the limit, no hang past it (${secs}s for ${TO}s)" within "$secs" "$TO" "$GUARD"
rm -rf "$TMPDIR"/umlbed-*

run run "${F[@]}" "$SCEN/fake-garbage.lua"
check "garbage from the guest: ERROR, not a runner crash" verdict_is "fake garbage" ERROR
check "garbage from the guest: the ERROR names a protocol error" diag_has "fake garbage" 'protocol error'
check "garbage from the guest: exit status 1" [ "$rc" = 1 ]
rm -rf "$TMPDIR"/umlbed-*

run run "${F[@]}" "$SCEN/fake-warn.lua"
check "WARNING during the last request: CRASHED" verdict_is "fake warning" CRASHED
# The console excerpt is the text a reader gets: it must hold the warning's line.
check "WARNING: excerpt with the warning line" diag_has "fake warning" 'WARNING: CPU: 0 PID: 1 at fake.c:1'
rm -rf "$TMPDIR"/umlbed-*
run run "${F[@]}" --ignore-warning 'at fake.c:1' "$SCEN/fake-warn.lua"
check "--ignore-warning waives it" verdict_is "fake warning" ok

# Twenty boots one after another, each killed first: a killed instance is released once it is gone; then eight at
# once, and a ninth refused.
run run "${F[@]}" "$SCEN/fake-many-vms.lua"
check "twenty instances one after another, at most eight at once" verdict_is "fake many vms" ok
[ "$(verdict "fake many vms")" = ok ] || field "fake many vms" diag | head -20 | diag

run run "${F[@]}" "$SCEN/fake-eof.lua"
check "guest EOF: CRASHED" verdict_is "fake eof" CRASHED
rm -rf "$TMPDIR"/umlbed-*

run run "${F[@]}" "$SCEN/fake-panic.lua"
check "kernel panic: CRASHED" verdict_is "fake panic" CRASHED
check "kernel panic: console excerpt (the panic's own line)" diag_has "fake panic" 'Kernel panic - not syncing: fake panic'
rm -rf "$TMPDIR"/umlbed-*

run list "$SCEN/fake-matrix.lua"
check "matrix: list shows 4 combinations" [ "$(listed | wc -l)" = 4 ]
check "matrix: combination names" listed_has 'fake matrix [mode=private, sharers=3]'
run run "${F[@]}" "$SCEN/fake-matrix.lua"
check "matrix: exit status 0" [ "$rc" = 0 ]
check "matrix: 4 runs, 3 ok and 1 SKIP" jtrue '(.results | length) == 4 and .summary.ok == 3 and .summary.SKIP == 1'
check "matrix: the SKIP is the combination that calls t:skip, with its reason" \
  eval '[ "$(verdict "fake matrix [mode=private, sharers=3]")" = SKIP ] &&
    [ "$(field "fake matrix [mode=private, sharers=3]" diag)" = "not meaningful here" ]'

run run "${F[@]}" --filter '*private*' "$SCEN/fake-matrix.lua"
check "filter: only matching combinations" jtrue '[.results[].name] == ["fake matrix [mode=private, sharers=1]", "fake matrix [mode=private, sharers=3]"]'

run run "${F[@]}" -j 4 --junit "$T/r.xml" "$SCEN/fake-ok.lua" "$SCEN/fake-fail.lua" "$SCEN/fake-error.lua" "$SCEN/fake-matrix.lua"
check "-j 4: exit status 1" [ "$rc" = 1 ]
check "json report: all 7 results with the right counts" \
  jtrue '(.results | length) == 7 and .summary == {ok: 4, SKIP: 1, FAILED: 1, TIMEOUT: 0, CRASHED: 0, ERROR: 1}'
# TAP has a line per run too, whatever the order they ended in.
check "-j 4: TAP with a plan and a result for each of the 7 runs" tap_is 7
check "failed_runs (common.sh) names the FAILED and the ERROR run, each with its diagnostics" \
  eval '[ "$(failed_runs | grep -c "^[^ ]")" = 2 ] && failed_runs | grep -qx "fake fail: FAILED (.*fake-fail.lua)" &&
    failed_runs | grep -q "^  .*fake-fail.lua:$(line_of "$SCEN/fake-fail.lua" "\"deliberate mismatch\""): deliberate mismatch"'
check "junit report: one testcase per run, failure and error elements" \
  test "$(grep -c '<testcase ' "$T/r.xml")" = 7 -a "$(grep -c '<failure ' "$T/r.xml")" = 1 -a "$(grep -c '<error ' "$T/r.xml")" = 1
if command -v xmllint >/dev/null; then
  check "junit report is well-formed XML" xmllint --noout "$T/r.xml"
else
  prereq_skip "junit report is well-formed XML: no xmllint (Debian package libxml2-utils)"
fi
rm -rf "$TMPDIR"/umlbed-*
cp "$T/out" "$T/flat"

# --subtest: the same runs as a subtest of an outer stream (KTAP's nested test). Its layout is what is tested: the
# outer stream's reader sees no result of its own in it, and takes the counts from the report.
run run "${F[@]}" -j 4 --subtest "fake # 4" "$SCEN/fake-ok.lua" "$SCEN/fake-fail.lua" "$SCEN/fake-error.lua" \
  "$SCEN/fake-matrix.lua"
check "--subtest: exit status 1, as without it" [ "$rc" = 1 ]
check "--subtest: the report plans 7 runs and has every one" \
  jtrue '.planned == 7 and (.results | length) == 7 and ([.results[] | select(.verdict == "NOT RUN")] | length) == 0'
check "without --subtest, the TAP has lines that are not indented (the probe of the next check)" grep -qv '^    ' "$T/flat"
check "--subtest: every line of the TAP is indented by four spaces" not grep -qv '^    ' "$T/out"
check "--subtest: headed by its version line, its name (escaped as a TAP name) and its plan" \
  [ "$(head -n 3 "$T/out")" = "$(printf '    TAP version 13\n    # Subtest: fake \\# 4\n    1..7')" ]
{
  echo "TAP version 13"
  echo "1..1"
  cat "$T/out"
  echo "ok 1 - fake # 4"
} >"$T/outer"
check "--subtest: in an outer stream, prove counts the outer result alone (the failed run inside is not its)" \
  eval 'prove -e cat "$T/outer" >"$T/prove" 2>&1 && grep -q "Tests=1," "$T/prove"'
sed -e 's/^    //' -e '/^# Subtest: /d' "$T/out" >"$T/flat"
cp "$T/flat" "$T/out"
check "--subtest: unindented and without its name, the TAP has a plan and a result for each of the 7 runs" tap_is 7
rm -rf "$TMPDIR"/umlbed-*

run run "${F[@]}" --keep "$SCEN/fake-ok.lua"
check "--keep keeps a passing run's folder" [ "$(leftover_dirs)" = 1 ]
rm -rf "$TMPDIR"/umlbed-*

# SIGINT in the middle of a scenario: wait until the fake guest is up, interrupt, check nothing is left. The
# runner's own timeout is only a hang guard, longer than sigint_cleanup's wait for the guest.
sigint_cleanup "fake guest" "${F[@]}" --timeout "$(scaled 300)" "$SCEN/fake-hang.lua"
signal_cleanup TERM "fake guest" "${F[@]}" --timeout "$(scaled 300)" "$SCEN/fake-hang.lua"
signal_cleanup KILL "fake guest" "${F[@]}" --timeout "$(scaled 300)" "$SCEN/fake-hang.lua"

# A stop signal after the last run ended, while the reports are written, is noted, not fatal: the JSON report comes
# whole, naming the failed run's kept folder, and the exit status says the stop (the default action, which the
# signal had once the loop closed, ended the runner mid-report). The report's path is a FIFO, so the runner waits
# in its open until the test has sent the signal and opens the read end.
late=$T/late.json
mkfifo "$late"
"$UMLBED" run "${F[@]}" --json "$late" "$SCEN/fake-fail.lua" >"$T/out" 2>"$T/err" &
pid=$!
# The event: the runner waits for a reader of the FIFO (a hang guard bounds the wait, no verdict reads a time).
guard=$(scaled 60)
for _ in $(seq $((guard * 20))); do
  [ "$(cat "/proc/$pid/wchan" 2>/dev/null)" = wait_for_partner ] && break
  sleep 0.05
done
check "a stop after the last run: the runner waits in the report's open (the probe)" \
  [ "$(cat "/proc/$pid/wchan" 2>/dev/null)" = wait_for_partner ]
kill -INT $pid
timeout "$guard" cat "$late" >"$T/late.copy"
{ wait $pid; } 2>/dev/null
rc=$?
check "... ends the runner with 130" [ "$rc" = 130 ]
check "... and the report is whole: the failed run, with its kept folder" \
  eval '[ "$(jq -r ".results[0].verdict" "$T/late.copy")" = FAILED ] && [ -d "$(jq -r ".results[0].kept" "$T/late.copy")" ]'
[ "$rc" = 130 ] || diag "$T/err"
rm -rf "$TMPDIR"/umlbed-*

# Folders of runners that died without a reaper (or before one existed) go at the next run, unless kept on
# purpose (a failed run's folder, --keep). A pid that has exited stands for the dead runner.
sh -c 'exit 0' &
dead=$!
wait $dead
mkdir -p "$TMPDIR/umlbed-$dead-stale/vm0" "$TMPDIR/umlbed-$dead-kept" "$TMPDIR/umlbed-$$-alive"
touch "$TMPDIR/umlbed-$dead-kept/.umlbed-kept"
run run "${F[@]}" "$SCEN/fake-ok.lua"
check "stale folder of a dead runner removed" [ ! -e "$TMPDIR/umlbed-$dead-stale" ]
check "kept folder of a dead runner left alone" [ -d "$TMPDIR/umlbed-$dead-kept" ]
check "folder of a live runner left alone" [ -d "$TMPDIR/umlbed-$$-alive" ]
rm -rf "$TMPDIR"/umlbed-*

# Liveness is the folder's lock, not its PID: a runner in another PID namespace sharing TMPDIR has a PID that may
# be dead here. A folder named after the dead PID but locked (as its live owner holds it) stays; so does a pack's.
# The same names unlocked go, pack folders included.
mkdir -p "$TMPDIR/umlbed-$dead-otherns" "$TMPDIR/umlbed-pack-$dead-otherns" "$TMPDIR/umlbed-pack-$dead-stale"
exec 7<"$TMPDIR/umlbed-$dead-otherns" 8<"$TMPDIR/umlbed-pack-$dead-otherns"
flock -n 7 && flock -n 8
check "a folder locked by its owner: the lock is held" not flock -n "$TMPDIR/umlbed-$dead-otherns" true
run run "${F[@]}" "$SCEN/fake-ok.lua"
check "a locked folder whose PID is dead here is left alone" [ -d "$TMPDIR/umlbed-$dead-otherns" ]
check "... and a locked pack folder" [ -d "$TMPDIR/umlbed-pack-$dead-otherns" ]
check "an unlocked pack folder of a dead runner is removed" [ ! -e "$TMPDIR/umlbed-pack-$dead-stale" ]
exec 7<&- 8<&-
rm -rf "$TMPDIR"/umlbed-*

# The same with a real runner in a PID namespace of its own, whose PID is chosen to be free here. Its /proc is its
# namespace's (--mount-proc), as a container's is: the ASan build's leak check reads its own PID's entry there.
if [ "$(id -u)" = 0 ] && unshare --pid --fork --mount-proc true 2>/dev/null; then
  last=$(($(cat /proc/sys/kernel/pid_max) - 1000))
  while [ -e "/proc/$((last + 1))" ]; do last=$((last - 1)); done
  fifo=$T/ns-ready.fifo
  mkfifo "$fifo"
  # The shell forks the runner (it does not exec it), so the runner's PID in the namespace is last + 1.
  UMLBED_READY_FIFO=$fifo unshare --pid --fork --mount-proc sh -c 'echo "$0" >/proc/sys/kernel/ns_last_pid && "$@"; exit $?' \
    "$last" "$UMLBED" run "${F[@]}" --timeout "$(scaled 300)" "$SCEN/fake-hang.lua" >"$T/ns-out" 2>"$T/ns-err" &
  nspid=$!
  ready_wait "$fifo"
  check "PID namespace: the runner's folder is there, named after a PID dead here" \
    eval '[ -d "$(ls -d "$TMPDIR/umlbed-$((last + 1))-"* 2>/dev/null | head -n 1)" ] && [ ! -e "/proc/$((last + 1))" ]'
  run run "${F[@]}" "$SCEN/fake-ok.lua"
  check "PID namespace: another runner's clean-up leaves the live runner's folder" \
    eval '[ -d "$(ls -d "$TMPDIR/umlbed-$((last + 1))-"* 2>/dev/null | head -n 1)" ]'
  # Ends the runner in the namespace by its PID here: the child of the namespace's shell.
  nssh=$(child_of "$nspid" "sh -c")
  nsrun=${nssh:+$(child_of "$nssh" "$UMLBED run")}
  [ -n "$nsrun" ] && kill -TERM "$nsrun"
  { wait "$nspid"; } 2>/dev/null
  check "PID namespace: the runner ended by SIGTERM removed its folder" [ "$(leftover_dirs)" = 0 ]
else
  prereq_skip "a runner in a PID namespace of its own: needs root and unshare --pid --mount-proc"
fi
rm -rf "$TMPDIR"/umlbed-*

# umlbed run --pack: a stop signal sent to the outer process alone reaches the pack's runner, which cleans up, and
# the unpacked folder goes. The pack here is the fake guest's: a MANIFEST and a copy of this runner.
mkdir -p "$T/fpack/umlbed-pack/build/runner" "$T/fpack/umlbed-pack/scenarios"
echo "id 0123456789abcdef" >"$T/fpack/umlbed-pack/MANIFEST"
cp "$UMLBED" "$T/fpack/umlbed-pack/build/runner/umlbed"
tar -C "$T/fpack" -czf "$T/fpack.tar.gz" umlbed-pack
for sig in TERM HUP; do
  fifo=$T/pack-ready.fifo
  rm -f "$fifo"
  mkfifo "$fifo"
  rm -f "$T/r.json"
  UMLBED_READY_FIFO=$fifo "$UMLBED" run --pack "$T/fpack.tar.gz" "${F[@]}" --json "$T/r.json" --timeout "$(scaled 300)" \
    "$SCEN/fake-hang.lua" >"$T/out" 2>"$T/err" &
  pid=$!
  ready_wait "$fifo"
  inner=$(child_of $pid "$T/tmp/umlbed-pack-")
  check "--pack SIG$sig: the pack's runner and its fake guest are running" \
    eval '[ -n "$inner" ] && saw "umid=umlbed-$inner-"'
  check "--pack SIG$sig: the unpacked folder is there" eval 'ls -d "$TMPDIR"/umlbed-pack-$pid-* >/dev/null 2>&1'
  kill -$sig $pid
  { wait $pid; } 2>/dev/null
  prc=$?
  [ -n "$inner" ] && timeout "$(scaled 30)" tail --pid="$inner" -f /dev/null
  case $sig in TERM) want=143 ;; HUP) want=129 ;; esac
  check "--pack SIG$sig: the outer runner exits with the pack runner's $want (got $prc)" [ "$prc" = "$want" ]
  # The pack's runner wrote its report: the run it stopped is an ERROR, as after a signal.
  check "--pack SIG$sig: the pack's runner saw the signal" verdict_is "fake hang" ERROR
  check "--pack SIG$sig: no fake guest left" none_left "umid=umlbed-$inner-"
  check "--pack SIG$sig: no folder left, the unpacked one included" [ "$(leftover_dirs)" = 0 ]
  [ "$(leftover_dirs)" = 0 ] || { find "$TMPDIR" -maxdepth 1 | diag; rm -rf "$TMPDIR"/umlbed-*; }
done
run run "${F[@]}" "$SCEN/fake-fail.lua"
check "a failed run's kept folder is marked kept" [ -e "$(field "fake fail" kept)/.umlbed-kept" ]
rm -rf "$TMPDIR"/umlbed-*

# t:go tasks: concurrent guest calls from one scenario.
FAKE_KERNEL=$(realpath "$UMLBED_TEST")
export FAKE_KERNEL
run run "${F[@]}" "$SCEN/fake-go.lua"
check "t:go: calls in tasks run concurrently, results, errors, deadlocks, vm.kernel" [ "$rc" = 0 ]
[ "$rc" = 0 ] || diag "$T/out"
# The failures' and errors' texts below are what is tested: each names the task and its file:line.
run run "${F[@]}" "$SCEN/fake-go-late.lua"
check "t:go: a task still running when run returns is waited for" verdict_is "fake go late" FAILED
check "t:go: a failure in a task names the task's file:line" diag_has "fake go late" \
  "fake-go-late.lua:$(line_of "$SCEN/fake-go-late.lua" 't:fail("late failure'): late failure in a task"
rm -rf "$TMPDIR"/umlbed-*
run run "${F[@]}" "$SCEN/fake-go-error.lua"
check "t:go: an unwaited task error is an ERROR at the end" verdict_is "fake go error" ERROR
l=$(line_of "$SCEN/fake-go-error.lua" 'error("unwaited boom")')
check "t:go: the unwaited error names the task and its file:line" \
  diag_re "fake go error" "nobody waited for: task 1 \\(t:go at .*fake-go-error\\.lua:$l\\): .*fake-go-error\\.lua:$l: unwaited boom"
rm -rf "$TMPDIR"/umlbed-*
run run "${F[@]}" "$SCEN/fake-go-skip.lua"
check "t:go: t:skip in a task is an error, re-raised by wait (ERROR)" verdict_is "fake go skip" ERROR
check "t:go: ... saying t:skip was called in a task" diag_has "fake go skip" 't:skip() called in a task'
rm -rf "$TMPDIR"/umlbed-*
run run "${F[@]}" "$SCEN/fake-go-die.lua"
check "t:go: the guest dies with calls pending in two tasks: CRASHED" verdict_is "fake go die" CRASHED
# "went on after" is the scenario's own failure, written only if it went on.
check "t:go: ... and the scenario did not go on" jtrue '[.results[].diag // "" | contains("went on after")] | any | not'
rm -rf "$TMPDIR"/umlbed-*
run run "${F[@]}" "$SCEN/fake-go-kill.lua"
check "t:go: vm:kill() cancels another task's call (ECANCELED)" [ "$rc" = 0 ]
run run "${F[@]}" --timeout "$TO" "$SCEN/fake-go-hang.lua"
check "t:go: a run stuck in two tasks is a TIMEOUT" verdict_is "fake go hang" TIMEOUT
l=$(line_of "$SCEN/fake-go-hang.lua" 't:go(function()')
check "t:go: the TIMEOUT names every pending call" diag_re "fake go hang" \
  "no verdict after $TO\\.0 s; waiting for hang \\(the run function\\), hold \\(task 1 \\(t:go at .*fake-go-hang\\.lua:$l\\)\\)"
check "t:go: TIMEOUT not before the limit, no hang past it (${secs}s for ${TO}s)" within "$secs" "$TO" "$GUARD"
rm -rf "$TMPDIR"/umlbed-*
run run "${F[@]}" --timeout "$TO" "$SCEN/fake-go-busy.lua"
check "t:go: a busy task is stopped at the timeout" verdict_is "fake go busy" TIMEOUT
check "t:go: ... by the deadline hook (the TIMEOUT says so)" \
  diag_has "fake go busy" 'ran past the timeout without waiting for the guest'
check "t:go: ... not before the limit, no hang past it (${secs}s for ${TO}s)" within "$secs" "$TO" "$GUARD"
rm -rf "$TMPDIR"/umlbed-*
# The run function's reply is read in the same turn as the busy task's, after it: the busy task runs first, and the
# scenario ends with the run function's answered call not yet resumed. Its record must not leak (the ASan pass).
run run "${F[@]}" --timeout "$TO" "$SCEN/fake-go-answered.lua"
check "t:go: a busy task starves a task whose call was answered: TIMEOUT" verdict_is "fake go answered" TIMEOUT
check "t:go: ... and the TIMEOUT names the starved run function" \
  diag_has "fake go answered" 'ready to run but starved by it: the run function'
rm -rf "$TMPDIR"/umlbed-*
run run "${F[@]}" "$SCEN/fake-yield.lua"
check "a bare coroutine.yield() is an ERROR, not a hang" verdict_is "fake yield" ERROR
check "... saying it was outside a coroutine" diag_has "fake yield" 'coroutine.yield() outside a coroutine'
rm -rf "$TMPDIR"/umlbed-*

# proc:exit{wait=true}: returns after the agent's "exited" event for that worker, not at the reply.
run run "${F[@]}" "$SCEN/fake-exit-wait.lua"
check "waiting exit: event at once or later, other workers' events, a killed vm" [ "$rc" = 0 ]
[ "$rc" = 0 ] || diag "$T/out"
run run "${F[@]}" --timeout "$TO" "$SCEN/fake-exit-hang.lua"
check "waiting exit: no event is a TIMEOUT, not a return" verdict_is "fake exit hang" TIMEOUT
check "waiting exit: the TIMEOUT says it waited for the exited event" \
  diag_has "fake exit hang" "waiting for the worker's exited event"
rm -rf "$TMPDIR"/umlbed-*
run run "${F[@]}" -j 3 "$SCEN/fake-go.lua" "$SCEN/fake-go-kill.lua" "$SCEN/fake-go.lua"
check "t:go: -j 3 with tasks in every scenario" [ "$rc" = 0 ]

# vm.variant: BUILD/kernel/NAME/obj/linux names the variant, given as a path or as --variant.
mkdir -p "$T/b/kernel/fake-var/obj" "$T/b/guest"
cp "$UMLBED_TEST" "$T/b/kernel/fake-var/obj/linux"
FAKE_KERNEL=$T/b/kernel/fake-var/obj/linux FAKE_VARIANT=fake-var run run --fake-uml --kernel "$T/b/kernel/fake-var/obj/linux" \
  --agent "$UMLBED_TEST" "$SCEN/fake-go.lua"
check "vm.variant from the kernel path" [ "$rc" = 0 ]
check "json report names the variant" jtrue '.variant == "fake-var"'
mkdir -p "$T/b/runner"
cp "$UMLBED" "$T/b/runner/umlbed"
FAKE_KERNEL=$T/b/kernel/fake-var/obj/linux FAKE_VARIANT=fake-var "$T/b/runner/umlbed" run --fake-uml --variant fake-var \
  --agent "$UMLBED_TEST" "$SCEN/fake-go.lua" >"$T/out" 2>"$T/err"
check "vm.variant from --variant (any name under BUILD/kernel)" [ "$?" = 0 ]
run run --variant ../x "$SCEN/fake-ok.lua"
check "--variant refuses a path: a usage error (exit $rc)" [ "$rc" = 2 ]
# The usage message is what a user reads: it must say what --variant wants.
check "... saying --variant wants a name" grep -q 'variant wants a name' "$T/err"

# --param and umlbed fuzz.
run list --param n=5 --param n=6 --param word=abc "$SCEN/fake-param.lua"
check "--param: replaces a matrix key's list and adds a key" \
  [ "$(listed | tr '\n' '|')" = "fake param [n=5, word=abc]|fake param [n=6, word=abc]|" ]
run run "${F[@]}" --param n=5 --param word=abc "$SCEN/fake-param.lua"
check "--param: numbers converted, strings kept" [ "$rc" = 0 ]
run run "${F[@]}" --param 1n=5 "$SCEN/fake-param.lua"
check "--param: a bad KEY is a usage error" [ "$rc" = 2 ]
run fuzz "${F[@]}" --seed 5 --steps 7 --runs 3 -j 2 "$SCEN/fake-param.lua"
check "fuzz: one run per seed (x2 for the matrix), all ok (exit $rc)" [ "$(count ok 'steps=7\]$')" = 6 ]
check "fuzz: seeds S..S+K-1" jtrue '[.results[].name | capture("seed=(?<s>[0-9]+), steps=7]$").s] | sort == ["5", "5", "6", "6", "7", "7"]'
# The replay command is the TAP comment fuzz documents (umlbed(1)): its text is what is tested.
check "fuzz: the seeds are printed for replay" grep -q "^# umlbed fuzz: seeds 5..7; replay one with: umlbed fuzz --seed SEED --steps 7 $SCEN/fake-param.lua\$" "$T/out"
run fuzz "${F[@]}" "$SCEN/fake-param.lua"
seed=$(sed -n 's/^# umlbed fuzz: seed \([0-9]*\); replay with: umlbed fuzz --seed \1 .*fake-param.lua$/\1/p' "$T/out")
check "fuzz: without --seed, a clock seed printed and used (seed ${seed:-none})" \
  [ "$(count ok "^fake param \\[n=[12], seed=${seed:-none}\\]$")" = 2 ]
run run "${F[@]}" --seed 3 "$SCEN/fake-param.lua"
check "--seed belongs to umlbed fuzz" [ "$rc" = 2 ]
run fuzz "${F[@]}" --runs 0 "$SCEN/fake-param.lua"
check "fuzz: --runs 0 is a usage error" [ "$rc" = 2 ]

cp "$SCEN/fake-broken.lua.in" "$T/fake-broken.lua"
run run "${F[@]}" "$T/fake-broken.lua" "$SCEN/fake-ok.lua"
check "broken scenario file: an ERROR run named after the file" verdict_is "$T/fake-broken.lua" ERROR
# A syntax error's message is what is tested: Lua's, with the file:line.
# Lua names the line of the end of the file, the one after its last.
check "... whose error names file:line" \
  diag_has "$T/fake-broken.lua" "$T/fake-broken.lua:$(($(wc -l <"$T/fake-broken.lua") + 1)): '}' expected"
check "broken scenario file: the other file still ran" verdict_is "fake ok" ok

run run --kernel /nonexistent "$SCEN/fake-ok.lua"
check "missing kernel: exit status 2" [ "$rc" = 2 ]
# Usage errors: the message naming the option or file is what the user gets, so its text is what is tested.
check "missing kernel: a message naming it" grep -q 'kernel /nonexistent' "$T/err"
run run --bogus
check "bad option: exit status 2" [ "$rc" = 2 ]
run --help
check "--help: exit 0" [ "$rc" = 0 ]
check "--help: usage" grep -q 'usage: umlbed run' "$T/out"
check "--help: fuzz and --param" grep -q 'umlbed fuzz \[--seed S\]' "$T/out"
# The guests work in their run folders, which are all in this test's TMPDIR; the signal checks above saw that
# probe find a live guest.
check "no UML/fake process of this test left at the end" none_left "cwd:$TMPDIR/umlbed-"
echo "1..$n"

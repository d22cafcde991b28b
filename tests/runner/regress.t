#!/usr/bin/env bash
# SPDX-License-Identifier: MIT
# regress.t: one test per fixed runner bug, each named by the behaviour it pins: each failed before its fix.
. "$(dirname "$0")/common.sh"
export UMLBED_FAKE=agent
F=(--fake-uml --kernel "$UMLBED_TEST" --agent "$UMLBED_TEST")
need_jq
# A runner that crashes (as on a failed calloc at the end of a run) leaves no core file behind.
ulimit -c 0 2>/dev/null || true
# Every runner started here is bounded by this guard; it only ends a runner that hangs.
GUARD=$(scaled 60)
PRELOAD=

clean() { rm -rf "$TMPDIR"/umlbed-*; }
show() { diag "$T/out"; diag "$T/err"; }
# The TAP line whose text matches the ERE $1 and the diagnostics after it, up to the next result line.
block() { re=$1 awk 'BEGIN { re = ENVIRON["re"] } /^(not )?ok [0-9]+ / { on = ($0 ~ re) } on' "$T/out"; }
in_block() { block "$1" | grep -qE -- "$2"; }

# The sanitizers own calloc (an LD_PRELOAD shim cannot fail it) and valgrind cannot run an ASan binary: the two
# checks below run the build without sanitizers (PLAIN_UMLBED, common.sh), whichever build the file tests.
tested=$UMLBED
UMLBED=$PLAIN_UMLBED
FP=(--fake-uml --kernel "$PLAIN_TEST" --agent "$PLAIN_TEST")
# ---- A failed calloc of the folder-removal work request: after_rm(NULL, 0) dereferenced NULL. ----
# An LD_PRELOAD shim fails exactly that allocation: calloc(1, sizeof(uv_work_t)) called from the runner's own code.
if ldd "$UMLBED" 2>/dev/null | grep -q 'libasan\|libubsan'; then
  prereq_skip "failed calloc at the end of a run: no build without sanitizers at $PLAIN_UMLBED (make runner)"
elif read -ra uvflags <<<"$(pkg-config --cflags libuv 2>/dev/null)" &&
  ! ${CC:-cc} -std=c11 -Wall -Wextra -Werror -O2 -shared -fPIC "${uvflags[@]}" \
  -I"$SRC/protocol" -I"$SRC/runner/core" -I"$SRC/runner/host" -I"$SRC/runner/cli" \
  -o "$T/failalloc.so" "$SRC/tests/runner/regress/failalloc.c" 2>"$T/cc.err"; then
  prereq_skip "failed calloc at the end of a run: cannot build the calloc shim: $(head -n 1 "$T/cc.err")"
else
  # The shim records each allocation it fails in its own log (FAILALLOC_LOG), apart from the runner's output.
  export FAILALLOC_LOG=$TMPDIR/failalloc.log
  # What the shim failed: its log, or the runner's standard error where a run process's walls refuse the log.
  shimlog() { cat "$FAILALLOC_LOG" "$T/err" 2>/dev/null; }
  PRELOAD=$T/failalloc.so
  grun run "${FP[@]}" -j 1 "$SCEN/fake-ok.lua"
  PRELOAD=
  # One scenario, one work request: a second hit would be another calloc of the same size in the runner.
  check "failed calloc at the end of a run: the shim failed exactly one calloc of a uv_work_t in the runner" \
    [ "$(shimlog | grep -c '^failalloc: calloc(1, sizeof(uv_work_t))')" = 1 ]
  check "failed calloc at the end of a run: no crash, exit status 0 (got $rc)" [ "$rc" = 0 ]
  check "failed calloc at the end of a run: the verdict is reported" verdict_is "fake ok" ok
  check "failed calloc at the end of a run: no run folder left" [ "$(leftover_dirs)" = 0 ]
  [ "$rc" = 0 ] || show
  clean

  # The run list's growth failing (an unchecked realloc of the jobs array dereferenced NULL).
  export FAILALLOC=jobs3
  PRELOAD=$T/failalloc.so
  rm -f "$FAILALLOC_LOG"
  grun list "${FP[@]}" "$SCEN/fake-matrix.lua"
  PRELOAD=
  unset FAILALLOC
  check "out of memory growing the run list: the shim failed it" eval "shimlog | grep -q '^failalloc: realloc to three jobs'"
  check "... a clean error, exit status 2, no crash (got $rc)" [ "$rc" = 2 ]
  # umlbed list has no report: its message, naming the error, is what the user gets.
  check "... naming it" grep -q 'Cannot allocate memory' "$T/err"
  clean

  # An argument buffer that cannot grow: the call is ENOMEM, not sent without its argument.
  export FAILALLOC=buf2m
  PRELOAD=$T/failalloc.so
  rm -f "$FAILALLOC_LOG"
  grun run "${FP[@]}" "$SCEN/regress-args-nomem.lua"
  PRELOAD=
  unset FAILALLOC
  check "out of memory building a call's arguments: the shim failed it" eval "shimlog | grep -q '^failalloc: realloc to 2 MiB'"
  check "... the call returns ENOMEM" verdict_is "regress argument buffer out of memory" ok
  [ "$rc" = 0 ] || show
  clean
fi

# ---- A malformed error reply raised in the call's continuation before its record was freed: a leak. ----
if ! command -v valgrind >/dev/null; then
  prereq_skip "no valgrind (Debian package valgrind)"
elif ldd "$UMLBED" 2>/dev/null | grep -q 'libasan\|libubsan'; then
  prereq_skip "malformed error reply under valgrind: no build without sanitizers at $PLAIN_UMLBED (make runner)"
else
  mkdir -p "$T/vg"
  GUARD=$(scaled 240) grun run "${FP[@]}" "$SCEN/regress-bad-error-reply.lua"
  rm -f "$T/r.json"
  # Valgrind does not know Landlock's calls, and a sandboxed scenario is refused where there is no Landlock: under
  # valgrind the run is --unsafe-lua, the one way to run it unwalled.
  valgrind -q --trace-children=yes --trace-children-skip='*/umlbed-test' --trace-children-skip-by-arg=__wall \
    --log-file="$T/vg/%p" \
    --leak-check=full --errors-for-leak-kinds=definite "$UMLBED" run --unsafe-lua "${FP[@]}" --json "$T/r.json" \
    --timeout "$(scaled 120)" "$SCEN/regress-bad-error-reply.lua" >"$T/out" 2>"$T/err"
  rc=$?
  check "malformed error reply: the run is ok under valgrind (exit $rc)" verdict_is "regress malformed error reply" ok
  check "malformed error reply: valgrind traced the run process (a log per process)" [ "$(find "$T/vg" -type f | wc -l)" -ge 2 ]
  check "malformed error reply: nothing definitely lost" not grep -q 'definitely lost' "$T/vg"/*
  grep -q 'definitely lost' "$T/vg"/* && diag "$T/vg"/*
  clean
fi
UMLBED=$tested

# ---- vm:invalidate{file = PATH} without length= silently invalidated zero bytes at offset 0. ----
# The check is on the host before any request, so the fake guest suffices.
grun run "${F[@]}" "$SCEN/regress-invalidate-length.lua"
check "vm:invalidate{file = PATH} without length= is an error naming length=" \
  verdict_is "regress invalidate path without length" ok
[ "$rc" = 0 ] || show
clean

# ---- strtok on the diagnostics made a note before t:skip the SKIP reason, and cut the reports' text. ----
grun run "${F[@]}" --junit "$T/r.xml" "$SCEN/regress-skip-note.lua"
check "a note before t:skip: the run is a SKIP" verdict_is "regress skip after a note" SKIP
# The SKIP directive's reason is the TAP text that was wrong: that line is what is tested.
check "a note before t:skip: the SKIP reason is the t:skip text" \
  grep -qx 'ok 1 - regress skip after a note # SKIP regress skip reason' "$T/out"
[ "$(verdict "regress skip after a note")" = SKIP ] || show
# The scenario's note, whole: the texts are the scenario's own.
check "a note before t:skip: the JSON report carries the whole note and the reason" \
  jtrue '.results[0].diag | contains("regress first note line\nregress second note line") and contains("regress skip reason")'
check "a note before t:skip: the JUnit report carries the whole note" perl -e '
  local $/; open my $f, "<", $ARGV[0] or die; my $x = <$f>;
  my ($tc) = $x =~ m{(<testcase [^>]*name="regress skip after a note"[^>]*(?:/>|>.*?</testcase>))}s;
  exit !(defined $tc && $tc =~ /regress first note line/ && $tc =~ /regress second note line/)' "$T/r.xml"
clean

# ---- Notes were printed only for runs that were not ok. ----
grun run "${F[@]}" "$SCEN/regress-pass-note.lua"
check "a passing run is ok" verdict_is "regress note of a passing run" ok
# Where TAP prints the note (under the run's ok line, as diagnostics) is what is tested.
check "a passing run's note is printed after its ok line, each line a diagnostic" \
  eval 'in_block "^ok 1 - regress note of a passing run$" "^#.*regress passing note one$" &&
    in_block "^ok 1 - regress note of a passing run$" "^#.*regress passing note two$"'
in_block '^ok 1 ' 'regress passing note two' || show
clean

# ---- An error reply of ID 0 (the agent could not tell the request) was dropped: TIMEOUT, not ERROR. ----
# The run's own timer is far longer than a fake boot and one request: an ERROR cannot be a late TIMEOUT.
TO=$(scaled 10)
cp "$SRC/tests/runner/regress/fake-id0.sh" "$T/fake-id0.sh"
chmod +x "$T/fake-id0.sh"
grun run --fake-uml --kernel "$T/fake-id0.sh" --agent "$UMLBED_TEST" --timeout "$TO" "$SCEN/regress-id0-error.lua"
check "ID-0 error reply is ERROR, not TIMEOUT" verdict_is "regress ID-0 error reply" ERROR
check "ID-0 error reply: the diagnostics carry the agent's error (EINVAL)" diag_has "regress ID-0 error reply" 'EINVAL'
check "ID-0 error reply: the verdict came before the ${TO}s timer (${secs}s)" \
  awk -v x="$secs" -v to="$TO" 'BEGIN { exit !(x < to) }'
[ "$(verdict "regress ID-0 error reply")" = ERROR ] || show
clean

# ---- Dead code: functions and fields nothing used. The sources checked are those the runner under test was built
# from (its debug info). ----
built=$(readelf --debug-dump=info "$UMLBED" 2>/dev/null | grep -m 1 -o '/[^ ]*/runner/lua/t\.c$')
srcdir=${built%/runner/lua/t.c}
# Without debug info, the sources are this tree's; a tree that is gone cannot stand in for another.
[ -n "$built" ] || srcdir=$SRC
if ! git -C "$srcdir" rev-parse --git-dir >/dev/null 2>&1; then
  prereq_skip "dead code: $srcdir, where the runner was built from, is not a git working tree"
else
  for name in pending_verb nchecks umb_vm_is_ready umb_vm_is_dead umb_vm_dir; do
    # Tracked and new files alike, wherever the layering puts them under runner/.
    hits=$(git -C "$srcdir" grep --untracked -lw -e "$name" -- runner | tr '\n' ' ')
    check "dead code: $name appears nowhere in $srcdir/runner (${hits:-none})" [ -z "$hits" ]
  done
fi

# ---- The usage said 130 for any interruption, but SIGTERM gives 143. ----
grun --help
# The usage text is what is tested: it documents the exit statuses.
check "the usage names exit status 143 for SIGTERM" grep -Eq '143[ :=(]*SIGTERM|SIGTERM[ :=(]*143' "$T/out"
check "the usage names exit status 130 for SIGINT" grep -Eq '130[ :=(]*SIGINT|SIGINT[ :=(]*130' "$T/out"
# SIGTERM once the fake guest is up (the scenario opens the FIFO: the event, not a delay; ready_wait).
fifo=$T/ready.fifo
mkfifo "$fifo"
UMLBED_READY_FIFO=$fifo "$UMLBED" run "${F[@]}" --timeout "$(scaled 300)" "$SCEN/fake-hang.lua" >"$T/out" 2>"$T/err" &
pid=$!
# A runner that ends before its guest is up never opens the FIFO: this watcher says so and opens it in its place
# (read-write, which never blocks), so the wait ends.
{ tail -s 0.1 --pid=$pid -f /dev/null; echo "the runner ended before its guest was up" >"$T/ready"; : 3<>"$fifo"; } &
watcher=$!
if ready_wait "$fifo" "$GUARD" && ! grep -qs 'the runner ended' "$T/ready"; then
  # The probe of the last check sees this guest: it works in its run folder.
  check "SIGTERM: the fake guest was running before it" saw "cwd:$TMPDIR/umlbed-"
  kill -TERM $pid 2>/dev/null
else
  ok 1 "SIGTERM: the fake guest was running before it"
  echo "# no SIGTERM: $(cat "$T/ready" 2>/dev/null || echo "not ready within the ${GUARD}s guard")" >>"$T/err"
  kill -KILL $pid 2>/dev/null
fi
{ wait $pid; } 2>/dev/null
rc=$?
wait $watcher
check "SIGTERM gives the exit status the usage names, 143 (got $rc)" [ "$rc" = 143 ]
[ "$rc" = 143 ] || show
clean

check "no fake guest of this test left at the end" none_left "cwd:$TMPDIR/umlbed-"
echo "1..$n"

#!/usr/bin/env bash
# SPDX-License-Identifier: MIT
# check-log.t: scripts/check-log.pl, make check's keeper of each test file's output: the whole of it in a log, prove's result unchanged, and a summary that names the failing lines with their diagnostics.
. "$(dirname "$0")/../lib/strict.sh"
. "$(dirname "$0")/../lib/tap.sh"
top=$(cd "$(dirname "$0")/../.." && pwd)
CL=$top/scripts/check-log.pl
# Run by make check, this file has a log folder of its own in the environment: its made-up files must not see it.
unset UMLBED_CHECK_LOGS
T=$(mktemp -d "${TMPDIR:-/tmp}/check-log-t.XXXXXX")
trap 'rm -rf "$T"' EXIT
cd "$T" || exit 1
mkdir t

# Made-up test files, one per way to end: a pass, a failing check with diagnostics on stderr, a TODO, a Perl test
# that fails, one that dies before its plan is done.
cat >t/pass.t <<'EOF'
#!/usr/bin/env bash
echo "ok 1 - fine"
echo "# said on stderr" >&2
echo "1..1"
EOF
cat >t/fail.t <<'EOF'
#!/usr/bin/env bash
echo "ok 1 - first"
echo "not ok 2 - the second holds"
echo "# why it did not: the report said CRASHED" >&2
# Two pipes: the next result waits until the diagnostic is in the log (the keeper read it), not for a time.
log=${UMLBED_CHECK_LOGS:+$UMLBED_CHECK_LOGS/t/fail.t.tap}
[ -z "$log" ] || timeout 60 bash -c 'until grep -q "why it did not" "$1" 2>/dev/null; do :; done' - "$log"
echo "ok 3 - third"
echo "not ok 4 - not yet # TODO later"
echo "1..4"
EOF
cat >t/perl.t <<'EOF'
use Test::More tests => 2;
ok(1, 'one');
is(2, 3, 'two is three');
EOF
cat >t/die.t <<'EOF'
#!/usr/bin/env bash
echo "1..3"
echo "ok 1 - a"
echo "the last words before it died" >&2
exit 3
EOF
# A failing check whose diagnostic is long (a tool's output): its verdict is on its last line.
cat >t/long.t <<'EOF'
#!/usr/bin/env bash
echo "not ok 1 - a tool is clean"
for i in $(seq 1 60); do echo "# tool line $i" >&2; done
echo "# the tool's verdict: 1 error" >&2
echo "1..1"
EOF
chmod +x t/pass.t t/fail.t t/die.t t/long.t

# Prove's own verdicts with and without the keeper are the same: it is a pipe, not a judge.
prove t/ >plain.out 2>&1
plain=$?
UMLBED_CHECK_LOGS=$T/logs prove -j 2 --exec "$CL" t/ >kept.out 2>kept.err
kept=$?
check "prove's exit status is the same through check-log.pl ($kept, without it $plain)" [ "$kept" = "$plain" ] && [ "$kept" = 1 ]
# A file's block and its lines, whatever order the files ended in (two at a time, one finishes first).
summary() { sed -n '/^Test Summary Report/,$p' "$1" | grep -v -e '^Files=' -e wallclock | paste -sd'\v' |
  sed 's/\v\([^ \v]\)/\n\1/g' | sort; }
check "... and so is its summary of each file" eval 'diff <(summary plain.out) <(summary kept.out) >&2'
check "the test's stderr still reaches the terminal" grep -qx '# said on stderr' kept.err

check "each file's whole output is kept in DIR/FILE.tap" eval \
  '[ "$(find logs -name "*.t.tap" | sort | paste -sd" ")" = "logs/t/die.t.tap logs/t/fail.t.tap logs/t/long.t.tap logs/t/pass.t.tap logs/t/perl.t.tap" ]'
check "... its TAP and its stderr, in the order they came" \
  eval '[ "$(sed -n 2,3p logs/t/fail.t.tap)" = "$(printf "not ok 2 - the second holds\n# why it did not: the report said CRASHED")" ]'
check "... and an end line with prove's judgement, the exit status and the times" \
  grep -qE '^# check-log: t/fail.t FAIL: planned 4, ran 4, failed 2, exit 0; from [0-9:]{8} to [0-9:]{8} \([0-9.]+ s\), load ' \
  logs/t/fail.t.tap
check "a passing file's end line says PASS" grep -q '^# check-log: t/pass.t PASS: planned 1, ran 1, failed none, exit 0;' logs/t/pass.t.tap
check "a passing file has no failure extract (the probe: a failing one has)" \
  eval '[ ! -e logs/t/pass.t.fail.log ] && [ -s logs/t/fail.t.fail.log ]'

"$CL" --summary logs >sum.out
rc=$?
check "--summary: exit 1 when a file failed (got $rc)" [ "$rc" = 1 ]
check "--summary: a header per failed file, naming its log" \
  eval '[ "$(grep -c "^==== .* failed: its whole output is logs/t/.*\.t\.tap$" sum.out)" = 4 ]'
check "--summary: not the file that passed" not grep -q 'pass.t failed' sum.out
check "--summary: the failing check, then its diagnostic" \
  eval 'grep -A1 "^     not ok 2 - the second holds$" sum.out | grep -q "why it did not: the report said CRASHED"'
check "--summary: not the TODO that failed" not grep -q 'not ok 4' sum.out
check "--summary: Test::More's diagnostics of its failing check" \
  eval 'grep -A3 "^     not ok 2 - two is three$" sum.out | grep -q "Failed test .two is three."'
check "--summary: a file that died: its plan and its last words" \
  eval 'grep -q "parse error: Bad plan.  You planned 3 tests but ran 1." sum.out &&
    grep -q "^       the last words before it died$" sum.out'
check "--summary: a long diagnostic keeps its start" grep -q '^       # tool line 1$' sum.out
check "... and its end, the tool's verdict" grep -q "^       # the tool's verdict: 1 error$" sum.out
check "... and says what it cut" grep -q '^       \.\.\. ([0-9]* lines cut: the whole output has them)$' sum.out
check "--summary: which files ran beside each" grep -q '^     beside it ran: ' sum.out
check "--summary: how many failed" grep -qx 'check-log: 4 of 5 test files failed (above, each with its failing lines and their diagnostics)' sum.out
rm -f logs/t/fail.t.* logs/t/perl.t.* logs/t/die.t.* logs/t/long.t.*
"$CL" --summary logs >sum.out
rc=$?
check "--summary: exit 0 when none failed (got $rc)" [ "$rc" = 0 ]

# Without a log folder it only runs the file, as prove would.
env -u UMLBED_CHECK_LOGS "$CL" t/pass.t >alone.out 2>/dev/null
check "without UMLBED_CHECK_LOGS: the test runs, unchanged" [ "$(cat alone.out)" = "$(printf 'ok 1 - fine\n1..1')" ]
"$CL" >/dev/null 2>&1
check "no FILE: a usage error (exit 2)" [ $? = 2 ]
echo "1..$n"

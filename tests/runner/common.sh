# SPDX-License-Identifier: MIT
# common.sh: shared setup for the runner's TAP tests: paths, a private TMPDIR, and TAP helpers.
# shellcheck shell=bash
# Its variables (UMLBED_TEST, SCEN, K, secs, ...) are for the tests that source it.
# shellcheck disable=SC2034
# The tests are bash scripts: a test started by another shell (sh FILE.t) runs again under bash.
if [ -z "${BASH_VERSION:-}" ]; then exec bash "$0" "$@"; fi
SRC=$(cd "$(dirname "$0")/../.." && pwd)
BUILD=${UMLBED_BUILD:-$SRC/build}
# UMLBED_RUNNER_DIR selects the build to test ($BUILD/runner or $BUILD/runner-san). A file whose subject is a
# kernel or the tools around the runner, not the runner's own code, sets PLAIN_RUNNER=1 before sourcing this and
# drives the build without sanitizers whatever that says: the runner's tests cover its code under ASan/UBSan, and
# each run of the sanitized build costs about half as much again (LeakSanitizer's scan at each run child's exit).
RDIR=${UMLBED_RUNNER_DIR:-$BUILD/runner}
[ -n "${PLAIN_RUNNER:-}" ] && RDIR=$BUILD/runner
UMLBED=$RDIR/umlbed
UMLBED_TEST=$RDIR/umlbed-test
# The build without sanitizers, for the few checks the ASan/UBSan build cannot make (its peak memory, an allocation
# failed by an LD_PRELOAD shim, valgrind): the build under test when it is that one, else BUILD/runner's, which make
# check builds too. SANITIZED is non-empty when the build under test is the ASan/UBSan one.
SANITIZED=
grep -qa __asan_init "$UMLBED" 2>/dev/null && SANITIZED=1
PLAIN_UMLBED=$UMLBED
PLAIN_TEST=$UMLBED_TEST
[ -n "$SANITIZED" ] && PLAIN_UMLBED=$BUILD/runner/umlbed PLAIN_TEST=$BUILD/runner/umlbed-test
SCEN=$SRC/tests/runner/scenarios
# shellcheck source=SCRIPTDIR/../lib/strict.sh
. "$SRC/tests/lib/strict.sh"
# shellcheck source=SCRIPTDIR/../lib/tap.sh
. "$SRC/tests/lib/tap.sh"
# Every test gets its own TMPDIR so "no folder left behind" can be checked exactly.
T=$(mktemp -d "${TMPDIR:-/tmp}/umlbed-t.XXXXXX")
export TMPDIR=$T/tmp
mkdir -p "$TMPDIR"
trap 'rm -rf "$T"' EXIT
# tap_is N: the last run's TAP, read by TAP::Parser as prove reads it, has the plan 1..N and N results, numbered 1
# to N, and nothing it cannot parse: its structure, not its wording.
tap_is() {
  perl -MTAP::Parser -e 'local $/; open my $h, "<", $ARGV[0] or exit 2; my $p = TAP::Parser->new({ tap => <$h> });
    my @n; while (my $r = $p->next) { push @n, $r->number if $r->is_test } my %u = map { $_ => 1 } @n;
    exit !(!$p->parse_errors && ($p->tests_planned // -1) == $ARGV[1] && @n == $ARGV[1] && keys %u == @n
      && !grep { $_ < 1 || $_ > $ARGV[1] } @n)' "$T/out" "$1"
}
# listed: the run names of the last `run list` (umlbed list prints FILE<TAB>NAME per run, a format for programs).
listed() { cut -f2 "$T/out"; }
# listed_has NAME: the last `run list` lists a run named NAME.
listed_has() { listed | grep -qxF -- "$1"; }
leftover_dirs() {
  local d c=0
  for d in "$TMPDIR"/umlbed-*; do [ -e "$d" ] && c=$((c + 1)); done
  echo "$c"
}
# ---- The JSON report: checks about verdicts, counts and fields read it, not the TAP's wording. ----
# J is the report of the last `umlbed run` or `umlbed fuzz` started by run or grun: its --json FILE, or $T/r.json,
# which run and grun add when the command line has none. It is removed before each run, so a runner that writes no
# report is never judged by the last one.
J=$T/r.json
# with_json ARGS...: RUN_ARGS is ARGS with --json "$T/r.json" added after a run or fuzz subcommand without one; J is
# the report's path.
with_json() {
  local i
  J=$T/r.json
  RUN_ARGS=("$@")
  case ${1:-} in run | fuzz) ;; *) return 0 ;; esac
  for ((i = 1; i < $#; i++)); do
    case ${RUN_ARGS[i]} in
      --json) J=${RUN_ARGS[i + 1]} && rm -f "$J" && return 0 ;;
      --json=*) J=${RUN_ARGS[i]#--json=} && rm -f "$J" && return 0 ;;
    esac
  done
  rm -f "$J"
  RUN_ARGS=("$1" --json "$J" "${@:2}")
}
# need_jq: ends the test file with a SKIP plan (a failure under strict mode) when jq, which reads the report, is
# missing.
need_jq() { command -v jq >/dev/null || prereq_skip_all "no jq to read the JSON report (Debian package jq)"; }
# json [JQ-OPTION...] FILTER: what FILTER gives on the report, as text (e.g. json '.results | length').
json() { jq -r "$@" "$J"; }
# jtrue [JQ-OPTION...] FILTER: FILTER gives exactly true on the report (e.g. jtrue '.summary.FAILED == 1').
jtrue() { [ "$(jq "$@" "$J" 2>/dev/null)" = true ]; }
# verdict NAME: the verdict of the one run named NAME ("none" if no run has that name, "N runs" if several do).
verdict() {
  jq -r --arg n "$1" '[.results[] | select(.name == $n) | .verdict]
    | if length == 1 then .[0] elif length == 0 then "none" else "\(length) runs" end' "$J" 2>/dev/null ||
    echo "no report"
}
# verdict_is NAME VERDICT[|VERDICT...]: the one run named NAME has VERDICT (or one of them); if not, a diagnostic
# says what it has.
verdict_is() {
  local v
  v=$(verdict "$1")
  case "|$2|" in *"|$v|"*) return 0 ;; esac
  echo "# '$1': verdict $v, not $2" >&2
  return 1
}
# count [VERDICT [NAME-REGEX]]: how many runs the report lists (with VERDICT, whose name matches NAME-REGEX).
count() {
  jq -r --arg v "${1:-}" --arg re "${2:-}" \
    '[.results[] | select(($v == "" or .verdict == $v) and (.name | test($re)))] | length' "$J" 2>/dev/null ||
    echo "no report"
}
# field NAME KEY: field KEY (diag, print, kept, file...) of the one run named NAME, as text; nothing for null.
field() {
  jq -r --arg n "$1" --arg k "$2" \
    '[.results[] | select(.name == $n)] | if length == 1 then .[0][$k] // empty else empty end' "$J" 2>/dev/null
}
# failed_runs: each run of the report that is neither ok nor SKIP, as a line "NAME: VERDICT (FILE)" and its first
# 12 lines of diagnostics indented: what a failed check shows (failed_runs | diag), in place of the TAP's blocks.
failed_runs() {
  jq -r '.results[] | select(.verdict != "ok" and .verdict != "SKIP") | "\(.name): \(.verdict) (\(.file))",
    (.diag // "" | split("\n") | map(select(. != "")) | .[:12][] | "  " + .)' "$J" 2>/dev/null
}
# diag_has NAME TEXT: the diagnostics of the run named NAME, as the JSON report keeps them, hold TEXT (a fixed
# string). Only for checks where the message itself is what is tested (an error naming its file:line, a diff).
diag_has() { field "$1" diag | grep -qF -- "$2"; }
# diag_re NAME ERE: the same with an extended regular expression, matched line by line.
diag_re() { field "$1" diag | grep -qE -- "$2"; }
# line_of FILE TEXT: the number of FILE's first line that holds TEXT (a fixed string). A check that an error names
# its file:line finds the line by its code, so that a line added above it (a licence line, a comment) moves the
# check with it; the text must be the line's own.
line_of() { grep -nF -m 1 -- "$2" "$1" | cut -d: -f1; }
# run ARGS...: runs the runner (with a JSON report, see with_json), keeping stdout, stderr, exit status and wall time
# in $T/out, $T/err, $rc, $secs.
run() {
  with_json "$@"
  start=$(date +%s.%N)
  "$UMLBED" "${RUN_ARGS[@]}" >"$T/out" 2>"$T/err"
  rc=$?
  secs=$(awk -v a="$start" -v b="$(date +%s.%N)" 'BEGIN { printf "%.3f", b - a }')
}
# running TEXT: some process's command line holds TEXT (one argument's worth, a fixed string). It reads /proc
# itself, so no missing tool can make it see nothing; the glob is expanded before grep starts, so grep's own
# command line, which holds TEXT, is not among those read.
# running cwd:DIR is true when a process works beneath DIR: an instance works in its own folder, and its command
# line names that folder only as /proc/self/fd/N (the wall opens it).
running() {
  case $1 in
  cwd:*)
    for _p in /proc/[0-9]*; do
      case $(readlink "$_p/cwd" 2>/dev/null) in "${1#cwd:}"*) return 0 ;; esac
    done
    return 1
    ;;
  *) grep -qzF -e "$1" /proc/[0-9]*/cmdline 2>/dev/null ;;
  esac
}
# A "no process left" check is worth only what its probe can see. saw TEXT... is true when running sees each TEXT
# now, and records it; none_left TEXT is true only when TEXT was seen running before and is not now.
NL='
'
SEEN=
saw() {
  for _text; do
    running "$_text" || return 1
    SEEN=$SEEN$NL$_text
  done
}
none_left() {
  case $SEEN in
  *"$NL$1"*) not running "$1" ;;
  *) echo "# no process holding '$1' was seen running before: the probe is unproven"; return 1 ;;
  esac
}
# run_folder PID: the runner PID's run folder is there ($TMPDIR/umlbed-PID-*).
run_folder() {
  for _d in "$TMPDIR/umlbed-$1-"*; do [ -d "$_d" ] && return 0; done
  return 1
}
# child_of PID PREFIX prints the first child of PID whose command line starts with PREFIX (the runner's reaper),
# read from /proc like running.
child_of() {
  for _s in /proc/[0-9]*/stat; do
    { read -r _st <"$_s"; } 2>/dev/null || continue
    # After the name in parentheses (which may hold anything): the state, then the parent's PID.
    _st=${_st##*) }
    _st=${_st#* }
    [ "${_st%% *}" = "$1" ] || continue
    _cmd=$(tr '\0' ' ' <"${_s%/stat}/cmdline" 2>/dev/null)
    case $_cmd in "$2"*) _s=${_s#/proc/}; echo "${_s%/stat}"; return 0 ;; esac
  done
  return 1
}
# UMLBED_TIMEOUT_SCALE (default 1) stretches every hang guard on slow or loaded hosts, as it does the runner's
# own timeouts; `scaled N` prints N times it, rounded up to whole seconds. Guards only bound a hang: no verdict
# depends on how long something took.
SCALE=${UMLBED_TIMEOUT_SCALE:-1}
awk -v s="$SCALE" 'BEGIN { exit !(s + 0 > 0) }' || { echo "Bail out! UMLBED_TIMEOUT_SCALE wants a positive number (got '$SCALE')"; exit 1; }
scaled() { awk -v n="$1" -v s="$SCALE" 'BEGIN { x = n * s; printf "%d", x == int(x) ? x : int(x) + 1 }'; }
# At least A seconds (the timer cannot fire early), and less than B (a hang guard, not a speed limit).
within() { awk -v x="$1" -v a="$2" -v b="$3" 'BEGIN { exit !(x >= a && x < b) }'; }
# A scenario says it reached a point (UMLBED_READY_FIFO) by opening a FIFO for reading, which a sandboxed run may
# (it writes only in its own folder). ready_wait FIFO waits for that open: opening the FIFO for writing returns once
# a reader has it open (the event, not a delay), and writes nothing, so the reader's close at once is no error.
# False when no scenario opened it within the guard (default 120 s, scaled).
ready_wait() { timeout "${2:-$(scaled 120)}" sh -c ': >"$0"' "$1"; }
# A signal in the middle of a scenario: signal_cleanup SIG WHAT RUN-ARGS... starts the runner with
# UMLBED_READY_FIFO set; the scenario opens that FIFO once its guest is where the signal should hit (ready_wait).
# Then it sends SIG to the runner and checks that no guest process and no folder is left, having first seen, with
# the same probes, the guest running and its run folder there.
# INT, TERM and HUP are handled by the runner (exit 128 + the signal); KILL is not, and the runner's reaper must
# clean up: the test waits for the reaper process to exit (the event) before it looks.
signal_cleanup() {
  sig=$1
  what=$2
  shift 2
  fifo=$T/ready.fifo
  rm -f "$fifo"
  mkfifo "$fifo"
  UMLBED_READY_FIFO=$fifo "$UMLBED" run "$@" >"$T/out" 2>"$T/err" &
  pid=$!
  guard=$(scaled 120)
  if ready_wait "$fifo" "$guard"; then
    ok 0 "SIG$sig: the $what scenario got ready"
  else
    ok 1 "SIG$sig: the $what scenario got ready (it did not open its FIFO within the ${guard}s guard)"
    diag "$T/err"
  fi
  # The run folders' path in the guest's command line is what the test files' last check looks for.
  check "SIG$sig: $what was running" saw "umid=umlbed-$pid-" "cwd:$TMPDIR/umlbed-"
  check "SIG$sig: its run folder was there" run_folder $pid
  # The reaper: the runner's child that is the runner's own program, not a kernel.
  reaper=$(child_of $pid "$UMLBED run")
  check "SIG$sig: the runner has a reaper" [ -n "$reaper" ]
  kill -"$sig" $pid
  { wait $pid; } 2>/dev/null
  rc=$?
  case $sig in INT) want=130 ;; TERM) want=143 ;; HUP) want=129 ;; KILL) want=137 ;; esac
  check "SIG$sig: exit status $want" [ "$rc" = "$want" ]
  if [ -n "$reaper" ]; then
    check "SIG$sig: the reaper ends" timeout "$(scaled 30)" tail --pid="$reaper" -f /dev/null
  fi
  check "SIG$sig: no $what process left" none_left "umid=umlbed-$pid-"
  check "SIG$sig: no run folder left" [ "$(leftover_dirs)" = 0 ]
}
sigint_cleanup() { signal_cleanup INT "$@"; }
# grun ARGS...: like run, but a runner still there after $GUARD seconds (default: 60, scaled) is killed (hung=1)
# and its reaper waited for, so that a hang is a failed check, never a hung test. PRELOAD=lib runs it under
# LD_PRELOAD.
grun() {
  with_json "$@"
  guard=${GUARD:-$(scaled 60)}
  start=$(date +%s.%N)
  if [ -n "${PRELOAD:-}" ]; then
    LD_PRELOAD=$PRELOAD "$UMLBED" "${RUN_ARGS[@]}" >"$T/out" 2>"$T/err" &
  else
    "$UMLBED" "${RUN_ARGS[@]}" >"$T/out" 2>"$T/err" &
  fi
  pid=$!
  hung=0
  reaper=
  if ! timeout "$guard" tail -s 0.1 --pid=$pid -f /dev/null; then
    hung=1
    reaper=$(child_of $pid "$UMLBED ")
    kill -KILL $pid
  fi
  wait $pid
  rc=$?
  secs=$(awk -v a="$start" -v b="$(date +%s.%N)" 'BEGIN { printf "%.3f", b - a }')
  if [ -n "$reaper" ]; then timeout "$(scaled 30)" tail -s 0.1 --pid="$reaper" -f /dev/null; fi
  if [ "$hung" = 1 ]; then echo "# the runner was still there after the ${guard}s guard: killed" >>"$T/err"; fi
}
# need_uml: sets KERNEL, AGENT and K (an array: the runner's options for them), or ends the test file with a SKIP plan (a
# failure under strict mode) when the patched kernel or the agent is not built.
need_uml() {
  KERNEL=${UMLBED_KERNEL:-$BUILD/kernel/full/obj/linux}
  AGENT=${UMLBED_AGENT:-$BUILD/guest/umlbed-agent}
  if [ ! -x "$KERNEL" ] || [ ! -f "$AGENT" ]; then
    prereq_skip_all "no patched kernel ($KERNEL) or agent ($AGENT)"
  fi
  K=(--kernel "$KERNEL" --agent "$AGENT")
}

# common.sh: shared setup for the runner's TAP tests: paths, a private TMPDIR, and TAP helpers.
SRC=$(cd "$(dirname "$0")/../.." && pwd)
BUILD=${UMLBED_BUILD:-$SRC/build}
# UMLBED_RUNNER_DIR selects the build to test ($BUILD/runner or $BUILD/runner-san).
RDIR=${UMLBED_RUNNER_DIR:-$BUILD/runner}
UMLBED=$RDIR/umlbed
UMLBED_TEST=$RDIR/umlbed-test
SCEN=$SRC/tests/runner/scenarios
# Every test gets its own TMPDIR so "no folder left behind" can be checked exactly.
T=$(mktemp -d "${TMPDIR:-/tmp}/umlbed-t.XXXXXX")
export TMPDIR=$T/tmp
mkdir -p "$TMPDIR"
trap 'rm -rf "$T"' EXIT
n=0
ok() { n=$((n + 1)); if [ "$1" = 0 ]; then echo "ok $n - $2"; else echo "not ok $n - $2"; fi; }
check() { desc=$1; shift; if "$@"; then ok 0 "$desc"; else ok 1 "$desc"; fi; }
diag() { sed 's/^/# /' "$@"; }
leftover_dirs() { ls "$TMPDIR" | grep -c '^umlbed-' || true; }
# Runs the runner, keeping stdout, stderr, exit status and wall time in $T/out, $T/err, $rc, $secs.
run() {
  start=$(date +%s.%N)
  "$UMLBED" "$@" >"$T/out" 2>"$T/err"
  rc=$?
  secs=$(awk -v a="$start" -v b="$(date +%s.%N)" 'BEGIN { printf "%.3f", b - a }')
}
lt() { awk -v a="$1" -v b="$2" 'BEGIN { exit !(a < b) }'; }
not() { if "$@"; then return 1; else return 0; fi; }
running() { pgrep -f "$1" >/dev/null; }
# SIGINT in the middle of a scenario: sigint_cleanup WHAT POLLS RUN-ARGS... starts the runner, waits (up to POLLS
# times 10 ms) until the guest has booted, interrupts it and checks that no guest process and no folder is left.
sigint_cleanup() {
  what=$1 polls=$2
  shift 2
  "$UMLBED" run "$@" >"$T/out" 2>"$T/err" &
  pid=$!
  i=0
  until grep -qs 'Run /umlbed-agent' "$TMPDIR"/umlbed-*/vm0/console.log || [ $i -ge "$polls" ]; do i=$((i + 1)); sleep 0.01; done
  check "SIGINT: $what was running" running "umid=umlbed-$pid-"
  kill -INT $pid
  wait $pid
  rc=$?
  check "SIGINT: exit status 130" [ "$rc" = 130 ]
  check "SIGINT: no $what process left" not running "umid=umlbed-$pid-"
  check "SIGINT: no run folder left" [ "$(leftover_dirs)" = 0 ]
}

#!/usr/bin/env bash
# SPDX-License-Identifier: MIT
# compare.t: umlbed bench --compare refuses results it cannot compare (exit 2, naming the file and point) instead
# of calling a change "same within noise"; a made-up result, so no kernel is needed.
# Its subject is the benchmark tools, whose figures a sanitizer would distort, not the runner: it drives the runner's build without sanitizers.
PLAIN_RUNNER=1
. "$(dirname "$0")/../runner/common.sh"
[ -x "$UMLBED" ] || prereq_skip_all "no runner ($UMLBED; make runner)"
# One point with its statistics; MEDIAN is written as given (JSON text), so it can be anything.
result() {
  printf '{"points":[{"name":"invalidate_ns","labels":{"sharers":"1"},"n":3,"median":%s,"min":%s,"max":%s,"mad":%s}]}\n' \
    "$1" "$2" "$3" "$4" >"$5"
}
result 100 90 110 5 "$T/old.json"
result 100000 99000 101000 500 "$T/slow.json"
# umlbed bench --compare reports only as text (no JSON): its lines and messages are what is tested.
"$UMLBED" bench --compare "$T/old.json" "$T/slow.json" >"$T/out" 2>"$T/err"
check "a thousandfold slower point: exit 0" [ $? = 0 ]
check "... flagged SLOWER" grep -q ' SLOWER ' "$T/out"
"$UMLBED" bench --compare "$T/old.json" "$T/old.json" >"$T/out" 2>"$T/err"
check "a point against itself: the same within noise" grep -q '^0 of 1 point(s) changed beyond noise$' "$T/out"

# OLD or NEW with a median of zero, a negative, a string or no median: refused, not "same within noise".
for bad in "old 0 0 0 0" "new 1e9 1e9 1e9 0" "new -5 -6 -4 1" "new \"fast\" 1 1 1" "new null 1 1 1" "new 1 1 1 \"x\""; do
  # The words as they are: "fast" with its quotes is the median's JSON text.
  read -r side median min max mad <<<"$bad"
  result 100 90 110 5 "$T/old.json"
  result 100 90 110 5 "$T/new.json"
  result "$median" "$min" "$max" "$mad" "$T/$side.json"
  [ "$side" = new ] && [ "$median" = 1e9 ] && result 0 0 0 0 "$T/old.json"
  "$UMLBED" bench --compare "$T/old.json" "$T/new.json" >"$T/out" 2>"$T/err"
  brc=$?
  check "$bad: exit 2 (got $brc)" [ "$brc" = 2 ]
  check "... naming the point" grep -q 'point invalidate_ns sharers=1' "$T/err"
  check "... and no verdict printed" not grep -q 'within noise' "$T/out"
done
# A file that is not JSON, or missing: exit 2 as documented (not perl's 255).
echo 'not json' >"$T/bad.json"
"$UMLBED" bench --compare "$T/old.json" "$T/bad.json" >/dev/null 2>"$T/err"
brc=$?
check "a file that is not JSON: exit 2 (got $brc)" [ "$brc" = 2 ]
"$UMLBED" bench --compare "$T/old.json" "$T/missing.json" >/dev/null 2>"$T/err"
brc=$?
check "a missing file: exit 2 (got $brc)" [ "$brc" = 2 ]
echo "1..$n"

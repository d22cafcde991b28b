#!/bin/bash
# kselftests.t: Linux 6.1's own selftests/vm, built static and run one per fresh guest, match tests/kselftests/expected-6.1.
# Also: a table that is wrong in either direction (a pass it calls an xfail, a skip it calls a pass) fails the
# runs it is wrong about, naming its file:line, and a malformed table is an ERROR naming file:line.
. "$(dirname "$0")/../runner/common.sh"
KERNEL=$BUILD/kernel/mm/obj/linux
if [ ! -x "$KERNEL" ] || [ ! -f "$BUILD/guest/umlbed-agent" ] || [ ! -x "$UMLBED" ]; then
  echo "1..0 # SKIP no mm kernel ($KERNEL; uml-kernel/build.sh mm), agent or runner ($UMLBED)"
  exit 0
fi
echo "1..12"
TABLE=$SRC/tests/kselftests/expected-6.1
VM=$SRC/tests/kselftests/vm.lua
bins=$("$SRC/tests/kselftests/build.sh" 6.1 2>"$T/build.err")
check "build.sh builds the selftests static (exit 0)" [ $? = 0 ]
[ -n "$bins" ] || diag "$T/build.err"
nonstatic=$(for f in "$bins"/*; do [ -x "$f" ] && [ "${f%.sh}" = "$f" ] && ! file -b "$f" | grep -q 'statically linked' && echo "${f##*/}"; done)
check "every selftest program is static (the guest has no C library)${nonstatic:+: not $nonstatic}" [ -z "$nonstatic" ]

export UMLBED_KSELFTESTS=$bins
run run -j auto --variant mm --timeout "$(scaled 600)" --json "$T/all.json" "$VM"
check "the whole table: every run matches it (exit 0)" [ "$rc" = 0 ]
[ "$rc" = 0 ] || { grep -A12 '^not ok' "$T/out" | diag /dev/stdin; diag "$T/err"; }
lines=$(grep -cE '^(pass|skip|xfail) ' "$TABLE")
check "one run per table line ($lines)" [ "$(grep -cE '^(ok|not ok) ' "$T/out")" = "$lines" ]
passes=$(grep -c '^pass ' "$TABLE")
seen=$(grep -c 'as [a-z]*: pass (exit:0), expected pass' "$T/out")
check "the table's $passes passes are passes the runs saw ($seen)" [ "$seen" = "$passes" ]
check "on-fault-limit ran as nobody" grep -q 'note: on-fault-limit as nobody: pass' "$T/out"

# A table wrong in both directions: a test that passes listed as xfail, one that skips listed as pass.
sed -e 's/^pass  root    map_populate$/xfail root    map_populate  # deliberately wrong/' \
  -e 's/^skip  root    soft-dirty .*/pass  root    soft-dirty/' "$TABLE" >"$T/wrong"
wl=$(grep -n 'map_populate' "$T/wrong" | cut -d: -f1)
UMLBED_KSELFTESTS_EXPECTED=$T/wrong run run --variant mm --param test=map_populate --param test=soft-dirty "$VM"
check "a wrong table fails the run (exit 1)" [ "$rc" = 1 ]
check "a pass listed as xfail is a failure naming file:line" \
  grep -q "map_populate ($T/wrong:$wl): expected \"fail\", seen \"pass\"" "$T/out"
check "a skip listed as pass is a failure" grep -q 'soft-dirty (.*): expected "pass", seen "skip"' "$T/out"
[ "$rc" = 1 ] || diag "$T/out"
# The runner keeps a failed run's folder: these were failures on purpose.
rm -rf "$TMPDIR"/umlbed-*

# A malformed table: an error naming its file:line, before any guest boots.
printf 'pass root map_populate\nxfail root soft-dirty\n' >"$T/bad"
UMLBED_KSELFTESTS_EXPECTED=$T/bad run run --variant mm "$VM"
check "a malformed table is an ERROR run (exit 1), not a guest booted" \
  grep -q '^not ok 1 - .*/vm.lua # ERROR$' "$T/out"
check "the error names file:line and what is missing" grep -q "$T/bad:2: xfail needs a reason after #" "$T/out" "$T/err"
check "no run folder left" [ "$(leftover_dirs)" = 0 ]

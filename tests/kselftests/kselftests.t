#!/usr/bin/env bash
# SPDX-License-Identifier: MIT
# kselftests.t: the kernel's own mm selftests of each generation (uml-kernel/generations/), built static and run one per fresh guest, match their tables.
# Also: a table that is wrong in either direction (a pass it calls an xfail, a skip it calls a pass) fails the
# runs it is wrong about, naming its file:line, and a malformed table is an ERROR naming file:line.
# Its subject is the kernel's own mm selftests, not the runner: it drives the runner's build without sanitizers.
PLAIN_RUNNER=1
. "$(dirname "$0")/../runner/common.sh"
generation=$SRC/uml-kernel/generation.sh
DEFAULT=$("$generation" default)
MM=$("$generation" get "$DEFAULT" mm)
if [ ! -x "$BUILD/kernel/$MM/obj/linux" ] || [ ! -f "$BUILD/guest/umlbed-agent" ] || [ ! -x "$UMLBED" ]; then
  prereq_skip_all "no $MM kernel ($BUILD/kernel/$MM/obj/linux; uml-kernel/build.sh $MM), agent or runner ($UMLBED)"
fi
need_jq
VM=$SRC/tests/kselftests/vm.lua
# Each generation whose mm kernel is built (make check builds them all): its table, run whole. The default
# generation's is required above; another one's missing kernel is one SKIP, a failure under strict mode.
gens=()
missing=()
for gen in $("$generation" list); do
  mm=$("$generation" get "$gen" mm)
  if [ -x "$BUILD/kernel/$mm/obj/linux" ]; then
    gens+=("$gen")
  else
    missing+=("$gen: no $mm kernel ($BUILD/kernel/$mm/obj/linux; uml-kernel/build.sh $mm)")
  fi
done
echo "1..$((7 * ${#gens[@]} + 6 + ${#missing[@]}))"
for m in "${missing[@]}"; do prereq_skip "$m"; done
for gen in "${gens[@]}"; do
  variant=$("$generation" get "$gen" mm)
  sub=$("$generation" get "$gen" selftests)
  TABLE=$SRC/$("$generation" get "$gen" kselftests)
  bins=$("$SRC/tests/kselftests/build.sh" "$gen" 2>"$T/build.err")
  check "$gen: build.sh builds the selftests static (exit 0)" [ $? = 0 ]
  [ -n "$bins" ] || diag "$T/build.err"
  nonstatic=$(for f in "$bins"/*; do
    [ -x "$f" ] && [ "${f%.sh}" = "$f" ] && ! file -b "$f" | grep -q 'statically linked' && echo "${f##*/}"
  done)
  check "$gen: every selftest program is static (the guest has no C library)${nonstatic:+: not $nonstatic}" \
    [ -z "$nonstatic" ]
  UMLBED_KSELFTESTS_GEN=$gen UMLBED_KSELFTESTS=$bins \
    run run -j auto --variant "$variant" --timeout "$(scaled 600)" --json "$T/all-$gen.json" "$VM"
  check "$gen: the whole table: every run matches it (exit 0)" [ "$rc" = 0 ]
  [ "$rc" = 0 ] || { failed_runs | diag; diag "$T/err"; }
  lines=$(grep -cE '^(pass|skip|xfail) ' "$TABLE")
  check "$gen: one run per table line ($lines)" [ "$(count)" = "$lines" ]
  check "$gen: the runs are the kernel generation's own (selftests/vm before 6.3, mm since)" \
    jtrue --arg p "selftests/$sub [test=" '[.results[].name | startswith($p)] | all'
  # vm.lua's notes (its own text: "ID as USER: RESULT (STATUS), expected RESULT") say what each run saw.
  passes=$(grep -c '^pass ' "$TABLE")
  seen=$(json '[.results[].diag // "" | scan("as [a-z]+: pass \\(exit:0\\), expected pass")] | length')
  check "$gen: the table's $passes passes are passes the runs saw ($seen)" [ "$seen" = "$passes" ]
  check "$gen: on-fault-limit ran as nobody" jtrue '[.results[].diag // "" | contains("on-fault-limit as nobody: pass")] | any'
done

# The default generation's table and selftests, built above.
UMLBED_KSELFTESTS=$BUILD/kselftests/$DEFAULT/$("$generation" get "$DEFAULT" selftests)
export UMLBED_KSELFTESTS
TABLE=$SRC/$("$generation" get "$DEFAULT" kselftests)
# A table wrong in both directions: a test that passes listed as xfail, one that skips listed as pass.
sed -e 's/^pass  root    map_populate$/xfail root    map_populate  # deliberately wrong/' \
  -e 's/^skip  root    soft-dirty .*/pass  root    soft-dirty/' "$TABLE" >"$T/wrong"
wl=$(grep -n 'map_populate' "$T/wrong" | cut -d: -f1)
UMLBED_KSELFTESTS_EXPECTED=$T/wrong run run --variant "$MM" --param test=map_populate --param test=soft-dirty "$VM"
check "a wrong table fails both runs (exit $rc)" jtrue '(.results | length) == 2 and .summary.FAILED == 2'
# The failure's text names the table's file:line: a reader goes there to fix it. That text is what is tested.
check "a pass listed as xfail is a failure naming file:line" jtrue --arg s "map_populate ($T/wrong:$wl): expected \"fail\", seen \"pass\"" \
  '[.results[].diag // "" | contains($s)] | any'
check "a skip listed as pass is a failure" jtrue '[.results[].diag // "" | test("soft-dirty \\(.*\\): expected \"pass\", seen \"skip\"")] | any'
[ "$rc" = 1 ] || diag "$T/out"
# The runner keeps a failed run's folder: these were failures on purpose.
rm -rf "$TMPDIR"/umlbed-*

# A malformed table: an error naming its file:line, before any guest boots.
printf 'pass root map_populate\nxfail root soft-dirty\n' >"$T/bad"
UMLBED_KSELFTESTS_EXPECTED=$T/bad run run --variant "$MM" "$VM"
check "a malformed table is an ERROR run (exit $rc), not a guest booted" \
  jtrue '[.results[] | [(.name | endswith("/vm.lua")), .verdict]] == [[true, "ERROR"]]'
# The error's text names the table's file:line and what is missing: that text is what is tested.
check "the error names file:line and what is missing" diag_has "$VM" "$T/bad:2: xfail needs a reason after #"
check "no run folder left" [ "$(leftover_dirs)" = 0 ]

#!/usr/bin/env bash
# api.t: the scenario API on a fake UML: t:require/t:assert_* end FAILED, t:eq(expected, seen) diffs, require "lib.x", m:faults' total, integer limits.
. "$(dirname "$0")/common.sh"
export UMLBED_FAKE=agent
F="--fake-uml --kernel $UMLBED_TEST --agent $UMLBED_TEST"
clean() { rm -rf "$TMPDIR"/umlbed-*; }

# ---- t:require and t:assert_* stop the scenario with FAILED, from the run function and from a t:go task. ----
run run $F -j 1 "$SCEN/api-require.lua"
check "stop: exit status 1" [ "$rc" = 1 ]
for how in require require_err assert_eq assert_true assert_pages go; do
  check "stop by $how: FAILED" grep -q "^not ok [0-9]* - api: stop \[how=$how\] # FAILED$" "$T/out"
done
check "t:require: file:line and the formatted message" grep -q 'api-require\.lua:6: echo said a, not b$' "$T/out"
check "t:require(nil, err, ename): err shown as it is, even with a %" grep -q 'api-require\.lua:8: EINVAL: 100% bad$' "$T/out"
check "t:assert_eq: the table diff" grep -q '^#       \[2\] expected 2, seen "3"$' "$T/out"
check "t:assert_true: file:line" grep -q 'api-require\.lua:10: assert_true (false)$' "$T/out"
check "t:assert_pages: the per-page diff" grep -q 'api-require\.lua:11: assert_pages: pages expected "FF", seen "F-"$' "$T/out"
check "t:assert_eq in a t:go task: the task's file:line" \
  grep -q 'api-require\.lua:23: assert_eq in a task: expected 1, seen 2$' "$T/out"
check "no code after a failed requirement ran (run function or task)" not grep -q 'went on' "$T/out"
check "a requirement that holds returns its value" not grep -q 'returns its value' "$T/out"
check "no run ends in ERROR" not grep -q '# ERROR$' "$T/out"
[ "$rc" = 1 ] || diag "$T/out" "$T/err"
clean

# ---- t:eq(expected, seen, what): readable diffs of tables and long strings. ----
run run $F "$SCEN/api-diff.lua"
check "diff: FAILED" grep -q '^not ok 1 - api: diff # FAILED$' "$T/out"
check "diff: equal nested tables pass, t:eq returns true" not grep -q 'equal nested tables\|returns true' "$T/out"
check "diff: tables name file:line" grep -q 'api-diff\.lua:6: tables: tables differ$' "$T/out"
check "diff: a differing list item" grep -q '^#       \[3\] expected "C", seen "D"$' "$T/out"
check "diff: a nested key" grep -q '^#       \.x\.y expected 1, seen 2$' "$T/out"
check "diff: a key only in seen" grep -q '^#       \.z expected nil, seen true$' "$T/out"
check "diff: keys that are equal are not listed" not grep -q '\.same' "$T/out"
check "diff: a nested table is rendered" grep -q '^#       \.list expected {1, 2}, seen "not a table"$' "$T/out"
check "diff: long strings: the first differing offset" \
  grep -q 'long strings: strings differ at offset 100 (0-based; 151 bytes expected, 151 seen)$' "$T/out"
check "diff: long strings: context around it" grep -q '^#       expected \.\.\."a\{16\}Xb\{31\}"\.\.\.$' "$T/out"
check "diff: newlines are escaped" grep -q '^#       seen     "one\\nthree"$' "$T/out"
check "diff: numbers" grep -q 'api-diff\.lua:10: numbers: expected 4, seen 5$' "$T/out"
check "diff: page states, expected first" grep -q 'page 3: expected A present, anonymous (COW copy), seen - not present$' "$T/out"
check "diff: no table is shown as an address" not grep -q 'table: 0x' "$T/out"
clean

# ---- require "lib.x" from the scenario's folder, text only. ----
mkdir -p "$T/req/lib"
cp "$SCEN/api-require-lib.lua" "$T/req/"
echo 'return { value = 42 }' >"$T/req/lib/answer.lua"
echo 'BIN_RAN = true return {}' >"$T/bin.src"
luac5.4 -o "$T/req/lib/bin.lua" "$T/bin.src" 2>/dev/null || luac -o "$T/req/lib/bin.lua" "$T/bin.src"
check "require: the bytecode module was made" [ -s "$T/req/lib/bin.lua" ]
run run $F "$T/req/api-require-lib.lua"
check "require: lib.answer loads, lib.bin (bytecode) does not: ok" grep -q '^ok 1 - api: require$' "$T/out"
[ "$rc" = 0 ] || diag "$T/out" "$T/err"
# The folder is the scenario file's, not the current directory's.
(cd / && "$UMLBED" run $F "$T/req/api-require-lib.lua" >"$T/out" 2>"$T/err")
check "require: from another current directory" grep -q '^ok 1 - api: require$' "$T/out"
(cd "$T/req" && "$UMLBED" run $F api-require-lib.lua >"$T/out" 2>"$T/err")
check "require: a scenario named without a folder" grep -q '^ok 1 - api: require$' "$T/out"
clean

# ---- m:faults() adds the total; ranges near the integer limits are refused (the sanitizer build aborted). ----
run run $F "$SCEN/api-mapping.lua"
check "mapping: exit status 0, not a sanitizer abort (got $rc)" [ "$rc" = 0 ]
check "mapping: ok" grep -q '^ok 1 - api: mapping ranges near the integer limits, faults total$' "$T/out"
[ "$rc" = 0 ] || diag "$T/out" "$T/err"
clean

# ---- Every scenario is migrated: no debug.getinfo/dofile preamble, no pd.show, no minor + major sums. ----
check "no scenario outside lib/ finds lib/ with debug.getinfo" not grep -l 'debug\.getinfo' "$SRC"/scenarios/*.lua
check "no scenario sums minor + major itself" not grep -n '^[^-]*minor + major' "$SRC"/scenarios/*.lua "$SRC"/scenarios/lib/*.lua

# ---- t:metric: samples in the JSON report, labels in key order with numbers as numbers; misuse refused. ----
run run $F --json "$T/metric.json" "$SCEN/api-metric.lua"
check "metric: ok" grep -q '^ok 1 - api: metric$' "$T/out"
[ "$rc" = 0 ] || diag "$T/out" "$T/err"
check "metric: the JSON report has both samples as given" perl -MJSON::PP -e '
  open my $h, "<", $ARGV[0] or exit 1; local $/; my $m = decode_json(<$h>)->{results}[0]{metrics};
  exit !(@$m == 2 && $m->[0]{name} eq "invalidate_ns" && $m->[0]{value} == 1234.5 && $m->[0]{unit} eq "ns"
    && $m->[0]{labels}{sharers} == 16 && $m->[0]{labels}{impl} eq "seed" && $m->[0]{labels}{drop} eq "false"
    && $m->[1]{name} eq "plain" && $m->[1]{unit} eq "" && !%{$m->[1]{labels}});
' "$T/metric.json"
check "metric: a label that was an integer is a JSON integer" grep -Eq '"sharers": ?16$' "$T/metric.json"
clean

# ---- The docs state no scenario count that disagrees with scenarios/*.lua. ----
nscen=$(ls "$SRC"/scenarios/*.lua | wc -l)
counts_agree() {
  grep -oiE '(^|[[:space:]])(one|two|three|four|five|six|seven|eight|nine|ten|eleven|twelve|thirteen|fourteen|fifteen|sixteen|seventeen|eighteen|nineteen|twenty|twenty-one|twenty-two|[0-9]+) (scenario files|scenarios)\b' "$@" |
    awk -v n="$nscen" '
      BEGIN { split("one two three four five six seven eight nine ten eleven twelve thirteen fourteen fifteen sixteen seventeen eighteen nineteen twenty twenty-one twenty-two", w, " "); for (i in w) num[w[i]] = i }
      { k = tolower($1); v = (k in num) ? num[k] : k + 0; if (v != n) { print "states " $0 ", there are " n > "/dev/stderr"; bad = 1 } }
      END { exit bad }'
}
check "docs: no stale scenario count in docs/scenarios.md or scenarios/README.md ($nscen files)" \
  counts_agree "$SRC/docs/scenarios.md" "$SRC/scenarios/README.md"

echo "1..$n"

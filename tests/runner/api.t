#!/usr/bin/env bash
# SPDX-License-Identifier: MIT
# api.t: the scenario API on a fake UML: t:require/t:assert_* end FAILED, t:eq(expected, seen) diffs, require "lib.x", m:faults' total, integer limits, t:vm's options.
. "$(dirname "$0")/common.sh"
export UMLBED_FAKE=agent
F=(--fake-uml --kernel "$UMLBED_TEST" --agent "$UMLBED_TEST")
need_jq
clean() { rm -rf "$TMPDIR"/umlbed-*; }

# ---- t:require and t:assert_* stop the scenario with FAILED, from the run function and from a t:go task. ----
run run "${F[@]}" -j 1 "$SCEN/api-require.lua"
check "stop: exit status 1" [ "$rc" = 1 ]
for how in require require_err assert_eq assert_true assert_pages go; do
  check "stop by $how: FAILED" verdict_is "api: stop [how=$how]" FAILED
done
# The messages are what these checks are about: each names its file:line and says what failed.
R=$SCEN/api-require.lua
check "t:require: file:line and the formatted message" \
  diag_re "api: stop [how=require]" "api-require\\.lua:$(line_of "$R" 'require = function'): echo said a, not b\$"
check "t:require(nil, err, ename): err shown as it is, even with a %" \
  diag_re "api: stop [how=require_err]" "api-require\\.lua:$(line_of "$R" 'require_err = function'): EINVAL: 100% bad\$"
check "t:assert_eq: the table diff" diag_re "api: stop [how=assert_eq]" '^    \[2\] expected 2, seen "3"$'
check "t:assert_true: file:line" \
  diag_re "api: stop [how=assert_true]" "api-require\\.lua:$(line_of "$R" 'assert_true = function'): assert_true \\(false\\)\$"
check "t:assert_pages: the per-page diff" diag_re "api: stop [how=assert_pages]" \
  "api-require\\.lua:$(line_of "$R" 'assert_pages = function'): assert_pages: pages expected \"FF\", seen \"F-\"\$"
check "t:assert_eq in a t:go task: the task's file:line" diag_re "api: stop [how=go]" \
  "api-require\\.lua:$(line_of "$R" '"assert_eq in a task"'): assert_eq in a task: expected 1, seen 2\$"
# "went on" and "returns its value" are the scenario's own failure texts, written only if it did not stop.
check "no code after a failed requirement ran (run function or task)" \
  jtrue '[.results[].diag // "" | contains("went on")] | any | not'
check "a requirement that holds returns its value" jtrue '[.results[].diag // "" | contains("returns its value")] | any | not'
check "no run ends in ERROR" jtrue '.summary.ERROR == 0 and (.results | length) == 6'
[ "$rc" = 1 ] || diag "$T/out" "$T/err"
clean

# ---- t:eq(expected, seen, what): readable diffs of tables and long strings. ----
# The diff's text is what t:eq promises (docs/lua-t.md), so these checks read the run's diagnostics in the report.
run run "${F[@]}" "$SCEN/api-diff.lua"
D="api: diff"
check "diff: FAILED" verdict_is "$D" FAILED
check "diff: equal nested tables pass, t:eq returns true" not diag_re "$D" 'equal nested tables|returns true'
check "diff: tables name file:line" \
  diag_re "$D" "api-diff\\.lua:$(line_of "$SCEN/api-diff.lua" '"tables")'): tables: tables differ\$"
check "diff: a differing list item" diag_re "$D" '^    \[3\] expected "C", seen "D"$'
check "diff: a nested key" diag_re "$D" '^    \.x\.y expected 1, seen 2$'
check "diff: a key only in seen" diag_re "$D" '^    \.z expected nil, seen true$'
check "diff: keys that are equal are not listed" not diag_re "$D" '\.same'
check "diff: a nested table is rendered" diag_re "$D" '^    \.list expected \{1, 2\}, seen "not a table"$'
check "diff: long strings: the first differing offset" \
  diag_re "$D" 'long strings: strings differ at offset 100 \(0-based; 151 bytes expected, 151 seen\)$'
check "diff: long strings: context around it" diag_re "$D" '^    expected \.\.\."a{16}Xb{31}"\.\.\.$'
check "diff: newlines are escaped" diag_re "$D" '^    seen     "one\\nthree"$'
check "diff: numbers" diag_re "$D" "api-diff\\.lua:$(line_of "$SCEN/api-diff.lua" '"numbers")'): numbers: expected 4, seen 5\$"
check "diff: page states, expected first" diag_has "$D" 'page 3: expected A present, anonymous (COW copy), seen - not present'
check "diff: no table is shown as an address" not diag_has "$D" 'table: 0x'
clean

# ---- require "lib.x" from the scenario's folder, text only. ----
mkdir -p "$T/req/lib"
cp "$SCEN/api-require-lib.lua" "$T/req/"
echo 'return { value = 42 }' >"$T/req/lib/answer.lua"
echo 'BIN_RAN = true return {}' >"$T/bin.src"
luac5.4 -o "$T/req/lib/bin.lua" "$T/bin.src" 2>/dev/null || luac -o "$T/req/lib/bin.lua" "$T/bin.src"
check "require: the bytecode module was made" [ -s "$T/req/lib/bin.lua" ]
run run "${F[@]}" "$T/req/api-require-lib.lua"
check "require: lib.answer loads, lib.bin (bytecode) does not: ok" verdict_is "api: require" ok
[ "$rc" = 0 ] || diag "$T/out" "$T/err"
# The folder is the scenario file's, not the current directory's.
(cd / && run run "${F[@]}" "$T/req/api-require-lib.lua")
check "require: from another current directory" verdict_is "api: require" ok
(cd "$T/req" && run run "${F[@]}" api-require-lib.lua)
check "require: a scenario named without a folder" verdict_is "api: require" ok
clean

# ---- m:faults() adds the total; ranges near the integer limits are refused (the sanitizer build aborted). ----
run run "${F[@]}" "$SCEN/api-mapping.lua"
check "mapping: exit status 0, not a sanitizer abort (got $rc)" [ "$rc" = 0 ]
check "mapping: ok" verdict_is "api: mapping ranges near the integer limits, faults total" ok
[ "$rc" = 0 ] || diag "$T/out" "$T/err"
clean

# ---- Every scenario is migrated: no debug.getinfo/dofile preamble, no pd.show, no minor + major sums. ----
check "no scenario outside lib/ finds lib/ with debug.getinfo" not grep -l 'debug\.getinfo' "$SRC"/scenarios/*.lua
check "no scenario sums minor + major itself" not grep -n '^[^-]*minor + major' "$SRC"/scenarios/*.lua "$SRC"/runner/lua/lua/umlbed/*.lua

# ---- t:metric: samples in the JSON report, labels in key order with numbers as numbers; misuse refused. ----
run run "${F[@]}" --json "$T/metric.json" "$SCEN/api-metric.lua"
check "metric: ok" verdict_is "api: metric" ok
[ "$rc" = 0 ] || diag "$T/out" "$T/err"
check "metric: the JSON report has both samples as given" jtrue '.results[0].metrics as $m | ($m | length) == 2
  and $m[0].name == "invalidate_ns" and $m[0].value == 1234.5 and $m[0].unit == "ns" and $m[0].labels.sharers == 16
  and $m[0].labels.impl == "seed" and $m[0].labels.drop == "false"
  and $m[1].name == "plain" and $m[1].unit == "" and $m[1].labels == {}'
# A parser reads 16 and 16.0 alike: the number's spelling in the file is what is tested.
check "metric: a label that was an integer is a JSON integer" grep -Eq '"sharers": ?16$' "$T/metric.json"
clean

# ---- t:vm's options: an unknown key is a bad argument, the known ones boot. ----
run run "${F[@]}" "$SCEN/api-vm-opts.lua"
check "vm options: unknown keys refused by argument, known ones boot" verdict_is "api: vm options" ok
[ "$rc" = 0 ] || diag "$T/out" "$T/err"
clean

# ---- The docs state no scenario count that disagrees with scenarios/*.lua. ----
scenario_files=("$SRC"/scenarios/*.lua)
nscen=${#scenario_files[@]}
counts_agree() {
  grep -oiE '(^|[[:space:]])(one|two|three|four|five|six|seven|eight|nine|ten|eleven|twelve|thirteen|fourteen|fifteen|sixteen|seventeen|eighteen|nineteen|twenty|twenty-one|twenty-two|[0-9]+) (scenario files|scenarios)\b' "$@" |
    awk -v n="$nscen" '
      BEGIN { split("one two three four five six seven eight nine ten eleven twelve thirteen fourteen fifteen sixteen seventeen eighteen nineteen twenty twenty-one twenty-two", w, " "); for (i in w) num[w[i]] = i }
      { k = tolower($1); v = (k in num) ? num[k] : k + 0; if (v != n) { print "states " $0 ", there are " n > "/dev/stderr"; bad = 1 } }
      END { exit bad }'
}
check "docs: no stale scenario count in docs/scenarios.md or scenarios/README.md ($nscen files)" \
  counts_agree "$SRC/docs/scenarios.md" "$SRC/scenarios/README.md"

# Every command of the usage text has its synopsis in the man page: a command added to the table without its page
# would otherwise go unnoticed (umlbed boot did).
"$UMLBED" --help >"$T/usage" 2>&1
sed -n 's/^\(usage:\)\{0,1\} *umlbed \([a-z][a-z]*\).*/\2/p' "$T/usage" | sort -u >"$T/commands"
check "docs: the usage text lists commands ($(paste -sd' ' "$T/commands"))" grep -qx run "$T/commands"
missing=$(while read -r c; do grep -qx "\.B umlbed $c" "$SRC/docs/umlbed.1" || echo "$c"; done <"$T/commands")
check "docs: umlbed.1's SYNOPSIS has every command of the usage text${missing:+ (not: $missing)}" [ -z "$missing" ]

echo "1..$n"

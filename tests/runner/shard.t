#!/usr/bin/env bash
# SPDX-License-Identifier: MIT
# shard.t: --shard K/N deals the full list exactly once over K = 1..N, by count or recorded durations, from the option or a CI engine's variables; umlbed merge joins shard reports and refuses a missing or doubled run.
. "$(dirname "$0")/common.sh"
D=$SRC/tests/data/suite-durations.json
# The keys of a listing: file's base name and run name, sorted.
keys() { awk -F'\t' '{ n = split($1, p, "/"); print p[n] "\t" $2 }' "$@" | sort; }

# ---- Every run of the suite in exactly one shard, for N = 1, 2, 3, 7, by count and by durations. ----
# The build under test lists the suite and deals it once here and once per engine below; the forty dealings of the
# union and balance checks are the same code with other numbers, so the build without sanitizers makes them (a
# sanitized listing forks an ASan process per scenario file and costs five times as much).
"$UMLBED" list "$SRC/scenarios" >"$T/all" 2>"$T/err"
"$UMLBED" list --shard 2/3 --durations "$D" "$SRC/scenarios" >"$T/san" 2>"$T/err"
check "the build under test deals shard 2/3 by durations" [ -s "$T/san" ]
check "umlbed list: the full suite ($(wc -l <"$T/all") runs)" [ "$(wc -l <"$T/all")" -gt 50 ]
for how in count durations; do
  extra=()
  [ $how = durations ] && extra=(--durations "$D")
  for N in 1 2 3 7; do
    : >"$T/union"
    sizes=
    for K in $(seq 1 "$N"); do
      "$PLAIN_UMLBED" list --shard "$K/$N" "${extra[@]}" "$SRC/scenarios" >"$T/s$K" 2>"$T/err"
      cat "$T/s$K" >>"$T/union"
      sizes="$sizes $(wc -l <"$T/s$K")"
    done
    check "by $how, N=$N: the shards' union is the suite, each run once (sizes:$sizes)" \
      cmp -s <(keys "$T/all") <(keys "$T/union")
  done
done
# The balance by durations: each of 7 shards within 25 % of the mean shard time (seconds of the recorded report).
bal=$(for K in 1 2 3 4 5 6 7; do
  "$PLAIN_UMLBED" list --shard "$K/7" --durations "$D" "$SRC/scenarios" | keys
  echo "--"
done | perl -MJSON::PP -e '
  open my $h, "<", $ARGV[0] or die; local $/; my $d = decode_json(<$h>); $/ = "\n";
  my %s = map { ((split m{/}, $_->{file})[-1] . "\t" . $_->{name} => $_->{seconds}) } @{$d->{results}};
  my @t = (0); while (<STDIN>) { chomp; if ($_ eq "--") { push @t, 0; next } $t[-1] += $s{$_} // 0 } pop @t;
  my $m = 0; $m += $_ for @t; $m /= @t; my $w = 0;
  for (@t) { my $r = abs($_ - $m) / $m; $w = $r if $r > $w }
  printf "%.3f %s\n", $w, join(" ", map { sprintf "%.2f", $_ } @t);' "$D")
check "by durations, N=7: every shard within 25 % of the mean (worst $(echo "$bal" | cut -d' ' -f1): ${bal#* } s)" \
  awk -v w="${bal%% *}" 'BEGIN { exit !(w <= 0.25) }'
# The same list gives the same shards: a second dealing is identical.
"$PLAIN_UMLBED" list --shard 3/7 --durations "$D" "$SRC/scenarios" >"$T/again"
check "dealing is deterministic" cmp -s "$T/s3" "$T/again"
check "... and the build under test deals as the plain one" cmp -s "$T/san" <("$PLAIN_UMLBED" list --shard 2/3 \
  --durations "$D" "$SRC/scenarios")

# ---- The engines' variables choose the shard when --shard is not given. ----
"$UMLBED" list --shard 2/3 "$SRC/scenarios" >"$T/want"
CI_NODE_INDEX=2 CI_NODE_TOTAL=3 "$UMLBED" list "$SRC/scenarios" >"$T/got"
check "GitLab CI_NODE_INDEX=2 CI_NODE_TOTAL=3 is shard 2/3" cmp -s "$T/want" "$T/got"
JOB_COMPLETION_INDEX=1 UMLBED_SHARD_TOTAL=3 "$UMLBED" list "$SRC/scenarios" >"$T/got"
check "Kubernetes JOB_COMPLETION_INDEX=1 (from 0) with UMLBED_SHARD_TOTAL=3 is shard 2/3" cmp -s "$T/want" "$T/got"
SLURM_ARRAY_TASK_ID=5 SLURM_ARRAY_TASK_MIN=4 SLURM_ARRAY_TASK_COUNT=3 "$UMLBED" list "$SRC/scenarios" >"$T/got"
check "Slurm task 5 of 4..6 is shard 2/3" cmp -s "$T/want" "$T/got"
JOB_COMPLETION_INDEX=1 "$UMLBED" list "$SRC/scenarios" >/dev/null 2>"$T/err"
check "JOB_COMPLETION_INDEX without UMLBED_SHARD_TOTAL: exit 2" [ $? = 2 ]
# Refusals have no report: the message, naming the variable, the run or the shard, is what the user gets, so its
# text is what is tested here and below.
check "... naming the variable to set" grep -q 'UMLBED_SHARD_TOTAL' "$T/err"
# Malformed or partial engine variables are refused, naming the variable, never read as "no shard" (the whole list).
while read -r want vars; do
  read -ra assignments <<<"$vars"
  env "${assignments[@]}" "$UMLBED" list "$SRC/scenarios" >/dev/null 2>"$T/err"
  src=$?
  check "$vars: exit 2 (got $src)" [ "$src" = 2 ]
  check "... naming $want" grep -q "^umlbed: .*$want" "$T/err"
done <<'VARS'
CI_NODE_INDEX CI_NODE_INDEX=abc CI_NODE_TOTAL=2
CI_NODE_TOTAL CI_NODE_INDEX=1
CI_NODE_TOTAL CI_NODE_INDEX=1 CI_NODE_TOTAL=99999999999999999999
CI_NODE_INDEX CI_NODE_TOTAL=2
JOB_COMPLETION_INDEX JOB_COMPLETION_INDEX=abc UMLBED_SHARD_TOTAL=2
UMLBED_SHARD_TOTAL JOB_COMPLETION_INDEX=0 UMLBED_SHARD_TOTAL=x
JOB_COMPLETION_INDEX UMLBED_SHARD_TOTAL=2
SLURM_ARRAY_TASK_COUNT SLURM_ARRAY_TASK_ID=1
SLURM_ARRAY_TASK_MIN SLURM_ARRAY_TASK_ID=1 SLURM_ARRAY_TASK_COUNT=2 SLURM_ARRAY_TASK_MIN=z
VARS
for bad in 0/3 4/3 3 a/b 1/0 1/5000; do
  "$UMLBED" list --shard "$bad" "$SRC/scenarios" >/dev/null 2>&1
  check "--shard $bad: exit 2" [ $? = 2 ]
done

# ---- Shards run, their reports merge into the unsharded one; a missing or doubled run is refused. ----
export UMLBED_FAKE=agent
need_jq
F=(--fake-uml --kernel "$UMLBED_TEST" --agent "$UMLBED_TEST")
S=("$SCEN/fake-ok.lua" "$SCEN/fake-matrix.lua" "$SCEN/fake-fail.lua")
run run "${F[@]}" --json "$T/whole.json" "${S[@]}"
whole=$rc
cp "$T/out" "$T/whole.tap"
for K in 1 2 3; do
  run run "${F[@]}" --shard "$K/3" --json "$T/sh$K.json" "${S[@]}"
done
J=$T/sh1.json
check "a shard's report names its shard, how it was dealt, and the whole list" \
  jtrue '.shard == {k: 1, n: 3, source: "--shard", balance: "count"} and (.results | length) == 2 and (.all_runs | length) == 6'
"$UMLBED" merge --json "$T/merged.json" --junit "$T/merged.xml" "$T/sh3.json" "$T/sh1.json" "$T/sh2.json" >"$T/m.out" 2>"$T/err"
mrc=$?
check "merge of the three shards: the unsharded run's exit status ($whole)" [ "$mrc" = "$whole" ]
names() { perl -MJSON::PP -e 'open my $h, "<", $ARGV[0] or exit 1; local $/;
  print map { "$_->{name}\t$_->{verdict}\n" } @{decode_json(<$h>)->{results}}' "$1" | sort; }
# Both lists are read before they are compared: two empty lists (an unreadable report) would compare equal.
names "$T/whole.json" >"$T/whole.names"
names "$T/merged.json" >"$T/merged.names"
check "merge: the unsharded run's list has its 6 runs" [ "$(wc -l <"$T/whole.names")" = 6 ]
check "merge: the same runs and verdicts as the unsharded run" cmp -s "$T/whole.names" "$T/merged.names"
J=$T/merged.json
check "merge: the report lists the full list's 6 runs, unsharded" jtrue '(.results | length) == 6 and .shard == null'
check "merge: JUnit written" grep -q '<testsuite name="umlbed" tests="6"' "$T/merged.xml"
"$UMLBED" merge "$T/sh1.json" "$T/sh2.json" >/dev/null 2>"$T/err"
check "merge without shard 3: exit 2" [ $? = 2 ]
J=$T/sh3.json
check "... naming each missing run" [ "$(grep -c '^umlbed merge: run missing (in no shard): ' "$T/err")" = "$(count)" ]
"$UMLBED" merge "$T/sh1.json" "$T/sh1.json" "$T/sh2.json" "$T/sh3.json" >/dev/null 2>"$T/err"
check "merge with shard 1 twice: exit 2" [ $? = 2 ]
check "... naming the doubled runs" grep -q '^umlbed merge: run doubled (in more than one shard): fake-ok.lua' "$T/err"
run run "${F[@]}" --shard 1/2 --json "$T/other.json" "${S[@]}"
"$UMLBED" merge "$T/sh1.json" "$T/other.json" >/dev/null 2>"$T/err"
check "merge of shards of different lists (N=3 and N=2): exit 2" [ $? = 2 ]
# One whole run's report is printed again as its run printed it: the same result lines (in the plan's order, where
# the run printed them as they ended), names escaped by the same code, and the same exit status; as a subtest,
# indented under its name.
results() { grep -E '^ *(not )?ok [0-9]+ ' "$1" | sed -E 's/^ *(not ok|ok) [0-9]+ /\1 /' | sort; }
"$UMLBED" merge "$T/whole.json" >"$T/again.tap" 2>"$T/err"
mrc=$?
check "merge of one whole run's report: its run's exit status ($whole, got $mrc)" [ "$mrc" = "$whole" ]
check "... its 6 result lines, as the run printed them" \
  eval '[ "$(results "$T/whole.tap" | wc -l)" = 6 ] && [ "$(results "$T/whole.tap")" = "$(results "$T/again.tap")" ]'
"$UMLBED" merge --subtest 'whole #1' "$T/whole.json" >"$T/sub.tap" 2>"$T/err"
check "... as a subtest: headed with its escaped name and indented" \
  eval 'grep -qx "    # Subtest: whole \\\\#1" "$T/sub.tap" && [ "$(grep -c "^    " "$T/sub.tap")" = "$(wc -l <"$T/sub.tap")" ]'
"$UMLBED" merge "$T/whole.json" "$T/sh1.json" >/dev/null 2>"$T/err"
check "merge of a whole run's report beside a shard's: exit 2, saying what it wants" \
  grep -q 'not the JSON report of a sharded run' "$T/err"
# A verdict merge does not know, or none, is an error naming the shard and the run, never a pass.
for v in '"failed"' '"XFAIL"' 1 null -; do
  perl -MJSON::PP -e 'local $/; open my $h, "<", $ARGV[0] or die; my $d = decode_json(<$h>);
    my $r = $d->{results}[0]; if ($ARGV[1] eq "-") { delete $r->{verdict} } else { $r->{verdict} = decode_json("[$ARGV[1]]")->[0] }
    print encode_json($d)' "$T/sh1.json" "$v" >"$T/bad.json"
  first=$(perl -MJSON::PP -e 'local $/; open my $h, "<", $ARGV[0] or die; print decode_json(<$h>)->{results}[0]{name}' "$T/sh1.json")
  "$UMLBED" merge "$T/bad.json" "$T/sh2.json" "$T/sh3.json" >"$T/m.out" 2>"$T/err"
  mrc=$?
  check "merge of a shard whose run has verdict $v: exit 2 (got $mrc)" [ "$mrc" = 2 ]
  check "... naming the shard and the run" grep -qF "umlbed merge: $T/bad.json: run fake-" "$T/err"
  check "... and the run's name ($first)" grep -qF "$first" "$T/err"
done
echo "1..$n"

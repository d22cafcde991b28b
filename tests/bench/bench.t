#!/usr/bin/env bash
# SPDX-License-Identifier: MIT
# bench.t: each bench/ script in its quickest mode prints its table and parses; no timing is asserted.
# The runner tests' setup: paths, a private TMPDIR (the scripts' scratch folders and the runs' folders go there, so
# leftovers can be counted) and the TAP helpers.
# Its subject is the benchmark tools, whose figures a sanitizer would distort, not the runner: it drives the runner's build without sanitizers.
PLAIN_RUNNER=1
. "$(dirname "$0")/../runner/common.sh"
KERNEL=${UMLBED_KERNEL:-$BUILD/kernel/full/obj/linux}
if [ ! -x "$KERNEL" ] || [ ! -f "$BUILD/guest/umlbed-agent" ] || [ ! -x "$UMLBED" ]; then
  prereq_skip_all "no patched kernel ($KERNEL), agent or runner ($UMLBED)"
fi
need_jq
B=$SRC/bench
export UMLBED KERNEL
num='[0-9]+(\.[0-9]+)?'
# ordered FILE LABEL: the line starting with LABEL has three numbers after it, in order min <= median <= max.
ordered() {
  awk -v l="$2" 'index($0, l) == 1 { s = substr($0, length(l) + 1); n = split(s, a, " ");
    if (n == 3 && a[1] + 0 <= a[2] + 0 && a[2] + 0 <= a[3] + 0) ok = 1 } END { exit !ok }' "$1"
}
# left PREFIX: how many entries of $TMPDIR start with PREFIX.
left() {
  local c=0 f
  for f in "$TMPDIR/$1"*; do [ -e "$f" ] && c=$((c + 1)); done
  echo "$c"
}
# numbers FILE LABEL REGEX: a line starts with LABEL and the rest matches the extended REGEX.
numbers() { awk -v l="$2" -v re="$3" 'index($0, l) == 1 && substr($0, length(l) + 1) ~ re { ok = 1 } END { exit !ok }' "$1"; }

# breakdown.sh: one run of each kind.
"$B/breakdown.sh" 1 >"$T/bd" 2>"$T/err"
check "breakdown.sh 1: exit 0" [ $? = 0 ]
check "breakdown.sh: the phase table's header" grep -Eq '^phase \(steps=poweroff runs\), ms +min +median +max$' "$T/bd"
for row in "process start -> kernel exec" "spawn -> agent ready (boot_ms)" "  kernel clock 0 -> init runs (printk, 10 ms)" \
  "agent ready -> first reply" "scenario body (file, spawn, mmap, peek)" "power-off request -> reply" \
  "power-off reply -> process exit" "whole process (wall)" "steps=boot (instance killed at the end)"; do
  check "breakdown.sh: '$row' with min <= median <= max" ordered "$T/bd" "$row"
done
check "breakdown.sh: the differences of medians" grep -Eq "^median poweroff - median reply +-?$num$" "$T/bd"
grep -q '^whole process' "$T/bd" || { diag "$T/bd"; diag "$T/err"; }

# rtt.sh: one run of 10 peeks.
RTT_RUNS=1 "$B/rtt.sh" 10 >"$T/rtt" 2>"$T/err"
check "rtt.sh 10: exit 0" [ $? = 0 ]
check "rtt.sh: 10 requests per run, 1 run" grep -q '^one-page peek round trip, 10 requests per run, 1 run(s), microseconds$' "$T/rtt"
for row in "median request" "mean request" "fastest request" "99th percentile" "slowest request" "requests over 1 ms"; do
  check "rtt.sh: '$row' with min <= median <= max" ordered "$T/rtt" "$row"
done
grep -q '^slowest request' "$T/rtt" || { diag "$T/rtt"; diag "$T/err"; }

# top.sh on given reports: a known answer (12 runs over two reports, medians of two, ranks by median).
perl -MJSON::PP -e '
  for my $rep (1, 2) {
    my @r = map { { name => "s$_", file => "f.lua", verdict => ($_ == 3 && $rep == 2 ? "FAILED" : "ok"),
      seconds => $_ + ($rep == 2 ? 1 : 0) } } 1 .. 12;
    open my $o, ">", "$ARGV[0]/r$rep.json" or die; print $o encode_json({ results => \@r });
  }' "$T"
"$B/top.sh" "$T/r1.json" "$T/r2.json" >"$T/top" 2>"$T/err"
check "top.sh REPORTS: exit 0" [ $? = 0 ]
check "top.sh: 12 runs, 2 reports, sum of medians 84" grep -q '^12 scenario runs, 2 report(s); sum of medians 84.00 s$' "$T/top"
check "top.sh: 10 rank lines" [ "$(grep -Ec '^ +[0-9]+ ' "$T/top")" = 10 ]
check "top.sh: the first is s12, min 12, median 12.5, max 13" grep -Eq '^ +1 +12\.00 +12\.50 +13\.00 +14\.9% +f\.lua: s12$' "$T/top"
check "top.sh: the tenth is s3" grep -Eq '^ +10 +3\.00 +3\.50 +4\.00 .* f\.lua: s3$' "$T/top"
check "top.sh: the failed run is noted" grep -q '^note: f.lua: s3: 1 run(s) neither ok nor SKIP$' "$T/top"
grep -q '^ *1 ' "$T/top" || { diag "$T/top"; diag "$T/err"; }

# top.sh running a suite: bench/scenarios once.
SUITE_RUNS=1 SUITE="$B/scenarios/phases.lua $B/scenarios/rtt.lua" "$B/top.sh" >"$T/top" 2>"$T/err"
check "top.sh with SUITE_RUNS=1: exit 0" [ $? = 0 ]
check "top.sh: both bench scenarios ranked" [ "$(grep -Ec '^ +[12] .*(phases|rtt)' "$T/top")" = 2 ]
grep -q '^ *2 ' "$T/top" || { diag "$T/top"; diag "$T/err"; }

# compare.sh: the same build on both sides, one round, one boot, the phases scenario as the suite.
rb=$(dirname "$RDIR")
KERNEL_OLD=$KERNEL KERNEL_NEW=$KERNEL SUITE_OLD=$B/scenarios/phases.lua SUITE_NEW=$B/scenarios/phases.lua ROUNDS=1 BOOTS=1 \
  "$B/compare.sh" "$rb" "$rb" >"$T/cmp" 2>"$T/err"
check "compare.sh BUILD BUILD: exit 0" [ $? = 0 ]
check "compare.sh: the table's header" grep -Eq '^metric +OLD median \(min-max\) +NEW median \(min-max\) +NEW/OLD$' "$T/cmp"
for row in "boot: process wall, ms" "boot: spawn to ready, ms" "suite -j 1: wall, s" "suite -j 1: wall per run, s" \
  "suite -j 1: median run, s"; do
  check "compare.sh: '$row' has two medians with ranges and a ratio" \
    numbers "$T/cmp" "$row" "^ +${num} [(]$num-${num}[)] +${num} [(]$num-${num}[)] +$num$"
done
check "compare.sh: one scenario run on each side, ratio 1" \
  grep -Eq '^suite -j 1: scenario runs +1 \(1-1\) +1 \(1-1\) +1\.000$' "$T/cmp"
grep -q '^metric' "$T/cmp" || { diag "$T/cmp"; diag "$T/err"; }

# umlbed bench: one tiny sweep end to end (no timing asserted): the samples, results.json, and valid plots.
"$UMLBED" bench --out "$T/bench" --param reps=2 --param sharers=1 --param sharers=2 \
  "$B/scenarios/invalidate-sharers.lua" >"$T/bench.out" 2>"$T/err"
check "umlbed bench, a tiny sweep: exit 0" [ $? = 0 ]
J=$T/bench/results.json
check "umlbed bench: four points, each with two samples" jtrue '[.points[] | select(.name == "invalidate_ns" and .n == 2
  and (.labels.pages | tostring) == "16" and (.labels.sharers | tostring | IN("1", "2"))
  and (.labels.impl | IN("seed", "unmap")))] | length == 4'
grep -q '^invalidate_ns' "$T/bench.out" || { diag "$T/bench.out"; diag "$T/err"; }
check "results.json: 8 samples and 4 points, with the kernel's release, the host CPU and a commit" perl -MJSON::PP -e '
  open my $h, "<", $ARGV[0] or exit 1; local $/; my $d = decode_json(<$h>);
  exit !(@{$d->{samples}} == 8 && @{$d->{points}} == 4 && $d->{release} =~ /^6\.1\./ && $d->{host_cpu} ne ""
    && $d->{commit} =~ /^[0-9a-f]{40}(-dirty)?$/ && !grep { $_->{unit} ne "ns" || $_->{value} <= 0 } @{$d->{samples}});
' "$T/bench/results.json"
check "the plot is an SVG document" grep -q '<svg' "$T/bench/invalidate-vs-sharers.svg"
check "the plot is an 800x500 PNG" perl -e '
  open my $h, "<:raw", $ARGV[0] or exit 1; read $h, my $b, 24;
  exit !(substr($b, 0, 8) eq "\x89PNG\r\n\x1a\n" && unpack("N", substr($b, 16, 4)) == 800 && unpack("N", substr($b, 20, 4)) == 500);
' "$T/bench/invalidate-vs-sharers.png"
# umlbed bench --compare reports only as text (no JSON): its summary and SLOWER lines are what is tested.
"$UMLBED" bench --compare "$T/bench/results.json" "$T/bench/results.json" >"$T/cmp.out" 2>"$T/err"
check "umlbed bench --compare of a result with itself: exit 0" [ $? = 0 ]
check "... every point the same, ratio 1" grep -q '^0 of 4 point(s) changed beyond noise$' "$T/cmp.out"
# A made-up slower result: every sample a thousand times the old ones is flagged SLOWER. With two samples a point's
# relative spread is below 1.4826, so 3 x spread + 0.15 stays below ln(1000), however far apart a host put them.
perl -MJSON::PP -e '
  open my $h, "<", $ARGV[0] or exit 1; local $/; my $d = decode_json(<$h>);
  for my $p (@{$d->{points}}) { $p->{$_} *= 1000 for qw(median min max mad) }
  open my $o, ">", $ARGV[1] or exit 1; print $o encode_json($d);' "$T/bench/results.json" "$T/slow.json"
"$UMLBED" bench --compare "$T/bench/results.json" "$T/slow.json" >"$T/cmp2.out" 2>"$T/err"
check "umlbed bench --compare flags a thousandfold slowdown at every point" grep -q '^4 of 4 point(s) changed beyond noise$' "$T/cmp2.out"
check "... as SLOWER" [ "$(grep -c ' SLOWER ' "$T/cmp2.out")" = 4 ]

# Usage errors are exit 2, before anything runs.
"$B/compare.sh" "$rb" >/dev/null 2>&1
check "compare.sh with one argument: exit 2" [ $? = 2 ]
"$B/compare.sh" "$rb" no-such-commit-or-folder >/dev/null 2>&1
check "compare.sh with a name that is neither a commit nor a build folder: exit 2" [ $? = 2 ]
"$B/breakdown.sh" many >/dev/null 2>&1
check "breakdown.sh many: exit 2" [ $? = 2 ]
check "no bench-* scratch folder left behind" [ "$(left bench-)" = 0 ]
check "no run folder left behind" [ "$(left umlbed-)" = 0 ]
echo "1..$n"

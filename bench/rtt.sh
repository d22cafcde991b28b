#!/usr/bin/env bash
# SPDX-License-Identifier: MIT
# The round trip of one protocol request (a one-page peek): min/median/max over RTT_RUNS runs of bench/scenarios/rtt.lua.
#
#   bench/rtt.sh [N]        N peeks per run (default 1000)
#   RTT_RUNS=5              runs (each boots a fresh instance)
#   UMLBED=path KERNEL=path the runner and the kernel (defaults: build/runner/umlbed, its default kernel)
#
# Each peek is timed alone inside the scenario with t:remaining() (uv_hrtime, ns); the scenario notes its run's
# min, median, 99th percentile, max and mean in microseconds and the count of requests over 1 ms, read back here
# from the JSON report.
set -euo pipefail

top=$(cd "$(dirname "$0")/.." && pwd)
umlbed=${UMLBED:-$top/build/runner/umlbed}
n=${1:-1000}
runs=${RTT_RUNS:-5}
[[ $n =~ ^[1-9][0-9]*$ && $runs =~ ^[1-9][0-9]*$ ]] || { echo "usage: bench/rtt.sh [N]   (RTT_RUNS=, UMLBED=, KERNEL=)" >&2; exit 2; }
[ -x "$umlbed" ] || { echo "rtt: no runner at $umlbed" >&2; exit 2; }
kernel_args=()
[ -z "${KERNEL:-}" ] || kernel_args=(--kernel "$KERNEL")

scratch=$(mktemp -d "${TMPDIR:-/tmp}/bench-rtt.XXXXXX")
trap 'rm -rf "$scratch"' EXIT
trap 'exit 130' INT
trap 'exit 143' TERM
mkdir "$scratch/runs"

for ((i = 1; i <= runs; i++)); do
	TMPDIR=$scratch/runs "$umlbed" run -j 1 "${kernel_args[@]}" --json "$scratch/r$i.json" --param "n=$n" \
		"$top/bench/scenarios/rtt.lua" >"$scratch/tap" 2>&1 || { cat "$scratch/tap" >&2; exit 1; }
done
perl -MJSON::PP -e '
	my (%v, $n);
	for my $f (@ARGV) {
		open my $in, "<", $f or die "$f: $!\n";
		my $d = decode_json(do { local $/; <$in> })->{results}[0]{diag} // "";
		my %k = $d =~ /(\w+)=([0-9.]+)/g;
		defined $k{median_us} or die "rtt: no rtt note in $f\n";
		$n = $k{n};
		push @{$v{$_}}, $k{$_} for qw(min_us median_us p99_us max_us mean_us over_1ms);
	}
	sub st { my @a = sort { $a <=> $b } @_; my $c = @a;
		(($c % 2 ? $a[($c - 1) / 2] : ($a[$c / 2 - 1] + $a[$c / 2]) / 2), $a[0], $a[-1]) }
	printf "one-page peek round trip, %d requests per run, %d run(s), microseconds\n", $n, scalar @ARGV;
	printf "%-22s %9s %9s %9s\n", "per run", "min", "median", "max";
	for (["median request", "median_us"], ["mean request", "mean_us"], ["fastest request", "min_us"],
		["99th percentile", "p99_us"], ["slowest request", "max_us"], ["requests over 1 ms", "over_1ms"]) {
		my ($m, $lo, $hi) = st(@{$v{$_->[1]}});
		printf "%-22s %9.1f %9.1f %9.1f\n", $_->[0], $lo, $m, $hi;
	}
' "$scratch"/r*.json

#!/usr/bin/env bash
# SPDX-License-Identifier: MIT
# The 10 most expensive scenario runs of the suite: min/median/max seconds over SUITE_RUNS runs, or of given JSON reports.
#
#   bench/top.sh [REPORT.json...]   without reports: runs the suite SUITE_RUNS times at -j 1 with --json
#   SUITE_RUNS=3                    suite runs
#   TOP=10                          how many lines
#   SUITE=path...                   the scenario files or folders (default: scenarios/)
#   UMLBED=path KERNEL=path         the runner and the kernel
#
# A scenario run is named by its file and its TAP name (a matrix run's name carries its parameters). Runs with
# other verdicts than ok or SKIP are timed like the rest and counted in a note.
set -euo pipefail

top=$(cd "$(dirname "$0")/.." && pwd)
umlbed=${UMLBED:-$top/build/runner/umlbed}
runs=${SUITE_RUNS:-3}
count=${TOP:-10}
usage() { echo "usage: bench/top.sh [REPORT.json...]   (SUITE_RUNS=, TOP=, SUITE=, UMLBED=, KERNEL=)" >&2; exit 2; }
[[ $runs =~ ^[1-9][0-9]*$ && $count =~ ^[1-9][0-9]*$ ]] || usage
case ${1:-} in -h | --help) usage ;; esac

scratch=$(mktemp -d "${TMPDIR:-/tmp}/bench-top.XXXXXX")
trap 'rm -rf "$scratch"' EXIT
trap 'exit 130' INT
trap 'exit 143' TERM

reports=("$@")
if [ ${#reports[@]} = 0 ]; then
	[ -x "$umlbed" ] || { echo "top: no runner at $umlbed" >&2; exit 2; }
	read -ra suite <<<"${SUITE:-$top/scenarios}"
	kernel_args=()
	[ -z "${KERNEL:-}" ] || kernel_args=(--kernel "$KERNEL")
	mkdir "$scratch/runs"
	for ((i = 1; i <= runs; i++)); do
		rc=0
		TMPDIR=$scratch/runs "$umlbed" run -j 1 "${kernel_args[@]}" --json "$scratch/s$i.json" "${suite[@]}" \
			>"$scratch/tap" 2>&1 || rc=$?
		if [ "$rc" -gt 1 ] || [ ! -s "$scratch/s$i.json" ]; then
			echo "top: umlbed run exited $rc:" >&2
			tail -n 20 "$scratch/tap" >&2
			exit 1
		fi
		reports+=("$scratch/s$i.json")
	done
fi
perl -MJSON::PP -e '
	my $count = shift;
	my (%s, %bad, $total);
	for my $f (@ARGV) {
		open my $in, "<", $f or die "top: $f: $!\n";
		my $r = decode_json(do { local $/; <$in> });
		for (@{$r->{results}}) {
			my $k = "$_->{file}: $_->{name}";
			push @{$s{$k}}, $_->{seconds};
			$bad{$k}++ unless $_->{verdict} eq "ok" || $_->{verdict} eq "SKIP";
			$total += $_->{seconds};
		}
	}
	sub st { my @a = sort { $a <=> $b } @_; my $c = @a;
		(($c % 2 ? $a[($c - 1) / 2] : ($a[$c / 2 - 1] + $a[$c / 2]) / 2), $a[0], $a[-1]) }
	my %med = map { $_ => (st(@{$s{$_}}))[0] } keys %s;
	my @k = sort { $med{$b} <=> $med{$a} || $a cmp $b } keys %s;
	my $all = 0;
	$all += $med{$_} for @k;
	printf "%d scenario runs, %d report(s); sum of medians %.2f s\n", scalar @k, scalar @ARGV, $all;
	printf "%4s %8s %8s %8s %6s  %s\n", "rank", "min s", "median s", "max s", "share", "scenario run";
	my $i = 0;
	for my $k (grep { defined } @k[0 .. $count - 1]) {
		my ($m, $lo, $hi) = st(@{$s{$k}});
		printf "%4d %8.2f %8.2f %8.2f %5.1f%%  %s\n", ++$i, $lo, $m, $hi, $all ? 100 * $m / $all : 0, $k;
	}
	print "note: $_: $bad{$_} run(s) neither ok nor SKIP\n" for sort keys %bad;
' "$count" "${reports[@]}"

#!/usr/bin/env bash
# SPDX-License-Identifier: MIT
# Two builds side by side in one run: boot benchmark and the suite at -j 1, alternated, medians and NEW/OLD ratios.
#
#   bench/compare.sh OLD NEW
#     OLD, NEW   a build folder (one holding runner/umlbed, like build/) or a git commit of this repository; a
#                commit is exported (git archive, nothing in the working tree or index changes) and its runner and
#                guest agent are built into a scratch BUILD; kernels are never built: both sides boot the kernel
#                of KERNEL_OLD / KERNEL_NEW (default: build/kernel/full/obj/linux of this tree)
#   ROUNDS=5               rounds; each runs both sides, in the order OLD NEW, then NEW OLD, ... so that a drifting
#                          host hits both alike
#   BOOTS=5                boots per side and round (one `umlbed run` process per boot of a t:vm()-only scenario)
#   SUITE_OLD, SUITE_NEW   the scenario files or folders of each side (default: the side's own scenarios/: the
#                          commit's, or for a build folder the scenarios/ beside it, else this tree's); SUITE=none
#                          times the boots only
#
# The suite's scenario count can differ between the sides (other scenarios, other matrices): the table gives the
# suite's wall time and also its wall time per scenario run and the median of the runs' own seconds (JSON), the
# figures to compare then (the table gives the median, min and max over the rounds of each). Only flags that
# runners since the first --json accept are used (run, -j 1, --kernel, --json), and each side's --help is checked.
# The kernel's delay-loop calibration cache (UMLBED_LPJ_CACHE, runners that have one) is private per side and
# warmed by one uncounted boot.
set -euo pipefail

top=$(cd "$(dirname "$0")/.." && pwd)
usage() { echo "usage: bench/compare.sh OLD NEW   (OLD, NEW: a build folder or a commit; ROUNDS=, BOOTS=, KERNEL_OLD=, KERNEL_NEW=, SUITE_OLD=, SUITE_NEW=, SUITE=none)" >&2; exit 2; }
die() { echo "compare: $*" >&2; exit 2; }
[ $# = 2 ] || usage
rounds=${ROUNDS:-5}
boots=${BOOTS:-5}
[[ $rounds =~ ^[1-9][0-9]*$ && $boots =~ ^[1-9][0-9]*$ ]] || usage

scratch=$(mktemp -d "${TMPDIR:-/tmp}/bench-compare.XXXXXX")
trap 'rm -rf "$scratch"' EXIT
trap 'exit 130' INT
trap 'exit 143' TERM
mkdir "$scratch/runs"
export UMLBED_JOBS_CACHE=

cat >"$scratch/boot.lua" <<'LUA'
-- Boots one vm and does nothing else: the JSON report has the boot-to-ready time.
return { name = "boot", run = function(t) assert(t:vm()) end }
LUA

declare -A runner kernel suite label kstamp
# Sets up side OLD or NEW from SPEC: runner, kernel, suite.
setup() {
	local side=$1 spec=$2 src build k
	if [ -x "$spec/runner/umlbed" ]; then
		build=$(cd "$spec" && pwd)
		src=$(dirname "$build")
		label[$side]="build folder $build"
	elif git -C "$top" rev-parse -q --verify "$spec^{commit}" >/dev/null; then
		local sha
		sha=$(git -C "$top" rev-parse --short "$spec^{commit}")
		src=$scratch/$side/src
		build=$scratch/$side/build
		mkdir -p "$src" "$build"
		echo "compare: $side: building runner and agent of $sha"
		git -C "$top" archive "$sha" | tar -x -C "$src"
		if ! make -s -C "$src/runner" BUILD="$build" >"$scratch/$side.make" 2>&1 ||
			! make -s -C "$src/guest" BUILD="$build" >>"$scratch/$side.make" 2>&1; then
			tail -n 30 "$scratch/$side.make" >&2
			die "$side: $sha does not build"
		fi
		# The default kernel of that runner is BUILD/kernel/...: this tree's kernels, never built here.
		ln -s "$top/build/kernel" "$build/kernel"
		label[$side]="commit $sha"
	else
		die "$side: '$spec' is neither a build folder (with runner/umlbed) nor a commit"
	fi
	runner[$side]=$build/runner/umlbed
	k=KERNEL_$side
	kernel[$side]=$(realpath "${!k:-$top/build/kernel/full/obj/linux}")
	[ -x "${kernel[$side]}" ] || die "$side: no kernel at ${kernel[$side]}"
	kstamp[$side]=$(stat -c %Y "${kernel[$side]}")
	k=SUITE_$side
	if [ -n "${!k:-}" ]; then
		suite[$side]=${!k}
	elif [ -d "$src/scenarios" ]; then
		suite[$side]=$src/scenarios
	else
		suite[$side]=$top/scenarios
	fi
	[ "${SUITE:-}" != none ] || suite[$side]=
	local help
	help=$("${runner[$side]}" --help 2>&1 || true)
	for flag in --kernel --json --jobs; do
		grep -q -- "$flag" <<<"$help" || die "$side: ${runner[$side]} --help has no $flag"
	done
	echo "compare: $side = ${label[$side]}: ${runner[$side]}, kernel ${kernel[$side]}, suite ${suite[$side]:-none}"
}
setup OLD "$1"
setup NEW "$2"

# umlbed run for SIDE into JSON with the rest as arguments; a runner that fails to run (exit > 1) stops here.
run() {
	local side=$1 json=$2 rc=0
	shift 2
	UMLBED_LPJ_CACHE=$scratch/$side.lpj TMPDIR=$scratch/runs "${runner[$side]}" run -j 1 --kernel "${kernel[$side]}" \
		--json "$json" "$@" >"$scratch/tap" 2>&1 || rc=$?
	if [ "$rc" -gt 1 ] || [ ! -s "$json" ]; then
		tail -n 20 "$scratch/tap" >&2
		echo "compare: $side: umlbed run $* exited $rc" >&2
		exit 1
	fi
}

# Appends "METRIC VALUE" lines to $scratch/SIDE.data, and verdicts other than ok/SKIP to $scratch/SIDE.bad.
measure() {
	local side=$1 round=$2 i t0 t1 json
	for ((i = 1; i <= boots; i++)); do
		json=$scratch/$side.boot.json
		t0=$EPOCHREALTIME
		run "$side" "$json" "$scratch/boot.lua"
		t1=$EPOCHREALTIME
		perl -MJSON::PP -e '
			my $r = decode_json(do { local $/; <STDIN> })->{results}[0];
			printf "boot_wall %.6f\nboot_ms %.6f\n", ($ARGV[1] - $ARGV[0]) * 1000, $r->{boot_ms}[0];
		' "$t0" "$t1" <"$json" >>"$scratch/$side.data"
	done
	[ -n "${suite[$side]}" ] || return 0
	json=$scratch/$side.suite.json
	read -ra s <<<"${suite[$side]}"
	t0=$EPOCHREALTIME
	run "$side" "$json" "${s[@]}"
	t1=$EPOCHREALTIME
	perl -MJSON::PP -e '
		my $r = decode_json(do { local $/; <STDIN> });
		my @res = @{$r->{results}};
		my $wall = $ARGV[1] - $ARGV[0];
		my @sec = sort { $a <=> $b } map { $_->{seconds} } @res;
		my $n = @sec;
		my $med = !$n ? 0 : $n % 2 ? $sec[($n - 1) / 2] : ($sec[$n / 2 - 1] + $sec[$n / 2]) / 2;
		printf "suite_wall %.6f\nsuite_runs %d\nsuite_per_run %.6f\nsuite_run_median %.6f\n", $wall, $n,
			$n ? $wall / $n : 0, $med;
		my $bad = grep { $_->{verdict} ne "ok" && $_->{verdict} ne "SKIP" } @res;
		print STDERR "$bad\n";
	' "$t0" "$t1" <"$json" >>"$scratch/$side.data" 2>>"$scratch/$side.bad"
	printf 'compare: round %d/%d %s suite -j 1: %.1f s\n' "$round" "$rounds" "$side" "$(tail -n 4 "$scratch/$side.data" | awk 'NR == 1 { print $2 }')"
}

for side in OLD NEW; do
	run "$side" "$scratch/warm.json" "$scratch/boot.lua"
	: >"$scratch/$side.data"
	: >"$scratch/$side.bad"
done
for ((r = 1; r <= rounds; r++)); do
	if ((r % 2)); then order=(OLD NEW); else order=(NEW OLD); fi
	for side in "${order[@]}"; do measure "$side" "$r"; done
done
for side in OLD NEW; do
	[ "$side" = OLD ] || [ "${kernel[NEW]}" != "${kernel[OLD]}" ] || break
	[ "$(stat -c %Y "${kernel[$side]}")" = "${kstamp[$side]}" ] ||
		echo "compare: warning: ${kernel[$side]} changed during the comparison (a kernel build?): figures are mixed" >&2
done

echo
echo "OLD = ${label[OLD]}; NEW = ${label[NEW]}; $rounds round(s), $boots boot(s) per side and round"
perl -e '
	my %v;
	for my $side (qw(OLD NEW)) {
		open my $in, "<", $ARGV[0] . "/$side.data" or die;
		while (<$in>) { my ($m, $x) = split; push @{$v{$m}{$side}}, $x }
	}
	sub st { my @a = sort { $a <=> $b } @_; my $c = @a;
		(($c % 2 ? $a[($c - 1) / 2] : ($a[$c / 2 - 1] + $a[$c / 2]) / 2), $a[0], $a[-1]) }
	printf "%-30s %-26s %-26s %s\n", "metric", "OLD median (min-max)", "NEW median (min-max)", "NEW/OLD";
	for (["boot_wall", "boot: process wall, ms"], ["boot_ms", "boot: spawn to ready, ms"],
		["suite_wall", "suite -j 1: wall, s"], ["suite_runs", "suite -j 1: scenario runs"],
		["suite_per_run", "suite -j 1: wall per run, s"], ["suite_run_median", "suite -j 1: median run, s"]) {
		my ($m, $name) = @$_;
		next unless $v{$m};
		my @med;
		printf "%-30s", $name;
		for my $side (qw(OLD NEW)) {
			my ($x, $lo, $hi) = st(@{$v{$m}{$side}});
			push @med, $x;
			printf " %-26s", sprintf($m eq "suite_runs" ? "%d (%d-%d)" : "%.3f (%.3f-%.3f)", $x, $lo, $hi);
		}
		printf " %.3f\n", $med[0] ? $med[1] / $med[0] : 0;
	}
' "$scratch"
for side in OLD NEW; do
	bad=$(awk '{ s += $1 } END { print s + 0 }' "$scratch/$side.bad")
	[ "$bad" = 0 ] || echo "note: $side: $bad scenario run(s) neither ok nor SKIP in these timings"
done

#!/usr/bin/env bash
# SPDX-License-Identifier: MIT
# Compares the suite's wall time at -j 1, -j 2 and -j auto, interleaved, alone and beside a memory-hammering neighbour.
#
#   bench/jobs.sh [FILE|DIR]...     (default: scenarios/)
#   JOBS_ROUNDS=3                   rounds; each runs j1, j2, auto once, so a drifting host hits all three alike
#   JOBS_PHASES="alone vm-neighbour one-cpu"   the conditions: no neighbour; a memory-hammering stress-ng on the
#                                   other CPU; the runner confined to one CPU (taskset -c 0), where a second
#                                   instance can only slow the first down (auto runs as auto:2 there, so that it
#                                   may try 2 and has to find out that it does not pay)
#   KERNEL=path | VARIANT=name      the kernel (default: the runner's, build/kernel/full/obj/linux)
#   UMLBED=path                     the runner (default: $BUILD/runner/umlbed)
set -euo pipefail

top=$(cd "$(dirname "$0")/.." && pwd)
BUILD=${BUILD:-$top/build}
umlbed=${UMLBED:-$BUILD/runner/umlbed}
rounds=${JOBS_ROUNDS:-3}
suite=("$@")
[ ${#suite[@]} -gt 0 ] || suite=("$top/scenarios")

die() { echo "jobs: $*" >&2; exit 2; }
[[ $rounds =~ ^[1-9][0-9]*$ ]] || die "JOBS_ROUNDS=$rounds is not a positive number"
[ -x "$umlbed" ] || die "no runner at $umlbed (make runner)"

kernel_args=()
if [ -n "${KERNEL:-}" ]; then
	kernel_args=(--kernel "$KERNEL")
elif [ -n "${VARIANT:-}" ]; then
	kernel_args=(--variant "$VARIANT")
fi

# Older runners read "auto" as -j 0 and refuse it; only trust --help.
modes=(1 2)
if "$umlbed" --help 2>&1 | grep -qw auto; then
	modes+=(auto)
else
	echo "jobs: this umlbed has no -j auto (not in umlbed --help): timing -j 1 and -j 2 only"
fi

# The neighbour phase needs stress-ng: scripts/deps.sh installs it as root, else names the apt-get line.
[[ " ${JOBS_PHASES:-alone vm-neighbour one-cpu} " != *" vm-neighbour "* ]] || "$top/scripts/deps.sh" stress-ng

# Not named umlbed-*: that is the runner's run folders, which people clear with rm -rf /tmp/umlbed-*.
scratch=$(mktemp -d "${TMPDIR:-/tmp}/bench-jobs.XXXXXX")
mkdir "$scratch/runs"
# -j auto learns from each run and starts the next from what it learnt: a private cache starts it cold here (the
# first round) and keeps what it learns beside a hog out of the user's BUILD cache.
export UMLBED_JOBS_CACHE=$scratch/jobs-auto.cache
me="jobs"
# shellcheck source=bench/neighbour.sh
. "$top/bench/neighbour.sh"

trap 'stop_hog || true; rm -rf "$scratch"' EXIT
trap 'echo "jobs: interrupted" >&2; exit 130' INT
trap 'echo "jobs: terminated" >&2; exit 143' TERM


# Times one suite run into $scratch/PHASE.MODE.times; a run with non-ok verdicts still counts (and is noted), a
# runner that could not run the suite at all stops the benchmark.
time_suite() {
	local phase=$1 mode=$2 round=$3 json=$scratch/$1.$2.$3.json rc=0 t0 t1 secs jarg=$2 pre=()
	if [ "$phase" = one-cpu ]; then
		pre=(taskset -c 0)
		[ "$mode" != auto ] || jarg=auto:2
	fi
	t0=$EPOCHREALTIME
	TMPDIR=$scratch/runs "${pre[@]}" "$umlbed" run -j "$jarg" "${kernel_args[@]}" --json "$json" "${suite[@]}" \
		>"$scratch/tap.log" 2>"$scratch/stderr.log" || rc=$?
	t1=$EPOCHREALTIME
	if [ "$rc" -gt 1 ] || [ ! -s "$json" ]; then
		echo "jobs: umlbed run -j $mode exited $rc:" >&2
		tail -n 20 "$scratch/stderr.log" >&2
		exit 1
	fi
	secs=$(awk -v a="$t0" -v b="$t1" 'BEGIN { printf "%.3f", b - a }')
	echo "$secs" >>"$scratch/$phase.$mode.times"
	# Verdicts come from the JSON report, and for -j auto (runners that report it) how many scenario runs it
	# started at each level.
	perl -MJSON::PP -e '
		open my $in, "<", $ARGV[0] or die "$ARGV[0]: $!\n";
		my $r = decode_json(do { local $/; <$in> });
		my $bad = grep { $_->{verdict} ne "ok" && $_->{verdict} ne "SKIP" } @{$r->{results}};
		my $l = $r->{runs_per_level} || {};
		my $levels = join ", ", map { "-j $_: $l->{$_}" } sort { $a <=> $b } keys %$l;
		print "$bad ", ($r->{jobs_auto} && $levels ? "scenario runs started at $levels" : ""), "\n";
	' "$json" >"$scratch/report"
	local bad levels
	read -r bad levels <"$scratch/report"
	echo "$bad" >>"$scratch/$phase.$mode.bad"
	printf 'jobs: %-12s round %d/%d  -j %-4s %7.1f s%s%s\n' "$phase" "$round" "$rounds" "$mode" "$secs" \
		"$([ "$bad" = 0 ] || echo "  $bad not ok")" "${levels:+  ($levels)}"
}

# "median min max" of a times file.
stats() { sort -n "$1" | awk '{ a[NR] = $1 } END { printf "%.3f %.3f %.3f\n", NR % 2 ? a[(NR + 1) / 2] : (a[NR / 2] + a[NR / 2 + 1]) / 2, a[1], a[NR] }'; }

read -ra phases <<<"${JOBS_PHASES:-alone vm-neighbour one-cpu}"
for phase in "${phases[@]}"; do
	case $phase in alone | vm-neighbour | one-cpu) ;; *) die "unknown phase '$phase'" ;; esac
done
for phase in "${phases[@]}"; do
	[ "$phase" != vm-neighbour ] || start_hog "$((rounds * 3 * 3600))" --vm 1 --vm-bytes 1G --mmap 1
	for ((r = 1; r <= rounds; r++)); do
		for mode in "${modes[@]}"; do time_suite "$phase" "$mode" "$r"; done
	done
	stop_hog
done

echo
echo "suite wall time, median (min-max) of $rounds interleaved round(s): ${suite[*]}"
[ "${#modes[@]}" = 2 ] || echo "ratios are of the medians; below 1, -j auto is faster"
printf '%-14s' ""
for mode in "${modes[@]}"; do printf '%-24s' "-j $mode"; done
printf '%s\n' "$([ "${#modes[@]}" = 3 ] && echo "auto/j1  auto/best fixed")"
for phase in "${phases[@]}"; do
	printf '%-14s' "$phase"
	declare -A med=()
	for mode in "${modes[@]}"; do
		read -r m lo hi < <(stats "$scratch/$phase.$mode.times")
		med[$mode]=$m
		printf '%-24s' "$(printf '%.1f s (%.1f-%.1f)' "$m" "$lo" "$hi")"
	done
	if [ "${#modes[@]}" = 3 ]; then
		awk -v a="${med[auto]}" -v j1="${med[1]}" -v j2="${med[2]}" \
			'BEGIN { best = j1 < j2 ? j1 : j2; printf "%-8.2f %.2f (best fixed: -j %d)", a / j1, a / best, j1 < j2 ? 1 : 2 }'
	fi
	echo
done
for phase in "${phases[@]}"; do
	for mode in "${modes[@]}"; do
		bad=$(awk '{ s += $1 } END { print s + 0 }' "$scratch/$phase.$mode.bad")
		[ "$bad" = 0 ] || echo "note: $phase -j $mode: $bad non-ok scenario run(s) in these timings (run bench/soak.sh)"
	done
done

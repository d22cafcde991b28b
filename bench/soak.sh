#!/usr/bin/env bash
# SPDX-License-Identifier: MIT
# Soak: runs the scenario suite SOAK_RUNS times under each hostile condition and fails on any verdict but ok or SKIP.
#
#   bench/soak.sh [FILE|DIR]...          (default: scenarios/)
#   SOAK_CONDITIONS="j1 j2 j4 auto taskset cpu vm timetravel"   the conditions, in this order (default: all)
#                                        also exitrace: scenarios/exit-race.lua alone with 1000 rounds per impl x
#                                        cache mode (4000 exit races a run), not in the default list
#   SOAK_RUNS=10                         suite runs per condition
#   KERNEL=path | VARIANT=name           the kernel (default: the runner's, build/kernel/full/obj/linux)
#   UMLBED=path                          the runner (default: $BUILD/runner/umlbed)
#   SOAK_KEEP=1                          keep the scratch folder (JSON reports, kept run folders) and name it
set -euo pipefail

top=$(cd "$(dirname "$0")/.." && pwd)
BUILD=${BUILD:-$top/build}
umlbed=${UMLBED:-$BUILD/runner/umlbed}
all_conditions="j1 j2 j4 auto taskset cpu vm timetravel"
read -ra conditions <<<"${SOAK_CONDITIONS:-$all_conditions}"
runs=${SOAK_RUNS:-10}
suite=("$@")
[ ${#suite[@]} -gt 0 ] || suite=("$top/scenarios")

die() { echo "soak: $*" >&2; exit 2; }
[[ $runs =~ ^[1-9][0-9]*$ ]] || die "SOAK_RUNS=$runs is not a positive number"
[ ${#conditions[@]} -gt 0 ] || die "SOAK_CONDITIONS is empty (known: $all_conditions)"
seen=" "
for c in "${conditions[@]}"; do
	[[ " $all_conditions exitrace " == *" $c "* ]] || die "unknown condition '$c' (known: $all_conditions exitrace)"
	[[ $seen != *" $c "* ]] || die "condition '$c' is listed twice (SOAK_RUNS repeats it)"
	seen+="$c "
done
[ -x "$umlbed" ] || die "no runner at $umlbed (make runner)"

kernel_args=()
if [ -n "${KERNEL:-}" ]; then
	kernel_args=(--kernel "$KERNEL")
elif [ -n "${VARIANT:-}" ]; then
	kernel_args=(--variant "$VARIANT")
fi

# The neighbours run on the CPU the taskset condition leaves free (CPU 0 is the runner's there).
cpu_hog=(--cpu 1)
vm_hog=(--vm 1 --vm-bytes 1G --mmap 1)

for c in "${conditions[@]}"; do
	case $c in cpu | vm) "$top/scripts/deps.sh" stress-ng ;; esac
done

# Not named umlbed-*: that is the runner's run folders, which people clear with rm -rf /tmp/umlbed-*.
scratch=$(mktemp -d "${TMPDIR:-/tmp}/bench-soak.XXXXXX")
mkdir "$scratch/runs"
# -j auto learns from each run; a private cache keeps what it learns under a soak out of the user's BUILD cache.
export UMLBED_JOBS_CACHE=$scratch/jobs-auto.cache
me="soak"
# shellcheck source=bench/neighbour.sh
. "$top/bench/neighbour.sh"

cleanup() {
	stop_hog || true
	if [ "${SOAK_KEEP:-0}" = 1 ]; then
		echo "soak: kept $scratch"
	else
		rm -rf "$scratch"
	fi
}
trap cleanup EXIT
trap 'echo "soak: interrupted" >&2; exit 130' INT
trap 'echo "soak: terminated" >&2; exit 143' TERM


help=$("$umlbed" --help 2>&1 || true)

# Fills pre (command prefix), args (run options) and hog (stress-ng options) for condition $1. Returns 1, with
# the reason in why, when this runner cannot do it.
plan() {
	pre=() args=() hog=() why='' csuite=("${suite[@]}")
	case $1 in
	j1 | j2 | j4) args=(-j "${1#j}") ;;
	auto)
		# Older runners read "auto" as -j 0 and refuse it; only trust --help.
		grep -qw auto <<<"$help" || { why="umlbed --help offers no -j auto"; return 1; }
		args=(-j auto)
		;;
	taskset) pre=(taskset -c 0) args=(-j 2) ;;
	cpu) hog=("${cpu_hog[@]}") args=(-j 2) ;;
	vm) hog=("${vm_hog[@]}") args=(-j 2) ;;
	timetravel)
		grep -q -- --time-travel <<<"$help" || { why="umlbed --help offers no --time-travel"; return 1; }
		args=(-j 2 --time-travel)
		;;
	exitrace) args=(-j 2 --param rounds=1000) csuite=("$top/scenarios/exit-race.lua") ;;
	esac
}

# Reads one JSON report: prints "scenario-runs skipped non-ok jobs kernel" and appends each non-ok run to the
# failures (with its diag) and names (name, verdict, condition) files.
read_report() {
	perl -MJSON::PP -e '
		my ($json, $cond, $run, $failures, $names) = @ARGV;
		open my $in, "<", $json or die "$json: $!\n";
		my $r = decode_json(do { local $/; <$in> });
		open my $f, ">>", $failures or die; open my $n, ">>", $names or die;
		my ($all, $skip, $bad) = (0, 0, 0);
		for my $x (@{$r->{results}}) {
			$all++;
			my $v = $x->{verdict};
			if ($v eq "SKIP") { $skip++; next }
			next if $v eq "ok";
			$bad++;
			print $f "$cond, suite run $run: $v: $x->{name} ($x->{file})\n";
			print $f map { "    $_\n" } split /\n/, $x->{diag} // "(no diag)";
			print $n "$x->{name}\t$v\t$cond\n";
		}
		my $jobs = ($r->{jobs_auto} ? "auto:" : "") . $r->{jobs};
		print "$all $skip $bad $jobs $r->{kernel}\n";
	' "$@"
}

# Records a failure of the runner itself (not a scenario's verdict) for this suite run: runner_failure TEXT
# VERDICT FILE, FILE holding the evidence.
runner_failure() {
	bad=$((bad + 1))
	{
		echo "$cond, suite run $i: $1:"
		sed 's/^/    /' "$3"
	} >>"$scratch/failures"
	printf '%s\t%s\t%s\n' "(the runner itself)" "$2" "$cond" >>"$scratch/names"
}

median() { sort -n | awk '{ a[NR] = $1 } END { printf "%.1f", NR % 2 ? a[(NR + 1) / 2] : (a[NR / 2] + a[NR / 2 + 1]) / 2 }'; }

declare -A n_suites n_runs n_skip n_bad t_total jobs_seen
unavailable=()
kernel=
soak_start=$EPOCHREALTIME
echo "soak: conditions ${conditions[*]}, $runs suite run(s) each, ${suite[*]}; neighbours on CPU $hog_cpu"

for cond in "${conditions[@]}"; do
	if ! plan "$cond"; then
		echo "soak: $cond: unavailable: $why"
		unavailable+=("$cond: $why")
		continue
	fi
	n_suites[$cond]=0 n_runs[$cond]=0 n_skip[$cond]=0 n_bad[$cond]=0 t_total[$cond]=0 jobs_seen[$cond]=
	[ ${#hog[@]} = 0 ] || start_hog "$((runs * 3600))" "${hog[@]}"
	for ((i = 1; i <= runs; i++)); do
		json=$scratch/$cond.$i.json
		rc=0
		t0=$EPOCHREALTIME
		# Run folders of non-ok runs go to the scratch folder: their diag, printed below, has the console excerpt.
		TMPDIR=$scratch/runs "${pre[@]}" "$umlbed" run "${args[@]}" "${kernel_args[@]}" --json "$json" "${csuite[@]}" \
			>"$scratch/tap.log" 2>"$scratch/stderr.log" || rc=$?
		t1=$EPOCHREALTIME
		# The runner stops on SIGINT/SIGTERM too (exit 128 + signal): so does the soak.
		case $rc in 130 | 143) echo "soak: umlbed run stopped by a signal" >&2; exit "$rc" ;; esac
		# A usage or setup error would only repeat itself: stop with the runner's words.
		[ "$rc" != 2 ] || { cat "$scratch/stderr.log" >&2; die "umlbed run ${args[*]} exited 2 (usage or setup error)"; }
		secs=$(awk -v a="$t0" -v b="$t1" 'BEGIN { printf "%.3f", b - a }')
		echo "$secs" >>"$scratch/$cond.times"
		all=0 skip=0 bad=0 jobs="?"
		[ ! -s "$json" ] ||
			read -r all skip bad jobs kernel < <(read_report "$json" "$cond" "$i" "$scratch/failures" "$scratch/names")
		# The runner's exit status must agree with its report (0 when all passed, else 1): a runner that crashed,
		# wrote no report or contradicts it is one more non-ok, with its own words.
		if [ ! -s "$json" ] || [ "$rc" != $((bad > 0)) ]; then
			runner_failure "umlbed exited $rc with $([ -s "$json" ] && echo "$bad non-ok run(s) in its report" ||
				echo "no JSON report")" "exit $rc" <(tail -n 20 "$scratch/stderr.log")
		fi
		# The runner kills and waits for every UML it started; anything still running from this soak's run
		# folders is a leak: report it and end it with its process group (each UML leads its own).
		if leftovers=$(pgrep -a -f "$scratch/runs/"); then
			runner_failure "UML processes left running after umlbed exited" "leftover" <(echo "$leftovers")
			while read -r pid _; do
				pgid=$(ps -o pgid= -p "$pid" | tr -d ' ') || continue
				if [ "$pgid" = "$(ps -o pgid= -p $$ | tr -d ' ')" ]; then
					kill -KILL "$pid" 2>/dev/null || true
				else
					kill -KILL -- "-$pgid" 2>/dev/null || true
				fi
			done <<<"$leftovers"
		fi
		n_suites[$cond]=$((n_suites[$cond] + 1))
		n_runs[$cond]=$((n_runs[$cond] + all))
		n_skip[$cond]=$((n_skip[$cond] + skip))
		n_bad[$cond]=$((n_bad[$cond] + bad))
		t_total[$cond]=$(awk -v a="${t_total[$cond]}" -v b="$secs" 'BEGIN { print a + b }')
		[[ " ${jobs_seen[$cond]} " == *" $jobs "* ]] || jobs_seen[$cond]+=" $jobs"
		printf 'soak: %s %d/%d: %d scenario runs, %d skipped, %d not ok, %.1f s\n' \
			"$cond" "$i" "$runs" "$all" "$skip" "$bad" "$secs"
	done
	stop_hog
done

total_bad=0
for cond in "${!n_bad[@]}"; do total_bad=$((total_bad + n_bad[$cond])); done

if [ "$total_bad" -gt 0 ]; then
	echo
	echo "Non-ok runs, with the runner's diagnostics (the run folders they name are removed at exit unless SOAK_KEEP=1):"
	cat "$scratch/failures"
	echo
	echo "Non-ok runs by scenario (count, verdict, condition, name):"
	awk -F'\t' '{ n[$0]++ } END { for (k in n) { split(k, f, "\t"); printf "  %4d  %-8s %-10s %s\n", n[k], f[2], f[3], f[1] } }' \
		"$scratch/names" | sort -k1,1nr -k4
fi

echo
printf 'kernel: %s\n' "${kernel:-?}"
printf '%-11s %6s %9s %8s %7s %6s %10s %10s\n' condition suites scenarios skipped "not ok" "-j" "total s" "median s"
for cond in "${conditions[@]}"; do
	[ -n "${n_suites[$cond]:-}" ] || continue
	printf '%-11s %6d %9d %8d %7d %6s %10.1f %10s\n' "$cond" "${n_suites[$cond]}" "${n_runs[$cond]}" \
		"${n_skip[$cond]}" "${n_bad[$cond]}" "${jobs_seen[$cond]# }" "${t_total[$cond]}" \
		"$(median <"$scratch/$cond.times")"
done
for u in ${unavailable[@]+"${unavailable[@]}"}; do printf '%-11s unavailable: %s\n' "${u%%:*}" "${u#*: }"; done
awk -v a="$soak_start" -v b="$EPOCHREALTIME" -v n="$total_bad" \
	'BEGIN { printf "soak: %.0f s in all, %d non-ok scenario run(s)\n", b - a, n }'
[ "$total_bad" = 0 ] || exit 1

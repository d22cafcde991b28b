#!/usr/bin/env bash
# What the check costs: times bash .ci/run cold and warm (or make check on this host), prints the ten largest phases, and fails when a run is over tests/budget.
#
#   bench/check-cost.sh [cold|warm|host]...     (default: cold warm)
#     cold   scripts/clean-room.sh --fresh --no-ccache: a new root from the mirror, an empty ccache (as a new machine)
#     warm   scripts/clean-room.sh: the root and the host's ccache as the last run left them (as CI on this machine)
#     host   make check in this checkout, whose build folder is as it is (run make check once first for "warm")
#
# Each run's phase table is make check's own (BUILD/check-times.json; the clean room copies it out to
# build/clean-room/logs/build/). The figures go to build/check-cost/RUN.json. This is a benchmark, not a test: the
# machine's load changes the figures, so compare runs taken side by side, never a figure of another day.
set -uo pipefail
top=$(cd "$(dirname "$0")/.." && pwd)
budget=$top/tests/budget
out=$top/build/check-cost
mkdir -p "$out"
runs=("$@")
[ ${#runs[@]} -gt 0 ] || runs=(cold warm)

# limit KEY: the budget's seconds for KEY.
limit() { awk -v k="$1" '$1 == k { print $2 }' "$budget"; }

status=0
for r in "${runs[@]}"; do
	case $r in
	cold) key=ci-cold cmd=("$top/scripts/clean-room.sh" --fresh --no-ccache) times=$top/build/clean-room/logs/build/check-times.json ;;
	warm) key=ci-warm cmd=("$top/scripts/clean-room.sh") times=$top/build/clean-room/logs/build/check-times.json ;;
	host) key=check-warm cmd=(make -C "$top" check) times=$top/build/check-times.json ;;
	*) echo "check-cost: unknown run '$r' (cold, warm or host)" >&2; exit 2 ;;
	esac
	max=$(limit "$key")
	[ -n "$max" ] || { echo "check-cost: $budget has no $key" >&2; exit 2; }
	rm -f "$times"
	t0=$(date +%s)
	"${cmd[@]}" >"$out/$r.log" 2>&1
	rc=$?
	secs=$(($(date +%s) - t0))
	echo "check-cost: $r: exit $rc in $secs s (budget $key $max s); log $out/$r.log"
	if [ -f "$times" ]; then
		cp "$times" "$out/$r-phases.json"
		jq -r '.largest[] | "  \(.seconds) s  \(.name)"' "$times"
	else
		echo "check-cost: $r: no phase table ($times)" >&2
	fi
	jq -n --arg run "$r" --argjson rc "$rc" --argjson s "$secs" --argjson max "$max" \
		'{run: $run, exit: $rc, seconds: $s, budget: $max}' >"$out/$r.json"
	if [ "$rc" != 0 ]; then
		echo "check-cost: $r: the run failed (exit $rc)"; status=1
	elif [ "$secs" -gt "$max" ]; then
		echo "check-cost: $r: OVER BUDGET: $secs s > $max s ($key in tests/budget)"; status=1
	fi
done
exit "$status"

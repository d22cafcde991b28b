#!/usr/bin/env bash
# SPDX-License-Identifier: MIT
# What the check costs: times bash .ci/run cold and warm (or make check on this host), prints the ten largest phases, and fails when a run is over tests/budget.
#
#   bench/check-cost.sh [--neighbour] [cold|warm|host]...     (default: cold warm)
#     cold   scripts/clean-room.sh --fresh --no-ccache: a new root from the mirror, an empty ccache (as a new machine)
#     warm   scripts/clean-room.sh: the root and the host's ccache as the last run left them (as CI on this machine)
#     host   make check in this checkout, whose build folder is as it is (run make check once first for "warm")
#   --neighbour  runs `stress-ng --cpu 1` beside each run, as the check's no-flake rule asks (three warm runs in a
#                row with a CPU neighbour must all pass); the budget still applies
#
# Each run's phase table is make check's own (BUILD/check-times.json; the clean room copies it out to
# build/clean-room/logs/build/). The figures go to build/check-cost/N-RUN.json (N: the run's place in the list, so
# three warm runs keep three logs). The runs are strict (CI=true), as .ci/run is. This is a benchmark, not a test: the
# machine's load changes the figures, so compare runs taken side by side, never a figure of another day.
set -uo pipefail
top=$(cd "$(dirname "$0")/.." && pwd)
budget=$top/tests/budget
out=$top/build/check-cost
mkdir -p "$out"
neighbour=0
if [ "${1:-}" = --neighbour ]; then
	neighbour=1
	shift
	command -v stress-ng >/dev/null || "$top/scripts/deps.sh" stress-ng
fi
runs=("$@")
[ ${#runs[@]} -gt 0 ] || runs=(cold warm)
hog=
trap '[ -n "$hog" ] && kill "$hog" 2>/dev/null' EXIT

# limit KEY: the budget's seconds for KEY.
limit() { awk -v k="$1" '$1 == k { print $2 }' "$budget"; }

# The runs are CI's: strict, so a missing tool or kernel fails instead of skipping (.ci/run sets the same).
export CI=${CI:-true}
status=0
i=0
for r in "${runs[@]}"; do
	i=$((i + 1))
	case $r in
	cold) key=ci-cold cmd=("$top/scripts/clean-room.sh" --fresh --no-ccache) times=$top/build/clean-room/logs/build/check-times.json ;;
	warm) key=ci-warm cmd=("$top/scripts/clean-room.sh") times=$top/build/clean-room/logs/build/check-times.json ;;
	host) key=check-warm cmd=(make -C "$top" check) times=$top/build/check-times.json ;;
	*) echo "check-cost: unknown run '$r' (cold, warm or host)" >&2; exit 2 ;;
	esac
	max=$(limit "$key")
	[ -n "$max" ] || { echo "check-cost: $budget has no $key" >&2; exit 2; }
	rm -f "$times"
	if [ "$neighbour" = 1 ]; then
		stress-ng --cpu 1 --timeout 6000 >/dev/null 2>&1 &
		hog=$!
	fi
	t0=$(date +%s)
	"${cmd[@]}" >"$out/$i-$r.log" 2>&1
	rc=$?
	if [ -n "$hog" ]; then
		kill "$hog" 2>/dev/null
		wait "$hog" 2>/dev/null
		hog=
	fi
	secs=$(($(date +%s) - t0))
	echo "check-cost: $r: exit $rc in $secs s (budget $key $max s); log $out/$i-$r.log"
	if [ -f "$times" ]; then
		cp "$times" "$out/$i-$r-phases.json"
		jq -r '.largest[] | "  \(.seconds) s  \(.name)"' "$times"
	else
		echo "check-cost: $r: no phase table ($times)" >&2
	fi
	jq -n --arg run "$r" --argjson rc "$rc" --argjson s "$secs" --argjson max "$max" --argjson nb "$neighbour" \
		'{run: $run, exit: $rc, seconds: $s, budget: $max, neighbour: ($nb == 1)}' >"$out/$i-$r.json"
	if [ "$rc" != 0 ]; then
		echo "check-cost: $r: the run failed (exit $rc)"; status=1
	elif [ "$secs" -gt "$max" ]; then
		echo "check-cost: $r: OVER BUDGET: $secs s > $max s ($key in tests/budget)"; status=1
	fi
done
exit "$status"

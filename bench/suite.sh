#!/usr/bin/env bash
# SPDX-License-Identifier: MIT
# Times the scenario folder at -j 1 and -j N (default: the number of CPUs) and prints the ratio.
set -euo pipefail
top=$(cd "$(dirname "$0")/.." && pwd)
umlbed=${UMLBED:-$top/build/runner/umlbed}
jobs=${1:-$(nproc)}
run() {
	local start end
	start=$(date +%s.%N)
	"$umlbed" run -j "$1" "$top/scenarios" >/dev/null || { echo "suite failed at -j $1" >&2; exit 1; }
	end=$(date +%s.%N)
	echo "$end - $start" | bc
}
t1=$(run 1)
tn=$(run "$jobs")
printf 'scenarios/ at -j 1: %.1f s, at -j %s: %.1f s, ratio %.2f\n' "$t1" "$jobs" "$tn" "$(echo "$tn / $t1" | bc -l)"

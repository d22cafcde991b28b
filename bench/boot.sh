#!/usr/bin/env bash
# SPDX-License-Identifier: MIT
# Boot-to-init (smoke init) and boot-to-agent-ready (runner) medians over N boots: boot.sh [VARIANT [N]].
set -euo pipefail
top=$(cd "$(dirname "$0")/.." && pwd)
variant=${1:-full}
n=${2:-10}
perl "$top/tests/smoke/boot-time.pl" "$variant" "$n" | tail -1
scratch=$(mktemp -d "${TMPDIR:-/tmp}/umlbed-bench.XXXXXX")
trap 'rm -rf "$scratch"' EXIT INT TERM
cat > "$scratch/boot.lua" <<'LUA'
-- Boots one vm and does nothing else: the runner's JSON report has the boot-to-ready time.
return { name = "boot", run = function(t) assert(t:vm()) end }
LUA
for i in $(seq "$n"); do
	"$top/build/runner/umlbed" run --variant "$variant" --json "$scratch/r$i.json" "$scratch/boot.lua" >/dev/null
done
cat "$scratch"/r*.json | tr -d ' \n' | grep -o '"boot_ms":\[[0-9.]*' | cut -d[ -f2 | sort -n |
	awk -v v="$variant" '{a[NR]=$1} END {m = NR % 2 ? a[(NR+1)/2] : (a[NR/2] + a[NR/2+1]) / 2; printf "%s: median of %d boots to agent ready: %.0f ms\n", v, NR, m}'

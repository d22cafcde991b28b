#!/usr/bin/env bash
# SPDX-License-Identifier: MIT
# Times kernel builds in a scratch BUILD folder: cold without ccache, cold tree with warm ccache, touch mm/memory.c, no-op.
set -euo pipefail
top=$(cd "$(dirname "$0")/.." && pwd)
variant=${1:-full}
scratch=$(mktemp -d "${TMPDIR:-/tmp}/umlbed-bench.XXXXXX")
trap 'rm -rf "$scratch"' EXIT INT TERM

timeit() {
	local label=$1 start end
	shift
	start=$(date +%s.%N)
	"$@" >"$scratch/log" 2>&1 || { cat "$scratch/log" >&2; exit 1; }
	end=$(date +%s.%N)
	awk -v l="$label" -v a="$start" -v b="$end" 'BEGIN { printf "%-40s %7.1f s\n", l, b - a }'
}

timeit "cold, no ccache (DEBUG=1)" env BUILD="$scratch/a" CCACHE_DISABLE=1 "$top/uml-kernel/build.sh" "$variant"
touch "$scratch/a/kernel/$variant/src/mm/memory.c"
timeit "incremental: touch mm/memory.c" env BUILD="$scratch/a" CCACHE_DISABLE=1 "$top/uml-kernel/build.sh" "$variant"
timeit "no-op" env BUILD="$scratch/a" "$top/uml-kernel/build.sh" "$variant"
rm -rf "$scratch/a"
timeit "cold, no ccache (DEBUG=0)" env BUILD="$scratch/b" DEBUG=0 CCACHE_DISABLE=1 "$top/uml-kernel/build.sh" "$variant"
rm -rf "$scratch/b"
export CCACHE_DIR=$scratch/ccache
timeit "cold, empty ccache" env BUILD="$scratch/c" "$top/uml-kernel/build.sh" "$variant"
rm -rf "$scratch/c"
timeit "cold tree, warm ccache" env BUILD="$scratch/d" "$top/uml-kernel/build.sh" "$variant"

#!/usr/bin/env bash
# SPDX-License-Identifier: MIT
# The README's edit loop, timed side by side: a comment line of patch 0001 edited, uml-kernel/build.sh full, then rounding.lua and shared-one-process.lua; with build.sh's edit path and with the whole kbuild walk (UMLBED_FULL_KBUILD=1).
#
# edit-loop.sh [ROUNDS] (default 3): in a copy of the scripts and the series and in BUILD (default build/; its full
# kernel is built first if need be, and is left built), each round edits the comment line twice, once per way, and
# prints the seconds of the build and of the runs. The ways alternate in each round, so that a slower minute of a
# shared machine weighs on both. Then it checks what the edit path left: a kbuild walk of the tree finds nothing to
# redo (it prints no step and the kernel keeps its time). UMLBED_KBUILD_LOCK=FILE: each build takes that lock
# (flock), a machine several people build kernels on; the wait is not timed.
set -euo pipefail
top=$(cd "$(dirname "$0")/.." && pwd)
BUILD=${BUILD:-$top/build}
rounds=${1:-3}
runner=$BUILD/runner/umlbed
[ -x "$runner" ] || { echo "edit-loop.sh: no $runner (make runner)" >&2; exit 2; }
copy=$(mktemp -d "${TMPDIR:-/tmp}/umlbed-edit.XXXXXX")
trap 'rm -rf "$copy"' EXIT INT TERM
# The scripts and the series in a copy: the edit is the copy's, the checkout's patch stays as it is.
(cd "$top" && cp -r --parents uml-kernel/build.sh uml-kernel/generation.sh uml-kernel/check-config.sh \
	uml-kernel/generations uml-kernel/variants uml-kernel/config uml-kernel/fixes uml-kernel/points patches "$copy/")
patch=$copy/$("$top/uml-kernel/generation.sh" get "$("$top/uml-kernel/generation.sh" default)" series)/0001-mm-add-invalidate_mmap_range.patch
grep -q '^+ \* Helper function for invalidate_mmap_range()' "$patch" ||
	{ echo "edit-loop.sh: no comment line to edit in $patch" >&2; exit 2; }
export BUILD
kernel=$BUILD/kernel/full/obj/linux

build() {
	if [ -n "${UMLBED_KBUILD_LOCK:-}" ]; then
		flock "$UMLBED_KBUILD_LOCK" "$@"
	else
		"$@"
	fi
}
# edit: the comment's word changed, back and forth.
edit() {
	if grep -q 'Helper function for' "$patch"; then word='function/routine'; else word='routine/function'; fi
	sed -i "s/Helper ${word%/*} for/Helper ${word#*/} for/" "$patch"
}
# once WAY: an edit, then build.sh and the two scenarios, timed apart (the lock's wait is not in the build's time).
once() {
	local s m e
	edit
	if [ -n "${UMLBED_KBUILD_LOCK:-}" ]; then exec 9>>"$UMLBED_KBUILD_LOCK" && flock 9; fi
	s=$(date +%s.%N)
	if [ "$1" = walk ]; then
		UMLBED_FULL_KBUILD=1 "$copy/uml-kernel/build.sh" full >"$copy/log" 2>&1 || { cat "$copy/log" >&2; exit 1; }
	else
		"$copy/uml-kernel/build.sh" full >"$copy/log" 2>&1 || { cat "$copy/log" >&2; exit 1; }
	fi
	m=$(date +%s.%N)
	[ -z "${UMLBED_KBUILD_LOCK:-}" ] || flock -u 9
	"$runner" run --kernel "$kernel" "$top/scenarios/rounding.lua" "$top/scenarios/shared-one-process.lua" \
		>"$copy/run" 2>&1 || { cat "$copy/run" >&2; exit 1; }
	e=$(date +%s.%N)
	how='whole walk'
	if grep -q "BUILD.*relinked" "$copy/log"; then how='edit path'; fi
	awk -v w="$1" -v h="$how" -v a="$s" -v b="$m" -v c="$e" \
		'BEGIN { printf "%-6s %-11s build %6.2f s  runs %5.2f s  total %6.2f s\n", w, h, b - a, c - b, c - a }'
}

build "$copy/uml-kernel/build.sh" full >"$copy/log" 2>&1 || { cat "$copy/log" >&2; exit 1; }
# Settle: the first build after a change of build.sh walks once, whatever the way.
once walk >/dev/null
for r in $(seq "$rounds"); do
	if [ $((r % 2)) = 1 ]; then once edit; once walk; else once walk; once edit; fi
done
once edit >/dev/null
# What the edit path left: a whole walk finds nothing to redo.
before=$(stat -c %Y.%N "$kernel")
out=$(build make -C "$BUILD/kernel/full/src" O="$BUILD/kernel/full/obj" ARCH=um -j"$(nproc)" CC="ccache gcc" 2>&1 |
	grep -vE '^make(\[[0-9]+\])?: (Entering|Leaving) directory|^  (GEN|CALL|CHK|UPD) ' || true)
after=$(stat -c %Y.%N "$kernel")
if [ -z "$out" ] && [ "$before" = "$after" ]; then
	echo "after the edit path, a whole kbuild walk redoes nothing"
else
	printf 'after the edit path, a whole kbuild walk redid:\n%s\n' "$out" >&2
	exit 1
fi

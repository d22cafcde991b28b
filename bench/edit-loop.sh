#!/usr/bin/env bash
# SPDX-License-Identifier: MIT
# Times the edit loop side by side: a one-line edit of patch 0001 to a verdict on two scenarios, with build.sh's same-object check and without it.
#
# usage: bench/edit-loop.sh [ROUNDS]
#
# Each round edits a comment line of the default generation's patch 0001 and undoes it, each time running
# `uml-kernel/build.sh full` and then rounding.lua and shared-one-process.lua, once as build.sh does by default and once
# with UMLBED_SAME_OBJECTS=0 (kbuild's walk and the relink every time). Then one edit of a line of code and its undo,
# which kbuild must build either way (an edit that keeps the verdict: zba's two arms agree when hba equals vba). It works in the checkout's own build folder (BUILD, default build/), as a
# developer's loop does; the patch is put back as it was on every exit.
set -euo pipefail
top=$(cd "$(dirname "$0")/.." && pwd)
rounds=${1:-3}
gen=$("$top/uml-kernel/generation.sh" default)
p1=$(ls "$top/$("$top/uml-kernel/generation.sh" get "$gen" series)"/0001-*.patch)
BUILD=${BUILD:-$top/build}
runner=$BUILD/runner/umlbed
[ -x "$runner" ] || { echo "edit-loop.sh: no runner at $runner (make)" >&2; exit 2; }
scratch=$(mktemp -d "${TMPDIR:-/tmp}/umlbed-edit-loop.XXXXXX")
cp -p "$p1" "$scratch/0001.patch"
restore() { cp -p "$scratch/0001.patch" "$p1" && rm -rf "$scratch"; }
trap restore EXIT
trap 'exit 130' INT TERM
grep -q '^+ \* Helper function' "$p1" || { echo "edit-loop.sh: $p1 has no '+ * Helper function' line to edit" >&2; exit 2; }
grep -q '^+		zba = (hba <= vba)' "$p1" || { echo "edit-loop.sh: $p1 has no 'zba = (hba <= vba)' line to edit" >&2; exit 2; }
export BUILD

# loop LABEL SED [ENV...]: applies SED to the pristine patch (empty: the pristine patch), then times build.sh and the
# two scenarios; prints the label, the build's and the runs' seconds and build.sh's step.
loop() {
	local label=$1 expr=$2 t0 t1 t2 step
	shift 2
	cp -p "$scratch/0001.patch" "$p1"
	[ -z "$expr" ] || sed -i "$expr" "$p1"
	t0=$EPOCHREALTIME
	env "$@" "$top/uml-kernel/build.sh" full >"$scratch/log" 2>&1 || { cat "$scratch/log" >&2; exit 1; }
	t1=$EPOCHREALTIME
	"$runner" run "$top/scenarios/rounding.lua" "$top/scenarios/shared-one-process.lua" >"$scratch/runs" 2>&1 ||
		{ cat "$scratch/runs" >&2; exit 1; }
	t2=$EPOCHREALTIME
	step=$(sed -n 's/^  \(SAME\|BUILD\|UPTODATE\|CACHED\) .*/\1/p' "$scratch/log" | paste -sd,)
	printf '%-28s %6.2f %6.2f %6.2f  %s\n' "$label" "$(echo "$t1 - $t0" | bc)" "$(echo "$t2 - $t1" | bc)" \
		"$(echo "$t2 - $t0" | bc)" "$step"
}

comment='s/^+ \* Helper function/+ * A helper function/'
# The same result by another comparison (both arms agree when the two are equal): a new object, the same verdict.
code='s/^+		zba = (hba <= vba)/+		zba = (hba < vba)/'
# A first build, so that every timed one starts from a complete build of the unedited series.
loop "(start)" "" >/dev/null
printf '%-28s %6s %6s %6s  %s\n' "edit" "build" "runs" "total" "build.sh's step"
for _ in $(seq "$rounds"); do
	loop "comment, same-object check" "$comment"
	loop "undo, same-object check" ""
	loop "comment, kbuild" "$comment" UMLBED_SAME_OBJECTS=0
	loop "undo, kbuild" "" UMLBED_SAME_OBJECTS=0
done
loop "code, same-object check" "$code"
loop "undo, same-object check" ""

#!/usr/bin/env bash
# SPDX-License-Identifier: MIT
# Checks each kernel generation's patch series (its "series" folder, patches/GEN/): applies to its pristine tree with patch and git apply and is clean under that tree's checkpatch --strict; its UML fixes ("fixes", uml-kernel/fixes/GEN/) and schedule points ("points", uml-kernel/points/GEN/) are checkpatch-clean too. bisect.t builds the kernel after each patch.
set -uo pipefail

top=$(cd "$(dirname "$0")/../.." && pwd)
BUILD=${BUILD:-$top/build}
# Strict mode (CI=true or UMLBED_STRICT=1): a missing pristine tree fails its tests instead of skipping them.
. "$top/tests/lib/strict.sh"
# The generations (uml-kernel/generations/) with their series (tests/lib/series.sh), fixes and points folders.
# shellcheck source=SCRIPTDIR/../lib/series.sh
. "$top/tests/lib/series.sh"
declare -A fixes_dir points_dir
for g in "${generations[@]}"; do
	fixes_dir[$g]=$top/$("$generation" get "$g" fixes)
	points_dir[$g]=$top/$("$generation" get "$g" points)
done
fixes_of() { (cd "${fixes_dir[$1]}" 2>/dev/null && ls -- *.patch 2>/dev/null); }
points_of() { (cd "${points_dir[$1]}" 2>/dev/null && ls -- *.patch 2>/dev/null); }

plan=0
for g in "${generations[@]}"; do
	np=$(series_of "$g" | wc -l)
	nf=$(( $(fixes_of "$g" | wc -l) + $(points_of "$g" | wc -l) ))
	plan=$((plan + 3 * np + nf))
done
echo "1..$plan"
. "$top/tests/lib/tap.sh"
pass() { ok 0 "$*"; }
# not_ok DESCRIPTION LINE...: a failed result and its diagnostic lines.
not_ok() { ok 1 "$1"; shift; printf '%s\n' "$@" | diag; }
# checkpatch_clean TREE FILE LABEL: that tree's checkpatch --strict finds no error, warning or check in FILE.
checkpatch_clean() {
	local out
	out=$("$1/scripts/checkpatch.pl" --strict --no-tree "$2" 2>&1)
	# A here-string, not a pipe: under pipefail, a grep -q that stops at its match can kill echo with SIGPIPE
	# and fail a clean patch.
	if grep -q "^total: 0 errors, 0 warnings, 0 checks" <<<"$out"; then
		pass "$3"
	else
		not_ok "$3" "$(echo "$out" | grep -E '^(ERROR|WARNING|CHECK|total)')"
	fi
}

check_generation() {
	local g=$1 pristine dir p out np i nf
	local -a series fixes points
	pristine=$(tree_of "$g")
	dir=${series_dir[$g]}
	mapfile -t series < <(series_of "$g")
	mapfile -t fixes < <(fixes_of "$g")
	mapfile -t points < <(points_of "$g")
	np=${#series[@]}
	nf=$((${#fixes[@]} + ${#points[@]}))

	if [ ! -f "$pristine/Makefile" ]; then
		for ((i = 0; i < 3 * np + nf; i++)); do prereq_skip "$g: no pristine tree at $pristine (make kernel GEN=$g)"; done
		return
	fi

	# The UML fixes every variant carries: upstream style, each with the commit message that explains it.
	for p in "${fixes[@]}"; do
		checkpatch_clean "$pristine" "${fixes_dir[$g]}/$p" "$g: checkpatch --strict clean: uml-kernel fixes $p"
	done
	# The schedule points: outside the series too, held to the same style.
	for p in "${points[@]}"; do
		checkpatch_clean "$pristine" "${points_dir[$g]}/$p" "$g: checkpatch --strict clean: uml-kernel points $p"
	done

	# patch -p1, in order, on a hard-linked copy (patch writes new files, the pristine ones stay as they are).
	cp -al "$pristine" "$tmp/$g-patch-tree"
	for p in "${series[@]}"; do
		if out=$(patch -d "$tmp/$g-patch-tree" -p1 --no-backup-if-mismatch -i "$dir/$p" 2>&1); then
			pass "$g: patch -p1 applies $p"
		else
			not_ok "$g: patch -p1 applies $p" "$out"
		fi
	done

	# git apply, in order, on real copies of the files the series touches.
	mkdir -p "$tmp/$g-git-tree"
	(cd "$pristine" && sed -n 's|^--- a/||p' "${series[@]/#/$dir/}" | sort -u |
		while read -r f; do [ -f "$f" ] && cp --parents "$f" "$tmp/$g-git-tree/"; done)
	for p in "${series[@]}"; do
		if out=$(cd "$tmp/$g-git-tree" && git apply "$dir/$p" 2>&1); then
			pass "$g: git apply applies $p"
		else
			not_ok "$g: git apply applies $p" "$out"
		fi
	done

	# checkpatch --strict of the generation's own tree: no errors, warnings or checks.
	for p in "${series[@]}"; do
		checkpatch_clean "$pristine" "$dir/$p" "$g: checkpatch --strict clean: $p"
	done

}

for g in "${generations[@]}"; do
	check_generation "$g"
done

#!/usr/bin/env bash
# SPDX-License-Identifier: MIT
# bisect.t: each kernel generation's patch series bisects: the kernel builds after each of its patches, applied alone to the pristine tree (without the UML fixes and the schedule points every variant adds).
set -uo pipefail

top=$(cd "$(dirname "$0")/../.." && pwd)
BUILD=${BUILD:-$top/build}
# Strict mode (CI=true or UMLBED_STRICT=1): a missing pristine tree fails its tests instead of skipping them.
. "$top/tests/lib/strict.sh"
# The generations (uml-kernel/generations/) with their series (tests/lib/series.sh) and, for each, the full variant
# whose .config the bisect builds start from: full with the generation's suffix.
# shellcheck source=SCRIPTDIR/../lib/series.sh
. "$top/tests/lib/series.sh"
declare -A full
for g in "${generations[@]}"; do full[$g]=full$("$generation" get "$g" suffix); done

plan=${#generations[@]}
echo "1..$plan"
. "$top/tests/lib/tap.sh"
pass() { ok 0 "$*"; }
# not_ok DESCRIPTION LINE...: a failed result and its diagnostic lines.
not_ok() { ok 1 "$1"; shift; printf '%s\n' "$@" | diag; }

bisect_generation() {
	local g=$1 pristine dir np
	local -a series
	pristine=$(tree_of "$g")
	dir=${series_dir[$g]}
	mapfile -t series < <(series_of "$g")
	np=${#series[@]}
	if [ ! -f "$pristine/Makefile" ]; then
		prereq_skip "$g: no pristine tree at $pristine (make kernel GEN=$g)"
		return
	fi
	# Bisectability: one tree, one build folder, build after each patch (ccache makes the first build cheap).
	local src=$tmp/$g-bisect/src obj=$tmp/$g-bisect/obj config=$BUILD/kernel/${full[$g]}/obj/.config failed=
	if [ ! -f "$config" ]; then
		not_ok "$g: kernel builds after each patch" "no $config to start from (make kernel VARIANT=${full[$g]})"
		return
	fi
	mkdir -p "$obj"
	cp -al "$pristine" "$src"
	local -a kmake=(make -C "$src" O="$obj" ARCH=um -j"$(nproc)" -s)
	command -v ccache >/dev/null && kmake+=(CC="ccache gcc")
	for p in "${series[@]}"; do
		patch -d "$src" -p1 -s --no-backup-if-mismatch -i "$dir/$p" >/dev/null 2>&1 || { failed="$p does not apply"; break; }
		# Start from the full variant's config each time, so the trigger is on from the patch that adds it.
		cp "$config" "$obj/.config"
		"${kmake[@]}" olddefconfig >/dev/null 2>&1
		if ! out=$(CCACHE_BASEDIR=$tmp/$g-bisect CCACHE_NOHASHDIR=1 "${kmake[@]}" 2>&1) || [ ! -x "$obj/linux" ]; then
			failed="build fails after $p"
			echo "$out" | tail -20 | diag
			break
		fi
		echo "# $g: built after $p"
	done
	if [ -z "$failed" ]; then
		pass "$g: kernel builds after each of the $np patches"
	else
		not_ok "$g: kernel builds after each patch" "$failed"
	fi
	rm -rf "$tmp/$g-bisect"
}

for g in "${generations[@]}"; do
	bisect_generation "$g"
done

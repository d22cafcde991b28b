#!/usr/bin/env bash
# generations.t: the kernel generation files (uml-kernel/generations/) are complete and agree with the variants, the series and the built kernels' variant.info.
#
# Everything that names a generation reads these files, so a wrong one breaks the build or a test far from here:
# this checks each file's keys, that the folders and files it names exist, that the variants it names are of it
# and carry its suffix, and that each built kernel of those variants says which generation and base it is.
set -uo pipefail
top=$(cd "$(dirname "$0")/../.." && pwd)
BUILD=${UMLBED_BUILD:-${BUILD:-$top/build}}
gen_sh=$top/uml-kernel/generation.sh
. "$top/tests/lib/strict.sh"

. "$top/tests/lib/tap.sh"
keys=(version source tarball selftests config series fixes broken-patches points suffix variants mm coverage kasan check
	broken broken-races historic kselftests kselftests-patches)

mapfile -t gens < <("$gen_sh" list)
check "generation.sh lists the generations (${gens[*]})" [ ${#gens[@]} -gt 0 ]
default=$("$gen_sh" default)
check "default names a listed generation ($default)" [ -n "$default" -a -f "$top/uml-kernel/generations/$default" ]

# every_variant GEN SUFFIX NAME...: each NAME is a variant file of generation GEN ending in SUFFIX.
every_variant() {
	local g=$1 suffix=$2 v
	shift 2
	[ $# -gt 0 ] || return 1
	for v; do
		[ -f "$top/uml-kernel/variants/$v" ] || { echo "# $v: no uml-kernel/variants/$v"; return 1; }
		[ "$("$gen_sh" of "$v")" = "$g" ] || { echo "# $v: its file names generation $("$gen_sh" of "$v")"; return 1; }
		[ "${v%"$suffix"}$suffix" = "$v" ] || { echo "# $v: does not end in '$suffix'"; return 1; }
	done
}
# has_patches DIR: DIR holds at least one patch.
has_patches() { compgen -G "$1/*.patch" >/dev/null; }
has_word() {
	local w=$1
	shift
	[[ " $* " == *" $w "* ]]
}

declare -A seen_suffix
for g in "${gens[@]}"; do
	f=$top/uml-kernel/generations/$g
	check "$g: the file starts with a comment line saying what it is for" grep -q '^# .' <(head -n 1 "$f")
	missing=()
	for k in "${keys[@]}"; do "$gen_sh" get "$g" "$k" >/dev/null 2>&1 || missing+=("$k"); done
	check "$g: has every key${missing:+ (missing: ${missing[*]})}" [ ${#missing[@]} = 0 ]
	get() { "$gen_sh" get "$g" "$1" 2>/dev/null; }
	check "$g: version is MAJOR.MINOR ($(get version))" grep -qE '^[0-9]+\.[0-9]+$' <<<"$(get version)"
	check "$g: the tarball is the source package's ($(get tarball))" \
		[ "$(basename "$(get tarball)")" = "$(get source).tar.xz" ]
	check "$g: selftests is vm or mm ($(get selftests))" grep -qxE 'vm|mm' <<<"$(get selftests)"
	c=$(get config)
	check "$g: config is none or a fragment of uml-kernel/config/ ($c)" \
		[ "$c" = none -o \( -n "$c" -a -f "$top/uml-kernel/config/$c" \) ]
	check "$g: the series folder has a series file ($(get series))" [ -f "$top/$(get series)/series" ]
	check "$g: the fixes folder has the UML fixes ($(get fixes))" has_patches "$top/$(get fixes)"
	check "$g: the broken-patches folder has the broken variants' bugs ($(get broken-patches))" \
		has_patches "$top/$(get broken-patches)"
	check "$g: the points folder has the schedule points patch ($(get points))" has_patches "$top/$(get points)"
	check "$g: the kselftests table exists ($(get kselftests))" [ -f "$top/$(get kselftests)" ]
	# make check builds what "check" names: the suite's variants always, and only keys whose values are variants.
	check "$g: check names its variants, and only keys of variants ($(get check))" \
		eval 'has_word variants $(get check) && [ -z "$(printf "%s\n" $(get check) | grep -vxE "variants|kasan|mm|coverage")" ]'
	suffix=$(get suffix)
	if [ "$g" = "$default" ]; then
		check "$g: the default generation's variant names have no suffix" [ -z "$suffix" ]
	else
		check "$g: a generation that is not the default has a suffix ($suffix)" [ -n "$suffix" ]
	fi
	check "$g: no other generation has the suffix '$suffix'" [ -z "${seen_suffix[x$suffix]:-}" ]
	seen_suffix[x$suffix]=$g
	# shellcheck disable=SC2046 # The keys' values are lists of variant names.
	{
		check "$g: its variants are its own ($(get variants))" every_variant "$g" "$suffix" $(get variants)
		check "$g: its mm variant is its own ($(get mm))" every_variant "$g" "$suffix" $(get mm)
		check "$g: its coverage variant is its own ($(get coverage))" every_variant "$g" "$suffix" $(get coverage)
		check "$g: its kasan variant is its own ($(get kasan))" every_variant "$g" "$suffix" $(get kasan)
		check "$g: its broken variants are its own ($(get broken))" every_variant "$g" "$suffix" $(get broken)
		check "$g: its broken races are its own ($(get broken-races))" every_variant "$g" "$suffix" $(get broken-races)
		# The tests take full (the agent, the bisect builds, licensing's modules) and broken-rounding (oracle.t)
		# by name.
		check "$g: full$suffix is one of its variants" has_word "full$suffix" $(get variants)
		check "$g: broken-rounding$suffix is one of its broken variants" has_word "broken-rounding$suffix" $(get broken)
	}
done

# points_after_series VARIANT GEN: the variant lists GEN's points patches, in name order, right after the last patch
# of GEN's series, so that the points inside the series' code apply to it and a broken variant's bug applies after them.
points_after_series() {
	local v=$1 g=$2 series points i last=-1
	local -a lines want
	series=$("$gen_sh" get "$g" series) && points=$("$gen_sh" get "$g" points) || return 1
	mapfile -t lines < <(grep -v -e '^#' -e '^[[:space:]]*$' -e '^generation[[:space:]]' -e '^config[[:space:]]' \
		"$top/uml-kernel/variants/$v")
	mapfile -t want < <(cd "$top" && ls -- "$points"/*.patch)
	for i in "${!lines[@]}"; do [[ ${lines[i]} == "$series"/* ]] && last=$i; done
	[ "$last" -ge 0 ] || { echo "# $v: lists no patch of $series"; return 1; }
	for i in "${!want[@]}"; do
		[ "${lines[last + 1 + i]:-}" = "${want[i]}" ] ||
			{ echo "# $v: line $((last + 2 + i)) of its patches is '${lines[last + 1 + i]:-}', not ${want[i]}"; return 1; }
	done
}
bad=()
for f in "$top"/uml-kernel/variants/*; do
	v=${f##*/}
	g=$("$gen_sh" of "$v" 2>/dev/null) || continue
	points_after_series "$v" "$g" || bad+=("$v")
done
check "every variant lists its generation's points patch right after the series${bad:+ (not: ${bad[*]})}" \
	[ ${#bad[@]} = 0 ]

# Every patch a variant file lists is in the tree: a patch moved to another folder (as the slow variant's went to
# bench/patches/) without its variant's line would otherwise fail only when that variant is built, maybe never in CI.
bad=()
for f in "$top"/uml-kernel/variants/*; do
	while read -r p; do
		[ -f "$top/$p" ] || bad+=("${f##*/}: $p")
	done < <(grep -v -e '^#' -e '^[[:space:]]*$' -e '^generation[[:space:]]' -e '^config[[:space:]]' "$f")
done
check "every patch a variant file lists exists${bad:+ (missing: ${bad[*]})}" [ ${#bad[@]} = 0 ]

# Each variant file names a generation there is, and its base name is its name without that generation's suffix.
bad=()
for f in "$top"/uml-kernel/variants/*; do
	v=${f##*/}
	g=$("$gen_sh" of "$v" 2>/dev/null) || { bad+=("$v: no such generation"); continue; }
	b=$("$gen_sh" base "$v")
	[ "$b$("$gen_sh" get "$g" suffix)" = "$v" ] || [ "$b" = "$v" ] || bad+=("$v: base $b")
done
check "every variant file names a generation, and base + suffix gives its name back${bad:+ (${bad[*]})}" \
	[ ${#bad[@]} = 0 ]

# The kernels make check builds: each says what it is in variant.info, which build.sh writes on every build.
for g in "${gens[@]}"; do
	for v in $("$gen_sh" checked "$g"); do
		info=$BUILD/kernel/$v/variant.info
		if [ ! -x "$BUILD/kernel/$v/obj/linux" ]; then
			prereq_skip "$v: not built ($BUILD/kernel/$v/obj/linux; uml-kernel/build.sh $v)"
			continue
		fi
		# The export: the last EXPORT_SYMBOL*(invalidate_mmap_range) line that the patches the variant file lists add.
		exp=none
		while read -r p; do
			e=$(grep -o '^+EXPORT_SYMBOL[A-Z_]*(invalidate_mmap_range)' "$top/$p" | tail -n 1 | sed 's/^+//; s/(.*//')
			[ -n "$e" ] && exp=$e
		done < <(grep -v -e '^#' -e '^[[:space:]]*$' -e '^generation[[:space:]]' -e '^config[[:space:]]' \
			"$top/uml-kernel/variants/$v")
		said=$(printf 'generation %s\nbase %s\nexport %s' "$g" "$("$gen_sh" base "$v")" "$exp")
		check "$v: variant.info says 'generation $g', 'base $("$gen_sh" base "$v")' and 'export $exp', nothing else" \
			[ "$(cat "$info" 2>/dev/null)" = "$said" ]
	done
done
echo "1..$n"

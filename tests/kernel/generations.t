#!/usr/bin/env bash
# SPDX-License-Identifier: MIT
# generations.t: the kernel generation files (uml-kernel/generations/) are complete, every variant composes from its generation's base stack, and the built kernels' variant.info agrees.
#
# Everything that names a generation reads these files, so a wrong one breaks the build or a test far from here:
# this checks each file's keys, that the folders and files it names exist, that the variants it names are of it
# and carry its suffix, that generation.sh composes each variant's stack (and refuses a wrong variant file, naming
# its line), and that each built kernel of those variants says which generation and base it is.
set -uo pipefail
top=$(cd "$(dirname "$0")/../.." && pwd)
BUILD=${UMLBED_BUILD:-${BUILD:-$top/build}}
gen_sh=$top/uml-kernel/generation.sh
. "$top/tests/lib/strict.sh"

. "$top/tests/lib/tap.sh"
T=$(mktemp -d "${TMPDIR:-/tmp}/umlbed-generations.XXXXXX")
trap 'rm -rf "$T"' EXIT
trap 'exit 130' INT TERM
keys=(version source tarball selftests config series fixes broken-patches points stack suffix variants mm coverage kasan check
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

# The base stack: the stack key names folder keys, each folder with a series file (quilt's format) of its patches.
for g in "${gens[@]}"; do
	bad=()
	for k in $("$gen_sh" get "$g" stack 2>/dev/null); do
		d=$("$gen_sh" get "$g" "$k" 2>/dev/null) || { bad+=("$k: not a key"); continue; }
		[ -f "$top/$d/series" ] || bad+=("$k: no $d/series")
	done
	check "$g: stack names folders with a series file ($("$gen_sh" get "$g" stack 2>/dev/null))${bad:+ (${bad[*]})}" \
		eval '[ ${#bad[@]} = 0 ] && [ -n "$("$gen_sh" get "$g" stack 2>/dev/null)" ]'
done

# lua_stack ROOT OUT VARIANT...: the stacks and fragments as the scenarios' Lua reader (umlbed.generation's
# variant()) composes them, in generation.sh's output format, each into OUT/VARIANT (one Lua process for all);
# a variant it refuses gets its error there and on stderr, and the exit status is 2.
lua_stack() {
	lua5.4 - "$top" "$@" <<-'EOF'
		package.path = arg[1] .. "/runner/lua/lua/?.lua;" .. package.path
		local generation = require "umlbed.generation"
		local status = 0
		for i = 4, #arg do
		  local fh = assert(io.open(arg[3] .. "/" .. arg[i], "w"))
		  local v, err = generation.variant(arg[2], arg[i])
		  if not v then
		    fh:write(err, "\n") io.stderr:write(err, "\n") status = 2
		  else
		    for _, p in ipairs(v.patches) do fh:write(p, "\n") end
		    for _, c in ipairs(v.configs) do fh:write("config ", c, "\n") end
		  end
		  fh:close()
		end
		os.exit(status)
	EOF
}
# Every variant composes: its drops are patches of the base and its adds exist (generation.sh stack checks both),
# and the scenarios' Lua reader composes the same stack and fragments.
bad=() differ=()
mkdir -p "$T/lua"
mapfile -t all < <(cd "$top/uml-kernel/variants" && ls)
lua_stack "$top" "$T/lua" "${all[@]}" 2>/dev/null
for v in "${all[@]}"; do
	"$gen_sh" stack "$v" >"$T/sh" 2>"$T/err" || bad+=("$v: $(head -n 1 "$T/err")")
	"$gen_sh" configs "$v" | sed 's/^/config /' >>"$T/sh"
	cmp -s "$T/sh" "$T/lua/$v" || differ+=("$v")
done
check "every variant file composes into a stack${bad:+ (${bad[*]})}" [ ${#bad[@]} = 0 ]
check "umlbed.generation composes each the same${differ:+ (not: ${differ[*]})}" [ ${#differ[@]} = 0 ]

# The composition itself, on a generation of the test's own: a base of three folders, a variant that drops one patch
# and adds another, and variant files that are wrong, each refused with its file and line.
fake=$T/fake
mkdir -p "$fake/uml-kernel/generations" "$fake/uml-kernel/variants" "$fake/uml-kernel/config" "$fake/f" "$fake/s" "$fake/p"
cp "$gen_sh" "$fake/uml-kernel/generation.sh"
printf '# A generation of generations.t.\nversion 9.9\nsuffix\nfixes f\nseries s\npoints p\nstack fixes series points\n' \
	>"$fake/uml-kernel/generations/9.9"
echo "generation 9.9" >"$fake/uml-kernel/generations/default"
printf '# Fixes.\nb.patch\na.patch\n' >"$fake/f/series"
printf 'c.patch # the series\n' >"$fake/s/series"
printf 'd.patch\n' >"$fake/p/series"
touch "$fake"/f/a.patch "$fake"/f/b.patch "$fake"/s/c.patch "$fake"/p/d.patch "$fake"/e.patch "$fake/uml-kernel/config/x.config"
fake_variant() { printf '# A variant of generations.t.\n%s\n' "$2" >"$fake/uml-kernel/variants/$1"; }
fake_variant base ""
fake_variant mixed $'config x.config\ndrop f/a.patch\nadd e.patch'
check "composed: the base is each stack folder's series, in its order" \
	[ "$("$fake/uml-kernel/generation.sh" stack base | paste -sd' ')" = "f/b.patch f/a.patch s/c.patch p/d.patch" ]
check "composed: a drop leaves its patch out and an add comes last" \
	[ "$("$fake/uml-kernel/generation.sh" stack mixed | paste -sd' ')" = "f/b.patch s/c.patch p/d.patch e.patch" ]
check "composed: the Lua reader gives the same" \
	eval 'lua_stack "$fake" "$T" mixed && [ "$(paste -sd" " "$T/mixed")" = "f/b.patch s/c.patch p/d.patch e.patch config x.config" ]'
check "composed: configs lists the variant's fragments" [ "$("$fake/uml-kernel/generation.sh" configs mixed)" = x.config ]
# merges(): what the scenarios ask of a definition (trigger-leaks, trigger-failslab): a fragment it merges, one it
# does not, and a variant there is not.
merges() {
	lua5.4 - "$top" "$fake" <<-'EOF'
		package.path = arg[1] .. "/runner/lua/lua/?.lua;" .. package.path
		local g = require "umlbed.generation"
		local nope, err = g.merges(arg[2], "nowhere", "x.config")
		print(g.merges(arg[2], "mixed", "x.config"), g.merges(arg[2], "base", "x.config"), nope, err)
	EOF
}
check "merges: the Lua reader says which fragments a definition merges, and why it cannot" \
	[ "$(merges)" = "$(printf 'true\tfalse\tnil\tno definition uml-kernel/variants/nowhere (%s)' \
		"$fake/uml-kernel/variants/nowhere: No such file or directory")" ]
# The export is the last EXPORT_SYMBOL* line for invalidate_mmap_range that the stack adds: c.patch adds the GPL one,
# e.patch (mixed's add) turns it into EXPORT_SYMBOL, and a line for another symbol counts for nothing.
echo '+EXPORT_SYMBOL_GPL(invalidate_mmap_range);' >"$fake/s/c.patch"
printf '+EXPORT_SYMBOL(invalidate_mmap_range);\n+EXPORT_SYMBOL_GPL(other_function);\n' >"$fake/e.patch"
check "info: the base's export, no fragments" \
	[ "$("$fake/uml-kernel/generation.sh" info base | paste -sd,)" = "generation 9.9,base base,export EXPORT_SYMBOL_GPL,configs" ]
check "info: the export of the last patch that sets it, and the fragments" \
	[ "$("$fake/uml-kernel/generation.sh" info mixed | paste -sd,)" = "generation 9.9,base mixed,export EXPORT_SYMBOL,configs x.config" ]
# refused VARIANT LINES ERE [sh]: a variant file of LINES makes stack fail, with a message matching ERE, in
# generation.sh and in the scenarios' Lua reader alike; with "sh", in generation.sh only (the Lua reader opens no
# patch or fragment: one that is missing is the scenario's own error when it reads it).
refused() {
	fake_variant "$1" "$2"
	if "$fake/uml-kernel/generation.sh" stack "$1" >/dev/null 2>"$T/err" || ! grep -qE "$3" "$T/err"; then
		sed 's/^/# /' "$T/err"
		return 1
	fi
	[ "${4:-}" != sh ] || return 0
	if lua_stack "$fake" "$T" "$1" 2>"$T/err" || ! grep -qE "$3" "$T/err"; then
		sed 's/^/# lua: /' "$T/err"
		return 1
	fi
}
check "refused: a drop of a patch the base does not have, naming the line" \
	refused bad-drop $'add e.patch\ndrop f/z.patch' 'variants/bad-drop:3: drop f/z.patch: not a patch'
check "refused: an add of a missing file, naming the line" refused bad-add 'add nowhere.patch' 'variants/bad-add:2: add nowhere.patch: no such file' sh
check "refused: an add of a patch already in the stack" refused twice 'add s/c.patch' 'add s/c.patch: already in the stack'
check "refused: a bare path (the old format), naming the line" \
	refused bare 's/c.patch' "variants/bare:2: 's/c.patch' is not a line of a variant file"
check "refused: a missing config fragment, naming the line" refused bad-config 'config y.config' 'variants/bad-config:2: no config fragment' sh

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
		# What the definition gives today (generation.sh info, checked on the test's own generation above): a kernel
		# whose variant.info says otherwise was built from another definition.
		said=$("$gen_sh" info "$v")
		check "$v: variant.info is what its definition gives today ($(paste -sd, <<<"$said"))" \
			[ "$(cat "$info" 2>/dev/null)" = "$said" ]
	done
done
echo "1..$n"

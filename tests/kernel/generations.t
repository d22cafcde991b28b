#!/usr/bin/env bash
# SPDX-License-Identifier: MIT
# generations.t: the kernel generation files (uml-kernel/generations/) are complete, every variant name resolves and composes from its generation's base stack, and the built kernels' variant.info and variant.json agree.
#
# Everything that names a generation asks uml-kernel/generation.sh, the one reader of these files, the variant
# files and the series files, so a wrong one breaks the build or a test far from here: this checks each file's
# keys, that the folders and files it names exist, that the variants it names are of it and carry its suffix, that
# generation.sh resolves each name (a file of every generation under each generation's suffix) and composes its
# stack (and refuses a wrong variant file, naming its line, and an unknown name), that its JSON says the same as its
# other commands, and that each built kernel of those variants says which generation and base it is.
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

# every_variant GEN SUFFIX NAME...: each NAME is a variant of generation GEN ending in SUFFIX.
every_variant() {
	local g=$1 suffix=$2 v
	shift 2
	[ $# -gt 0 ] || return 1
	for v; do
		"$gen_sh" of "$v" >/dev/null 2>&1 || { echo "# $v: no such variant (uml-kernel/variants/)"; return 1; }
		[ "$("$gen_sh" of "$v")" = "$g" ] || { echo "# $v: a variant of generation $("$gen_sh" of "$v")"; return 1; }
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

# Every variant name composes: its drops are patches of the base and its adds exist (generation.sh stack checks
# both). generation.sh json says of each what its other commands say (the scenarios read it: umlbed.definition).
mapfile -t all < <("$gen_sh" variants)
check "generation.sh variants lists the variant names (${#all[@]})" [ ${#all[@]} -gt 0 ]
bad=() differ=()
"$gen_sh" json >"$T/all.json" 2>"$T/err"
check "generation.sh json is one JSON document with every variant name" \
	eval 'jq -e --argjson n ${#all[@]} "(.variants | length) == \$n and (.generations | length) == ${#gens[@]}" "$T/all.json" >/dev/null'
for v in "${all[@]}"; do
	"$gen_sh" stack "$v" >"$T/sh" 2>"$T/err" || bad+=("$v: $(head -n 1 "$T/err")")
	"$gen_sh" configs "$v" | sed 's/^/config /' >>"$T/sh"
	"$gen_sh" info "$v" | sed -n 's/^\(generation\|base\|export\) //p' >>"$T/sh"
	jq -r --arg v "$v" '.variants[$v] | (.stack[], (.configs[] | "config " + .), .generation, .base, .export)' \
		"$T/all.json" >"$T/json" 2>&1
	cmp -s "$T/sh" "$T/json" || differ+=("$v")
done
check "every variant name composes into a stack${bad:+ (${bad[*]})}" [ ${#bad[@]} = 0 ]
check "generation.sh json gives each the stack, fragments, generation, base and export of stack, configs and info${differ:+ (not: ${differ[*]})}" \
	[ ${#differ[@]} = 0 ]
check "generation.sh json VARIANT names the variant" \
	eval '[ "$("$gen_sh" json "${all[0]}" | jq -r .variant)" = "${all[0]}" ]'

# The composition itself, on a generation of the test's own: a base of three folders, a variant that drops one patch
# and adds another, and variant files that are wrong, each refused with its file and line.
fake=$T/fake
mkdir -p "$fake/uml-kernel/generations" "$fake/uml-kernel/variants" "$fake/uml-kernel/config" "$fake/f" "$fake/s" "$fake/p" \
	"$fake/f10"
cp "$gen_sh" "$fake/uml-kernel/generation.sh"
printf '# A generation of generations.t.\nversion 9.9\nsuffix\nfixes f\nseries s\npoints p\nstack fixes series points\n' \
	>"$fake/uml-kernel/generations/9.9"
printf '# Its second generation.\nversion 9.10\nsuffix -9.10\nfixes f10\nseries s\npoints p\nstack fixes series points\n' \
	>"$fake/uml-kernel/generations/9.10"
echo "generation 9.9" >"$fake/uml-kernel/generations/default"
printf '# Fixes.\nb.patch\na.patch\n' >"$fake/f/series"
printf 'a.patch\n' >"$fake/f10/series"
printf 'c.patch # the series\n' >"$fake/s/series"
printf 'd.patch\n' >"$fake/p/series"
touch "$fake"/f/a.patch "$fake"/f/b.patch "$fake"/s/c.patch "$fake"/p/d.patch "$fake"/e.patch "$fake/uml-kernel/config/x.config" \
	"$fake"/f10/a.patch
fake_variant() { printf '# A variant of generations.t.\n%s\n' "$2" >"$fake/uml-kernel/variants/$1"; }
fake_variant base "generation 9.9"
fake_variant mixed $'generation 9.9\nconfig x.config\ndrop f/a.patch\nadd e.patch'
check "composed: the base is each stack folder's series, in its order" \
	[ "$("$fake/uml-kernel/generation.sh" stack base | paste -sd' ')" = "f/b.patch f/a.patch s/c.patch p/d.patch" ]
check "composed: a drop leaves its patch out and an add comes last" \
	[ "$("$fake/uml-kernel/generation.sh" stack mixed | paste -sd' ')" = "f/b.patch s/c.patch p/d.patch e.patch" ]
check "composed: configs lists the variant's fragments" [ "$("$fake/uml-kernel/generation.sh" configs mixed)" = x.config ]
# One file, every generation: a file without a generation line is the default generation's variant under its own
# name and another generation's under its name with that generation's suffix, $gen standing for the generation.
fake_variant each $'add $gen/e.patch'
mkdir -p "$fake/9.9" "$fake/9.10" && touch "$fake/9.9/e.patch" "$fake/9.10/e.patch"
fake_variant bound $'generation 9.9\nconfig x.config'
fake_sh=$fake/uml-kernel/generation.sh
check "resolved: a file without a generation line is the default generation's under its name" \
	[ "$("$fake_sh" of each) $("$fake_sh" stack each | paste -sd' ')" = "9.9 f/b.patch f/a.patch s/c.patch p/d.patch 9.9/e.patch" ]
check "resolved: ... and another generation's under its name and that generation's suffix, \$gen its name" \
	[ "$("$fake_sh" of each-9.10) $("$fake_sh" base each-9.10) $("$fake_sh" stack each-9.10 | paste -sd' ')" = "9.10 each f10/a.patch s/c.patch p/d.patch 9.10/e.patch" ]
check "resolved: a file with a generation line is that generation's only" \
	eval '[ "$("$fake_sh" of bound)" = 9.9 ] && ! "$fake_sh" of bound-9.10 2>/dev/null'
check "resolved: variants lists each file's names" \
	[ "$("$fake_sh" variants | paste -sd' ')" = "base bound each each-9.10 mixed" ]
for v in nowhere nowhere-9.10 each-9.9 each-9.10-9.10 ../each; do
	check "resolved: an unknown name ($v) is exit 2 with a message that names it" \
		eval '! "$fake_sh" stack "$v" >/dev/null 2>"$T/err"; [ $? = 0 ] && "$fake_sh" of "$v" 2>/dev/null; [ $? = 2 ] &&
			grep -qxF "generation.sh: no variant '"'$v'"' (see uml-kernel/variants/)" "$T/err"'
done
# The scenarios read the definitions from this JSON (umlbed.definition), for the name a kernel runs under: in the
# kernel's generation as given or with its suffix (umlbed run --generation 9.10 --variant each), else the name's.
# definition JSON: what umlbed.definition finds in the document in the file JSON for some names.
definition() {
	lua5.4 - "$top" "$1" <<-'EOF'
		package.path = arg[1] .. "/runner/lua/lua/?.lua;" .. package.path
		local d = require "umlbed.definition"
		local doc = assert(d.load(arg[2]))
		local out = {}
		for _, name in ipairs { "each", "each-9.10", "bound", "mixed", "nowhere" } do
		  local def, err = d.variant(doc, name)
		  out[#out + 1] = def and (def.name .. "@" .. def.generation .. ":" .. tostring(d.merges(def, "x.config"))) or err
		end
		print(table.concat(out, ","))
	EOF
}
check "json: umlbed.definition finds each name for a kernel of the second generation, and its fragments" \
	eval '"$fake_sh" json each-9.10 >"$T/each.json" && [ "$(definition "$T/each.json")" = "each-9.10@9.10:false,each-9.10@9.10:false,bound@9.9:true,mixed@9.9:true,no variant nowhere (uml-kernel/variants/)" ]'
check "json: strings are escaped" \
	eval 'printf "# q\nconfig x.config\n" >"$fake/uml-kernel/variants/q\"uo\\te" && "$fake_sh" json | jq -e ".variants[\"q\\\"uo\\\\te\"].name == \"q\\\"uo\\\\te\"" >/dev/null'
rm -f "$fake/uml-kernel/variants/"q*
rm -f "$fake/uml-kernel/variants/each" "$fake/uml-kernel/variants/bound"
# The export is the last EXPORT_SYMBOL* line for invalidate_mmap_range that the stack adds: c.patch adds the GPL one,
# e.patch (mixed's add) turns it into EXPORT_SYMBOL, and a line for another symbol counts for nothing.
echo '+EXPORT_SYMBOL_GPL(invalidate_mmap_range);' >"$fake/s/c.patch"
printf '+EXPORT_SYMBOL(invalidate_mmap_range);\n+EXPORT_SYMBOL_GPL(other_function);\n' >"$fake/e.patch"
check "info: the base's export, no fragments" \
	[ "$("$fake/uml-kernel/generation.sh" info base | paste -sd,)" = "generation 9.9,base base,export EXPORT_SYMBOL_GPL,configs" ]
check "info: the export of the last patch that sets it, and the fragments" \
	[ "$("$fake/uml-kernel/generation.sh" info mixed | paste -sd,)" = "generation 9.9,base mixed,export EXPORT_SYMBOL,configs x.config" ]
# refused VARIANT LINES ERE: a variant file of LINES makes stack fail, with a message matching ERE.
refused() {
	fake_variant "$1" "$2"
	if "$fake/uml-kernel/generation.sh" stack "$1" >/dev/null 2>"$T/err" || ! grep -qE "$3" "$T/err"; then
		sed 's/^/# /' "$T/err"
		return 1
	fi
}
check "refused: a drop of a patch the base does not have, naming the line" \
	refused bad-drop $'add e.patch\ndrop f/z.patch' 'variants/bad-drop:3: drop f/z.patch: not a patch'
check "refused: an add of a missing file, naming the line" refused bad-add 'add nowhere.patch' 'variants/bad-add:2: add nowhere.patch: no such file'
check "refused: an add of a patch already in the stack" refused twice 'add s/c.patch' 'add s/c.patch: already in the stack'
check "refused: a bare path (the old format), naming the line" \
	refused bare 's/c.patch' "variants/bare:2: 's/c.patch' is not a line of a variant file"
check "refused: a missing config fragment, naming the line" refused bad-config 'config y.config' 'variants/bad-config:2: no config fragment'

# Each variant name is of a generation there is, and its base name is its name without that generation's suffix.
bad=()
for v in "${all[@]}"; do
	g=$("$gen_sh" of "$v" 2>/dev/null) || { bad+=("$v: no such generation"); continue; }
	b=$("$gen_sh" base "$v")
	[ "$b$("$gen_sh" get "$g" suffix)" = "$v" ] || [ "$b" = "$v" ] || bad+=("$v: base $b")
done
check "every variant name is of a generation, and base + suffix gives it back${bad:+ (${bad[*]})}" \
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
		# variant.json: the kernel's name and its own definition, as generation.sh json gives them today.
		have=$(jq -c '[.variant, .variants[.variant]]' "$BUILD/kernel/$v/variant.json" 2>&1)
		want=$("$gen_sh" json "$v" | jq -c '[.variant, .variants[.variant]]')
		check "$v: variant.json holds its definition as generation.sh json gives it today" [ "$have" = "$want" ]
	done
done
echo "1..$n"

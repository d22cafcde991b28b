#!/usr/bin/env bash
# SPDX-License-Identifier: MIT
# The one reader of the generation files (uml-kernel/generations/), the variant files (uml-kernel/variants/) and the series files: generation.sh COMMAND.
#
#   generation.sh list              every generation, one a line, in version order
#   generation.sh default           the generation used where none is named (uml-kernel/generations/default)
#   generation.sh get GEN KEY       the value of KEY in GEN's file (empty for a key alone on its line)
#   generation.sh all KEY           the values of KEY of every generation, in list order, on one line
#   generation.sh variants          every variant name of every generation, one a line
#   generation.sh of VARIANT        the generation of a variant name (see below)
#   generation.sh base VARIANT      the variant's name without its generation's suffix (full-6.12 -> full)
#   generation.sh checked GEN       the variants make check builds of GEN: those of the keys its "check" key names
#   generation.sh stack VARIANT     the patches VARIANT is built from, in order, one a line (paths from the top)
#   generation.sh configs VARIANT   the config fragments VARIANT adds (names in uml-kernel/config/), one a line
#   generation.sh info VARIANT      what build.sh writes into the built kernel's variant.info: its generation, its
#                                   base name, the export its stack gives invalidate_mmap_range, its fragments
#   generation.sh series DIR        the patches of DIR's "series" file, in order, one a line (DIR/NAME; DIR from the
#                                   top, or absolute)
#   generation.sh json [VARIANT]    every definition as one JSON document: the default generation, each generation's
#                                   keys, each variant name's resolution (generation, base, file, configs, stack,
#                                   export and the patch that gives it); with VARIANT, also "variant": VARIANT
#                                   (what build.sh writes beside the kernel as variant.json)
#
# A variant file says only how it differs from its generation's base stack: the patches of the folders the
# generation's "stack" key names, each in its folder's "series" file order (quilt's format), with the variant's
# "drop PATH" lines taken out and its "add PATH" lines put after them, in their order. Its "config NAME" lines name
# the fragments it merges last, and "generation GEN" its generation. Anything else on a line is an error that names
# the file and the line, as is a drop of a patch that is not in the base or an add of one that is missing.
#
# A variant name resolves to a file and a generation. A file with a "generation GEN" line is the variant of that
# generation named as the file. A file without one means the same on every generation: its name is the default
# generation's variant, and its name with a generation's suffix is that generation's (kasan-6.12: the file kasan at
# 6.12); "$gen" in its add and drop paths stands for the generation (uml-kernel/broken/$gen/broken-pgoff.patch).
#
# Only bash and sed: scripts/deps.sh reads the generations before make is installed. The format and the keys are
# in uml-kernel/generations/README.md. A missing generation, key or variant is exit 2, naming it.
set -euo pipefail

top=$(cd "$(dirname "$0")/.." && pwd)
dir=$top/uml-kernel/generations

die() {
	echo "generation.sh: $*" >&2
	exit 2
}

# A generation file is named after its generation, which starts with a digit; README.md and default are not ones.
list() {
	local f
	for f in "$dir"/[0-9]*; do
		[ -f "$f" ] && echo "${f##*/}"
	done | sort -V
}

# value FILE KEY: KEY's value in FILE (the rest of the first line whose first word is KEY), surrounding blanks removed.
# Exit 1 when FILE has no such key.
value() {
	local line k v
	while IFS= read -r line || [ -n "$line" ]; do
		line=${line#"${line%%[![:space:]]*}"}
		case $line in '' | '#'*) continue ;; esac
		k=${line%%[[:space:]]*}
		[ "$k" = "$2" ] || continue
		v=${line#"$k"}
		v=${v#"${v%%[![:space:]]*}"}
		v=${v%"${v##*[![:space:]]}"}
		printf '%s\n' "$v"
		return 0
	done <"$1"
	return 1
}

file_of() {
	case $1 in
	[0-9]*) [ -f "$dir/$1" ] && [[ $1 != */* ]] && { echo "$dir/$1"; return; } ;;
	esac
	die "no generation '$1' (uml-kernel/generations/ has: $(list | paste -sd' '))"
}

get() {
	local f
	f=$(file_of "$1") || exit
	value "$f" "$2" || die "uml-kernel/generations/$1 has no key '$2'"
}

default() {
	local g
	g=$(value "$dir/default" generation) || die "uml-kernel/generations/default names no generation"
	file_of "$g" >/dev/null
	echo "$g"
}

vdir=$top/uml-kernel/variants

# resolve NAME: the variant file (vfile, its name in uml-kernel/variants/) and the generation (vgen) of a variant
# name. The file of that name, at the generation it names or the default one; else a file without a generation
# line whose name is NAME without a generation's suffix, at that generation.
resolve() {
	local g s
	vfile='' vgen=''
	case $1 in '' | .* | */*) die "no variant '$1' (see uml-kernel/variants/)" ;; esac
	if [ -f "$vdir/$1" ]; then
		vfile=$1
		if g=$(value "$vdir/$1" generation); then
			file_of "$g" >/dev/null || exit
			vgen=$g
		else
			vgen=$(default) || exit
		fi
		return 0
	fi
	for g in $(list); do
		s=$(get "$g" suffix) || exit
		if [ -z "$s" ] || [ "${1%"$s"}" = "$1" ]; then continue; fi
		if [ -f "$vdir/${1%"$s"}" ] && ! value "$vdir/${1%"$s"}" generation >/dev/null; then
			vfile=${1%"$s"} vgen=$g
			return 0
		fi
	done
	die "no variant '$1' (see uml-kernel/variants/)"
}

# The generation of a variant name.
of() {
	resolve "$1"
	echo "$vgen"
}

# Every variant name: a file bound to a generation by its own name, any other with each generation's suffix.
variants() {
	local f g gens
	gens=$(list)
	for f in "$vdir"/*; do
		[ -f "$f" ] || continue
		if value "$f" generation >/dev/null; then
			echo "${f##*/}"
		else
			for g in $gens; do echo "${f##*/}$(get "$g" suffix)"; done
		fi
	done
}

# series_of DIR: the patches of DIR's "series" file, as DIR/NAME, in its order (a "#" starts a comment). DIR is from
# the top, or absolute (the mutation tool reads a series as a git revision had it, extracted elsewhere).
series_of() {
	local line d=$top/$1
	case $1 in /*) d=$1 ;; esac
	[ -f "$d/series" ] || die "no series file $1/series"
	while IFS= read -r line || [ -n "$line" ]; do
		line=${line%%#*}
		read -r line _ <<<"$line"
		[ -n "$line" ] || continue
		[ -f "$d/$line" ] || die "$1/series names $line, which is not in $1/"
		echo "$1/$line"
	done <"$d/series"
}

# definition VARIANT: reads the variant's file into the globals adds, drops and configs, checking every line, with
# the variant's generation for "$gen" in the paths (resolve's vfile and vgen stay set).
definition() {
	local line k v no=0 where
	resolve "$1"
	where=uml-kernel/variants/$vfile
	adds=() drops=() configs=()
	while IFS= read -r line || [ -n "$line" ]; do
		no=$((no + 1))
		line=${line#"${line%%[![:space:]]*}"}
		case $line in '' | '#'*) continue ;; esac
		k=${line%%[[:space:]]*}
		v=${line#"$k"}
		v=${v#"${v%%[![:space:]]*}"}
		v=${v%"${v##*[![:space:]]}"}
		case $k in
		generation | config | add | drop) [ -n "$v" ] || die "$where:$no: '$k' without a value" ;;
		*) die "$where:$no: '$line' is not a line of a variant file (generation, config, add or drop)" ;;
		esac
		case $k in add | drop) v=${v//'$gen'/$vgen} ;; esac
		case $k in
		generation) ;;
		config) [ -f "$top/uml-kernel/config/$v" ] || die "$where:$no: no config fragment uml-kernel/config/$v"
			configs+=("$v") ;;
		add) [ -f "$top/$v" ] || die "$where:$no: add $v: no such file"
			adds+=("$v") ;;
		drop) drops+=("$v:$no") ;;
		esac
	done <"$vdir/$vfile"
}

# stack VARIANT: the base stack of the variant's generation without its drops, then its adds.
stack() {
	local g k d p found list keys
	local -a base=() out=()
	definition "$1"
	g=$vgen
	keys=$(get "$g" stack) || exit
	for k in $keys; do
		d=$(get "$g" "$k") || exit
		list=$(series_of "$d") || exit
		[ -n "$list" ] || die "generation $g: the series of $d ($k) is empty"
		mapfile -t -O "${#base[@]}" base <<<"$list"
	done
	# A drop must name a patch of the base: a misspelt one would otherwise build the base unnoticed.
	for d in "${drops[@]}"; do
		found=
		for p in "${base[@]}"; do [ "$p" = "${d%:*}" ] && found=1; done
		[ -n "$found" ] || die "uml-kernel/variants/$vfile:${d##*:}: drop ${d%:*}: not a patch of generation $g's base stack"
	done
	for p in "${base[@]}"; do
		found=
		for d in "${drops[@]}"; do [ "$p" = "${d%:*}" ] && found=1; done
		[ -n "$found" ] || out+=("$p")
	done
	for p in "${adds[@]}"; do
		for d in "${out[@]}"; do
			[ "$p" != "$d" ] || die "uml-kernel/variants/$vfile: add $p: already in the stack"
		done
		out+=("$p")
	done
	printf '%s\n' "${out[@]}"
}

# resolved VARIANT: the globals of info and json: rstack (the patches), configs, rgen, rbase, rexport and rexport_patch
# (the patch that gives the export, empty for none). The export
# is the last EXPORT_SYMBOL*(invalidate_mmap_range) line that the stack's patches add, read from the definition, not
# from a build, so that a scenario's expectation (licensing.lua) does not come from the kernel under test.
resolved() {
	local list
	list=$(stack "$1") || exit
	definition "$1"
	mapfile -t rstack <<<"$list"
	rgen=$vgen
	rbase=$(base "$1") || exit
	# The stack's patches in order, as one text: the last matching line is the last patch's that has one.
	rexport_patch=$(cd "$top" && { grep -H '^+EXPORT_SYMBOL[A-Z_]*(invalidate_mmap_range);' "${rstack[@]}" || true; } | tail -n 1)
	rexport=${rexport_patch#*:+}
	rexport=${rexport%%(*}
	rexport=${rexport:-none}
	rexport_patch=${rexport_patch%%:*}
}

# info VARIANT: variant.info's four lines.
info() {
	resolved "$1"
	printf 'generation %s\nbase %s\nexport %s\nconfigs' "$rgen" "$rbase" "$rexport"
	[ ${#configs[@]} = 0 ] || printf ' %s' "${configs[@]}"
	echo
}

base() {
	local g suffix
	g=$(of "$1") || exit
	suffix=$(get "$g" suffix)
	if [ -n "$suffix" ] && [ "${1%"$suffix"}" != "$1" ]; then
		echo "${1%"$suffix"}"
	else
		echo "$1"
	fi
}

# str S: S as a JSON string.
str() {
	local s=$1
	s=${s//\\/\\\\}
	s=${s//\"/\\\"}
	s=${s//$'\t'/\\t}
	printf '"%s"' "$s"
}

# strs S...: a JSON array of strings.
strs() {
	local s sep=
	printf '['
	for s; do printf '%s' "$sep"; str "$s"; sep=,; done
	printf ']'
}

# json [VARIANT]: the whole definition as one document, for those that cannot run this script (the scenarios, in
# the runner's sandbox, read it from beside the kernel: build.sh writes it as variant.json).
json() {
	local g v line k val sep
	printf '{'
	[ $# = 0 ] || { resolve "$1"; printf '"variant":%s,\n' "$(str "$1")"; }
	printf '"default":%s,\n"generations":{' "$(str "$(default)")"
	sep=
	for g in $(list); do
		printf '%s\n%s:{"name":%s' "$sep" "$(str "$g")" "$(str "$g")"
		# Each key of the generation's file, in its order (value's rules: the first line of a key wins).
		declare -A seen=()
		while IFS= read -r line || [ -n "$line" ]; do
			line=${line#"${line%%[![:space:]]*}"}
			case $line in '' | '#'*) continue ;; esac
			k=${line%%[[:space:]]*}
			[ -z "${seen[$k]:-}" ] || continue
			seen[$k]=1
			# value's trimming, on the line at hand.
			val=${line#"$k"}
			val=${val#"${val%%[![:space:]]*}"}
			val=${val%"${val##*[![:space:]]}"}
			printf ',%s:%s' "$(str "$k")" "$(str "$val")"
		done <"$dir/$g"
		unset seen
		printf '}'
		sep=,
	done
	printf '},\n"variants":{'
	sep=
	for v in $(variants); do
		resolved "$v"
		printf '%s\n%s:{"name":%s,"generation":%s,"base":%s,"file":%s,"configs":%s,"export":%s,"export_patch":%s,"stack":%s}' \
			"$sep" "$(str "$v")" "$(str "$v")" "$(str "$rgen")" "$(str "$rbase")" "$(str "uml-kernel/variants/$vfile")" \
			"$(strs "${configs[@]}")" "$(str "$rexport")" "$(str "$rexport_patch")" "$(strs "${rstack[@]}")"
		sep=,
	done
	printf '}}\n'
}

cmd=${1:-}
case $cmd in
list) list ;;
default) default ;;
get) [ $# = 3 ] || die "usage: generation.sh get GEN KEY"; get "$2" "$3" ;;
all)
	[ $# = 2 ] || die "usage: generation.sh all KEY"
	out=()
	for g in $(list); do
		v=$(get "$g" "$2") || exit
		[ -z "$v" ] || out+=("$v")
	done
	echo "${out[*]}"
	;;
variants) [ $# = 1 ] || die "usage: generation.sh variants"; variants ;;
of) [ $# = 2 ] || die "usage: generation.sh of VARIANT"; of "$2" ;;
base) [ $# = 2 ] || die "usage: generation.sh base VARIANT"; base "$2" ;;
checked)
	[ $# = 2 ] || die "usage: generation.sh checked GEN"
	out=()
	keys=$(get "$2" check) || exit
	for k in $keys; do
		v=$(get "$2" "$k") || exit
		[ -z "$v" ] || out+=("$v")
	done
	echo "${out[*]}"
	;;
stack) [ $# = 2 ] || die "usage: generation.sh stack VARIANT"; stack "$2" ;;
configs)
	[ $# = 2 ] || die "usage: generation.sh configs VARIANT"
	definition "$2"
	[ ${#configs[@]} = 0 ] || printf '%s\n' "${configs[@]}"
	;;
info) [ $# = 2 ] || die "usage: generation.sh info VARIANT"; info "$2" ;;
series) [ $# = 2 ] || die "usage: generation.sh series DIR"; series_of "$2" ;;
json) [ $# -le 2 ] || die "usage: generation.sh json [VARIANT]"; json "${@:2}" ;;
*) die "usage: generation.sh list | default | get GEN KEY | all KEY | variants | of VARIANT | base VARIANT | checked GEN | stack VARIANT | configs VARIANT | info VARIANT | series DIR | json [VARIANT]" ;;
esac

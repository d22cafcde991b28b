#!/usr/bin/env bash
# SPDX-License-Identifier: MIT
# Reads the kernel generation files of uml-kernel/generations/ for the Makefile, the build and the tests: generation.sh COMMAND.
#
#   generation.sh list              every generation, one a line, in version order
#   generation.sh default           the generation used where none is named (uml-kernel/generations/default)
#   generation.sh get GEN KEY       the value of KEY in GEN's file (empty for a key alone on its line)
#   generation.sh all KEY           the values of KEY of every generation, in list order, on one line
#   generation.sh of VARIANT        the generation a variant file names (its "generation" line), else the default
#   generation.sh base VARIANT      the variant's name without its generation's suffix (full-6.12 -> full)
#   generation.sh checked GEN       the variants make check builds of GEN: those of the keys its "check" key names
#   generation.sh stack VARIANT     the patches VARIANT is built from, in order, one a line (paths from the top)
#   generation.sh configs VARIANT   the config fragments VARIANT adds (names in uml-kernel/config/), one a line
#   generation.sh info VARIANT      what build.sh writes into the built kernel's variant.info: its generation, its
#                                   base name, the export its stack gives invalidate_mmap_range, its fragments
#
# A variant file says only how it differs from its generation's base stack: the patches of the folders the
# generation's "stack" key names, each in its folder's "series" file order (quilt's format), with the variant's
# "drop PATH" lines taken out and its "add PATH" lines put after them, in their order. Its "config NAME" lines name
# the fragments it merges last, and "generation GEN" its generation. Anything else on a line is an error that names
# the file and the line, as is a drop of a patch that is not in the base or an add of one that is missing.
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
	f=$(file_of "$1")
	value "$f" "$2" || die "uml-kernel/generations/$1 has no key '$2'"
}

default() {
	local g
	g=$(value "$dir/default" generation) || die "uml-kernel/generations/default names no generation"
	file_of "$g" >/dev/null
	echo "$g"
}

# The generation of a variant: its file's "generation NAME" line, else the default.
of() {
	local vfile=$top/uml-kernel/variants/$1 g
	if [[ $1 == */* ]] || [ ! -f "$vfile" ]; then die "no variant '$1' (see uml-kernel/variants/)"; fi
	if g=$(value "$vfile" generation); then
		file_of "$g" >/dev/null || exit
		echo "$g"
	else
		default
	fi
}

# series_of DIR: the patches of DIR's "series" file, as paths from the top, in its order (a "#" starts a comment).
series_of() {
	local line
	[ -f "$top/$1/series" ] || die "no series file $1/series"
	while IFS= read -r line || [ -n "$line" ]; do
		line=${line%%#*}
		read -r line _ <<<"$line"
		[ -n "$line" ] || continue
		[ -f "$top/$1/$line" ] || die "$1/series names $line, which is not in $1/"
		echo "$1/$line"
	done <"$top/$1/series"
}

# definition VARIANT: reads the variant file into the globals adds, drops and configs, checking every line.
definition() {
	local vfile=$top/uml-kernel/variants/$1 line k v no=0
	of "$1" >/dev/null
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
		generation | config | add | drop) [ -n "$v" ] || die "uml-kernel/variants/$1:$no: '$k' without a value" ;;
		*) die "uml-kernel/variants/$1:$no: '$line' is not a line of a variant file (generation, config, add or drop)" ;;
		esac
		case $k in
		generation) ;;
		config) [ -f "$top/uml-kernel/config/$v" ] || die "uml-kernel/variants/$1:$no: no config fragment uml-kernel/config/$v"
			configs+=("$v") ;;
		add) [ -f "$top/$v" ] || die "uml-kernel/variants/$1:$no: add $v: no such file"
			adds+=("$v") ;;
		drop) drops+=("$v:$no") ;;
		esac
	done <"$vfile"
}

# stack VARIANT: the base stack of the variant's generation without its drops, then its adds.
stack() {
	local g k d p found list keys
	local -a base=() out=()
	definition "$1"
	g=$(of "$1")
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
		[ -n "$found" ] || die "uml-kernel/variants/$1:${d##*:}: drop ${d%:*}: not a patch of generation $g's base stack"
	done
	for p in "${base[@]}"; do
		found=
		for d in "${drops[@]}"; do [ "$p" = "${d%:*}" ] && found=1; done
		[ -n "$found" ] || out+=("$p")
	done
	for p in "${adds[@]}"; do
		for d in "${out[@]}"; do
			[ "$p" != "$d" ] || die "uml-kernel/variants/$1: add $p: already in the stack"
		done
		out+=("$p")
	done
	printf '%s\n' "${out[@]}"
}

# info VARIANT: variant.info's four lines. The export is the last EXPORT_SYMBOL*(invalidate_mmap_range) line that the
# stack's patches add, read from the definition, not from a build, so that a scenario's expectation (licensing.lua)
# does not come from the kernel under test.
info() {
	local list sym
	local -a files
	list=$(stack "$1") || exit
	definition "$1"
	mapfile -t files <<<"$list"
	# The stack's patches in order, as one text: the last matching line is the last patch's that has one.
	sym=$(cd "$top" && sed -n 's/^+\(EXPORT_SYMBOL[A-Z_]*\)(invalidate_mmap_range);.*/\1/p' "${files[@]}" | tail -n 1)
	printf 'generation %s\nbase %s\nexport %s\nconfigs' "$(of "$1")" "$(base "$1")" "${sym:-none}"
	[ ${#configs[@]} = 0 ] || printf ' %s' "${configs[@]}"
	echo
}

base() {
	local g suffix
	g=$(of "$1")
	suffix=$(get "$g" suffix)
	if [ -n "$suffix" ] && [ "${1%"$suffix"}" != "$1" ]; then
		echo "${1%"$suffix"}"
	else
		echo "$1"
	fi
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
of) [ $# = 2 ] || die "usage: generation.sh of VARIANT"; of "$2" ;;
base) [ $# = 2 ] || die "usage: generation.sh base VARIANT"; base "$2" ;;
checked)
	[ $# = 2 ] || die "usage: generation.sh checked GEN"
	out=()
	for k in $(get "$2" check); do
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
*) die "usage: generation.sh list | default | get GEN KEY | all KEY | of VARIANT | base VARIANT | checked GEN | stack VARIANT | configs VARIANT | info VARIANT" ;;
esac

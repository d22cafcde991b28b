#!/usr/bin/env bash
# Reads the kernel generation files of uml-kernel/generations/ for the Makefile, the build and the tests: generation.sh COMMAND.
#
#   generation.sh list              every generation, one a line, in version order
#   generation.sh default           the generation used where none is named (uml-kernel/generations/default)
#   generation.sh get GEN KEY       the value of KEY in GEN's file (empty for a key alone on its line)
#   generation.sh all KEY           the values of KEY of every generation, in list order, on one line
#   generation.sh of VARIANT        the generation a variant file names (its "generation" line), else the default
#   generation.sh base VARIANT      the variant's name without its generation's suffix (full-6.12 -> full)
#   generation.sh checked GEN       the variants make check builds of GEN: those of the keys its "check" key names
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
*) die "usage: generation.sh list | default | get GEN KEY | all KEY | of VARIANT | base VARIANT | checked GEN" ;;
esac

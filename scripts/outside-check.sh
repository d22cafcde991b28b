#!/usr/bin/env bash
# SPDX-License-Identifier: MIT
# outside-check.sh: what make check-slow builds and runs, from tests/outside-check (its one reader).
#   outside-check.sh kernels   GEN VARIANT, one kernel a line, each once, in the file's order
#   outside-check.sh files     the test files, one a line
# A malformed line (not a test file that exists, GENS neither all nor default, a key that names no variant file in
# a generation it is read for) fails, naming it: make check-slow would otherwise build or run something else.
set -euo pipefail
top=$(cd "$(dirname "$0")/.." && pwd)
gen_sh=$top/uml-kernel/generation.sh
what=${1:-}
case $what in kernels | files) ;; *) echo "usage: outside-check.sh kernels|files" >&2; exit 2 ;; esac
declare -A seen
n=0
while read -r f key gens _; do
	case $f in tests/*.t) ;; *) continue ;; esac
	n=$((n + 1))
	[ -f "$top/$f" ] || { echo "outside-check.sh: tests/outside-check: $f: no such test file" >&2; exit 1; }
	case $gens in
	all) gs=$("$gen_sh" list) ;;
	default) gs=$("$gen_sh" default) ;;
	*) echo "outside-check.sh: tests/outside-check: $f: GENS is '$gens', not all or default" >&2; exit 1 ;;
	esac
	if [ "$what" = files ]; then
		echo "$f"
		continue
	fi
	for g in $gs; do
		vs=$("$gen_sh" get "$g" "$key" 2>/dev/null) || vs=
		[ -n "$vs" ] || { echo "outside-check.sh: tests/outside-check: $f: generation $g has no key $key" >&2; exit 1; }
		# A key may name several variants (variants: full gpl-only): each is a kernel of its own.
		for v in $vs; do
			[ "$("$gen_sh" of "$v" 2>/dev/null)" = "$g" ] ||
				{ echo "outside-check.sh: tests/outside-check: $f: $g's $key names $v, no variant of $g" >&2; exit 1; }
			[ -z "${seen[$g/$v]:-}" ] || continue
			seen[$g/$v]=1
			echo "$g $v"
		done
	done
done <"$top/tests/outside-check"
[ "$n" -gt 0 ] || { echo "outside-check.sh: tests/outside-check lists no test file" >&2; exit 1; }

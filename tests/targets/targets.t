#!/usr/bin/env bash
# SPDX-License-Identifier: MIT
# targets.t: every Makefile target and every file of tests/outside-check has a row in tests/targets/smokes naming the test of make check that runs its smoke, or why it has none; tests/outside-check is well formed.
#
# The long targets left make check to keep it within tests/budget, and then rotted unseen (make coverage failed in
# its first seconds for every user). This holds the line: a new target, or a test file moved to make check-slow,
# fails here until the table says which file of make check runs its smoke, or why none can.
set -uo pipefail
top=$(cd "$(dirname "$0")/../.." && pwd)
gen_sh=$top/uml-kernel/generation.sh
. "$top/tests/lib/strict.sh"
. "$top/tests/lib/tap.sh"
table=$top/tests/targets/smokes
outside=$top/tests/outside-check
T=$(mktemp -d "${TMPDIR:-/tmp}/targets-t.XXXXXX")
trap 'rm -rf "$T"' EXIT

# The Makefile's targets: the names before a colon at the start of a line (its rules and target-specific variables).
grep -oE '^[a-z][a-z-]*:' "$top/Makefile" | tr -d : | sort -u >"$T/targets"
check "the Makefile's targets are read ($(wc -l <"$T/targets"), coverage among them)" grep -qx coverage "$T/targets"
grep -vE '^[[:space:]]*(#|$)' "$table" >"$T/rows"
awk '{ print $1 }' "$T/rows" | sort >"$T/named"
check "no row is there twice" [ -z "$(uniq -d "$T/named")" ]
sed -n 's/^\(tests\/[^[:space:]]*\.t\)[[:space:]].*/\1/p' "$outside" | sort >"$T/outside"
check "tests/outside-check lists files (probe: $(wc -l <"$T/outside"))" [ -s "$T/outside" ]
while read -r t; do
	check "make $t has a row in tests/targets/smokes" grep -qx -- "$t" "$T/named"
done <"$T/targets"
while read -r f; do
	check "$f (make check-slow) has a row in tests/targets/smokes" grep -qx -- "$f" "$T/named"
done <"$T/outside"
# Each row: a target, an outside-check file or the CI templates; a smoke that make check runs, or a reason.
while read -r what where why; do
	check "row $what: names a Makefile target, a file of tests/outside-check or ci-templates" \
		eval 'grep -qx -- "$what" "$T/targets" "$T/outside" || [ "$what" = ci-templates ]'
	case $where in
	check) ;;
	none) check "row $what: says why it has no smoke" [ "$(wc -w <<<"$why")" -ge 5 ] ;;
	*)
		check "row $what: its smoke $where is a test file" [ -f "$top/$where" ] && [ "${where%.t}" != "$where" ]
		check "row $what: ... that make check runs (not one of tests/outside-check)" not grep -qx -- "$where" "$T/outside"
		;;
	esac
	check "row $what: says what runs ($(wc -w <<<"$why") words)" [ -n "$why" ]
done <"$T/rows"

# tests/outside-check, as make check-slow reads it: FILE KEY GENS, each file a test, each key one that names
# variants in every generation it is read for.
# variant_files NAMES: NAMES is not empty and each is a variant (generation.sh resolves it to a variant file).
variant_files() {
	local v
	[ -n "$1" ] || return 1
	for v in $1; do "$gen_sh" of "$v" >/dev/null 2>&1 || return 1; done
}
while read -r f key gens _; do
	case $f in tests/*.t) ;; *) continue ;; esac
	check "outside-check: $f exists" [ -f "$top/$f" ]
	check "outside-check: $f is read for all or the default generation ($gens)" grep -qxE 'all|default' <<<"$gens"
	case $gens in all) gs=$("$gen_sh" list) ;; *) gs=$("$gen_sh" default) ;; esac
	for g in $gs; do
		vs=$("$gen_sh" get "$g" "$key" 2>/dev/null)
		check "outside-check: $f: generation $g's key $key names variant files (${vs:-none})" variant_files "$vs"
	done
done <"$outside"

# make help names each target that has a smoke of its own, so that a user finds it.
make -s -C "$top" help >"$T/help" 2>&1
check "make help runs (exit $?)" [ -s "$T/help" ]
while read -r what where _; do
	case $where in check | none) continue ;; esac
	grep -qx -- "$what" "$T/targets" || continue
	case $what in uninstall | scenarios | help) continue ;; esac
	check "make help names make $what" grep -qE "^make $what( |\$)" "$T/help"
done <"$T/rows"
echo "1..$n"

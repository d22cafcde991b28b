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

# tests/outside-check, through its one reader (scripts/outside-check.sh, which make check-slow runs): every line
# well formed, each kernel one GEN VARIANT of a known generation, each file a test.
"$top/scripts/outside-check.sh" kernels >"$T/kernels" 2>"$T/err"
check "outside-check: the kernels make check-slow builds are listed (exit $?, $(wc -l <"$T/kernels") kernels)" \
	eval '[ -s "$T/kernels" ] && [ ! -s "$T/err" ]'
[ -s "$T/err" ] && diag "$T/err"
# one_kernel G V EXTRA: V is one variant, G a generation generation.sh knows, nothing after them.
one_kernel() { [ -z "$3" ] && [ -n "$2" ] && "$gen_sh" list | grep -qx -- "$1"; }
while read -r g v extra; do
	check "outside-check: kernel '$g $v' is one variant of a generation" one_kernel "$g" "$v" "$extra"
done <"$T/kernels"
"$top/scripts/outside-check.sh" files >"$T/files" 2>"$T/err"
check "outside-check: its test files are listed ($(wc -l <"$T/files"))" eval '[ -s "$T/files" ] && [ ! -s "$T/err" ]'
# The reader's own refusals: a key that names no variant, and a line whose GENS is neither all nor default.
mkdir -p "$T/fake/tests" "$T/fake/scripts" && cp "$top/scripts/outside-check.sh" "$T/fake/scripts/"
ln -s "$top/uml-kernel" "$T/fake/uml-kernel"
touch "$T/fake/tests/a.t"
printf 'tests/a.t  nosuchkey  default  why\n' >"$T/fake/tests/outside-check"
"$T/fake/scripts/outside-check.sh" kernels >/dev/null 2>"$T/err"
check "outside-check: a key that names no variant fails, naming it" grep -q 'a.t: generation .* has no key nosuchkey' "$T/err"
printf 'tests/a.t  variants  some  why\n' >"$T/fake/tests/outside-check"
"$T/fake/scripts/outside-check.sh" files >/dev/null 2>"$T/err"
check "outside-check: GENS neither all nor default fails, naming it" grep -q "a.t: GENS is 'some'" "$T/err"

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

#!/usr/bin/env bash
# SPDX-License-Identifier: MIT
# changed-functions.t: uml-kernel/changed-functions.sh names the functions a variant's source changes, and the callers of a static one, on two small trees.
set -uo pipefail
top=$(cd "$(dirname "$0")/../.." && pwd)
. "$top/tests/lib/strict.sh"
. "$top/tests/lib/tap.sh"
tool=$top/uml-kernel/changed-functions.sh
scratch=$(mktemp -d "${TMPDIR:-/tmp}/umlbed-changed-t.XXXXXX")
trap 'rm -rf "$scratch"' EXIT

# Two built variants as build.sh leaves them: the trees, the files the series touched, the generation.
for v in base var; do
	mkdir -p "$scratch/kernel/$v/src/mm"
	printf 'generation 6.1\nbase %s\n' "$v" >"$scratch/kernel/$v/variant.info"
	printf 'mm/memory.c\nmm/other.c\nDocumentation/x.rst\n' >"$scratch/kernel/$v/.touched"
done
cat >"$scratch/kernel/base/src/mm/memory.c" <<'EOF'
static int helper(int a);
EXPORT_SYMBOL(helper);

static int
leaf(int a,
	int b)
{
	if (a)
		return b;
	return a;
}

static int middle(int a)
{
	return leaf(a, 1);
}

int outer(int a)
{
	return middle(a) + leaf (a, 2);
}

int bystander(int a)
{
	return a + 1;
}

void remover(void)
{
	lock();
	unlock();
}
EOF
base=$scratch/kernel/base/src/mm var=$scratch/kernel/var/src/mm
sed -e 's/return b;/return b + 1;/' -e '/^\tlock();$/d' "$base/memory.c" >"$var/memory.c"
printf 'int same(void)\n{\n\treturn 0;\n}\n' | tee "$base/other.c" >"$var/other.c"

out=$(BUILD=$scratch "$tool" var base 2>&1)
status=$?
echo "$out" | diag
check "it succeeds on two built trees" [ "$status" = 0 ]
# The probe sees the change: the function with the changed line is named.
check "a function with a changed line is named (leaf)" grep -qx leaf <<<"$out"
check "a function whose line was removed is named, from the base's file (remover)" grep -qx remover <<<"$out"
check "a static function's callers in its file are named, and theirs in turn (middle, outer)" \
	bash -c 'grep -qx middle <<<"$1" && grep -qx outer <<<"$1"' _ "$out"
check "a function neither changed nor calling a changed static one is not (bystander, same, helper)" \
	not grep -qxE 'bystander|same|helper' <<<"$out"
check "a declaration or EXPORT_SYMBOL() is no function (EXPORT_SYMBOL)" not grep -qx EXPORT_SYMBOL <<<"$out"
check "each name once" [ "$(sort <<<"$out" | uniq -d)" = "" ]

BUILD=$scratch "$tool" missing base >/dev/null 2>"$scratch/err"
check "a variant not built is an error that names it (exit 2)" \
	bash -c '[ "$1" = 2 ] && grep -q "missing is not built" "$2"' _ $? "$scratch/err"
echo "1..$n"

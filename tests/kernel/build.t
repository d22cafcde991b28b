#!/usr/bin/env bash
# SPDX-License-Identifier: MIT
# build.t: uml-kernel/build.sh after an edit of the series replaces only the files whose text changed, and its tree is the one a fresh application gives.
#
# The edit → rebuild → verdict loop depends on it: a patched header that got a new time would rebuild half the
# kernel, and a file left behind by an older series would build a kernel that is not the series. In a copy of the
# tree's build scripts and series (so the checkout's own patches are never touched) and a build folder of its own,
# the default generation's full variant is patched and mm/memory.o built (KBUILD_TARGETS), then: one-line edits
# of the seed's patch, which must change mm/memory.c alone, one of code that kbuild compiles and one of a comment
# that leaves the object as it was and runs no kbuild; and a patch of the test's own
# added to the variant and dropped again, whose files must go back to the pristine text (the one it made removed).
# Each time the tree must equal a fresh application of the series.
set -uo pipefail
top=$(cd "$(dirname "$0")/../.." && pwd)
BUILD=${UMLBED_BUILD:-${BUILD:-$top/build}}
gen_sh=$top/uml-kernel/generation.sh
. "$top/tests/lib/strict.sh"
. "$top/tests/lib/tap.sh"
g=$("$gen_sh" default)
pristine=$BUILD/src/$("$gen_sh" get "$g" source)
[ -f "$pristine/Makefile" ] || prereq_skip_all "no pristine tree of $g in $pristine (make kernel)"
T=$(mktemp -d "${TMPDIR:-/tmp}/build-t.XXXXXX")
trap 'rm -rf "$T"' EXIT
mkdir -p "$T/top" "$T/build"
cp -r "$top/uml-kernel" "$top/patches" "$T/top/"
# The patches a variant file may add from outside uml-kernel/: build.sh writes every definition (variant.json).
mkdir -p "$T/top/bench" && cp -r "$top/bench/patches" "$T/top/bench/"
kvar=KSRC_${g//./_}
# The objects the edits below reach, not the whole kernel: what is checked is the tree build.sh patches (make check
# builds every variant's kernel through build.sh anyway).
# Every build keeps its finished folder in a kernel cache of the test's own (UMLBED_KERNEL_CACHE).
build() {
	env BUILD="$T/build" "$kvar=$pristine" KBUILD_TARGETS=mm/memory.o UMLBED_KERNEL_CACHE="$T/kcache" \
		"$T/top/uml-kernel/build.sh" full >"$T/log" 2>&1
}
# said WORD: build.sh's last run printed the step WORD (BUILD, UPTODATE, CACHED) for the variant.
said() { grep -qE "^  $1 +full" "$T/log"; }
vdir=$T/build/kernel/full
src=$vdir/src

# same_as_fresh: every file the variant's patches touch is, in the tree, what a fresh application gives.
same_as_fresh() {
	local fresh=$T/fresh f
	local -a patches
	rm -rf "$fresh" && mkdir -p "$fresh"
	mapfile -t patches < <("$T/top/uml-kernel/generation.sh" stack full)
	while read -r f; do
		[ -e "$pristine/$f" ] || continue
		mkdir -p "$fresh/$(dirname "$f")" && cp "$pristine/$f" "$fresh/$f"
	done < <(sed -n 's|^+++ b/\([^[:space:]]*\).*|\1|p' "${patches[@]/#/$T/top/}" | sort -u)
	for p in "${patches[@]}"; do patch -d "$fresh" -p1 -s --no-backup-if-mismatch -i "$T/top/$p" || return 1; done
	while read -r f; do
		cmp -s "$fresh/$f" "$src/$f" || { echo "differs: $f"; return 1; }
	done < <(cd "$fresh" && find . -type f)
}

build
check "the full variant builds from scratch in its own folder" [ $? = 0 ] || diag "$T/log"
[ -f "$vdir/obj/mm/memory.o" ] || { diag "$T/log"; echo "1..$n"; exit 1; }
check "... running kbuild (the log says BUILD)" said BUILD
check "... and keeping the folder in the kernel cache" [ -f "$(find "$T/kcache/full" -name memory.o -print -quit)" ]

# Nothing changed: kbuild's walk of the tree is skipped; a file newer than the last build brings it back.
ino=$(stat -c %i:%Y "$vdir/obj/mm/memory.o")
build
check "an unchanged tree: UPTODATE, no kbuild run" eval 'said UPTODATE && ! said BUILD'
check "... mm/memory.o is the same file" [ "$(stat -c %i:%Y "$vdir/obj/mm/memory.o")" = "$ino" ]
touch "$src/mm/memory.c"
build
check "a source file newer than the last build: BUILD" eval 'said BUILD && ! said UPTODATE'
rm "$vdir/obj/mm/memory.o"
build
check "an object removed since the last build: BUILD, and the object is back" \
	eval 'said BUILD && [ -f "$vdir/obj/mm/memory.o" ]'
touch -d '2000-01-01' "$src/include/linux/mm.h" "$src/mm/memory.c" "$src/mm/internal.h" "$vdir/obj/mm/memory.o"

# A one-line edit of a line of code in the seed's patch 0001: its object changes, so kbuild builds it.
series=$("$gen_sh" get "$g" series)
p1=$(ls "$T/top/$series"/0001-*.patch)
code='hea = hba + hlen - 1;'
check "the patch has the line of code the test edits" grep -qF "+	$code" "$p1"
sed -i "s|^+	hea = hba + hlen - 1;|+	hea = hba + hlen - 2;|" "$p1"
build
check "an edit of code: the edited series builds" [ $? = 0 ] || diag "$T/log"
check "... mm/memory.c has the edit" grep -qF 'hea = hba + hlen - 2;' "$src/mm/memory.c"
check "... its object changes, so kbuild runs (BUILD, not SAME)" eval 'said BUILD && ! said SAME'
check "... and compiled it again (mm/memory.o is new)" [ "$(stat -c %Y "$vdir/obj/mm/memory.o")" -gt 946684800 ]
check "include/linux/mm.h kept its time (its text did not change)" [ "$(stat -c %Y "$src/include/linux/mm.h")" = 946684800 ]
check "mm/internal.h kept its time" [ "$(stat -c %Y "$src/mm/internal.h")" = 946684800 ]
check "the tree is what a fresh application of the series gives" same_as_fresh
sed -i "s|^+	hea = hba + hlen - 2;|+	$code|" "$p1"
build
check "the edit undone builds" [ $? = 0 ] || diag "$T/log"
touch -d '2000-01-01' "$src/mm/memory.c" "$vdir/obj/mm/memory.o"
build

# A one-line edit of a comment in the same file: every object is as it was, so no kbuild runs.
mark="edited by build.t $$"
ino=$(stat -c %i:%Y "$vdir/obj/mm/memory.o")
sum=$(md5sum <"$vdir/obj/mm/memory.o")
sed -i "0,/^+ \* Context: Process context/s|^+ \* Context: Process context|+ * Context ($mark): Process context|" "$p1"
check "the edit is in the patch" grep -q "$mark" "$p1"
build
check "an edit of a comment: the edited series builds" [ $? = 0 ] || diag "$T/log"
check "... mm/memory.c has the edit" grep -q "$mark" "$src/mm/memory.c"
check "... every object is as it was: SAME, no kbuild run" eval 'said SAME && ! said BUILD'
check "... mm/memory.o is the same file" [ "$(stat -c %i:%Y "$vdir/obj/mm/memory.o")" = "$ino" ]
check "... mm/memory.c is no newer than it" [ ! "$src/mm/memory.c" -nt "$vdir/obj/mm/memory.o" ]
check "the tree is what a fresh application of the series gives" same_as_fresh
check "the pristine tree is untouched" not grep -q "$mark" "$pristine/mm/memory.c"
build
check "the build after it is UPTODATE" eval 'said UPTODATE && ! said BUILD'
touch "$src/mm/memory.c"
build
check "kbuild's own compile of the edited file gives the object kept" \
	eval 'said BUILD && [ "$(md5sum <"$vdir/obj/mm/memory.o")" = "$sum" ]'

# A patch of the test's own, added to the variant and then dropped: the file it changed goes back to the pristine
# text, the file it made goes.
doc=Documentation/process/howto.rst
made=Documentation/umlbed-build-t.txt
cp "$pristine/$doc" "$T/howto.rst"
echo "A line that build.t adds." >>"$T/howto.rst"
{
	(cd "$T" && diff -u --label "a/$doc" --label "b/$doc" "$pristine/$doc" howto.rst)
	printf -- '--- /dev/null\n+++ b/%s\n@@ -0,0 +1 @@\n+made by build.t\n' "$made"
} >"$T/top/extra.patch"
echo "add extra.patch" >>"$T/top/uml-kernel/variants/full"
build
check "the variant with a patch more builds" [ $? = 0 ] || diag "$T/log"
check "the new patch made $made (the probe)" [ -f "$src/$made" ]
check "... and changed $doc" not cmp -s "$pristine/$doc" "$src/$doc"
sed -i '/^add extra.patch$/d' "$T/top/uml-kernel/variants/full"
build
check "the variant without it builds" [ $? = 0 ] || diag "$T/log"
check "$made is gone" [ ! -e "$src/$made" ]
check "$doc is pristine again" cmp -s "$pristine/$doc" "$src/$doc"
check "the tree is what a fresh application of the series gives" same_as_fresh

# A build folder that is gone comes back from the kernel cache, without kbuild, as the build that stored it.
sum=$(md5sum <"$vdir/obj/mm/memory.o")
rm -rf "$vdir/obj" "$vdir/.cached"
build
check "a removed build folder: CACHED, no kbuild run" eval 'said CACHED && ! said BUILD'
check "... its mm/memory.o is the one built before" [ "$(md5sum <"$vdir/obj/mm/memory.o" 2>&1)" = "$sum" ]
build
check "... and the build after it is UPTODATE" eval 'said UPTODATE && ! said BUILD'
echo "1..$n"

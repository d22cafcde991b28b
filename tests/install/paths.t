#!/usr/bin/env bash
# SPDX-License-Identifier: MIT
# paths.t: make install and make uninstall take a PREFIX or DESTDIR with blanks whole, write and remove nothing through a symbolic link out of the prefix, and check the whole manifest before removing anything; on a fake build of small files, in seconds.
SRC=$(cd "$(dirname "$0")/../.." && pwd)
# shellcheck source=SCRIPTDIR/../lib/strict.sh
. "$SRC/tests/lib/strict.sh"
# shellcheck source=SCRIPTDIR/../lib/tap.sh
. "$SRC/tests/lib/tap.sh"
T=$(mktemp -d "${TMPDIR:-/tmp}/umlbed-paths.XXXXXX")
trap 'rm -rf "$T"' EXIT

# A build of small stand-ins: what install.sh copies is files, whatever they hold.
B=$T/build
v=$("$SRC/uml-kernel/generation.sh" get "$("$SRC/uml-kernel/generation.sh" default)" variants | cut -d' ' -f1)
mkdir -p "$B/runner" "$B/guest" "$B/kernel/$v/obj" "$B/kernel/$v/modules"
for f in runner/umlbed guest/umlbed-agent "kernel/$v/obj/linux"; do
  printf '#!/bin/sh\n' >"$B/$f"
  chmod 755 "$B/$f"
done
printf 'generation fake\n' >"$B/kernel/$v/variant.info"
printf '{}\n' >"$B/kernel/$v/variant.json"
printf 'module\n' >"$B/kernel/$v/modules/umlbed_gpl.ko"
# mk ACTION PREFIX DESTDIR: make install or uninstall, its output in $T/out, its exit status in $rc. sh ACTION
# PREFIX DESTDIR: the same by the script itself, which is quicker where make's own quoting is not what is tested.
mk() {
  make -s -C "$SRC" "$1" BUILD="$B" PREFIX="$2" DESTDIR="$3" >"$T/out" 2>&1
  rc=$?
}
sh() {
  BUILD=$B "$SRC/scripts/install.sh" "$@" >"$T/out" 2>&1
  rc=$?
}
# no_file_in DIR: DIR holds no file and no link, only folders if anything.
no_file_in() { [ -z "$(find "$1" \( -type f -o -type l \) -print -quit)" ]; }

# ---- Blanks in PREFIX and DESTDIR: the paths are taken whole. ----
P="/opt/my umlbed"
mk install "$P" "$T/stage"
check "make install PREFIX='$P': exit 0 (got $rc)" [ "$rc" = 0 ] || diag "$T/out"
check "... the runner is under DESTDIR/PREFIX, blank and all" [ -x "$T/stage$P/lib/umlbed/runner/umlbed" ]
check "... and nothing went to the PREFIX's cut halves (the source tree's umlbed/, /opt/my)" \
  [ ! -e "$SRC/umlbed" ] && [ ! -e "$T/stage/opt/my" ]
mk uninstall "$P" "$T/stage"
check "make uninstall PREFIX='$P': exit 0 (got $rc), and no file is left" eval '[ "$rc" = 0 ] && no_file_in "$T/stage"' ||
  diag "$T/out"

D="$T/my stage"
mk install /opt/umlbed "$D"
check "make install DESTDIR='my stage': exit 0 (got $rc)" [ "$rc" = 0 ] || diag "$T/out"
check "... the runner is under the whole DESTDIR" [ -x "$D/opt/umlbed/lib/umlbed/runner/umlbed" ]
check "... and nothing went to its cut path ($T/my)" [ ! -e "$T/my" ]
mk uninstall /opt/umlbed "$D"
check "make uninstall DESTDIR='my stage': exit 0 (got $rc), and no file is left" eval '[ "$rc" = 0 ] && no_file_in "$D"' ||
  diag "$T/out"

for bad in "relative/stage" "$T/new
line"; do
  sh install /opt/umlbed "$bad"
  check "install.sh with DESTDIR '${bad//$'\n'/\\n}': refused with exit 2 (got $rc)" [ "$rc" = 2 ]
  # The refusal must say which path is wrong: that text is what is tested.
  check "... with a message naming DESTDIR" grep -q DESTDIR "$T/out"
done

# ---- Symbolic links out of the prefix: nothing is removed or written through them. ----
S=$T/links
I=$S/opt/umlbed
sh install /opt/umlbed "$S"
check "install for the link checks: exit 0 (got $rc)" [ "$rc" = 0 ] || diag "$T/out"
# A folder of the prefix swapped for a link to a folder outside that holds the same names.
mkdir -p "$T/outside"
cp -a "$I/lib/umlbed/kernel/." "$T/outside/"
printf 'outside\n' >"$T/outside/$v/obj/linux"
rm -rf "$I/lib/umlbed/kernel"
ln -s "$T/outside" "$I/lib/umlbed/kernel"
check "the probe: the outside folder holds the kernel through the link" [ -f "$I/lib/umlbed/kernel/$v/obj/linux" ]
sh uninstall /opt/umlbed "$S"
check "uninstall through a linked folder: refused (exit $rc)" [ "$rc" != 0 ]
check "... naming the link's way out" grep -q 'outside .* through a symbolic link' "$T/out"
check "... the folder outside keeps its files" [ -f "$T/outside/$v/obj/linux" ] && [ -f "$T/outside/$v/variant.info" ]
check "... and nothing was removed before the refusal (the runner is still installed)" \
  [ -x "$I/lib/umlbed/runner/umlbed" ]
sh install /opt/umlbed "$S"
check "install through a linked folder: refused (exit $rc)" [ "$rc" != 0 ]
check "... the file outside is unchanged" [ "$(cat "$T/outside/$v/obj/linux")" = outside ]
rm "$I/lib/umlbed/kernel"
mkdir "$I/lib/umlbed/kernel"
cp -a "$T/outside/." "$I/lib/umlbed/kernel/"

# ---- A bad manifest line removes nothing, wherever it is. ----
cp "$I/lib/umlbed/MANIFEST" "$T/manifest.good"
printf '../../../etc/passwd\n' >>"$I/lib/umlbed/MANIFEST"
sh uninstall /opt/umlbed "$S"
check "uninstall with an unsafe last manifest line: refused (exit $rc)" [ "$rc" != 0 ]
check "... naming the line" grep -qF 'unsafe path: ../../../etc/passwd' "$T/out"
check "... and the files listed before it are still there" \
  [ -x "$I/lib/umlbed/runner/umlbed" ] && [ -x "$I/lib/umlbed/guest/umlbed-agent" ]
cp "$T/manifest.good" "$I/lib/umlbed/MANIFEST"
sh uninstall /opt/umlbed "$S"
check "with the manifest put right, uninstall removes every file (exit $rc)" eval '[ "$rc" = 0 ] && no_file_in "$S"' ||
  diag "$T/out"
echo "1..$n"

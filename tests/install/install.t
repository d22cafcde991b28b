#!/usr/bin/env bash
# SPDX-License-Identifier: MIT
# install.t: an installed umlbed runs a scenario from a folder of its own, and the example out-of-tree module builds and proves its coherency from outside the tree, on every generation, refused where the export is GPL-only.
. "$(dirname "$0")/../runner/common.sh"
need_uml
GENS=$("$SRC/uml-kernel/generation.sh" list)
for g in $GENS; do
  for v in $("$SRC/uml-kernel/generation.sh" get "$g" variants); do
    [ -x "$BUILD/kernel/$v/obj/linux" ] || prereq_skip_all "the kernel of variant $v is not built (make check builds it)"
  done
done
# The user's own folder, the installed tree and a home for the caches: nothing of them is in the repository.
U=$T/user
ROOT=$T/stage
PREFIX=/opt/umlbed
I=$ROOT$PREFIX
mkdir -p "$U/lib" "$T/home"
export HOME=$T/home
unset XDG_CACHE_HOME UMLBED_KERNEL UMLBED_AGENT UMLBED_LPJ_CACHE UMLBED_JOBS_CACHE

# ---- make install into a staging DESTDIR ----
make -s -C "$SRC" install BUILD="$BUILD" PREFIX=$PREFIX DESTDIR="$ROOT" >"$T/install.out" 2>&1
check "make install PREFIX=$PREFIX DESTDIR=...: exit 0" [ $? = 0 ] || diag "$T/install.out"
check "bin/umlbed is a relative link to the runner" [ "$(readlink "$I/bin/umlbed")" = ../lib/umlbed/runner/umlbed ]
check "the man page is installed" [ -f "$I/share/man/man1/umlbed.1" ]
check "the agent is installed" [ -x "$I/lib/umlbed/guest/umlbed-agent" ]
for g in $GENS; do
  for v in $("$SRC/uml-kernel/generation.sh" get "$g" variants); do
    check "kernel $v is installed with its variant.info, variant.json and modules" \
      [ -x "$I/lib/umlbed/kernel/$v/obj/linux" ] && [ -f "$I/lib/umlbed/kernel/$v/variant.info" ] &&
      [ -f "$I/lib/umlbed/kernel/$v/variant.json" ] &&
      [ -f "$I/lib/umlbed/kernel/$v/modules/umlbed_gpl.ko" ]
  done
done
check "the LuaLS definitions are installed with their folders (umlbed/bed.lua for umlbed.bed)" \
  [ -f "$I/share/umlbed/meta/umlbed.lua" ] && [ -f "$I/share/umlbed/meta/umlbed/bed.lua" ]
check "install.info names the prefix" grep -qx "prefix $PREFIX" "$I/lib/umlbed/install.info"
check "umlbed bench's scenarios and report script are installed" \
  [ -f "$I/share/umlbed/bench/report.pl" ] && [ -f "$I/share/umlbed/bench/scenarios/refault.lua" ]
# The installed runner reads them there, not in the source tree it was built from.
"$I/bin/umlbed" bench --help >"$T/bench-help" 2>&1
check "the installed umlbed bench takes its scenarios from the prefix" grep -q "default: $I/share/umlbed/bench/scenarios" "$T/bench-help" ||
  diag "$T/bench-help"
check "the licences are installed beside the programs (COPYING, LICENSES/)" \
  [ -f "$I/share/umlbed/COPYING" ] && [ -f "$I/share/umlbed/LICENSES/preferred/MIT" ] &&
  [ -f "$I/share/umlbed/LICENSES/preferred/GPL-2.0" ]
# Every file under the prefix is in the manifest, so uninstall can remove it.
manifest_whole() {
  (cd "$I" && find . \( -type f -o -type l \) | sed 's|^\./||' | sort) >"$T/files"
  sort "$I/lib/umlbed/MANIFEST" | diff - "$T/files" >&2
}
check "the manifest lists every installed file" manifest_whole

# ---- a scenario of one's own, with a helper of its own, run by the installed umlbed from its own folder ----
cat >"$U/lib/mine.lua" <<'EOF'
-- mine.lua: a helper of the user's own, beside the scenario.
return { pages = 3 }
EOF
cat >"$U/coherent.lua" <<'EOF'
-- coherent.lua: a user's scenario: the bed library by its stable name, a helper from its own folder.
local bed = require "umlbed.bed"
local mine = require "lib.mine"
return {
  name = "user: an unmap invalidation zaps the mapping",
  run = function(t)
    local b = bed.setup(t, { pages = mine.pages, fill = "u", touch = true })
    assert(b.vm:invalidate { file = b.file, impl = "unmap" })
    t:pages(("-"):rep(mine.pages), b.map, "every page was zapped")
  end,
}
EOF
rm -f "$J"
(cd "$U" && "$I/bin/umlbed" run --json "$J" coherent.lua >"$T/out" 2>"$T/err")
check "the installed umlbed runs a scenario from an unrelated folder: exit 0" [ $? = 0 ] || diag "$T/out" "$T/err"
check "... and it passed" verdict_is "user: an unmap invalidation zaps the mapping" ok
check "... on the installed kernel" jtrue --arg k "$I/lib/umlbed/kernel/full/obj/linux" '.variant == "full" and .kernel == $k'
check "its caches went to ~/.cache/umlbed, not into the prefix" \
  [ -f "$HOME/.cache/umlbed/lpj.cache" ] && [ ! -e "$I/lib/umlbed/lpj.cache" ]
# The probe of the failing side: a name the bed library does not have is an ERROR naming the scenario's line.
sed 's/"umlbed.bed"/"umlbed.nosuch"/' "$U/coherent.lua" >"$U/broken.lua"
(cd "$U" && "$I/bin/umlbed" run broken.lua >"$T/out" 2>"$T/err")
check "a module the bed library lacks is an ERROR naming file:line" grep -q "broken.lua:2: module 'umlbed.nosuch' not found" "$T/out"

# ---- the example module, built from a copy outside the tree against each generation ----
cp -r "$SRC/examples/cluster-fs" "$U/cluster-fs"
for g in $GENS; do
  suffix=$("$SRC/uml-kernel/generation.sh" get "$g" suffix)
  make -s -C "$U/cluster-fs" UMLBED="$UMLBED" clean >/dev/null
  make -C "$U/cluster-fs" UMLBED="$UMLBED" GEN="$g" >"$T/make.out" 2>&1
  check "clusterfs.ko builds against $g's full objtree (umlbed kbuild)" [ -f "$U/cluster-fs/clusterfs.ko" ] ||
    diag "$T/make.out"
  check "... with that kernel's release" \
    [ "$(modinfo -F vermagic "$U/cluster-fs/clusterfs.ko" | cut -d' ' -f1)" = \
      "$("$UMLBED" kbuild --generation "$g" release)" ]
  for v in full gpl-only; do
    rm -f "$J"
    (cd "$U/cluster-fs" && "$I/bin/umlbed" run --generation "$g" --variant "$v" --json "$J" coherency.lua \
      >"$T/out" 2>"$T/err")
    check "clusterfs on $v$suffix: the scenario passes (exit 0)" [ $? = 0 ] || diag "$T/out" "$T/err"
    check "... ok, not skipped" verdict_is "clusterfs: another node's write reaches every mapping" ok
  done
  check "... refused on gpl-only$suffix by the kernel's loader (the scenario's GPL-only path ran)" \
    jtrue --arg v "gpl-only$suffix" --arg g "$g" '.variant == $v and .generation == $g'
  # A vendor building against the GPL-only objtree is refused earlier, by modpost.
  cp -r "$SRC/examples/cluster-fs" "$U/gpl-$g"
  make -C "$U/gpl-$g" UMLBED="$UMLBED" GEN="$g" VARIANT=gpl-only >"$T/make.out" 2>&1
  check "against gpl-only$suffix's objtree, modpost refuses the non-GPL module" \
    grep -q "GPL-incompatible module clusterfs.ko uses GPL-only symbol 'invalidate_mmap_range'" "$T/make.out"
done

# ---- uninstall leaves nothing of it ----
make -s -C "$SRC" uninstall PREFIX=$PREFIX DESTDIR="$ROOT" >"$T/install.out" 2>&1
check "make uninstall: exit 0" [ $? = 0 ] || diag "$T/install.out"
check "make uninstall removes every file it installed" [ -z "$(find "$ROOT" \( -type f -o -type l \) -print -quit)" ]
check "... and umlbed's own folders, not the shared ones" [ ! -e "$I/lib/umlbed" ] && [ ! -e "$I/share/umlbed" ] &&
  [ -d "$I/bin" ]
echo "1..$n"

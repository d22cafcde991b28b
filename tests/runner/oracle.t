#!/usr/bin/env bash
# SPDX-License-Identifier: MIT
# oracle.t: expectations come from the scenarios' own models, not from the kernel under test: make them disagree, see a failure.
. "$(dirname "$0")/common.sh"
need_uml
need_jq
LIC="licensing: GPL module everywhere, proprietary module only on full"
FULL=$(realpath "$KERNEL")

# licensing.lua expects the export that the variant's definition (uml-kernel/variants/NAME) gives. A tree that
# names the full binary gpl-only is a full build that lost patch 0003 as far as the scenario can tell: the
# proprietary module loads where the definition says it must be refused. (Reading the export from the build's
# own Module.symvers, as licensing.lua once did, passed here.)
run run "${K[@]}" "$SRC/scenarios/licensing.lua"
check "licensing passes on the full kernel" verdict_is "$LIC" ok
[ "$rc" = 0 ] || diag "$T/out"
mkdir -p "$T/fake/kernel/gpl-only/obj"
ln -s "$FULL" "$T/fake/kernel/gpl-only/obj/linux"
run run --kernel "$T/fake/kernel/gpl-only/obj/linux" --agent "$AGENT" "$SRC/scenarios/licensing.lua"
check "licensing: a full binary named gpl-only FAILS (the definition wants EXPORT_SYMBOL_GPL)" verdict_is "$LIC" FAILED
# Which expectation failed, and where it came from, are in the failure's text: those texts are what is tested.
check "licensing: it fails because the proprietary module was not refused" \
  diag_re "$LIC" 'the proprietary module is refused: the symbol is GPL-only.*expected "ENOENT", seen nil'
check "licensing: the expectation names the variant's definition" \
  diag_re "$LIC" 'variant gpl-only .* must export invalidate_mmap_range with EXPORT_SYMBOL_GPL \(patches/[^ ]*0001-'
rm -rf "$TMPDIR"/umlbed-*

# The other way round, a port that lost the non-GPL export: a kernel that the tree calls full but whose export is
# still EXPORT_SYMBOL_GPL (the gpl-only build: patch 0003 lost) must fail, because the definition of full wants the
# proprietary module to load. Its modules come along, as they would next to a real build.
GPLONLY=$BUILD/kernel/gpl-only
if [ -x "$GPLONLY/obj/linux" ] && [ -f "$GPLONLY/modules/umlbed_proprietary.ko" ]; then
  mkdir -p "$T/lost3/kernel/full/obj"
  ln -s "$(realpath "$GPLONLY/obj/linux")" "$T/lost3/kernel/full/obj/linux"
  ln -s "$(realpath "$GPLONLY/modules")" "$T/lost3/kernel/full/modules"
  run run --kernel "$T/lost3/kernel/full/obj/linux" --agent "$AGENT" "$SRC/scenarios/licensing.lua"
  check "licensing: a GPL-only export in a kernel named full FAILS (the definition wants EXPORT_SYMBOL)" \
    verdict_is "$LIC" FAILED
  check "licensing: it fails because the proprietary module was refused" \
    diag_has "$LIC" 'the proprietary module loads on EXPORT_SYMBOL'
  rm -rf "$TMPDIR"/umlbed-*
else
  prereq_skip "no gpl-only kernel and modules at $GPLONLY (make kernel modules)"
  prereq_skip "no gpl-only kernel and modules at $GPLONLY (make kernel modules)"
fi

# A kernel outside BUILD/kernel/NAME/obj/linux (a hard link keeps the runner from finding a variant through
# a symbolic link) has no definition to expect an export from: SKIP, with the reason.
mkdir -p "$T/other"
ln "$FULL" "$T/other/linux" 2>/dev/null || cp "$FULL" "$T/other/linux"
run run --kernel "$T/other/linux" --agent "$AGENT" "$SRC/scenarios/licensing.lua"
check "licensing: a kernel that is no known variant is a SKIP" verdict_is "$LIC" SKIP
check "... whose reason names why" diag_re "$LIC" '^kernel .* is not a known variant'
rm -f "$T/other/linux"

# drop-unaligned.lua computes the dropped pages from the seed's rounding. Each generation's broken-rounding variant
# (broken-rounding with the generation's suffix, uml-kernel/generations/) that is built (make broken) must fail it
# for seed: its short ranges keep the private COW copies.
run run "${K[@]}" "$SRC/scenarios/drop-unaligned.lua"
check "drop-unaligned passes on the full kernel" jtrue '(.results | length) == 3 and .summary.ok == 3'
[ "$rc" = 0 ] || diag "$T/out"
for v in $(for g in $("$SRC/uml-kernel/generation.sh" list); do
  echo "broken-rounding$("$SRC/uml-kernel/generation.sh" get "$g" suffix)"
done); do
  if [ ! -x "$BUILD/kernel/$v/obj/linux" ]; then
    # The broken variants are built on demand only (make broken, not make check): not a prerequisite.
    skip "$v is not built (make broken)"
    continue
  fi
  run run --variant "$v" --agent "$AGENT" --filter '*impl=seed*' "$SRC/scenarios/drop-unaligned.lua"
  DU="cache=drop of an unaligned range drops the seed's pages; the rest stays stale [impl=seed]"
  check "drop-unaligned FAILS on $v" verdict_is "$DU" FAILED
  check "drop-unaligned on $v: the COW copy of a short range stayed (the failed expectation's text)" \
    diag_re "$DU" '2 bytes at P-1.*COW copies discarded in the range only: pages expected "-AAAAA", seen "AAAAAA"'
  rm -rf "$TMPDIR"/umlbed-*
done

# The seed's walk holds the mapping's i_mmap_rwsem for reading (its kernel-doc says so); on one UML CPU nothing
# else would notice if it did not. Under gdb, every zap that invalidate_mmap_range_tree() makes is looked at:
# breakpoint 1 stops where the rwsem is not held for reading, breakpoint 2 where it is. rounding.lua's seed run
# has 10 cases, each zapping its one mapping once.
if command -v gdb >/dev/null; then
  walk='$_caller_is("invalidate_mmap_range_tree")'
  count='vma->vm_file->f_mapping->i_mmap_rwsem.count.counter'
  GUARD=$(scaled 300) grun run "${K[@]}" --gdb --batch \
    --break "zap_page_range_single if $walk && ($count < 256 || ($count & 1))" \
    --break "zap_page_range_single if $walk && $count >= 256 && !($count & 1)" \
    --filter '*impl=seed*' "$SRC/scenarios/rounding.lua"
  check "rounding.lua under gdb passes" [ "$rc" = 0 -a "$hung" = 0 ]
  # What gdb printed (the runner passes it on to its standard error) is the probe: the breakpoints it set and hit.
  check "gdb set both breakpoints" [ "$(grep -c '^Breakpoint [12] at 0x' "$T/err")" = 2 ]
  check "no zap of the seed's walk without i_mmap_rwsem held for reading" not grep -q '^Breakpoint 1, ' "$T/err"
  check "all 10 zaps of the seed's walk hold i_mmap_rwsem for reading" [ "$(grep -c '^Breakpoint 2, ' "$T/err")" = 10 ]
  rm -rf "$TMPDIR"/umlbed-*
else
  prereq_skip "no gdb (Debian package gdb)"
fi

# No scenario takes an expectation from the build under test: Module.symvers and the kernel's .config are not
# read by any scenario's code (comments may name them).
reads() { grep -Hn 'Module\.symvers\|/\.config' "$SRC"/scenarios/*.lua "$SRC"/runner/lua/lua/umlbed/*.lua | grep -v '^[^:]*:[0-9]*: *--'; }
check "no scenario reads Module.symvers or a .config" not reads

check "no run folder left" [ "$(leftover_dirs)" = 0 ]
echo "1..$n"

-- SPDX-License-Identifier: MIT
-- private-cow-fork.lua: private COW copies in a parent and its forked child are discarded by seed and unmap, kept by unmap-keep-cows.
--
-- The seed zaps with NULL zap_details, so the anonymous copies that writes to a MAP_PRIVATE
-- mapping made are thrown away with the file pages: the next read shows the file and the
-- private write is gone. Mainline grew even_cows for this: unmap_mapping_range(..., 1) does
-- the same, unmap_mapping_range(..., 0) (truncate's first pass) keeps the copies. Here each of
-- two processes (a parent and a child forked before either wrote) has its own copy of a
-- different page, and a third process maps the file shared and never writes, so the checks
-- cover both copies, the clean private pages and a shared mapping at once.
--
-- Fault counts (minor + major) are exact: the fork comes before any page is touched, so no
-- PTE is copied old (UML would take an extra fault on those), every refault is a read of a
-- clean file page, and a kept COW copy, written after the fork, stays mapped and young.
local bed = require "umlbed.bed"

local NPAGES = 4

local expect = {
  ["seed"] = { parent = "----", child = "----", cows = false },
  ["unmap"] = { parent = "----", child = "----", cows = false },
  ["unmap-keep-cows"] = { parent = "-A--", child = "--A-", cows = true },
}

return {
  name = "private COW copies in forked processes after invalidation",
  matrix = { impl = { "seed", "unmap", "unmap-keep-cows" } },

  run = function(t, p)
    local want = expect[p.impl]
    local b = bed.setup(t, { pages = NPAGES, fill = "f", mode = "private", prot = "rw" })
    local vm, ps, f, parent, m = b.vm, b.ps, b.file, b.proc, b.map
    local child = assert(parent:fork(1))[1]
    local mc = m:on(child)
    local reader = assert(vm:spawn())
    local ms = assert(reader:mmap(f, { mode = "shared", prot = "r" }))

    assert(m:touch("r"))
    assert(mc:touch("r"))
    assert(ms:touch("r"))
    assert(m:poke(ps, "P"))
    assert(mc:poke(2 * ps, "C"))
    t:pages("FAFF", m, "the parent has a private copy of page 1")
    t:pages("FFAF", mc, "the child has a private copy of page 2")
    t:pages("FFFF", ms, "the shared reader maps every page")
    t:eq("f", m:peek(2 * ps, 1), "the child's write is not seen by the parent")
    t:eq("f", mc:peek(ps, 1), "the parent's write is not seen by the child")

    assert(vm:invalidate { file = f, impl = p.impl })
    t:pages(want.parent, m, "the parent after " .. p.impl)
    t:pages(want.child, mc, "the child after " .. p.impl)
    t:pages("----", ms, "the shared reader after " .. p.impl)

    local _, _, faults = assert(ms:faults("r"))
    t:eq(NPAGES, faults, "the shared reader refaults each page once")
    _, _, faults = assert(m:faults("r"))
    t:eq(select(2, want.parent:gsub("-", "")), faults, "the parent refaults each unmapped page once")
    _, _, faults = assert(mc:faults("r"))
    t:eq(select(2, want.child:gsub("-", "")), faults, "the child refaults each unmapped page once")
    if want.cows then
      t:eq("P", m:peek(ps, 1), "the parent's copy survives " .. p.impl)
      t:eq("C", mc:peek(2 * ps, 1), "the child's copy survives " .. p.impl)
    else
      t:eq("f", m:peek(ps, 1), "the parent's private write is gone, the file shows through")
      t:eq("f", mc:peek(2 * ps, 1), "the child's private write is gone, the file shows through")
    end
    t:eq("fff", m:peek(0, 1) .. m:peek(2 * ps, 1) .. m:peek(3 * ps, 1), "the parent's other pages read the file")
    t:eq("fff", mc:peek(0, 1) .. mc:peek(ps, 1) .. mc:peek(3 * ps, 1), "the child's other pages read the file")
    t:eq(("f"):rep(NPAGES * ps), f:read(), "no private write reached the file")
    t:eq(("f"):rep(NPAGES * ps), ms:peek(0, NPAGES * ps), "the shared reader sees the file unchanged")
  end,
}

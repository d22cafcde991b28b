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
    local vm = assert(t:vm())
    local ps = vm.pagesize
    local f = assert(vm:file("data", NPAGES * ps))
    assert(f:write(0, ("f"):rep(NPAGES * ps)))

    local parent = assert(vm:spawn())
    local m = assert(parent:mmap(f, { mode = "private", prot = "rw" }))
    local child = assert(parent:fork(1))[1]
    local mc = m:on(child)
    local reader = assert(vm:spawn())
    local ms = assert(reader:mmap(f, { mode = "shared", prot = "r" }))

    assert(m:touch("r"))
    assert(mc:touch("r"))
    assert(ms:touch("r"))
    assert(m:poke(ps, "P"))
    assert(mc:poke(2 * ps, "C"))
    t:pages(m, "FAFF", "the parent has a private copy of page 1")
    t:pages(mc, "FFAF", "the child has a private copy of page 2")
    t:pages(ms, "FFFF", "the shared reader maps every page")
    t:eq(m:peek(2 * ps, 1), "f", "the child's write is not seen by the parent")
    t:eq(mc:peek(ps, 1), "f", "the parent's write is not seen by the child")

    assert(vm:invalidate { file = f, impl = p.impl })
    t:pages(m, want.parent, "the parent after " .. p.impl)
    t:pages(mc, want.child, "the child after " .. p.impl)
    t:pages(ms, "----", "the shared reader after " .. p.impl)

    local minor, major = ms:faults("r")
    t:eq(minor + major, NPAGES, "the shared reader refaults each page once")
    minor, major = m:faults("r")
    t:eq(minor + major, select(2, want.parent:gsub("-", "")), "the parent refaults each unmapped page once")
    minor, major = mc:faults("r")
    t:eq(minor + major, select(2, want.child:gsub("-", "")), "the child refaults each unmapped page once")
    if want.cows then
      t:eq(m:peek(ps, 1), "P", "the parent's copy survives " .. p.impl)
      t:eq(mc:peek(2 * ps, 1), "C", "the child's copy survives " .. p.impl)
    else
      t:eq(m:peek(ps, 1), "f", "the parent's private write is gone, the file shows through")
      t:eq(mc:peek(2 * ps, 1), "f", "the child's private write is gone, the file shows through")
    end
    t:eq(m:peek(0, 1) .. m:peek(2 * ps, 1) .. m:peek(3 * ps, 1), "fff", "the parent's other pages read the file")
    t:eq(mc:peek(0, 1) .. mc:peek(ps, 1) .. mc:peek(3 * ps, 1), "fff", "the child's other pages read the file")
    t:eq(f:read(), ("f"):rep(NPAGES * ps), "no private write reached the file")
    t:eq(ms:peek(0, NPAGES * ps), ("f"):rep(NPAGES * ps), "the shared reader sees the file unchanged")
  end,
}

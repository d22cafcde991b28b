-- SPDX-License-Identifier: MIT
-- shared-one-process.lua: one process's shared mapping loses exactly the invalidated pages, which refault once each.
--
-- The basic promise of invalidate_mmap_range() (and of its mainline successor
-- unmap_mapping_range()): the PTEs of the pages in the range are gone, every other PTE of the
-- mapping stays, the page cache is not touched (cache=keep), so each invalidated page costs
-- exactly one minor fault on the next access and reads the same data as before. A port that
-- zaps too much costs every user of a cluster filesystem faults; one that zaps too little
-- leaves stale data mapped.
--
-- Fault counts (minor + major) are exact here: the pages are clean, the accesses are reads,
-- and fault-around is one page (the agent's default), so one access of a missing page is one
-- fault and one of a present page none.
local bed = require "umlbed.bed"
local pd = require "umlbed.pagedata"

local NPAGES = 8
local FIRST, LAST = 2, 4 -- the invalidated file pages

return {
  name = "one process: a shared mapping loses exactly the invalidated pages",
  matrix = { impl = { "seed", "unmap" } },

  run = function(t, p)
    local b = bed.setup(t, { pages = NPAGES, fill = pd.fill })
    local vm, ps, f, m = b.vm, b.ps, b.file, b.map
    local want_data = pd.firstbytes_of(pd.pages(ps, NPAGES), ps)

    local _, _, faults = assert(m:faults("r"))
    t:eq(NPAGES, faults, "the first touch faults every page once")
    t:pages(pd.states(NPAGES, "F"), m, "every page mapped from the file")
    t:eq(("1"):rep(NPAGES), m:mincore(), "every page is in the page cache")

    local before = assert(vm:stats())
    assert(vm:invalidate { file = f, offset = FIRST * ps, length = (LAST - FIRST + 1) * ps, impl = p.impl })
    t:pages(pd.states(NPAGES, "F", FIRST, LAST, "-"), m, "pages 2..4 lost their PTEs, the others kept them")
    t:eq(("1"):rep(NPAGES), m:mincore(), "the page cache is kept (cache=keep)")
    t:eq(("1"):rep(NPAGES), f:cached(), "the file's page cache is kept")

    local after = assert(vm:stats())
    local key = p.impl == "seed" and "seed_calls" or "unmap_calls"
    t:eq(1, after[key] - before[key], "one call of " .. p.impl)
    t:eq(1, after.calls - before.calls, "one trigger write")
    t:eq(0, after.failures - before.failures, "no failure")
    t:eq(0, after.cache_drops - before.cache_drops, "no cache drop with cache=keep")
    if p.impl == "seed" then
      -- The interval tree returns the one VMA, and it overlaps the range.
      t:eq(1, after.last_seed_vmas_visited, "seed visited the one VMA")
      t:eq(1, after.last_seed_vmas_zapped, "seed zapped the one VMA")
    end

    -- The pages outside the range still have their PTEs: touching them faults nothing.
    _, _, faults = assert(m:faults("r", 0, FIRST))
    t:eq(0, faults, "pages before the range do not fault")
    _, _, faults = assert(m:faults("r", LAST + 1, NPAGES - LAST - 1))
    t:eq(0, faults, "pages after the range do not fault")
    _, _, faults = assert(m:faults("r", FIRST, LAST - FIRST + 1))
    t:eq(LAST - FIRST + 1, faults, "each invalidated page refaults exactly once")
    -- minor and major are not checked apart: a page that carries the readahead mark makes
    -- filemap_fault() drop mmap_lock and retry, and a retried fault counts as major even
    -- though the page is cached. The sum is exact; mincore above shows the cache was kept.
    t:pages(pd.states(NPAGES, "F"), m, "every page mapped again")
    t:eq(want_data, pd.firstbytes(m, ps), "the data read back is unchanged")
    t:eq(pd.pages(ps, NPAGES), f:read(), "the host file is unchanged")
  end,
}

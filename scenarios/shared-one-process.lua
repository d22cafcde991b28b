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
local here = debug.getinfo(1, "S").source:match("^@(.*/)") or "./"
local pd = dofile(here .. "lib/pagedata.lua")

local NPAGES = 8
local FIRST, LAST = 2, 4 -- the invalidated file pages

return {
  name = "one process: a shared mapping loses exactly the invalidated pages",
  matrix = { impl = { "seed", "unmap" } },

  run = function(t, p)
    local vm = assert(t:vm())
    local ps = vm.pagesize
    local f = assert(vm:file("data", NPAGES * ps))
    assert(pd.fill(f, ps, NPAGES))
    local want_data = pd.firstbytes_of(pd.pages(ps, NPAGES), ps)

    local proc = assert(vm:spawn())
    local m = assert(proc:mmap(f, { mode = "shared", prot = "r" }))
    local minor, major = m:faults("r")
    t:eq(minor + major, NPAGES, "the first touch faults every page once")
    t:pages(m, pd.states(NPAGES, "F"), "every page mapped from the file")
    t:eq(m:mincore(), ("1"):rep(NPAGES), "every page is in the page cache")

    local before = assert(vm:stats())
    assert(vm:invalidate { file = f, offset = FIRST * ps, length = (LAST - FIRST + 1) * ps, impl = p.impl })
    t:pages(m, pd.states(NPAGES, "F", FIRST, LAST, "-"), "pages 2..4 lost their PTEs, the others kept them")
    t:eq(m:mincore(), ("1"):rep(NPAGES), "the page cache is kept (cache=keep)")
    t:eq(f:cached(), ("1"):rep(NPAGES), "the file's page cache is kept")

    local after = assert(vm:stats())
    local key = p.impl == "seed" and "seed_calls" or "unmap_calls"
    t:eq(after[key] - before[key], 1, "one call of " .. p.impl)
    t:eq(after.calls - before.calls, 1, "one trigger write")
    t:eq(after.failures - before.failures, 0, "no failure")
    t:eq(after.cache_drops - before.cache_drops, 0, "no cache drop with cache=keep")
    if p.impl == "seed" then
      -- The interval tree returns the one VMA, and it overlaps the range.
      t:eq(after.last_seed_vmas_visited, 1, "seed visited the one VMA")
      t:eq(after.last_seed_vmas_zapped, 1, "seed zapped the one VMA")
    end

    -- The pages outside the range still have their PTEs: touching them faults nothing.
    minor, major = m:faults("r", 0, FIRST)
    t:eq(minor + major, 0, "pages before the range do not fault")
    minor, major = m:faults("r", LAST + 1, NPAGES - LAST - 1)
    t:eq(minor + major, 0, "pages after the range do not fault")
    minor, major = m:faults("r", FIRST, LAST - FIRST + 1)
    t:eq(minor + major, LAST - FIRST + 1, "each invalidated page refaults exactly once")
    -- minor and major are not checked apart: a page that carries the readahead mark makes
    -- filemap_fault() drop mmap_lock and retry, and a retried fault counts as major even
    -- though the page is cached. The sum is exact; mincore above shows the cache was kept.
    t:pages(m, pd.states(NPAGES, "F"), "every page mapped again")
    t:eq(pd.firstbytes(m, ps), want_data, "the data read back is unchanged")
    t:eq(f:read(), pd.pages(ps, NPAGES), "the host file is unchanged")
  end,
}

-- SPDX-License-Identifier: MIT
-- cluster-coherency.lua: after another node rewrites the file, cache=keep refaults stale data and cache=drop the new data.
--
-- The use case the seed patch was written for (GPFS): another node changes a file behind this
-- node's page cache (here: the host writes to the shared folder). Invalidating the mappings is
-- not enough on its own: with the page cache kept (cache=keep) the sharers refault the same,
-- stale pages. Only when the cache is dropped as well (cache=drop, what a cluster filesystem
-- does with invalidate_inode_pages2_range()) do they refault from the file and see the other
-- node's data; mincore shows the range leave the cache and come back. Pages outside the range
-- keep their PTEs and so keep showing the old data: the range is the filesystem's business.
--
-- Fault counts (minor + major) are exact: clean pages, read accesses, one fault per missing
-- page, and sharers forked after the owner mapped the file fault their own PTEs.
local bed = require "umlbed.bed"
local pd = require "umlbed.pagedata"

local NPAGES, SHARERS = 4, 3

return {
  name = "cluster coherency: another node's write is seen only with cache=drop",
  matrix = { impl = { "seed", "unmap" }, cache = { "keep", "drop" } },

  run = function(t, p)
    local b = bed.setup(t, { pages = NPAGES, fill = pd.fill })
    local vm, ps, f, owner, m = b.vm, b.ps, b.file, b.proc, b.map
    local old = pd.firstbytes_of(pd.pages(ps, NPAGES, 0, 0), ps)
    local new = pd.firstbytes_of(pd.pages(ps, NPAGES, 0, 1), ps)
    local all = bed.sharers(owner, m, SHARERS)
    for i, ms in ipairs(all) do
      assert(ms:touch("r"))
      t:eq(old, pd.firstbytes(ms, ps), "process " .. i .. " reads the first version")
    end

    -- The other node rewrites every page of the file on disk.
    assert(pd.fill(f, ps, NPAGES, 1))
    for i, ms in ipairs(all) do
      t:eq(old, pd.firstbytes(ms, ps), "process " .. i .. ": the new data is invisible before invalidation")
    end

    local before = assert(vm:stats())
    assert(vm:invalidate { file = f, offset = ps, length = 2 * ps, impl = p.impl, cache = p.cache })
    local after = assert(vm:stats())
    t:eq(p.cache == "drop" and 1 or 0, after.cache_drops - before.cache_drops, "cache drops counted")
    t:eq(0, after.failures - before.failures, "the call succeeded")
    t:eq(p.cache == "drop" and "1001" or "1111", f:cached(), "the page cache after cache=" .. p.cache)
    t:eq(p.cache == "drop" and "1001" or "1111", m:mincore(), "mincore in the owner agrees")

    local want = p.cache == "drop" and old:sub(1, 1) .. new:sub(2, 3) .. old:sub(4, 4) or old
    for i, ms in ipairs(all) do
      t:pages("F--F", ms, "process " .. i .. " lost pages 1..2")
      local _, _, faults = assert(ms:faults("r"))
      t:eq(2, faults, "process " .. i .. " refaults the two pages once each")
      t:pages("FFFF", ms, "process " .. i .. " maps every page again")
      t:eq(want, pd.firstbytes(ms, ps), "process " .. i .. " reads " ..
           (p.cache == "drop" and "the new data in the range, stale data outside it" or "stale data everywhere"))
    end
    t:eq("1111", f:cached(), "the refaults refilled the page cache")
    t:eq("1111", m:mincore(), "mincore shows the cache refilled")
  end,
}

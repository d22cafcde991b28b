-- SPDX-License-Identifier: MIT
-- zero-length.lua: a zero length does nothing in the seed but unmaps to the end of the file in mainline.
--
-- The seed's kernel-doc: "A holelen of zero invalidates nothing" (hlen == 0 returns early).
-- Mainline unmap_mapping_range() documents the opposite: "holelen: size of prospective hole
-- in bytes ... zero means all pages to the end of the file", which truncate relies on. Code
-- moving from one interface to the other must know this; it is the recorded, expected
-- difference that the differential scenario allows. The trigger's cache=drop follows each
-- interface's meaning: nothing for seed, up to the end of the file for unmap.
--
-- Fault counts (minor + major) are exact: clean pages, read accesses, one fault per missing page.
local bed = require "umlbed.bed"

local NPAGES = 8
local OFFSET_PAGES = 2

local expect = {
  ["seed"] = { pages = "FFFFFFFF", cached = { keep = "11111111", drop = "11111111" }, drops = 0 },
  ["unmap"] = { pages = "FF------", cached = { keep = "11111111", drop = "11000000" }, drops = 1 },
  ["unmap-keep-cows"] = { pages = "FF------", cached = { keep = "11111111", drop = "11000000" }, drops = 1 },
}

return {
  name = "zero length: seed does nothing, mainline unmaps to the end of the file",
  matrix = { impl = { "seed", "unmap", "unmap-keep-cows" }, cache = { "keep", "drop" } },

  run = function(t, p)
    local want = expect[p.impl]
    local b = bed.setup(t, { pages = NPAGES, fill = "z", touch = true })
    local vm, ps, f, m = b.vm, b.ps, b.file, b.map
    t:eq("11111111", f:cached(), "every page cached before")

    local before = assert(vm:stats())
    assert(vm:invalidate { file = f, offset = OFFSET_PAGES * ps, length = 0, impl = p.impl, cache = p.cache })
    local after = assert(vm:stats())
    t:pages(want.pages, m, "after a zero-length " .. p.impl)
    t:eq(want.cached[p.cache], f:cached(), "page cache after cache=" .. p.cache)
    t:eq(0, after.failures - before.failures, "the call succeeded")
    t:eq(p.cache == "drop" and want.drops or 0, after.cache_drops - before.cache_drops, "cache drops counted")
    if p.impl == "seed" then
      t:eq(0, after.last_seed_vmas_visited, "seed returned before looking at any VMA")
      t:eq(0, after.last_seed_vmas_zapped, "seed zapped no VMA")
    end

    local _, _, faults = assert(m:faults("r"))
    t:eq(select(2, want.pages:gsub("-", "")), faults, "one refault per unmapped page")
    t:eq(("z"):rep(NPAGES * ps), m:peek(0, NPAGES * ps), "the data is unchanged")
  end,
}

-- SPDX-License-Identifier: MIT
-- range-overlaps.lua: ranges that start before, end after, cover, sit inside or miss a VMA zap just the overlap.
--
-- The seed clips the file page range to each VMA (zba/zea in invalidate_mmap_range_tree()) and
-- leaves VMAs the range does not touch alone; the interval tree should not even return them,
-- which the trigger's last_seed_vmas_visited shows. A clipping error zaps pages outside the
-- range (needless faults) or zaps nothing at the edges (stale data). The VMA maps file pages
-- 4..7 of a 16-page file, so both of its edges are away from the file's.
--
-- Fault counts (minor + major) are exact: clean pages, read accesses, one fault per missing page.
local bed = require "umlbed.bed"
local pd = require "umlbed.pagedata"

local FILEPAGES, VMA_FIRST, VMA_PAGES = 16, 4, 4

-- what, first file page, page count, expected states of the VMA's 4 pages, VMAs seed visits.
local cases = {
  { "starts before the VMA", 2, 4, "--FF", 1 },
  { "ends after the VMA", 6, 4, "FF--", 1 },
  { "covers the VMA exactly", 4, 4, "----", 1 },
  { "covers the whole file", 0, 16, "----", 1 },
  { "inside the VMA", 5, 2, "F--F", 1 },
  { "one page at the VMA's first page", 4, 1, "-FFF", 1 },
  { "one page at the VMA's last page", 7, 1, "FFF-", 1 },
  { "disjoint, just before the VMA", 0, 4, "FFFF", 0 },
  { "disjoint, just after the VMA", 8, 4, "FFFF", 0 },
  { "disjoint, beyond the end of the file", 20, 4, "FFFF", 0 },
}

return {
  name = "ranges overlapping a VMA zap exactly the overlap",
  matrix = { impl = { "seed", "unmap" } },

  run = function(t, p)
    local b = bed.setup(t, { pages = FILEPAGES, fill = pd.fill, first = VMA_FIRST, count = VMA_PAGES, touch = true })
    local vm, ps, f, m = b.vm, b.ps, b.file, b.map
    local want_data = pd.firstbytes_of(pd.pages(ps, VMA_PAGES, VMA_FIRST), ps)

    for _, c in ipairs(cases) do
      local what = ("%s (file pages %d..%d)"):format(c[1], c[2], c[2] + c[3] - 1)
      t:pages("FFFF", m, what .. ": every page mapped before")
      local before = assert(vm:stats())
      assert(vm:invalidate { file = f, offset = c[2] * ps, length = c[3] * ps, impl = p.impl })
      t:pages(c[4], m, what)
      local after = assert(vm:stats())
      local key = p.impl == "seed" and "seed_calls" or "unmap_calls"
      t:eq(1, after[key] - before[key], what .. ": one call")
      if p.impl == "seed" then
        t:eq(c[5], after.last_seed_vmas_visited, what .. ": VMAs visited")
        t:eq(c[5], after.last_seed_vmas_zapped, what .. ": VMAs zapped")
      end
      local _, _, faults = assert(m:faults("r"))
      t:eq(select(2, c[4]:gsub("-", "")), faults, what .. ": one refault per invalidated page")
      t:eq(want_data, pd.firstbytes(m, ps), what .. ": the data is unchanged")
    end
  end,
}

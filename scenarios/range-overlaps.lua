-- range-overlaps.lua: ranges that start before, end after, cover, sit inside or miss a VMA zap just the overlap.
--
-- The seed clips the file page range to each VMA (zba/zea in invalidate_mmap_range_tree()) and
-- leaves VMAs the range does not touch alone; the interval tree should not even return them,
-- which the trigger's last_seed_vmas_visited shows. A clipping error zaps pages outside the
-- range (needless faults) or zaps nothing at the edges (stale data). The VMA maps file pages
-- 4..7 of a 16-page file, so both of its edges are away from the file's.
--
-- Fault counts (minor + major) are exact: clean pages, read accesses, one fault per missing page.
local here = debug.getinfo(1, "S").source:match("^@(.*/)") or "./"
local pd = dofile(here .. "lib/pagedata.lua")

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
    local vm = assert(t:vm())
    local ps = vm.pagesize
    local f = assert(vm:file("data", FILEPAGES * ps))
    assert(pd.fill(f, ps, FILEPAGES))
    local want_data = pd.firstbytes_of(pd.pages(ps, VMA_PAGES, VMA_FIRST), ps)
    local proc = assert(vm:spawn())
    local m = assert(proc:mmap(f, { offset = VMA_FIRST * ps, length = VMA_PAGES * ps, mode = "shared", prot = "r" }))
    assert(m:touch("r"))

    for _, c in ipairs(cases) do
      local what = ("%s (file pages %d..%d)"):format(c[1], c[2], c[2] + c[3] - 1)
      t:pages(m, "FFFF", what .. ": every page mapped before")
      local before = assert(vm:stats())
      assert(vm:invalidate { file = f, offset = c[2] * ps, length = c[3] * ps, impl = p.impl })
      t:pages(m, c[4], what)
      local after = assert(vm:stats())
      local key = p.impl == "seed" and "seed_calls" or "unmap_calls"
      t:eq(after[key] - before[key], 1, what .. ": one call")
      if p.impl == "seed" then
        t:eq(after.last_seed_vmas_visited, c[5], what .. ": VMAs visited")
        t:eq(after.last_seed_vmas_zapped, c[5], what .. ": VMAs zapped")
      end
      local minor, major = m:faults("r")
      t:eq(minor + major, select(2, c[4]:gsub("-", "")), what .. ": one refault per invalidated page")
      t:eq(pd.firstbytes(m, ps), want_data, what .. ": the data is unchanged")
    end
  end,
}

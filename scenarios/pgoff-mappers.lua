-- SPDX-License-Identifier: MIT
-- pgoff-mappers.lua: mappings at different file offsets lose the user pages that hold the invalidated file pages.
--
-- The seed turns a file page range into user addresses per VMA with vm_pgoff (the file page
-- at the VMA's start): user page = file page - vm_pgoff. Every mapping that does not start at
-- file offset 0 depends on that arithmetic; getting it wrong zaps the wrong pages (stale data
-- stays mapped) or pages of some other mapping. Here file pages 10..11 are invalidated under
-- four processes that map the file at offsets 8, 0, 0 (half) and 4, and one process that maps
-- it twice.
--
-- Fault counts (minor + major) are exact: clean pages, read accesses, one fault per missing page.
local pd = require "umlbed.pagedata"

local FILEPAGES = 16
local HOLE_FIRST, HOLE_LAST = 10, 11

-- name, first file page, number of pages, expected states after the invalidation.
local layout = {
  { "file pages 8..15", 8, 8, "FF--FFFF" },
  { "file pages 0..15", 0, 16, "FFFFFFFFFF--FFFF" },
  { "file pages 0..7", 0, 8, "FFFFFFFF" },
  { "file pages 4..11", 4, 8, "FFFFFF--" },
  { "file pages 10..11", 10, 2, "--" },
}

return {
  name = "mappings at file offsets (vm_pgoff) lose the right user pages",
  matrix = { impl = { "seed", "unmap" } },

  run = function(t, p)
    local vm = assert(t:vm())
    local ps = vm.pagesize
    local f = assert(vm:file("data", FILEPAGES * ps))
    assert(pd.fill(f, ps, FILEPAGES))

    -- One process per mapping, and a last one that holds two mappings (8..15 and 0..7) at
    -- once, so that a zap landing outside its VMA would hit the neighbour.
    local maps = {}
    for _, l in ipairs(layout) do
      local proc = assert(vm:spawn())
      local m = assert(proc:mmap(f, { offset = l[2] * ps, length = l[3] * ps, mode = "shared", prot = "r" }))
      maps[#maps + 1] = { m = m, name = l[1], first = l[2], want = l[4] }
    end
    local both = assert(vm:spawn())
    for i = 1, 3, 2 do
      local l = layout[i]
      local m = assert(both:mmap(f, { offset = l[2] * ps, length = l[3] * ps, mode = "shared", prot = "r" }))
      maps[#maps + 1] = { m = m, name = l[1] .. " (two mappings in one process)", first = l[2], want = l[4] }
    end

    for _, x in ipairs(maps) do
      assert(x.m:touch("r"))
      t:pages(pd.states(x.m.npages, "F"), x.m, x.name .. ": every page mapped")
      t:eq(pd.firstbytes_of(pd.pages(ps, x.m.npages, x.first), ps), pd.firstbytes(x.m, ps),
           x.name .. ": user page 0 holds file page " .. x.first)
    end

    assert(vm:invalidate { file = f, offset = HOLE_FIRST * ps, length = (HOLE_LAST - HOLE_FIRST + 1) * ps,
                           impl = p.impl })

    for _, x in ipairs(maps) do
      t:pages(x.want, x.m, x.name .. ": after invalidating file pages 10..11")
    end
    if p.impl == "seed" then
      -- The interval tree returns only the VMAs that overlap file pages 10..11: 8..15 twice,
      -- 0..15, 4..11 and 10..11; the two mappings of 0..7 are not even visited.
      local st = assert(vm:stats())
      t:eq(5, st.last_seed_vmas_visited, "seed visited the 5 overlapping VMAs")
      t:eq(5, st.last_seed_vmas_zapped, "seed zapped the 5 overlapping VMAs")
    end

    for _, x in ipairs(maps) do
      local gone = select(2, x.want:gsub("-", ""))
      local _, _, faults = assert(x.m:faults("r"))
      t:eq(gone, faults, x.name .. ": one refault per invalidated page")
      t:eq(pd.firstbytes_of(pd.pages(ps, x.m.npages, x.first), ps), pd.firstbytes(x.m, ps),
           x.name .. ": every user page still reads its own file page")
    end
  end,
}

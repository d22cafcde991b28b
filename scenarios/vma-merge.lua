-- SPDX-License-Identifier: MIT
-- vma-merge.lua: a piece of a file mapping moved away and back merges with the mapping beside it, and invalidation still finds each page at its file offset.
--
-- The invalidation computes a user address from the VMA's vm_pgoff: a VMA whose vm_pgoff is wrong hides the pages
-- it maps from an invalidation of their file range and exposes others. One way to get such a VMA is a merge: when
-- mremap() moves a range to just below a mapping of the next file pages, the two become one VMA, which must take the
-- moved range's file offset (Linux 6.3 kept the one of the mapping below: "mm/mremap: fix vm_pgoff in vma_merge()
-- case 3", v6.4). The scenario maps file pages 1..3 at B+P, moves page 1 to a free address C and back to B+P, where
-- it merges with pages 2..3. Its model: the merged mapping maps file pages 1..3, so an invalidation of file page 1
-- takes its first page only, and after an invalidation of the whole file every page refaults its own file page.
local bed = require "umlbed.bed"
local pd = require "umlbed.pagedata"

local NPAGES = 4

return {
  name = "a range moved back beside its mapping merges, and invalidation finds its pages at their file offsets",
  matrix = { impl = { "seed", "unmap" } },

  run = function(t, p)
    local b = bed.setup(t, { pages = NPAGES, fill = pd.fill, map = false })
    local vm, ps, f = b.vm, b.ps, b.file
    local proc = assert(vm:spawn())
    -- B: the address of a free range of NPAGES pages (mapped once, then unmapped), so that nothing of the agent's
    -- lies at B, below the mapping: the moved page can merge with the pages above it only.
    local probe = assert(proc:mmap(f, { length = NPAGES * ps }))
    local B = probe.addr
    assert(probe:munmap())
    local m = assert(proc:mmap(f, { offset = ps, length = 3 * ps, addr = B + ps }))
    assert(m:touch("r"))
    t:pages("FFF", m, "file pages 1..3 mapped at B+P before the move")
    -- C: a free range of three pages (the one-page hole at B cannot take it), far from the mapping.
    local away = assert(proc:mmap(f, { length = 3 * ps }))
    local C = away.addr
    assert(away:munmap())
    t:eq(C, assert(proc:mremap(B + ps, ps, C)), "page 1 moved to C")
    t:pages("-FF", m, "B+P is empty after the move")
    t:eq(B + ps, assert(proc:mremap(C, ps, B + ps)), "page 1 moved back to B+P")
    t:pages("FFF", m, "the moved page kept its PTE, the mapping is whole again")
    -- File page 1 is the merged mapping's first page only.
    assert(vm:invalidate { file = f, offset = ps, length = ps, impl = p.impl })
    t:pages("-FF", m, "an invalidation of file page 1 takes B+P (the moved page) and nothing else")
    assert(m:touch("r"))
    t:pages("FFF", m, "every page mapped again")
    -- The merge itself, as /proc/PID/maps shows it: one VMA from B+P to B+4P, at file offset P.
    local maps = assert(vm:readfile("/proc/" .. proc.pid .. "/maps"))
    local lines = {}
    for line in maps:gmatch("[^\n]+") do
      local lo, hi, off = line:match("^(%x+)-(%x+) %S+ (%x+)")
      lo, hi = tonumber(lo, 16), tonumber(hi, 16)
      if lo and lo < B + 4 * ps and hi > B then
        lines[#lines + 1] = ("%x-%x at file offset %d"):format(lo, hi, tonumber(off, 16))
      end
    end
    -- The drop below needs the VMA right: a wrong one ends the run here (a drop of a page that the invalidation
    -- left mapped would stop the kernel at its BUG_ON).
    local want = ("%x-%x at file offset %d"):format(B + ps, B + 4 * ps, ps)
    local seen = table.concat(lines, "; ")
    t:require(seen == want, "one VMA maps file pages 1..3 from B+P (the moved page merged with the pages above it):"
      .. " expected %q, seen %q", want, seen)
    t:eq("bcd", pd.firstbytes(m, ps), "the mapping reads file pages 1..3")

    -- Every page of the file: each refault brings the page's own file page, here from another node's write.
    assert(pd.fill(f, ps, NPAGES, 1))
    assert(vm:invalidate { file = f, offset = 0, length = NPAGES * ps, impl = p.impl, cache = "drop" })
    t:pages("---", m, "an invalidation of the whole file takes every page of the merged mapping")
    t:eq(pd.letter(1, 1) .. pd.letter(2, 1) .. pd.letter(3, 1), pd.firstbytes(m, ps),
         "each page refaults its own file page, in the new data")
  end,
}

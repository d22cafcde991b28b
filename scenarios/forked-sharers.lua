-- SPDX-License-Identifier: MIT
-- forked-sharers.lua: 1, 3 or 16 forked sharers of a shared mapping all lose exactly the range and refault on their own.
--
-- invalidate_mmap_range() walks every VMA that maps the file (the address_space's interval
-- tree), not just the caller's: that is what lets a cluster filesystem shoot down a range in
-- every process of a node at once. Each process has its own page tables, so each must lose the
-- same pages, keep the others, and pay its own fault per page when it touches them again.
--
-- Fault counts (minor + major) are exact: shared file pages are not copied by fork(), so each
-- sharer faults its own PTEs in with read accesses of clean pages, one fault per page.
local bed = require "umlbed.bed"
local pd = require "umlbed.pagedata"

local NPAGES = 4

return {
  name = "forked sharers each lose exactly the range",
  matrix = { sharers = { 1, 3, 16 }, impl = { "seed", "unmap" } },

  run = function(t, p)
    local b = bed.setup(t, { pages = NPAGES, fill = pd.fill, touch = true })
    local vm, ps, f, owner, m = b.vm, b.ps, b.file, b.proc, b.map
    local letters = pd.firstbytes_of(pd.pages(ps, NPAGES), ps)
    local kids = assert(owner:fork(p.sharers))
    t:eq(p.sharers, #kids, "fork made every sharer")
    local all = { m }
    for _, k in ipairs(kids) do all[#all + 1] = m:on(k) end

    for i, ms in ipairs(all) do
      if i > 1 then
        -- fork() does not copy the PTEs of a shared file mapping: the sharer faults its own.
        t:pages("----", ms, "sharer " .. i - 1 .. " before its first touch")
        local _, _, faults = assert(ms:faults("r"))
        t:eq(NPAGES, faults, "sharer " .. i - 1 .. " faults each page once")
      end
      t:pages("FFFF", ms, "process " .. i .. " has every page mapped")
    end

    assert(vm:invalidate { file = f, offset = ps, length = 2 * ps, impl = p.impl })

    for i, ms in ipairs(all) do
      local who = i == 1 and "the owner" or "sharer " .. i - 1
      t:pages("F--F", ms, who .. " lost pages 1..2 and kept 0 and 3")
    end
    if p.impl == "seed" then
      local st = assert(vm:stats())
      t:eq(p.sharers + 1, st.last_seed_vmas_visited, "seed visited one VMA per process")
      t:eq(p.sharers + 1, st.last_seed_vmas_zapped, "seed zapped one VMA per process")
    end

    -- Each process refaults on its own: the others' refaults do not map its pages.
    for i, ms in ipairs(all) do
      local who = i == 1 and "the owner" or "sharer " .. i - 1
      local _, _, first = assert(ms:faults("r", 0, 1))
      local _, _, last = assert(ms:faults("r", 3, 1))
      t:eq(0, first + last, who .. ": the kept pages do not fault")
      local _, _, faults = assert(ms:faults("r", 1, 2))
      t:eq(2, faults, who .. ": each invalidated page refaults once")
      t:pages("FFFF", ms, who .. " has every page mapped again")
      t:eq(letters, pd.firstbytes(ms, ps), who .. " reads the same data")
    end
  end,
}

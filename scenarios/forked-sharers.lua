-- forked-sharers.lua: 1, 3 or 16 forked sharers of a shared mapping all lose exactly the range and refault on their own.
--
-- invalidate_mmap_range() walks every VMA that maps the file (the address_space's interval
-- tree), not just the caller's: that is what lets a cluster filesystem shoot down a range in
-- every process of a node at once. Each process has its own page tables, so each must lose the
-- same pages, keep the others, and pay its own fault per page when it touches them again.
--
-- Fault counts (minor + major) are exact: shared file pages are not copied by fork(), so each
-- sharer faults its own PTEs in with read accesses of clean pages, one fault per page.
local here = debug.getinfo(1, "S").source:match("^@(.*/)") or "./"
local pd = dofile(here .. "lib/pagedata.lua")

local NPAGES = 4

return {
  name = "forked sharers each lose exactly the range",
  matrix = { sharers = { 1, 3, 16 }, impl = { "seed", "unmap" } },

  run = function(t, p)
    local vm = assert(t:vm())
    local ps = vm.pagesize
    local f = assert(vm:file("data", NPAGES * ps))
    assert(pd.fill(f, ps, NPAGES))
    local letters = pd.firstbytes_of(pd.pages(ps, NPAGES), ps)

    local owner = assert(vm:spawn())
    local m = assert(owner:mmap(f, { mode = "shared", prot = "r" }))
    assert(m:touch("r"))
    local kids = assert(owner:fork(p.sharers))
    t:eq(#kids, p.sharers, "fork made every sharer")
    local all = { m }
    for _, k in ipairs(kids) do all[#all + 1] = m:on(k) end

    for i, ms in ipairs(all) do
      if i > 1 then
        -- fork() does not copy the PTEs of a shared file mapping: the sharer faults its own.
        t:pages(ms, "----", "sharer " .. i - 1 .. " before its first touch")
        local minor, major = ms:faults("r")
        t:eq(minor + major, NPAGES, "sharer " .. i - 1 .. " faults each page once")
      end
      t:pages(ms, "FFFF", "process " .. i .. " has every page mapped")
    end

    assert(vm:invalidate { file = f, offset = ps, length = 2 * ps, impl = p.impl })

    for i, ms in ipairs(all) do
      local who = i == 1 and "the owner" or "sharer " .. i - 1
      t:pages(ms, "F--F", who .. " lost pages 1..2 and kept 0 and 3")
    end
    if p.impl == "seed" then
      local st = assert(vm:stats())
      t:eq(st.last_seed_vmas_visited, p.sharers + 1, "seed visited one VMA per process")
      t:eq(st.last_seed_vmas_zapped, p.sharers + 1, "seed zapped one VMA per process")
    end

    -- Each process refaults on its own: the others' refaults do not map its pages.
    for i, ms in ipairs(all) do
      local who = i == 1 and "the owner" or "sharer " .. i - 1
      local minor, major = ms:faults("r", 0, 1)
      local minor2, major2 = ms:faults("r", 3, 1)
      t:eq(minor + major + minor2 + major2, 0, who .. ": the kept pages do not fault")
      minor, major = ms:faults("r", 1, 2)
      t:eq(minor + major, 2, who .. ": each invalidated page refaults once")
      t:pages(ms, "FFFF", who .. " has every page mapped again")
      t:eq(pd.firstbytes(ms, ps), letters, who .. " reads the same data")
    end
  end,
}

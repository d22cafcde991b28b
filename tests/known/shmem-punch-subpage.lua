-- SPDX-License-Identifier: MIT
-- shmem-punch-subpage.lua: a hole punched in a tmpfs file unmaps the pages wholly inside it and no other.
--
-- A known issue of the stock kernels (docs/known-issues.md), not of the series: shmem_fallocate() computes the
-- last byte to unmap as round_down(offset + len, PAGE_SIZE) - 1, which is -1 for a hole that ends inside page 0,
-- and compares it with the first as u64, so unmap_mapping_range() gets a length of -4096 (page 1 to the end of the
-- file) or, for a hole at byte 0, of 0 (the whole file). No data is lost (the pages stay in the file), but each
-- mapper refaults them. This file is not part of the suite: it FAILS on 6.1 and 6.12 today, and joins scenarios/
-- when a kernel of ours is fixed.
local NP = 4

-- The model: the pages wholly inside [off, off + len) lose their PTE, every other page keeps it.
local function expected(ps, off, len)
  local s = {}
  for i = 0, NP - 1 do
    s[#s + 1] = (i * ps >= off and (i + 1) * ps <= off + len) and "-" or "F"
  end
  return table.concat(s)
end

return {
  name = "a hole punch in a tmpfs file unmaps exactly the pages wholly inside it",

  run = function(t)
    local vm = assert(t:vm())
    local ps = vm.pagesize
    -- A tmpfs file (the guest's /tmp): /shared is hostfs, which cannot punch holes.
    local sh = assert(vm:shell())
    local path = "/tmp/punch-data"
    local fill = ("dd if=/dev/zero bs=%d count=%d 2>/dev/null | tr '\\000' o >%s"):format(ps, NP, path)
    local st, out = vm:run { path = sh, args = { "-c", fill } }
    t:require(st == "exit:0", "a tmpfs file of %d pages (%s: %s)", NP, st, out)
    local P = assert(vm:spawn())
    local m = assert(P:mmap(path, { length = NP * ps, mode = "shared", prot = "r" }))
    -- The first case unmaps a page, so the probe is shown to see an unmap before the others trust its silence.
    local cases = {
      { ps, ps, "the whole of page 1" },
      { ps + 100, 200, "a hole inside page 1" },
      { 100, 200, "a hole inside page 0" },
      { 0, 200, "a hole at the start of page 0" },
    }
    for _, c in ipairs(cases) do
      for i = 0, NP - 1 do assert(m:peek(i * ps, 1)) end
      t:require(assert(m:pages()) == ("F"):rep(NP), "every page mapped before the punch of %s", c[3])
      assert(P:punch(path, c[1], c[2]))
      t:eq(expected(ps, c[1], c[2]), assert(m:pages()), c[3] .. ": only the pages wholly inside it are unmapped")
    end
  end,
}

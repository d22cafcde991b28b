-- SPDX-License-Identifier: MIT
-- shared-refault.lua: a shared file mapping refaults in three forked sharers after invalidation.
--
-- Another cluster node rewrites the file on disk (the host side of the shared folder), then
-- the kernel is told to invalidate the range. Every sharer must lose its PTEs, take exactly
-- one minor fault per page when it touches the range again, and read the new data.
local bed = require "umlbed.bed"

return {
  name = "shared mapping refaults in 3 sharers after invalidation",
  matrix = { impl = { "seed", "unmap" } },

  run = function(t, p)
    local npages = 4
    local b = bed.setup(t, { pages = npages, fill = "a", prot = "rw" })
    local vm, ps, f, owner, m = b.vm, b.ps, b.file, b.proc, b.map
    local sharers = assert(owner:fork(3))

    for i, s in ipairs(sharers) do
      local ms = m:on(s)
      -- fork() does not copy the PTEs of a shared file mapping, so each sharer faults its own.
      t:pages("----", ms, "sharer " .. i .. " before its first touch")
      assert(ms:touch("r"))
      t:pages("FFFF", ms, "sharer " .. i .. " after touching every page")
      t:eq("a", ms:peek(0, 1), "sharer " .. i .. " sees the original data")
    end

    -- The other node writes new data behind the guest's page cache.
    assert(f:write(0, ("b"):rep(npages * ps)))
    assert(vm:invalidate { file = f, offset = 0, length = npages * ps, impl = p.impl, cache = "drop" })

    for i, s in ipairs(sharers) do
      local ms = m:on(s)
      t:pages("----", ms, "sharer " .. i .. " after invalidation")
      local _, _, faults = assert(ms:faults("r"))
      t:eq(npages, faults, "sharer " .. i .. " refaults once per page")
      t:pages("FFFF", ms, "sharer " .. i .. " after refaulting")
      t:eq("b", ms:peek(ps, 1), "sharer " .. i .. " reads the other node's data")
    end

    local stats = assert(vm:stats())
    t:eq(1, stats[p.impl == "seed" and "seed_calls" or "unmap_calls"], "one call of the chosen implementation")
    t:eq(0, stats.failures, "no failed trigger writes")
  end,
}

-- shared-refault.lua: a shared file mapping refaults in three forked sharers after invalidation.
--
-- Another cluster node rewrites the file on disk (the host side of the shared folder), then
-- the kernel is told to invalidate the range. Every sharer must lose its PTEs, take exactly
-- one minor fault per page when it touches the range again, and read the new data.
return {
  name = "shared mapping refaults in 3 sharers after invalidation",
  matrix = { impl = { "seed", "unmap" } },

  run = function(t, p)
    local vm = assert(t:vm())
    local ps = vm.pagesize
    local npages = 4
    local f = assert(vm:file("data", npages * ps))
    assert(f:write(0, ("a"):rep(npages * ps)))

    local owner = assert(vm:spawn())
    local m = assert(owner:mmap(f, { mode = "shared", prot = "rw" }))
    local sharers = assert(owner:fork(3))

    for i, s in ipairs(sharers) do
      local ms = m:on(s)
      -- fork() does not copy the PTEs of a shared file mapping, so each sharer faults its own.
      t:pages(ms, "----", "sharer " .. i .. " before its first touch")
      assert(ms:touch("r"))
      t:pages(ms, "FFFF", "sharer " .. i .. " after touching every page")
      t:eq(ms:peek(0, 1), "a", "sharer " .. i .. " sees the original data")
    end

    -- The other node writes new data behind the guest's page cache.
    assert(f:write(0, ("b"):rep(npages * ps)))
    assert(vm:invalidate { file = f, offset = 0, length = npages * ps, impl = p.impl, cache = "drop" })

    for i, s in ipairs(sharers) do
      local ms = m:on(s)
      t:pages(ms, "----", "sharer " .. i .. " after invalidation")
      local minor, major = ms:faults("r")
      t:eq(minor + major, npages, "sharer " .. i .. " refaults once per page")
      t:pages(ms, "FFFF", "sharer " .. i .. " after refaulting")
      t:eq(ms:peek(ps, 1), "b", "sharer " .. i .. " reads the other node's data")
    end

    local stats = assert(vm:stats())
    t:eq(stats[p.impl == "seed" and "seed_calls" or "unmap_calls"], 1, "one call of the chosen implementation")
    t:eq(stats.failures, 0, "no failed trigger writes")
  end,
}

-- race.lua: sharers fault the range in tight loops while invalidations of both kinds and both cache modes run and the host rewrites the file.
--
-- invalidate_mmap_range() takes i_mmap_rwsem for reading and zaps under each VMA's page table
-- lock, but not mmap_lock: faults race with it by design (that is the point for a cluster
-- filesystem, which cannot stop user space). The race must be harmless: no WARN, BUG, lockdep
-- or RCU report (the runner's console scanner fails the scenario on any, and the kernel log is
-- checked here too), every loop finishes, and once the last invalidation (cache=drop) returns
-- after the last host write, every sharer reads the final data.
--
-- The loops run in t:go tasks, concurrently with the run function's invalidations. Fault
-- counts are not checked: how many faults a loop takes depends on how the invalidations
-- interleave with it.
-- A loop iteration over 4 mapped pages takes about 12 ns here and 60 invalidations about
-- 50 ms, so 2e7 iterations per sharer (4 sharers on one UML CPU, and a fault after every
-- invalidation) outlast the rounds several times over; the scenario checks that they did.
local NPAGES, SHARERS, ROUNDS, LOOPS = 4, 3, 60, 20000000

local combos = {
  { "seed", "keep" }, { "seed", "drop" }, { "unmap", "keep" }, { "unmap", "drop" },
  { "unmap-keep-cows", "keep" }, { "unmap-keep-cows", "drop" },
}

return {
  name = "race: faulting sharers against repeated invalidations and host rewrites",

  run = function(t)
    local vm = assert(t:vm())
    local ps = vm.pagesize
    local f = assert(vm:file("data", NPAGES * ps))
    assert(f:write(0, ("0"):rep(NPAGES * ps)))
    local owner = assert(vm:spawn())
    local m = assert(owner:mmap(f, { mode = "shared", prot = "r" }))
    local all = { m }
    for _, k in ipairs(assert(owner:fork(SHARERS))) do all[#all + 1] = m:on(k) end

    local loops = {}
    for i, ms in ipairs(all) do loops[i] = t:go(function() return ms:loop("r", LOOPS) end) end

    -- While the loops run: rewrite the file from the host and invalidate, every kind in turn.
    -- A cache=drop may meet a page that a loop is faulting in and fail with EBUSY; that is
    -- allowed mid-race and counted, any other error is not.
    local busy = 0
    for round = 1, ROUNDS do
      local c = combos[(round - 1) % #combos + 1]
      assert(f:write(0, (tostring(round % 10)):rep(NPAGES * ps)))
      local ok, err, ename = vm:invalidate { file = f, impl = c[1], cache = c[2] }
      if not ok then
        if ename == "EBUSY" and c[2] == "drop" then busy = busy + 1 else t:fail("round " .. round .. ": " .. err) end
      end
    end
    local running = 0
    for _, task in ipairs(loops) do
      if not task.done then running = running + 1 end
    end
    t:expect(running > 0, "the loops were still faulting when the last round returned (else the race was not run)")
    for i, task in ipairs(loops) do
      t:eq(task:wait(), LOOPS, "process " .. i .. " finished its loop")
    end
    t:note(("%d of %d mid-race cache drops met EBUSY"):format(busy, ROUNDS // 2))

    -- The last word: one more host write, then an invalidation that must succeed.
    assert(f:write(0, ("Z"):rep(NPAGES * ps)))
    local ok, err = vm:invalidate { file = f, impl = "seed", cache = "drop" }
    t:eq(ok, true, "the last invalidation succeeds (" .. tostring(err) .. ")")
    for i, ms in ipairs(all) do
      t:eq(ms:peek(0, NPAGES * ps), ("Z"):rep(NPAGES * ps), "process " .. i .. " reads the final data")
    end
    local klog = assert(vm:klog())
    for _, bad in ipairs { "WARNING:", "BUG:", "possible recursive locking", "circular locking", "suspicious RCU" } do
      t:expect(not klog:find(bad, 1, true), "the kernel log has no " .. bad)
    end
  end,
}

-- SPDX-License-Identifier: MIT
-- race.lua: sharers fault the range in tight loops while invalidations of both kinds and both cache modes run and the host rewrites the file.
--
-- invalidate_mmap_range() takes i_mmap_rwsem for reading and zaps under each VMA's page table
-- lock, but not mmap_lock: faults race with it by design (that is the point for a cluster
-- filesystem, which cannot stop user space). The race must be harmless: no WARN, BUG, lockdep
-- or RCU report (the runner's console scanner fails the scenario on any, and the kernel log is
-- checked here too), every loop finishes, and once the last invalidation (cache=drop) returns
-- after the last host write, every sharer reads the final data.
--
-- The loops run in t:go tasks, concurrently with the run function's invalidations, on a loop
-- control: each loop runs until ctl:stop(), and ctl:wait() returns once every loop has made a
-- first pass over its range. The rounds run between the two, so every invalidation meets every
-- loop live by construction, on a host of any speed: no iteration count stands in for "the
-- loops are still running". Fault counts are not checked: how many faults a loop takes depends
-- on how the invalidations interleave with it.
local bed = require "umlbed.bed"
local umlbed = require "umlbed"

local NPAGES, SHARERS, ROUNDS = 4, 3, 60

local combos = {
  { "seed", "keep" }, { "seed", "drop" }, { "unmap", "keep" }, { "unmap", "drop" },
  { "unmap-keep-cows", "keep" }, { "unmap-keep-cows", "drop" },
}

return {
  name = "race: faulting sharers against repeated invalidations and host rewrites",

  run = function(t)
    local b = bed.setup(t, { pages = NPAGES, fill = "0" })
    local vm, ps, f, owner, m = b.vm, b.ps, b.file, b.proc, b.map
    local all = bed.sharers(owner, m, SHARERS)
    local ctl, loops, started = bed.loops(t, vm, all)
    t:eq(#all, started, "every loop made its first pass before the rounds")

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
    assert(ctl:stop())
    -- A loop on a control returns only when it sees the stop word, and every loop made its first
    -- pass before the rounds (checked above): a loop that returns its iterations was live through
    -- every round. That is the proof that each invalidation met every loop.
    for i, task in ipairs(loops) do
      local n, err = task:wait()
      t:expect(n and n >= 1, "process " .. i .. " looped until the stop (" .. tostring(n or err) .. ")")
    end
    t:note(("%d of %d mid-race cache drops met EBUSY"):format(busy, ROUNDS // 2))

    -- The last word: one more host write, then an invalidation that must succeed.
    assert(f:write(0, ("Z"):rep(NPAGES * ps)))
    local ok, err = vm:invalidate { file = f, impl = "seed", cache = "drop" }
    t:eq(true, ok, "the last invalidation succeeds (" .. tostring(err) .. ")")
    for i, ms in ipairs(all) do
      t:eq(("Z"):rep(NPAGES * ps), ms:peek(0, NPAGES * ps), "process " .. i .. " reads the final data")
    end
    -- The runner's console scanner fails the run on any finding; the guest's own log is checked with the same list.
    t:eq({}, umlbed.findings(assert(vm:klog())), "the kernel log has no WARNING, lockdep report, BUG, Oops or panic")
  end,
}

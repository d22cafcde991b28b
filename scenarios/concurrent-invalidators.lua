-- SPDX-License-Identifier: MIT
-- concurrent-invalidators.lua: several guest processes invalidate one file at once while others fault its range.
--
-- The use case (a cluster filesystem) invalidates from whichever task learns of a remote change, so two
-- invalidations of the same file can overlap. Each zaps every mapper's PTEs under i_mmap_rwsem (read, shared),
-- so on a mapper's mm one gather can be pending while the other's finishes: tlb_finish_mmu() then flushes that
-- mm in full, and UML's flush_tlb_mm() walked the live mm's VMA tree unlocked (PROVE_RCU: "suspicious RCU
-- usage" at lib/maple_tree.c; uml-kernel/fixes/*/um-flush_tlb_mm-foreign-mm.patch). With the fix, nothing
-- may be reported, every invalidation must succeed, and after a last host write and cache=drop every sharer
-- reads the new data: the full flush still removed every stale host mapping.
--
-- Invalidators are workers writing the trigger themselves (proc:invalidate), each from its own t:go task; the
-- sharers fault the range in loops on a loop control. The rounds run between ctl:wait() and ctl:stop(), so
-- every invalidation meets every loop live by construction. No fault counts: how many faults a loop takes
-- depends on how the invalidations interleave with it.
local bed = require "umlbed.bed"
local umlbed = require "umlbed"

local NPAGES, SHARERS, WRITERS, ROUNDS = 64, 2, 3, 200

return {
  name = "concurrent invalidators of one file from several processes",
  matrix = { impl = { "seed", "unmap" }, cache = { "keep", "drop" } },
  -- A hang guard; the race needs no time to pass.
  timeout = 120,

  run = function(t, p)
    local b = bed.setup(t, { pages = NPAGES, fill = "0", touch = true })
    local vm, ps, f, owner, m = b.vm, b.ps, b.file, b.proc, b.map
    local all = bed.sharers(owner, m, SHARERS)
    local ctl, loops, started = bed.loops(t, vm, all)
    t:require(started == #all, "every loop made its first pass before the invalidations (%d of %d)", started, #all)

    -- A cache=drop may meet a page that a loop is faulting in and fail with EBUSY: allowed mid-race, and
    -- counted; any other error is not.
    local writers = {}
    for w = 1, WRITERS do
      local proc = assert(vm:spawn())
      writers[w] = t:go(function()
        local busy = 0
        for round = 1, ROUNDS do
          local ok, err, ename = proc:invalidate { file = f, impl = p.impl, cache = p.cache }
          if not ok then
            if ename == "EBUSY" and p.cache == "drop" then busy = busy + 1
            else error(("writer %d, round %d: %s"):format(w, round, err)) end
          end
        end
        return busy
      end)
    end
    local busy = 0
    for w, task in ipairs(writers) do
      local n, err = task:wait()
      t:require(n, "writer %d: %s", w, tostring(err))
      busy = busy + n
    end
    assert(ctl:stop())
    for i, task in ipairs(loops) do
      local n, err = task:wait()
      t:expect(n and n >= 1, "sharer " .. i .. " looped until the stop (" .. tostring(n or err) .. ")")
    end
    t:note(("%d invalidations from %d processes, %d cache drops met EBUSY"):format(WRITERS * ROUNDS, WRITERS, busy))

    -- The last word: the host rewrites the file and one invalidation drops the cache.
    assert(f:write(0, ("N"):rep(NPAGES * ps)))
    assert(vm:invalidate { file = f, impl = p.impl, cache = "drop" })
    for i, ms in ipairs(all) do
      t:eq(("N"):rep(NPAGES * ps), ms:peek(0, NPAGES * ps), "sharer " .. i .. " reads the new data")
    end
    -- The runner's console scanner fails the run on any finding; the guest's own log is checked with the same list.
    t:eq({}, umlbed.findings(assert(vm:klog())), "the kernel log has no WARNING, lockdep report, BUG, Oops or panic")
  end,
}

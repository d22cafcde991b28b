-- SPDX-License-Identifier: MIT
-- exit-race.lua: invalidating a file while a process that maps it is inside its exit: the window is held open with a schedule point, every round.
--
-- The invalidator (a worker writing the trigger) zaps the PTEs of every mapper without taking
-- their mmap_lock; that is the design of both invalidate_mmap_range() and mainline
-- unmap_mapping_range(). When a mapper is exiting at the same moment, exit_mmap() has a TLB
-- gather pending on that mm, so the invalidator's gather is "nested" and tlb_finish_mmu()
-- turns it into a full flush: on UML 6.1, flush_tlb_mm() then walked the dying mm's VMA tree
-- with neither its mmap_lock nor RCU (PROVE_RCU: "suspicious rcu_dereference_check() usage").
-- Found by model-fuzz.lua; fixed by uml-kernel/fixes/GEN/um-flush_tlb_mm-foreign-mm.patch.
--
-- The window used to be sampled: rounds of exits that did not wait, hoping one overlapped the
-- invalidation. Now each round parks one exiting mapper at exit_before_unlink (exit_mmap() has
-- unmapped, its VMAs are still in the file's i_mmap tree and its gather is pending), waits until
-- it is parked there (an event: h:wait()), invalidates, and only then lets the exit go on. Every
-- round meets the window; the broken-noflushfix port (UML without the fix) is CRASHED by it in
-- the first round. Any kernel report fails the scenario through the runner's console scanner.
--
-- The fix must not buy quiet with coherency: every round the host (the "other node") rewrites
-- the file before the invalidation, and the surviving sharer, whose mm is live, must read the
-- new data after cache=drop and the cached (stale) data after cache=keep, with every PTE gone
-- either way. No fault counts: nothing is counted here.
--
-- Rounds: 10 per combination in the suite (each one meets the window); `--param rounds=N` for more.
local bed = require "umlbed.bed"
local points = require "umlbed.points"

local ROUNDS, NPAGES = 10, 16

return {
  name = "invalidation racing with mappers' exits",
  matrix = { impl = { "seed", "unmap" }, cache = { "keep", "drop" } },
  -- A hang guard for the rounds of spawn, fork and exit; the race itself needs no time to pass.
  timeout = function(p) return 60 + (p.rounds or ROUNDS) end,

  run = function(t, p)
    local rounds = p.rounds or ROUNDS
    t:require(math.type(rounds) == "integer" and rounds > 0, "rounds must be a positive integer")
    local b = bed.setup(t, { pages = NPAGES, fill = "e" })
    local vm, ps, f, km = b.vm, b.ps, b.file, b.map
    local size = NPAGES * ps
    for round = 1, rounds do
      local w = assert(vm:spawn())
      local m = assert(w:mmap(f, { mode = "shared", prot = "r" }))
      assert(m:touch("r"))
      local kids = assert(w:fork(2))
      for _, k in ipairs(kids) do assert(m:on(k):touch("r")) end
      assert(km:touch("r"))
      -- The other node writes this round's version behind the guest's page cache.
      local version = string.char(("a"):byte() + round % 26)
      assert(f:write(0, version:rep(size)))
      -- The first child parks inside its exit, past unmapping and before its VMAs leave the file; the other exits
      -- without waiting, as the worker does.
      local h = assert(points.arm(vm, "exit_before_unlink", { hit = 1, proc = kids[1] }))
      for _, k in ipairs(kids) do assert(k:exit()) end
      assert(w:exit())
      t:assert_true(h:wait(), "round " .. round .. ": the exit is parked in its window")
      assert(vm:invalidate { file = f, impl = p.impl, cache = p.cache })
      assert(h:release())
      assert(h:close())
      t:assert_pages(("-"):rep(NPAGES), km, "round " .. round .. ": the surviving sharer lost every page")
      local want = p.cache == "drop" and version or "e"
      t:assert_eq(want:rep(size), km:peek(0, size), "round " .. round .. ": the surviving sharer reads " ..
                  (p.cache == "drop" and "this round's data" or "the cached data"))
      if p.cache == "keep" then
        -- Keep the page cache at the first version for the next round's check.
        assert(f:write(0, ("e"):rep(size)))
      end
    end
    t:note(("%d exits met in their window, impl=%s cache=%s"):format(rounds, p.impl, p.cache))
  end,
}

-- exit-race.lua: invalidating a file while processes that map it exit; a live sharer still sees the new data.
--
-- The invalidator (PID 1 writing the trigger) zaps the PTEs of every mapper without taking
-- their mmap_lock; that is the design of both invalidate_mmap_range() and mainline
-- unmap_mapping_range(). When a mapper is exiting at the same moment, exit_mmap() has a TLB
-- gather pending on that mm, so the invalidator's gather is "nested" and tlb_finish_mmu()
-- turns it into a full flush: on UML 6.1, flush_tlb_mm() then walked the dying mm's VMA tree
-- (for_each_vma) with neither its mmap_lock nor RCU (PROVE_RCU: "suspicious
-- rcu_dereference_check() usage" in lib/maple_tree.c). Found by model-fuzz.lua (seed 6); fixed
-- by uml-kernel/fixes/6.1/um-flush_tlb_mm-foreign-mm.patch, which skips an mm without users and
-- walks a live one under RCU (on 6.12: uml-kernel/fixes/6.12/, which marks the whole user space for the
-- next sync instead of walking). Any kernel report fails the scenario through the runner's
-- console scanner.
--
-- The fix must not buy quiet with coherency: every round the host (the "other node") rewrites
-- the file before the invalidation, and the surviving sharer, whose mm is live, must read the
-- new data after cache=drop and the cached (stale) data after cache=keep, with every PTE gone
-- either way. The exits deliberately do not wait for the agent's exited event
-- (proc:exit{wait=true} would close the race). No fault counts: nothing is counted here.
--
-- Rounds: 100 per combination in the suite; `--param rounds=1000` for a soak (bench/soak.sh's
-- exitrace condition runs it).
local bed = require "lib.bed"

local ROUNDS, NPAGES = 100, 16

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
      -- exit replies before the worker is gone: its exit_mmap() runs while we invalidate.
      for _, k in ipairs(kids) do assert(k:exit()) end
      assert(w:exit())
      assert(vm:invalidate { file = f, impl = p.impl, cache = p.cache })
      t:assert_pages(("-"):rep(NPAGES), km, "round " .. round .. ": the surviving sharer lost every page")
      local want = p.cache == "drop" and version or "e"
      t:assert_eq(want:rep(size), km:peek(0, size), "round " .. round .. ": the surviving sharer reads " ..
                  (p.cache == "drop" and "this round's data" or "the cached data"))
      if p.cache == "keep" then
        -- Keep the page cache at the first version for the next round's check.
        assert(f:write(0, ("e"):rep(size)))
      end
    end
    t:note(("%d exit races, impl=%s cache=%s"):format(rounds, p.impl, p.cache))
  end,
}

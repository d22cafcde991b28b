-- SPDX-License-Identifier: MIT
-- races.lua: three interleavings of an invalidation with a mapper's exit, forced with the schedule points.
--
-- Each broken race of uml-kernel/broken/GEN/ fails one of them with a kernel report (the run is CRASHED); a correct
-- kernel passes all three. The interleavings:
--   nolock  the invalidator W parks before its second zap (imr_before_zap, hit 2); the mapper whose VMA it is about
--           to zap exits as far as it can; W goes on. With i_mmap_rwsem held the exit blocks on it before its VMA
--           leaves the i_mmap tree; without (broken-nolock) the VMA is freed and W zaps it: KASAN.
--   stale   W parks after its first zap (imr_after_zap, hit 1); the mapper of the next VMA exits as far as it can.
--           A walk that dropped i_mmap_rwsem there and kept its pointer to the next VMA (broken-stale-vma) reads
--           the freed VMA: KASAN.
--   flush   the mapper parks in exit_mmap() after unmapping, its VMAs still linked and its mmu_gather pending
--           (exit_before_unlink); W invalidates: its zap is nested and flushes the dying mm, which UML without
--           um-flush_tlb_mm-foreign-mm.patch (broken-noflushfix) walks unlocked: lockdep.
-- "As far as it can" is an event: settle returns once every task is blocked. What then became of the mapper is read
-- from its /proc/PID/stat (D: blocked; gone or Z: its exit ran through).
local umlbed = require "umlbed"
local D = "/sys/kernel/umlbed_points/"

return {
  name = "forced races of an invalidation with an exit",
  matrix = { race = { "nolock", "stale", "flush" } },
  timeout = 120,
  run = function(t, p)
    local vm = assert(t:vm())
    local ps = vm.pagesize
    local f = assert(vm:file("data", 4 * ps))
    assert(f:write(0, ("d"):rep(4 * ps)))
    local ctl = assert(vm:spawn())   -- writes the points' files; "wait" and "settle" block their writer
    local function w(file, text) return vm:request(ctl.pid, "writefile", D .. file, umlbed.encode(text)) end
    -- The state letter of a process (R, S, D, Z, ...), or "gone".
    local function pstate(proc)
      local s = vm:readfile("/proc/" .. proc.pid .. "/stat")
      return s and s:match("^%d+ %b() (%a)") or "gone"
    end

    local A = assert(vm:spawn())
    local ma = assert(A:mmap(f, { mode = "shared", prot = "r" }))
    local B = assert(A:fork(1))[1]
    local mb = ma:on(B)
    assert(ma:touch("r"))
    assert(mb:touch("r"))
    local W = assert(vm:spawn())

    if p.race == "flush" then
      assert(w("arm", ("exit_before_unlink 1 %d"):format(B.pid)))
      assert(B:exit())                     -- replies, then exits
      assert(w("wait", "exit_before_unlink 60000"))
      t:eq("FFFF", assert(ma:pages()), "the surviving sharer still maps the file")
      assert(W:invalidate { file = f, impl = "seed" })
      t:eq("----", assert(ma:pages()), "the invalidation met the parked exit and zapped the sharer")
      assert(w("release", "exit_before_unlink"))
      assert(w("settle", "60000"))
      t:expect(pstate(B) ~= "D", "the exit ran through after its release: " .. pstate(B))
      return
    end

    local point, hit = "imr_before_zap", 2
    if p.race == "stale" then point, hit = "imr_after_zap", 1 end
    assert(w("arm", ("%s %d %d"):format(point, hit, W.pid)))
    local inv = t:go(function() return W:invalidate { file = f, impl = "seed" } end)
    assert(w("wait", point .. " 60000"))
    local sa, sb = assert(ma:pages()), assert(mb:pages())
    t:assert_true((sa == "----") ~= (sb == "----"), ("W zapped one VMA of two (A %s, B %s)"):format(sa, sb))
    -- The other mapper's VMA is the one W goes on with: its exit runs as far as it can.
    local victim = sa == "----" and B or A
    assert(victim:exit())
    assert(w("settle", "60000"))
    local st = pstate(victim)
    t:eq("D", st, "the exit waits for i_mmap_rwsem while W is parked between its VMAs")
    assert(w("release", point))
    assert(inv:wait())
    assert(w("settle", "60000"))
    t:expect(pstate(victim) ~= "D", "the exit ran through once W was done: " .. pstate(victim))
  end,
}

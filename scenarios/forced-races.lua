-- SPDX-License-Identifier: MIT
-- forced-races.lua: an invalidation against a munmap, a refault, a fault in flight and another invalidation's pending flush, and a truncation and a hole punch against a fault in flight, each interleaving forced with the schedule points.
--
-- Process A maps a file and forks B: two VMAs of the file, both faulted in. The invalidator W runs the seed's walk.
--   munmap          W parks between its two zaps (imr_before_zap, hit 2): one VMA zapped, one not. The sharer of
--                   the other VMA munmaps it; its unlink from the file needs i_mmap_rwsem for writing, which the
--                   walk holds for reading, so once every task has settled the munmap has not returned. W goes on:
--                   the munmap returns, the call is true, the zapped VMA has no page.
--   refault         W parks between its zaps; the sharer whose VMA is already zapped reads its pages back in: the
--                   walk zaps each VMA once, so it keeps them and reads the cached data; the other lost its pages.
--   refault-drop    the same with cache=drop, the other node having written meanwhile: the drop unmaps the
--                   refaulted pages too, and both sharers then read the new data.
--   drop-fault      a third sharer Z faults page 0 and parks after finding the page, before its PTE is set
--                   (fault_before_pte: it holds the page's lock and a reference). The other node writes; W drops the
--                   cache and, once every task has settled, has not returned: it waits for that page's lock. Z goes
--                   on and maps the page; the drop comes after and unmaps it: the call is true, and every sharer then
--                   reads the new data, Z too. Whether Z's load, retried after its fault returns, runs before the
--                   drop's unmap or after it (and so faults the new page in) is the scheduler's choice: either way Z
--                   must never see the old data. A fault path that maps a page it has not locked (as before Linux
--                   2.6.23) lets the drop remove the page first, and Z keeps reading the old data from it.
--   truncate-cow    a private mapper Z writes page 0 and parks in its COW fault before the PTE is set, holding the
--                   file's page; the guest truncates the file to nothing (and back), which waits for that page.
--                   Z goes on and maps its copy; truncation must still discard it: the kernel unmaps a second time
--                   once the page cache is empty (added by "mm: fix fault vs invalidate race for linear mappings",
--                   Linux 2.6.23, for exactly these copies).
--   punch-fault     a shared mapper Z of a tmpfs file writes page 1 and parks in its fault before the PTE is set,
--                   holding the page; W punches a hole over pages 1 and 2, which waits for page 1 once it has
--                   unmapped page 2 from another mapper Y (the probe that the punch began). Z goes on and maps
--                   the page; the punch must unmap it before the page leaves the file, so that Z and the file agree
--                   on page 1 afterwards (a hole, or Z's write on a new page if its store came after the punch).
--                   Hole punching once removed such a page still mapped
--                   ("holepunch: fix disconnected pages after second truncate", Linux 2.6.21): Z kept writing to a
--                   page that was no longer the file's.
--   munmap-split    a process P maps a file of its own; W's walk to invalidate file pages 1..2 parks before P's VMA
--                   (imr_before_zap), having read the VMA's file offset. P unmaps the first page of its mapping, then
--                   in a second round the last: each split moves the start of one of the two parts, and which part
--                   keeps the VMA the walk holds is the kernel's choice. The munmap waits for the walk (i_mmap_rwsem);
--                   once W is released, file pages 1..2 are gone from the part P kept and its other pages are not.
--                   A split that updated the VMA without the mapping's lock ("fix split_vma vs.
--                   invalidate_mmap_range_list race", Linux 2.6.0-test9) let the walk zap at the VMA's new start with
--                   its old offset, or miss the part that was split off: pages of the range stayed mapped.
--   nested-flush    W parks in its zap of one sharer's VMA once the PTEs are cleared, before its TLB flush
--                   (zap_before_flush; on UML the flush removes the process's host mappings). The other node writes;
--                   a second invalidator V drops the cache: its zap of that VMA finds the PTEs already cleared. Once
--                   V returns, both sharers must read the new data. A gather that flushes only what it cleared itself
--                   ("mm: fix MADV_[FREE|DONTNEED] TLB flush miss problem", Linux 4.13) returns while the sharer
--                   still reads the old page through the entries W has yet to flush.
--   dirty-flush     a process D of a file of its own writes page 0, so its PTE is dirty; W's zap of D's VMA parks
--                   once the PTE is cleared, before the gather's flush (zap_before_flush). A third process writes the
--                   file back (fsync): the zap moved the dirty bit to the page, so D's write reaches the file and the
--                   page is clean. D writes again while W is parked; once W returns, fsync must put that write in the
--                   file too. A zap that leaves a dirty PTE's entry to the gather's flush ("mm: split
--                   'tlb_flush_mmu()' into tlb flushing and memory freeing parts", Linux 3.15, flushes it before the
--                   page table lock is dropped) lets D's second store land through its stale entry (on UML, its host
--                   mapping) in a page writeback has cleaned: the write never reaches the file.
-- The expectations are the seed's specification of the call (every PTE of the range present at the call is gone)
-- and of cache=drop (the range's pages leave the page cache; a read brings the file's data), whatever the order.
local points = require "umlbed.points"

local NP = 4

return {
  name = "forced races: an invalidation against a munmap, a refault and a fault in flight",
  matrix = { case = { "munmap", "refault", "refault-drop", "drop-fault", "truncate-cow", "punch-fault",
                      "munmap-split", "nested-flush", "dirty-flush" } },
  timeout = 60,
  run = function(t, p)
    local cache = (p.case == "refault-drop" or p.case == "drop-fault") and "drop" or "keep"
    local vm = assert(t:vm())
    local size = NP * vm.pagesize
    local f = assert(vm:file("data", size))
    assert(f:write(0, ("o"):rep(size)))
    local ctl = assert(vm:spawn())   -- settles: a settle blocks its writer
    local A = assert(vm:spawn())
    local ma = assert(A:mmap(f, { mode = "shared", prot = "r" }))
    assert(ma:touch("r"))
    local B = assert(A:fork(1))[1]
    local mb = ma:on(B)
    assert(mb:touch("r"))
    local W = assert(vm:spawn())
    local none, all = ("-"):rep(NP), ("F"):rep(NP)
    local old, new = ("o"):rep(size), ("n"):rep(size)

    if p.case == "truncate-cow" then
      -- Z maps the file privately and writes page 0: a COW fault, parked after the copy and before its PTE is set
      -- (fault_before_pte), holding the file's page 0 locked. The guest truncates the file to nothing: the first
      -- unmap finds no PTE of Z, then truncate_inode_pages waits for page 0's lock.
      local Z = assert(vm:spawn())
      local mz = assert(Z:mmap(f, { mode = "private", prot = "rw" }))
      -- A poke writes without reading first, so its fault is the COW fault itself; one on page 1 takes the agent's
      -- own faults for it first (see drop-fault).
      assert(mz:poke(vm.pagesize, "w"))
      local sh = assert(vm:shell())
      local h <close> = assert(points.arm(vm, "fault_before_pte", { hit = 1, proc = Z }))
      local fz = t:go(function() return mz:poke(0, "w") end)
      assert(h:wait())
      local function guest(cmd) return vm:run { path = sh, args = { "-c", cmd } } end
      local tr = t:go(function() return guest("truncate -s 0 " .. f.path) end)
      -- A settle before the shell has run proves nothing: the truncation has begun once the host file is empty
      -- (hostfs truncates it before the page cache), and settled after that, it waits for page 0.
      assert(points.settle_after(ctl, function() return assert(f:size()) == 0 end, function() return tr.done end))
      t:expect(not tr.done, "the truncation waits for page 0, whose COW fault is parked holding it")
      assert(h:release())
      -- Z's store is tried again once its fault returns. It retires before the truncation goes on, on Z's copy; or
      -- after, when page 0 is past the end of the file: a SIGBUS. Which one is the scheduler's choice.
      local poked, perr = fz:wait()
      t:expect(poked or tostring(perr):find("SIGBUS"), "Z's write retired, or met the end of the file (%s)", perr)
      t:eq("exit:0", tr:wait(), "the truncation to nothing")
      t:eq("exit:0", guest(("truncate -s %d %s"):format(size, f.path)), "the file is " .. NP .. " pages again")
      -- Truncation discards every page of the range in every mapper, a private copy made while it ran too: the
      -- kernel unmaps twice, the second time after the page cache is emptied, for the COWs made in between.
      t:eq(none, assert(mz:pages()), "Z's private copy of page 0, made during the truncation, is gone")
      t:eq(("\0"):rep(size), mz:peek(0, size), "Z reads the file's new (zero) data, not its old copy")
      return
    end

    if p.case == "punch-fault" then
      -- A tmpfs file (the guest's /tmp): hole punching is tmpfs's, and its pages live in the page cache only.
      local sh = assert(vm:shell())
      local path = "/tmp/punch-data"
      local fill = ("dd if=/dev/zero bs=%d count=%d 2>/dev/null | tr '\\000' o >%s"):format(vm.pagesize, NP, path)
      local st, out = vm:run { path = sh, args = { "-c", fill } }
      t:require(st == "exit:0", "a tmpfs file of %d pages of 'o' (%s: %s)", NP, st, out)
      local Z = assert(vm:spawn())
      local mz = assert(Z:mmap(path, { length = size, mode = "shared", prot = "rw" }))
      -- A poke writes without reading first: a write fault, without fault-around. One on page 0 takes the agent's
      -- own faults for the verb first (see drop-fault).
      assert(mz:poke(0, "o"))
      local ps = vm.pagesize
      -- Y maps page 2, which the punch unmaps first: once Y has lost it, the punch has begun, and settled after
      -- that, it waits for page 1 (a settle before W ran its punch would prove nothing).
      local Y = assert(vm:spawn())
      local my = assert(Y:mmap(path, { length = size, mode = "shared", prot = "rw" }))
      assert(my:poke(2 * ps, "o"))
      t:require(assert(my:pages()):sub(3, 3) == "F", "Y has page 2 mapped (the probe of the punch's start)")
      local h <close> = assert(points.arm(vm, "fault_before_pte", { hit = 1, proc = Z }))
      local fz = t:go(function() return mz:poke(ps, "w") end)
      assert(h:wait())
      local pu = t:go(function() return W:punch(path, ps, 2 * ps) end)
      assert(points.settle_after(ctl, function() return assert(my:pages()):sub(3, 3) == "-" end,
        function() return pu.done end))
      t:expect(not pu.done, "the punch waits for page 1, whose fault is parked holding it")
      assert(h:release())
      t:assert_true(fz:wait(), "Z's write retired")
      t:assert_true(pu:wait(), "the punch")
      -- Z's store, tried again once its fault returned, landed before the page left the file (then punched away: a
      -- hole, zeros) or after the punch, on a new page that its second fault brought in (its byte, then zeros): the
      -- scheduler's choice. Either way Z and the file see one page 1.
      local file1 = assert(W:pread(path, ps, ps))
      local hole, rewritten = ("\0"):rep(ps), "w" .. ("\0"):rep(ps - 1)
      t:expect(file1 == hole or file1 == rewritten,
        "the file's page 1 is a hole, or a new page with Z's write after the punch (seen %q...)", file1:sub(1, 8))
      t:eq(file1, mz:peek(ps, ps), "Z's page 1 is the file's page 1, not a page the punch removed")
      t:eq(("o"):rep(ps), mz:peek(0, ps), "Z's page 0 is untouched")
      t:eq(("\0"):rep(ps), my:peek(2 * ps, ps), "Y's page 2 is the hole the punch made")
      return
    end

    if p.case == "drop-fault" then
      local Z = assert(vm:spawn())
      local mz = assert(Z:mmap(f, { mode = "shared", prot = "r" }))
      -- Z's first touch faults in the agent's own code for it too, and any of those faults would meet the point
      -- first: a touch of page 1 beforehand leaves page 0's fault the only one the next touch takes.
      assert(mz:touch("r", 1, 1))
      local h <close> = assert(points.arm(vm, "fault_before_pte", { hit = 1, proc = Z }))
      local fz = t:go(function() return mz:touch("r", 0, 1) end)
      assert(h:wait())
      assert(f:write(0, new))   -- the other node's data, behind the guest's cache
      local inv = t:go(function() return W:invalidate { file = f, impl = "seed", cache = "drop" } end)
      -- The walk zaps A's PTEs before the drop locks any page: once they are gone W has begun, and a settle after
      -- that finds it waiting for page 0 or returned. A settle before W's request arrived would prove nothing, and
      -- on a kernel whose fault does not hold the page, the drop would then run after Z had mapped it.
      assert(points.settle_after(ctl, function() return assert(ma:pages()) == none end, function() return inv.done end))
      -- The probe of the interleaving: the drop must lock page 0, which the parked fault holds.
      t:expect(not inv.done, "the drop waits for page 0, whose fault is parked holding it")
      assert(h:release())
      assert(fz:wait())
      t:assert_true(inv:wait(), "the drop succeeds once the fault has mapped its page")
      local sz = assert(mz:pages())
      t:expect(sz == none or sz == "F" .. none:sub(2),
        "Z has page 0 at most, refaulted after the drop (seen %s)", sz)
      t:eq(none, assert(ma:pages()), "A's PTEs are gone")
      t:eq(new, mz:peek(0, size), "the faulting sharer reads the new data")
      t:eq(new, ma:peek(0, size), "A reads the new data")
      return
    end

    if p.case == "munmap-split" then
      local ps = vm.pagesize
      -- A file of its own, so that P's VMA is the only one the walk visits.
      local g = assert(vm:file("split", size))
      assert(g:write(0, old))
      local P = assert(vm:spawn())
      -- cut: the page P unmaps; kept: the first page of the part that stays mapped.
      for _, round in ipairs({ { cut = 0, kept = 1 }, { cut = NP - 1, kept = 0 } }) do
        local m = assert(P:mmap(g, { mode = "shared", prot = "r" }))
        assert(m:touch("r"))
        local h <close> = assert(points.arm(vm, "imr_before_zap", { hit = 1, proc = W }))
        local inv = t:go(function() return W:invalidate { file = g, offset = ps, length = 2 * ps, impl = "seed" } end)
        assert(h:wait())
        t:eq(all, assert(m:pages()), "W is parked before its zap of P's VMA: nothing zapped yet")
        local addr = m.addr + round.cut * ps
        local un = t:go(function() return vm:request(P.pid, "munmap", ("%d"):format(addr), ("%d"):format(ps)) end)
        -- A settle before P's munmap has begun proves nothing: P sleeps on i_mmap_rwsem (D) once it has.
        repeat assert(points.settle(ctl)) until un.done or points.pstate(vm, P) == "D"
        t:expect(not un.done, "the munmap of page %d waits for the walk (i_mmap_rwsem) while W is parked", round.cut)
        assert(h:release())
        t:assert_true(inv:wait(), "W's invalidation of file pages 1..2 returns true")
        t:assert_true(un:wait(), "the munmap of page " .. round.cut)
        -- The seed's specification: exactly the pages of the range lose their PTEs.
        local want = {}
        for i = round.kept, round.kept + NP - 2 do want[#want + 1] = (i == 1 or i == 2) and "-" or "F" end
        t:eq(table.concat(want), assert(m:pages(round.kept, NP - 1)),
          ("file pages 1..2 are gone from the part P kept after unmapping page %d, its other pages stay"):format(
            round.cut))
        assert(vm:request(P.pid, "munmap", ("%d"):format(m.addr + round.kept * ps), ("%d"):format((NP - 1) * ps)))
      end
      return
    end

    if p.case == "dirty-flush" then
      local ps = vm.pagesize
      -- A file of its own, so that D's VMA is the only one the walk zaps.
      local g = assert(vm:file("dirty", size))
      assert(g:write(0, old))
      local D = assert(vm:spawn())
      local md = assert(D:mmap(g, { mode = "shared", prot = "rw" }))
      assert(md:poke(0, "x"))
      local h <close> = assert(points.arm(vm, "zap_before_flush", { hit = 1, proc = W }))
      local inv = t:go(function() return W:invalidate { file = g, offset = 0, length = ps, impl = "seed" } end)
      assert(h:wait())
      -- The probe of the interleaving: W's zap has cleared D's PTE of page 0, and its flush is still to come.
      t:require(assert(md:pages()):sub(1, 1) == "-", "W's parked zap cleared D's PTE of page 0")
      local V = assert(vm:spawn())
      assert(V:fsync(g))
      -- The probe that writeback ran while W is parked: D's first write, moved to the page by the zap, is in the file.
      t:eq("x", g:read(0, 1), "D's first write reached the file while W is parked")
      assert(md:poke(0, "y"))
      assert(h:release())
      t:assert_true(inv:wait(), "W's invalidation returns true")
      assert(V:fsync(g))
      -- The specification of a shared mapping: a write that retired reaches the file on fsync.
      t:eq("y", g:read(0, 1), "D's second write, made while W was parked, reached the file")
      t:eq("y", md:peek(0, 1), "D reads its own second write")
      return
    end

    if p.case == "nested-flush" then
      local h <close> = assert(points.arm(vm, "zap_before_flush", { hit = 1, proc = W }))
      local inv = t:go(function() return W:invalidate { file = f, impl = "seed" } end)
      assert(h:wait())
      -- The probe of the interleaving: W's first zap has cleared its VMA's PTEs, and its flush is still to come.
      local sa, sb = assert(ma:pages()), assert(mb:pages())
      t:require((sa == none) ~= (sb == none), "W's parked zap cleared one VMA's PTEs of two (A %s, B %s)", sa, sb)
      local zapped, other = ma, mb
      if sb == none then zapped, other = mb, ma end
      assert(f:write(0, new))   -- the other node's data, behind the guest's cache
      local V = assert(vm:spawn())
      local dropped = V:invalidate { file = f, impl = "seed", cache = "drop" }
      t:assert_true(dropped, "V's drop returns true while W is parked")
      t:eq("parked", assert(h:status()).state, "W is still parked before its flush when V returns")
      -- V's call returned: no mapping of the range may reach the old pages any more.
      t:eq(new, zapped:peek(0, size),
        "the sharer whose PTEs W cleared reads the new data, not the old page through W's unflushed entries")
      t:eq(new, other:peek(0, size), "the other sharer reads the new data")
      assert(h:release())
      t:assert_true(inv:wait(), "W's invalidation returns true")
      return
    end

    local h <close> = assert(points.arm(vm, "imr_before_zap", { hit = 2, proc = W }))
    local inv = t:go(function() return W:invalidate { file = f, impl = "seed", cache = cache } end)
    assert(h:wait())
    local sa, sb = assert(ma:pages()), assert(mb:pages())
    t:require((sa == none) ~= (sb == none), "W zapped one VMA of two (A %s, B %s)", sa, sb)
    -- zapped: the sharer whose VMA W has visited; next: the one it visits after its release.
    local zapped, next = { proc = A, m = ma }, { proc = B, m = mb }
    if sb == none then zapped, next = next, zapped end
    t:eq(all, assert(next.m:pages()), "the VMA W has not visited yet keeps its pages")

    if p.case == "munmap" then
      local unmap = t:go(function() return next.m:munmap() end)
      -- A settle before the munmap has begun proves nothing: its process sleeps on i_mmap_rwsem (D) once it has.
      repeat assert(points.settle(ctl)) until unmap.done or points.pstate(vm, next.proc) == "D"
      t:expect(not unmap.done, "the munmap waits for the walk (i_mmap_rwsem) while W is parked")
      assert(h:release())
      t:assert_true(inv:wait(), "the invalidation returns true")
      t:assert_true(unmap:wait(), "the munmap returns once W is done")
      t:eq(none, assert(zapped.m:pages()), "the VMA W zapped has no page")
      return
    end

    -- refault, refault-drop: the zapped sharer reads its pages back in while W is parked.
    if cache == "drop" then assert(f:write(0, new)) end
    assert(zapped.m:touch("r"))
    t:eq(all, assert(zapped.m:pages()), "the zapped sharer refaulted every page while W is parked")
    t:eq(old, zapped.m:peek(0, size), "the refault reads the cached data (not dropped yet)")
    assert(h:release())
    t:assert_true(inv:wait(), "the invalidation returns true")
    if p.case == "refault" then
      t:eq(all, assert(zapped.m:pages()), "a VMA is zapped once: the refaulted pages stay")
      t:eq(none, assert(next.m:pages()), "the other VMA lost its pages")
    else
      t:eq(none, assert(zapped.m:pages()), "the drop unmapped the refaulted pages too")
      t:eq(none, assert(next.m:pages()), "the other VMA lost its pages")
      t:eq(new, zapped.m:peek(0, size), "the refaulting sharer reads the new data")
      t:eq(new, next.m:peek(0, size), "the other sharer reads the new data")
    end
  end,
}

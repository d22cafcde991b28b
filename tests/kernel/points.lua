-- SPDX-License-Identifier: MIT
-- points.lua: the schedule points' interface (/sys/kernel/umlbed_points/) and each point, on a kernel that has them.
--
-- Each point is shown to be where it says by what the parked task has and has not done yet, as the other processes
-- see it: an invalidation parked between its zaps has zapped one of two VMAs; one parked before its cache drop has
-- zapped them all; a fault parked before its PTE maps the page after an invalidation that ran meanwhile; an munmap
-- or an exit parked before the unlink leaves its VMA for an invalidation to visit. The errors of the interface, and
-- that a killed parked task leaves its point idle, are checked too.
local umlbed = require "umlbed"
local D = "/sys/kernel/umlbed_points/"
local NP = 4

return {
  name = "schedule points: each point parks its task where it says",
  timeout = 60,
  run = function(t)
    local vm = assert(t:vm())
    local ps = vm.pagesize
    local f = assert(vm:file("data", NP * ps))
    assert(f:write(0, ("d"):rep(NP * ps)))
    local ctl = assert(vm:spawn())   -- control writes (wait blocks its writer)

    local function w(file, text)
      local r, err, en = vm:request(ctl.pid, "writefile", D .. file, umlbed.encode(text))
      if r then return true end
      return nil, err, en
    end
    local function points()
      local s = assert(vm:readfile(D .. "points"))
      local all = {}
      for name, hits, armed, pid, state in s:gmatch("(%S+) (%d+) (%d+) (%d+) (%S+)\n") do
        all[name] = { hits = tonumber(hits), armed = tonumber(armed), pid = tonumber(pid), state = state }
      end
      return all, s
    end
    local function park(name, hit, proc, fn, what)
      assert(w("arm", ("%s %d %d"):format(name, hit, proc.pid)))
      local task = t:go(fn)
      assert(w("wait", name .. " 60000"))
      local p = points()[name]
      t:eq({ hits = hit, armed = hit, pid = proc.pid, state = "parked" }, p, name .. " parked " .. what)
      return task
    end
    local function release(name, task)
      assert(w("release", name))
      local r = { task:wait() }
      local p = points()[name]
      t:eq("idle", p.state, name .. " idle once its task ran on")
      return table.unpack(r)
    end

    local all, listing = points()
    local names = {}
    for name in listing:gmatch("(%S+) %d+ %d+ %d+ %S+\n") do names[#names + 1] = name end
    t:eq({ "imr_locked", "imr_before_zap", "imr_after_zap", "unmap_before_zap", "exit_in_unmap", "exit_before_unlink",
           "munmap_unlink", "fault_before_pte", "drop_before", "zap_before_flush" }, names, "the points, in order")
    for name, pt in pairs(all) do
      t:eq({ hits = 0, armed = 0, pid = 0, state = "idle" }, pt, name .. " at boot")
    end

    -- Errors of the interface.
    local function errname(ok, _, en) return ok and "ok" or en end
    t:eq("EINVAL", errname(w("arm", "nosuch 1")), "unknown name")
    t:eq("EINVAL", errname(w("arm", "imr_locked 0")), "hit 0")
    t:eq("EINVAL", errname(w("arm", "imr_locked -1")), "negative hit")
    t:eq("EINVAL", errname(w("arm", "imr_locked 1 0")), "tgid 0")
    t:eq("EINVAL", errname(w("arm", "imr_locked 1 2 3")), "extra word")
    t:eq("EINVAL", errname(w("arm", "imr_locked")), "no hit")
    t:eq("EINVAL", errname(w("wait", "imr_locked 0")), "timeout 0")
    t:eq("EINVAL", errname(w("wait", "imr_locked 3600001")), "timeout too long")
    t:eq("ESRCH", errname(w("release", "imr_locked")), "release of an idle point")
    assert(w("arm", "imr_locked 1000000"))
    t:eq("EBUSY", errname(w("arm", "imr_locked 1")), "armed twice")
    t:eq("EAGAIN", errname(w("release", "imr_locked")), "release of an armed point")
    t:eq("ETIMEDOUT", errname(w("wait", "imr_locked 1")), "wait on an armed point that is not hit")
    t:eq("armed", points().imr_locked.state, "armed")
    assert(vm:invalidate { file = f, impl = "seed" })
    assert(vm:invalidate { file = f, impl = "seed" })
    t:eq(2, points().imr_locked.hits, "two seed calls, two hits while armed")
    assert(w("disarm", "all"))
    t:eq("idle", points().imr_locked.state, "disarm all")
    assert(vm:invalidate { file = f, impl = "seed" })
    t:eq(2, points().imr_locked.hits, "no hit counted with the key off")

    -- settle: returns once every other task has blocked; a task that keeps running holds it up until its timeout.
    t:eq("ok", errname(w("settle", "60000")), "settle with nothing running")
    t:eq("EINVAL", errname(w("settle", "0")), "settle timeout 0")
    local L = assert(vm:spawn())
    local ml = assert(L:mmap(f, { mode = "shared", prot = "r" }))
    local lc = assert(vm:loopctl())
    local loop = t:go(function() return ml:loop("r", lc) end)
    assert(lc:wait(1))
    t:eq("ETIMEDOUT", errname(w("settle", "200")), "settle while a loop runs")
    assert(lc:stop())
    assert(loop:wait())
    t:eq("ok", errname(w("settle", "60000")), "settle once the loop stopped")
    assert(ml:munmap())
    assert(L:exit(0, { wait = true }))

    -- Two sharers: the owner and a forked child map the whole file.
    local owner = assert(vm:spawn())
    local m = assert(owner:mmap(f, { mode = "shared", prot = "r" }))
    local kid = assert(owner:fork(1))[1]
    local mk = m:on(kid)
    local W = assert(vm:spawn())
    local function touch_all() assert(m:touch("r")); assert(mk:touch("r")) end
    local function states() return assert(m:pages()) .. "/" .. assert(mk:pages()) end
    -- one_of_two(NAME, HIT, IMPL, WHAT): W's call of IMPL parks at NAME's HIT-th hit with one VMA of the two zapped
    -- (WHAT), and zaps the other once released.
    local function one_of_two(name, hit, impl, what)
      touch_all()
      local task = park(name, hit, W, function() return W:invalidate { file = f, impl = impl } end, "at hit " .. hit)
      local s = states()
      t:expect(s == "----/FFFF" or s == "FFFF/----", "%s %d: %s, seen %s", name, hit, what, s)
      release(name, task)
      t:eq("----/----", states(), name .. ": all zapped after release")
    end

    -- imr_locked: the walker holds i_mmap_rwsem, nothing zapped yet.
    touch_all()
    local task = park("imr_locked", 1, W, function() return W:invalidate { file = f, impl = "seed" } end,
                      "by the seed call")
    t:eq("FFFF/FFFF", states(), "imr_locked: nothing zapped yet")
    release("imr_locked", task)
    t:eq("----/----", states(), "imr_locked: all zapped after release")

    -- imr_before_zap 2: the first VMA is zapped, the second not yet.
    one_of_two("imr_before_zap", 2, "seed", "exactly one VMA zapped")

    -- imr_after_zap 1: the same, from the other side.
    one_of_two("imr_after_zap", 1, "seed", "exactly one VMA zapped")

    -- unmap_before_zap 2: the oracle's walk.
    one_of_two("unmap_before_zap", 2, "unmap", "exactly one VMA zapped")

    -- drop_before: the zap is done, the cache not dropped yet.
    touch_all()
    assert(f:write(0, ("n"):rep(NP * ps)))   -- the other node's data, behind the cache
    task = park("drop_before", 1, W, function() return W:invalidate { file = f, impl = "seed", cache = "drop" } end,
                "in cache=drop")
    t:eq("----/----", states(), "drop_before: zapped before the drop")
    release("drop_before", task)
    t:eq(("n"):rep(ps), m:peek(0, ps), "drop_before: the refault reads the new data after the drop")

    -- zap_before_flush 1: the first VMA's PTEs are cleared and its flush is pending; the second is not zapped yet.
    one_of_two("zap_before_flush", 1, "seed", "exactly one VMA's PTEs cleared")

    -- fault_before_pte: the page is found, the PTE not set; an invalidation meanwhile zaps nothing.
    local Z = assert(vm:spawn())
    local mz = assert(Z:mmap(f, { mode = "shared", prot = "r" }))
    assert(mz:touch("r", 1, 1))
    task = park("fault_before_pte", 1, Z, function() return mz:touch("r", 0, 1) end, "in the fault of page 0")
    -- Z serves one request at a time, so its pages cannot be read while it is parked in the fault.
    assert(W:invalidate { file = f, impl = "seed" })
    release("fault_before_pte", task)
    t:eq("F---", assert(mz:pages()), "fault_before_pte: the fault maps page 0 after the invalidation")

    -- munmap_unlink: munmap holds the mmap_lock, the VMA is still in i_mmap.
    assert(mz:touch("r"))
    task = park("munmap_unlink", 1, Z, function() return mz:munmap() end, "in munmap")
    assert(W:invalidate { file = f, impl = "seed" })
    local st = assert(vm:stats())
    t:eq(3, st.last_seed_vmas_visited, "munmap_unlink: the invalidation still visits the VMA being unmapped")
    release("munmap_unlink", task)
    assert(W:invalidate { file = f, impl = "seed" })
    t:eq(2, assert(vm:stats()).last_seed_vmas_visited, "munmap_unlink: gone after release")

    -- exit_in_unmap and exit_before_unlink: an exiting mapper.
    local X = assert(vm:spawn())
    local mx = assert(X:mmap(f, { mode = "shared", prot = "r" }))
    assert(mx:touch("r"))
    assert(w("arm", ("exit_before_unlink 1 %d"):format(X.pid)))
    task = park("exit_in_unmap", 1, X, function() return X:exit(0, { wait = true }) end, "in exit")
    -- Let the exit run on to its next point: the PTEs go, the VMA stays linked.
    assert(w("release", "exit_in_unmap"))
    assert(w("wait", "exit_before_unlink 60000"))
    local p = points()
    t:eq({ hits = 1, armed = 1, pid = X.pid, state = "parked" }, p.exit_before_unlink, "exit_before_unlink parked")
    t:eq("idle", p.exit_in_unmap.state, "exit_in_unmap idle once X ran on")
    t:expect(p.exit_in_unmap.hits >= 1, "exit_in_unmap: one hit per VMA of X")
    assert(W:invalidate { file = f, impl = "seed" })
    t:eq(3, assert(vm:stats()).last_seed_vmas_visited, "exit_before_unlink: the dying VMA is still visited")
    release("exit_before_unlink", task)
    assert(W:invalidate { file = f, impl = "seed" })
    t:eq(2, assert(vm:stats()).last_seed_vmas_visited, "exit_before_unlink: gone after the exit")

    -- A killed parked task leaves its point idle (killable sleep).
    assert(vm:shell())
    local K = assert(vm:spawn())
    task = park("imr_locked", 1, K, function() return K:invalidate { file = f, impl = "seed" } end, "before the kill")
    local kst, kout = vm:exec("/bin/kill", "-9", tostring(K.pid))
    t:eq("exit:0", kst, "kill: " .. tostring(kout))
    local ok, err = task:wait()
    t:expect(not ok, "the killed writer's request fails: " .. tostring(err))
    p = points().imr_locked
    t:eq("idle", p.state, "a killed parked task leaves the point idle")
    t:eq("ESRCH", errname(w("release", "imr_locked")), "nothing to release after the kill")
  end,
}

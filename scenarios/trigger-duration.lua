-- SPDX-License-Identifier: MIT
-- trigger-duration.lua: the stats file's last_call_ns is the last call's own duration, bounded on both sides by events of the guest's clock.
--
-- The ABI (patch 0002's Documentation/ABI entry) says last_call_ns holds the nanoseconds the last call of the
-- implementation took, the call alone. A duration is not a verdict by itself (it depends on the host), but two
-- bounds of it are facts of the guest's one clock, whatever the host's speed:
--   lower  the invalidator is parked at a schedule point inside the call (imr_before_zap for seed, unmap_before_zap
--          for the others) while the guest sleeps SLEEP seconds: the call cannot have taken less;
--   upper  a second call runs from a guest shell between two readings of /proc/uptime: it cannot have taken more
--          than their difference plus their 10 ms resolution.
-- The guest runs under time-travel (inf-cpu): its clock moves only while it is idle, jumping to the next timer. So
-- the sleeps cost the host nothing, and the shell's three steps, which never wait for the host, take no guest time
-- at all. The sleep of BEFORE seconds makes the time since boot far longer than that bound, so a duration taken from
-- boot, or a sum of two readings, fails it; a value left from the call before fails the lower bound or the upper.
-- The guest's clock also has a grain: UML's clocksource (arch/um/kernel/time.c's timer_clocksource, named
-- "time-travel-clock" under time-travel) counts steps of STEP ns (TIMER_MULTIPLIER, registered at NSEC_PER_SEC /
-- STEP Hz, so its mult is exact), so the difference of two readings is a whole number of steps, and a duration off
-- by a nanosecond is not.
local points = require "umlbed.points"

local SLEEP = 2      -- guest seconds the invalidator stays parked
local BEFORE = 100   -- guest seconds slept before the call, so that time since boot dwarfs the call
local STEP = 256     -- nanoseconds a step of UML's clocksource

-- /proc/uptime's first field (two decimals) in nanoseconds.
local function ns_of(uptime)
  local sec, cs = tostring(uptime):match("^(%d+)%.(%d%d)$")
  assert(sec, "unexpected /proc/uptime field: " .. tostring(uptime))
  return (tonumber(sec) * 100 + tonumber(cs)) * 10000000
end

return {
  name = "stats: last_call_ns is the call's own duration",
  matrix = { impl = { "seed", "unmap", "unmap-keep-cows" } },
  timeout = 60,
  run = function(t, p)
    local vm = assert(t:vm { time_travel = true })
    local sh = assert(vm:shell())
    local function sleep(seconds)
      local st, out = vm:run { path = sh, args = { "-c", "sleep " .. seconds } }
      t:require(st == "exit:0", "the guest slept %s s (%s %s)", seconds, tostring(st), tostring(out))
    end
    -- The point inside the timed section: seed's walk passes imr_before_zap for each VMA it zaps; unmap and
    -- unmap-keep-cows reach unmap_before_zap in unmap_mapping_range's walk.
    local point = p.impl == "seed" and "imr_before_zap" or "unmap_before_zap"
    -- The grain's probe: the clock the kernel reads is UML's own.
    local cst, cs = vm:run { path = sh,
                             args = { "-c", "cat /sys/devices/system/clocksource/clocksource0/current_clocksource" } }
    t:assert_eq("exit:0", cst, "the guest's clocksource read (" .. tostring(cs) .. ")")
    t:assert_eq("time-travel-clock", tostring(cs):match("^(%S+)"),
                "the guest's clocksource is UML's, of " .. STEP .. " ns steps, under time-travel")
    local f = assert(vm:file("data", vm.pagesize))
    assert(f:write(0, ("d"):rep(vm.pagesize)))
    local A = assert(vm:spawn())
    local m = assert(A:mmap(f, { mode = "shared", prot = "r" }))
    assert(m:touch("r"))
    local W = assert(vm:spawn())
    local s0 = assert(vm:stats())
    t:eq(0, s0.calls, "no trigger call before this one")

    -- The lower bound: the first call, parked inside.
    local h <close> = assert(points.arm(vm, point, { hit = 1, proc = W }))
    local inv = t:go(function() return W:invalidate { file = f, impl = p.impl } end)
    t:assert_true(h:wait(), "the invalidator is parked inside the call at " .. point)
    sleep(SLEEP)
    assert(h:release())
    t:assert_true(inv:wait(), "the call returns once released")
    t:eq("-", assert(m:pages()), "the call zapped the page")
    local ns = assert(vm:stats()).last_call_ns
    t:note(("parked call: last_call_ns %d, parked %d s"):format(ns, SLEEP))
    t:expect(ns >= SLEEP * 1000000000, "last_call_ns (%d) covers the %d s the call was parked", ns, SLEEP)
    t:expect(ns % STEP == 0, "last_call_ns (%d) is a whole number of the clock's %d ns steps", ns, STEP)

    -- The upper bound: a second call between two clock readings, long after boot.
    sleep(BEFORE)
    local st, out = vm:run { path = sh, args = { "-c", ([[read a x < /proc/uptime
echo '%s 0 %d %s' > /sys/kernel/mm/invalidate_mmap_range/trigger || exit 1
read b x < /proc/uptime
echo "$a $b"]]):format(f.path, vm.pagesize, p.impl) } }
    t:assert_eq("exit:0", st, "the shell's trigger write (" .. tostring(out) .. ")")
    local a, b = tostring(out):match("^(%S+) (%S+)")
    local t0, t1 = ns_of(a), ns_of(b) + 10000000
    local s2 = assert(vm:stats())
    t:eq(2, s2.calls, "two trigger writes")
    t:note(("timed call: last_call_ns %d, the write within %d ns, %d ns after boot"):format(s2.last_call_ns,
                                                                                              t1 - t0, t1))
    t:expect(s2.last_call_ns >= 0, "last_call_ns (%d) is not negative", s2.last_call_ns)
    t:expect(s2.last_call_ns % STEP == 0, "last_call_ns (%d) is a whole number of the clock's %d ns steps",
             s2.last_call_ns, STEP)
    t:expect(s2.last_call_ns <= t1 - t0, "last_call_ns (%d) is no longer than the write took (%d ns)",
             s2.last_call_ns, t1 - t0)
  end,
}

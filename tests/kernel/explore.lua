-- SPDX-License-Identifier: MIT
-- explore.lua: the kernel's automatic schedule points (/sys/kernel/umlbed_explore/): the interface, the steps they count, that a change point changes the interleaving, and that a schedule replays.
--
-- The guest program umlbed-explore runs a small case (an invalidation against a refault of the same pages) under
-- schedules: the trace names the lock operations each task passed (i_mmap_rwsem in the invalidation, mmap_lock in
-- the fault); with the fault's task first, then with the invalidation's; then with a change point that preempts the
-- first task at a step: the other task's steps come in between. The same schedule run twice gives the same trace,
-- step for step. Malformed writes are refused with their errno and the kernel stays up. The program leaves the
-- kernel's writeback to the primitives that ask for it (docs/explore.md).
local umlbed = require "umlbed"
local D = "/sys/kernel/umlbed_explore/"

local CASE = { "file host 8", "proc P0", "do P0 map M0 0 8 0 shared rw", "do P0 touch M0 0 8 r", "proc P1",
  "task P1 inval 0 32768 seed keep", "task P0 read M0 3" }

-- A truncation to nothing lowered where truncate_pagecache() enters unmap_mapping_range(), after the size is set
-- and before the pages leave the cache; meanwhile another process closes its descriptor, which writes the dirty
-- shared pages back. Every order of the two leaves the file empty (the explorer's case 172 of seed 1, a hostfs bug).
local TRUNCATE_CLOSE = { "file host 19", "proc P0", "do P0 map M0 0 19 0 shared rw", "do P0 touch M0 0 19 w",
  "proc P1", "proc P2", "task P1 truncate 0", "task P2 close" }

return {
  name = "explore points: the interface, the steps, a change point, a replay",
  timeout = 120,
  run = function(t)
    local vm = assert(t:vm { mem = "256M" })
    local dir = vm.agent:match("^(.*)/[^/]+$")
    assert(vm:install(dir .. "/umlbed-explore", "/umlbed-explore"))
    local ctl = assert(vm:spawn())

    local function w(file, text)
      local r, err, en = vm:request(ctl.pid, "writefile", D .. file, umlbed.encode(text))
      if r then return true end
      return nil, err, en
    end
    -- The interface: each malformed write refused with its errno, nothing started. 65 change points are one too many.
    local too_many = ""
    for i = 1, 65 do too_many = too_many .. (" %d:9"):format(i) end
    for _, bad in ipairs {
      { "start", "\n", "EINVAL" }, { "start", "x", "EINVAL" }, { "start", "0", "EINVAL" },
      { "start", "1,1", "EINVAL" }, { "start", "1,2,3,4,5", "EINVAL" }, { "start", "1 5:10 5:9", "EINVAL" },
      { "start", "1 0:10", "EINVAL" }, { "start", "1 3:100", "EINVAL" }, { "start", "1 3:", "EINVAL" },
      { "start", "1\n\n", "EINVAL" }, { "start", "1" .. too_many, "EINVAL" },
      { "stop", "stop", "ESRCH" }, { "stop", "halt", "EINVAL" }, { "mark", "begin", "ESRCH" },
      { "mark", "middle", "EINVAL" } } do
      local okw, err, en = w(bad[1], bad[2])
      t:eq(bad[3], okw and "accepted" or en, ("%s %q is refused (%s)"):format(bad[1], bad[2], tostring(err)))
    end
    t:require(w("start", tostring(ctl.pid)), "a well-formed start is taken")
    local _, _, busy = w("start", tostring(ctl.pid))
    t:eq("EBUSY", busy, "a second start while one runs")
    local _, _, stranger = vm:writefile(D .. "mark", "begin")
    t:eq("ESRCH", stranger, "a mark from a process outside the exploration (PID 1's helper writes it)")
    t:require(w("stop", "stop\n"), "stop")
    t:eq("0", (assert(vm:readfile(D .. "steps")):match("^(%d+)")), "no step counted for a task that did nothing")

    local function run(sched, case)
      local args = { "-t", "-s", sched }
      for _, d in ipairs(case or CASE) do args[#args + 1] = d end
      local st, out = vm:run { path = "/umlbed-explore", args = args, timeout = 60 }
      t:assert_eq("exit:0", st, "umlbed-explore -s " .. sched .. ": " .. tostring(out))
      local trace = out:match("\ntrace\n(.-)end trace\n")
      local steps = {}
      for task, kind, what, site in trace:gmatch("%d+ (%d) (%S+) (%S+) (%S+)\n") do
        steps[#steps + 1] = { task = tonumber(task), p = kind .. " " .. what .. " " .. site }
      end
      return steps, out, tonumber(out:match("\nfile (%d+)"))
    end
    local function first_step_of(steps, task, pattern)
      for i, s in ipairs(steps) do
        if s.task == task and s.p:find(pattern) then return i end
      end
    end
    local function tasks_in_order(steps)
      local seq = {}
      for _, s in ipairs(steps) do
        if seq[#seq] ~= s.task then seq[#seq + 1] = s.task end
      end
      return table.concat(seq, "")
    end

    -- T0 (the invalidation) first: its steps take i_mmap_rwsem and zap; then T1's fault takes mmap_lock.
    local a = run("12,11/")
    t:expect(first_step_of(a, 0, "i_mmap_rwsem"), "T0's invalidation passed i_mmap_rwsem")
    t:expect(first_step_of(a, 0, "zap_page_range_single"), "T0's walk passed zap_page_range_single's edges")
    t:expect(first_step_of(a, 1, "mmap_lock"), "T1's fault passed mmap_lock")
    t:eq("01", tasks_in_order(a), "at priorities 12 and 11 the invalidation runs to its end, then the fault")
    local b = run("11,12/")
    t:eq("10", tasks_in_order(b), "the other way round, the fault first")
    -- A preemption at T0's step after it took i_mmap_rwsem: T1 runs in between.
    local at = first_step_of(a, 0, "acquire i_mmap_rwsem")
    t:require(at, "the step at which T0 takes i_mmap_rwsem")
    local c = run(("12,11/%d:10"):format(at))
    t:eq("010", tasks_in_order(c), ("a change to priority 10 at step %d lets T1 run, then T0 goes on"):format(at))
    -- The same schedule twice: the same trace, step by step.
    local c2 = run(("12,11/%d:10"):format(at))
    local same = #c == #c2
    for i = 1, math.min(#c, #c2) do same = same and c[i].task == c2[i].task and c[i].p == c2[i].p end
    t:expect(same, ("the schedule replays its interleaving: %d and %d steps, the same each time"):format(#c, #c2))
    -- A writeback inside a truncation's window does not grow the file again (hostfs-writepage-past-eof.patch).
    local tc = run("12,11/", TRUNCATE_CLOSE)
    local window = first_step_of(tc, 0, "enter unmap_mapping_range truncate_pagecache")
    t:require(window, "the truncation enters unmap_mapping_range() from truncate_pagecache()")
    local raced, _, pages = run(("12,11/%d:10"):format(window), TRUNCATE_CLOSE)
    t:eq("010", tasks_in_order(raced), "the close runs inside the truncation's window")
    t:expect(first_step_of(raced, 1, "hostfs_writepage"), "the close writes the dirty pages back there")
    t:eq(0, pages, "the truncation to nothing leaves nothing, as each order of the two does")
    -- Each run is named in the kernel's log, however many a batch holds: the name is how a run that brought the
    -- kernel down is found. The kernel's default lets ten lines through in five seconds.
    local function named()
      local _, count = assert(vm:klog()):gsub("umlbed%-explore: run %-s 12,11/\n", "")
      return count
    end
    local before = named()
    local args = {}
    for _ = 1, 12 do args[#args + 1], args[#args + 2] = "-s", "12,11/" end
    for _, d in ipairs(CASE) do args[#args + 1] = d end
    local st, out = vm:run { path = "/umlbed-explore", args = args, timeout = 60 }
    t:assert_eq("exit:0", st, "a batch of 12 runs: " .. tostring(out))
    t:eq(12, named() - before, "each of a batch's 12 runs is named in the kernel's log")
    -- The guest program leaves writeback to the primitives that ask for it: no flusher timer and no background
    -- threshold within reach, which the kernel's own values (5 s, 10 % of memory) are not.
    for _, kv in ipairs { { "dirty_writeback_centisecs", "360000" }, { "dirty_background_bytes", "34359738368" },
      { "dirty_bytes", "68719476736" } } do
      t:eq(kv[2], (assert(vm:readfile("/proc/sys/vm/" .. kv[1])):match("^(%d+)")),
        "after umlbed-explore, vm." .. kv[1] .. " keeps the flusher out of the runs")
    end
    t:eq(0, vm:tainted(), "the kernel reported nothing")
  end,
}

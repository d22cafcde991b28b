-- fake-go.lua: t:go tasks against the fake UML: concurrent calls, results, errors re-raised by wait, deadlock and coroutine checks.
return {
  name = "fake go",
  run = function(t)
    local vm = assert(t:vm())
    -- A call held in a task does not block the run function, which sends the release itself.
    local held = t:go(function(key) return vm:request(1, "hold", key) end, "k1")
    t:eq(held.done, false, "a new task has not finished")
    t:eq(vm:request(1, "echo", "x"), "x", "the run function's call is answered while the task waits")
    t:eq(held.done, false, "the held call is still pending")
    assert(vm:request(1, "release", "k1"))
    t:eq(held:wait(), "k1", "wait returns the task's result")
    t:eq(held.done, true, "done after wait")
    t:eq(held:wait(), "k1", "a second wait returns the same")

    -- Arguments, several results, a nil among them.
    local multi = t:go(function(a, b) return a, nil, b end, 1, "two")
    t:eq(table.pack(multi:wait()), { n = 3, 1, nil, "two" }, "all results, nil included")

    -- A task waits for another; both are parked until the release.
    local a = t:go(function() return vm:request(1, "hold", "a") end)
    local b = t:go(function() return "b:" .. a:wait() end)
    assert(vm:request(1, "echo", "y"))
    t:eq(b.done, false, "the waiting task waits")
    assert(vm:request(1, "release", "a"))
    t:eq(b:wait(), "b:a", "a task waits for another")

    -- Expectations in a task count like the run function's.
    local before = t.failures
    t:go(function() t:eq(vm:request(1, "echo", "in"), "in", "a task's expectation") end):wait()
    t:eq(t.failures, before, "a passing expectation in a task is no failure")

    -- An error in a task is re-raised by wait, naming the task and its file:line.
    local bad = t:go(function() error("boom") end)
    local ok, err = pcall(bad.wait, bad)
    t:eq(ok, false, "wait re-raises the task's error")
    t:expect(tostring(err):find("fake%-go%.lua:%d+: boom"), "the error's file:line: " .. tostring(err))
    t:expect(tostring(err):find("t:go at [^)]*fake%-go%.lua:%d+"), "where the task started: " .. tostring(err))

    -- Waiting for oneself, directly or in a cycle, is refused at once.
    local me
    me = t:go(function() return pcall(me.wait, me) end)
    local ok2, err2 = me:wait()
    t:eq(ok2, false, "a task cannot wait for itself")
    t:expect(tostring(err2):find("deadlock"), "deadlock named: " .. tostring(err2))

    -- A coroutine the scenario makes itself cannot make guest calls.
    local ok3, err3 = coroutine.wrap(function() return pcall(vm.request, vm, 1, "echo", "z") end)()
    t:eq(ok3, false, "no guest call from a plain coroutine")
    t:expect(tostring(err3):find("t:go", 1, true), "the error says how: " .. tostring(err3))

    -- vm.kernel is the kernel the runner was given; a kernel outside BUILD/kernel/NAME has no variant.
    t:eq(vm.kernel, os.getenv("FAKE_KERNEL"), "vm.kernel")
    t:eq(vm.variant, os.getenv("FAKE_VARIANT"), "vm.variant")
  end,
}

-- SPDX-License-Identifier: MIT
-- fake-go.lua: t:go tasks against the fake UML: concurrent calls, results, errors re-raised by wait, deadlock and coroutine checks.
return {
  name = "fake go",
  run = function(t)
    local vm = assert(t:vm())
    -- A call held in a task does not block the run function, which sends the release itself.
    local held = t:go(function(key) return vm:request(1, "hold", key) end, "k1")
    t:eq(false, held.done, "a new task has not finished")
    t:eq("x", vm:request(1, "echo", "x"), "the run function's call is answered while the task waits")
    t:eq(false, held.done, "the held call is still pending")
    assert(vm:request(1, "release", "k1"))
    t:eq("k1", held:wait(), "wait returns the task's result")
    t:eq(true, held.done, "done after wait")
    t:eq("k1", held:wait(), "a second wait returns the same")

    -- Arguments, several results, a nil among them.
    local multi = t:go(function(a, b) return a, nil, b end, 1, "two")
    t:eq({ n = 3, 1, nil, "two" }, table.pack(multi:wait()), "all results, nil included")

    -- A task waits for another; both are parked until the release.
    local a = t:go(function() return vm:request(1, "hold", "a") end)
    local b = t:go(function() return "b:" .. a:wait() end)
    assert(vm:request(1, "echo", "y"))
    t:eq(false, b.done, "the waiting task waits")
    assert(vm:request(1, "release", "a"))
    t:eq("b:a", b:wait(), "a task waits for another")

    -- Expectations in a task count like the run function's.
    local before = t.failures
    t:go(function() t:eq("in", vm:request(1, "echo", "in"), "a task's expectation") end):wait()
    t:eq(before, t.failures, "a passing expectation in a task is no failure")

    -- An error in a task is re-raised by wait, naming the task and its file:line.
    local bad = t:go(function() error("boom") end)
    local ok, err = pcall(bad.wait, bad)
    t:eq(false, ok, "wait re-raises the task's error")
    t:expect(tostring(err):find("fake%-go%.lua:%d+: boom"), "the error's file:line: " .. tostring(err))
    t:expect(tostring(err):find("t:go at [^)]*fake%-go%.lua:%d+"), "where the task started: " .. tostring(err))

    -- Waiting for oneself, directly or in a cycle, is refused at once.
    local me
    me = t:go(function() return pcall(me.wait, me) end)
    local ok2, err2 = me:wait()
    t:eq(false, ok2, "a task cannot wait for itself")
    t:expect(tostring(err2):find("deadlock"), "deadlock named: " .. tostring(err2))

    -- A coroutine the scenario makes itself cannot make guest calls.
    local ok3, err3 = coroutine.wrap(function() return pcall(vm.request, vm, 1, "echo", "z") end)()
    t:eq(false, ok3, "no guest call from a plain coroutine")
    t:expect(tostring(err3):find("t:go", 1, true), "the error says how: " .. tostring(err3))

    -- vm.kernel is the kernel the runner was given; a kernel outside BUILD/kernel/NAME has no variant.
    t:eq(os.getenv("FAKE_KERNEL"), vm.kernel, "vm.kernel")
    t:eq(os.getenv("FAKE_VARIANT"), vm.variant, "vm.variant")
  end,
}

-- fake-exit-wait.lua: proc:exit{wait=true} returns only after the agent's "exited" event for that worker, not at the reply.
return {
  name = "fake exit wait",
  run = function(t)
    local vm = assert(t:vm())
    -- Without wait: the reply is enough.
    local a = assert(vm:spawn())
    t:eq(a:exit(5), true, "exit without wait returns at the reply")

    -- The event follows the reply at once (before the task runs again): it is kept for the call.
    local b = assert(vm:spawn())
    t:eq(table.pack(b:exit(0, { wait = true })), { n = 2, true, "exit:0" }, "the event right after the reply")

    -- The event comes later: the call stays parked until then; another worker's event does not wake it.
    local c = assert(vm:spawn())
    local task = t:go(function() return c:exit(7, { wait = true }) end)
    t:eq(vm:request(1, "echo", "x"), "x", "the run function goes on meanwhile")
    t:eq(task.done, false, "the exit reply alone does not end the waiting exit")
    assert(vm:request(1, "reap", tostring(c.pid)))
    t:eq(table.pack(task:wait()), { n = 2, true, "exit:7" }, "the waiting exit returns the worker's status")

    -- An exited event nobody waits for (the fake's PID 99999) is kept and wakes nothing.
    t:eq(vm:request(1, "reap", "0"), true, "an exited event nobody waits for is harmless")
    local e = assert(vm:spawn())
    t:eq(table.pack(e:exit(0, { wait = true })), { n = 2, true, "exit:0" }, "the next waiting exit gets its own")

    -- The vm killed while a waiting exit is parked: the call fails instead of hanging.
    local d = assert(vm:spawn())
    local parked = t:go(function() return d:exit(9, { wait = true }) end)
    -- The task sends exit after this first echo; the fake answers in order, so by the second
    -- echo's reply the task has had its exit reply and is parked in the wait.
    assert(vm:request(1, "echo", "y"))
    assert(vm:request(1, "echo", "z"))
    t:eq(parked.done, false, "the exit is parked in the wait")
    vm:kill()
    local ok, err, ename = parked:wait()
    t:eq(ok, nil, "a waiting exit on a killed vm fails")
    t:eq(ename, "EPIPE", "with EPIPE (" .. tostring(err) .. ")")
  end,
}

-- SPDX-License-Identifier: MIT
-- fake-exit-wait.lua: proc:exit{wait=true} returns only after the agent's "exited" event for that worker, not at the reply.
return {
  name = "fake exit wait",
  run = function(t)
    local vm = assert(t:vm())
    -- Without wait: the reply is enough.
    local a = assert(vm:spawn())
    t:eq(true, a:exit(5), "exit without wait returns at the reply")

    -- The event follows the reply at once (before the task runs again): it is kept for the call.
    local b = assert(vm:spawn())
    t:eq({ n = 2, true, "exit:0" }, table.pack(b:exit(0, { wait = true })), "the event right after the reply")

    -- The event comes later: the call stays parked until then; another worker's event does not wake it.
    local c = assert(vm:spawn())
    local task = t:go(function() return c:exit(7, { wait = true }) end)
    t:eq("x", vm:request(1, "echo", "x"), "the run function goes on meanwhile")
    t:eq(false, task.done, "the exit reply alone does not end the waiting exit")
    assert(vm:request(1, "reap", tostring(c.pid)))
    t:eq({ n = 2, true, "exit:7" }, table.pack(task:wait()), "the waiting exit returns the worker's status")

    -- An exited event nobody waits for (the fake's PID 99999) is kept and wakes nothing.
    t:eq(true, vm:request(1, "reap", "0"), "an exited event nobody waits for is harmless")
    local e = assert(vm:spawn())
    t:eq({ n = 2, true, "exit:0" }, table.pack(e:exit(0, { wait = true })), "the next waiting exit gets its own")

    -- The vm killed while a waiting exit is parked: the call fails instead of hanging.
    local d = assert(vm:spawn())
    local parked = t:go(function() return d:exit(9, { wait = true }) end)
    -- The task sends exit after this first echo; the fake answers in order, so by the second
    -- echo's reply the task has had its exit reply and is parked in the wait.
    assert(vm:request(1, "echo", "y"))
    assert(vm:request(1, "echo", "z"))
    t:eq(false, parked.done, "the exit is parked in the wait")
    vm:kill()
    local ok, err, ename = parked:wait()
    t:eq(nil, ok, "a waiting exit on a killed vm fails")
    t:eq("EPIPE", ename, "with EPIPE (" .. tostring(err) .. ")")
  end,
}

-- SPDX-License-Identifier: MIT
-- fake-go-kill.lua: vm:kill() in the run function makes a task's pending call return ECANCELED.
return {
  name = "fake go kill",
  run = function(t)
    local vm = assert(t:vm())
    local held = t:go(function() return vm:request(1, "hold", "k") end)
    assert(vm:request(1, "echo", "x"))
    vm:kill()
    local r, err, ename = held:wait()
    t:eq(nil, r, "no result from a killed vm")
    t:eq("ECANCELED", ename, "the call was cancelled (" .. tostring(err) .. ")")
  end,
}

-- SPDX-License-Identifier: MIT
-- fake-go-die.lua: the guest dies while a task has a call pending: CRASHED, not a Lua error in the task.
return {
  name = "fake go die",
  run = function(t)
    local vm = assert(t:vm())
    local held = t:go(function() return assert(vm:request(1, "hold", "k")) end)
    assert(vm:request(1, "echo", "x"))
    vm:request(1, "die")
    held:wait()
    t:fail("went on after the guest died")
  end,
}

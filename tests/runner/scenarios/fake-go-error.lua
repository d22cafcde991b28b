-- SPDX-License-Identifier: MIT
-- fake-go-error.lua: an error in a task that nobody waits for makes the scenario ERROR at the end.
return {
  name = "fake go error",
  run = function(t)
    local vm = assert(t:vm())
    t:go(function() assert(vm:request(1, "echo", "x")); error("unwaited boom") end)
    assert(vm:request(1, "sleep", "100"))
    t:eq(1, 1, "the run function went on")
  end,
}

-- SPDX-License-Identifier: MIT
-- fake-go-late.lua: a task still running when run returns is waited for, and its failure counts with its file:line.
return {
  name = "fake go late",
  run = function(t)
    local vm = assert(t:vm())
    t:go(function()
      assert(vm:request(1, "sleep", "200"))
      t:fail("late failure in a task")
    end)
  end,
}

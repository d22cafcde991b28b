-- SPDX-License-Identifier: MIT
-- fake-go-busy.lua: a task that loops without ever waiting is stopped at the timeout.
return {
  name = "fake go busy",
  run = function(t)
    local vm = assert(t:vm())
    t:go(function() while true do end end)
    assert(vm:request(1, "echo", "x"))
  end,
}

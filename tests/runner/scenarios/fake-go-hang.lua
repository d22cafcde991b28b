-- SPDX-License-Identifier: MIT
-- fake-go-hang.lua: a task and the run function both wait forever; the timeout names both calls.
return {
  name = "fake go hang",
  run = function(t)
    local vm = assert(t:vm())
    t:go(function() return vm:request(1, "hold", "never") end)
    vm:request(1, "hang")
  end,
}

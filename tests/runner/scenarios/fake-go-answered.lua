-- SPDX-License-Identifier: MIT
-- fake-go-answered.lua: a call answered while a busy task holds the loop; the timeout must free the call's record.
return {
  name = "fake go answered",
  run = function(t)
    local vm = assert(t:vm())
    t:go(function()
      -- The fake sends this reply and the run function's deferred one in one write, so both tasks wake in one
      -- turn of the loop, this one first: it then loops past the timeout while the run function's reply waits.
      assert(vm:request(1, "echo", "y"))
      while true do end
    end)
    assert(vm:request(1, "defer", "x"))
  end,
}

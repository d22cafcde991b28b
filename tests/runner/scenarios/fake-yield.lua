-- SPDX-License-Identifier: MIT
-- fake-yield.lua: a bare coroutine.yield() in the run function is an ERROR, not a silent hang.
return {
  name = "fake yield",
  run = function(t)
    assert(t:vm())
    coroutine.yield()
  end,
}

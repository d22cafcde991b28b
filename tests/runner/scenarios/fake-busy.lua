-- SPDX-License-Identifier: MIT
-- fake-busy.lua: Lua code that never yields still ends at the timeout (TIMEOUT, not a hung runner).
return {
  name = "fake busy loop",
  run = function(t)
    assert(t:vm())
    local n = 0
    while true do n = n + 1 end
  end,
}

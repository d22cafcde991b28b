-- SPDX-License-Identifier: MIT
-- hostile-memory.lua: a scenario that allocates without end: an ERROR at its Lua memory cap, not the host's OOM.
return {
  name = "hostile memory bomb",
  run = function(t)
    local x = {}
    for i = 1, 1e9 do
      x[i] = ("x"):rep(65536) .. i
    end
    t:fail(("%d strings of 64 KiB fitted under the cap"):format(#x))
  end,
}

-- SPDX-License-Identifier: MIT
-- hostile-gc-loop.lua: a __gc metamethod that loops forever, run by a collection the scenario asks for (debug hooks are off in finalizers).
return {
  name = "hostile gc loop",
  run = function()
    -- Dropped at once: garbage with a finalizer that never returns.
    setmetatable({}, { __gc = function() while true do end end })
    collectgarbage()
    collectgarbage()
  end,
}

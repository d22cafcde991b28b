-- SPDX-License-Identifier: MIT
-- hostile-gc-close.lua: a __gc metamethod that loops forever on an object the scenario dropped, left to the end of the run.
return {
  name = "hostile gc at close",
  run = function(t)
    -- Dropped at once: garbage with a finalizer that never returns.
    setmetatable({}, { __gc = function() while true do end end })
    t:eq(1, 1, "the run function returns")
  end,
}

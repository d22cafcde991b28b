-- SPDX-License-Identifier: MIT
-- hostile-gc-pcall.lua: a __gc that loops in pcall, left to the end of the run: the verdict comes, then the runner ends the run's process.
return {
  name = "hostile gc pcall loop",
  run = function(t)
    -- Dropped at once: garbage with a finalizer that never returns.
    setmetatable({}, { __gc = function() while true do pcall(function() while true do end end) end end })
    t:eq(1, 1, "the run function returns")
  end,
}

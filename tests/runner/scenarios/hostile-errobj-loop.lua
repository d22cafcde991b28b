-- SPDX-License-Identifier: MIT
-- hostile-errobj-loop.lua: an error object whose __tostring never returns still ends at the deadline.
return {
  name = "hostile error object that loops",
  run = function()
    error(setmetatable({}, { __tostring = function() while true do end end }))
  end,
}

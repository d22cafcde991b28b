-- SPDX-License-Identifier: MIT
-- hostile-memory-load.lua: a scenario file whose top level allocates without end: umlbed list refuses it at the cap.
local x = {}
for i = 1, 1e9 do
  x[i] = ("x"):rep(65536) .. i
end
return { name = "never described: " .. #x .. " strings fitted", run = function() end }

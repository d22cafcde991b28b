-- SPDX-License-Identifier: MIT
-- hostile-iowrite.lua: io.write and io.stdout cannot write TAP lines either.
return {
  name = "hostile io.write",
  run = function(t)
    pcall(io.write, "ok 7 - via io.write\n")
    pcall(function() io.stdout:write("ok 8 - via io.stdout\n") end)
    pcall(function() io.stdout:flush() end)
    t:eq(1, 1, "the run goes on")
  end,
}

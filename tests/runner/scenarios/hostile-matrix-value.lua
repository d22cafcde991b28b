-- SPDX-License-Identifier: MIT
-- hostile-matrix-value.lua: a matrix value that is not a list is an error naming file:line.
return {
  name = "hostile matrix value",
  matrix = { mode = "shared" },
  run = function() end,
}

-- SPDX-License-Identifier: MIT
-- hostile-skip-true.lua: skip must be a string (the reason); true is an error in the scenario file, not ignored.
return {
  name = "hostile skip true",
  skip = true,
  run = function() end,
}

-- SPDX-License-Identifier: MIT
-- hostile-timeout-neg.lua: a negative timeout is an error in the scenario file, not "no timeout".
return {
  name = "hostile negative timeout",
  timeout = -5,
  run = function() end,
}

-- SPDX-License-Identifier: MIT
-- hostile-timeout-str.lua: a timeout that is not a number is an error in the scenario file, not ignored.
return {
  name = "hostile string timeout",
  timeout = "abc",
  run = function() end,
}

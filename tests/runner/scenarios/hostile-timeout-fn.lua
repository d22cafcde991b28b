-- SPDX-License-Identifier: MIT
-- hostile-timeout-fn.lua: a timeout function that never returns: the prepare phase is bounded by --timeout.
return {
  name = "hostile timeout function",
  timeout = function() while true do end end,
  run = function() end,
}

-- SPDX-License-Identifier: MIT
-- hostile-badname.lua: a scenario name that is not UTF-8: the reports still name it (U+00FF for the byte 0xff).
return {
  name = "bad \xff name",
  run = function(t) t:eq(1, 1, "nothing to see") end,
}

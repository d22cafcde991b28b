-- SPDX-License-Identifier: MIT
-- hostile-tap-names.lua: names with #, backslash, newline, CR and control bytes are escaped on their TAP line.
return {
  name = "hostile tap names",
  matrix = { s = { "a#b", "back\\slash", "nl\nok 9 - forged", "cr\rx", "ctl\1x" } },
  run = function(t, p) t:eq("string", type(p.s), "a string parameter") end,
}

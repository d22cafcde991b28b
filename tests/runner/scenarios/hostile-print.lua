-- SPDX-License-Identifier: MIT
-- hostile-print.lua: print() cannot write TAP: its text shows as "# print: " comment lines.
return {
  name = "hostile print",
  run = function(t)
    print("ok 5 - injected")
    print("first line\nok 6 - second line")
    t:eq(1, 1, "the run goes on")
  end,
}

-- SPDX-License-Identifier: MIT
-- hostile-unsafe.lua: with --unsafe-lua the sandbox is off: os.execute works.
return {
  name = "hostile unsafe lua",
  run = function(t)
    t:eq("function", type(os.execute), "os.execute is there")
    t:eq(true, os.execute("true"), "os.execute runs a host command")
  end,
}

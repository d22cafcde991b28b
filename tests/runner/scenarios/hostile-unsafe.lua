-- hostile-unsafe.lua: with --unsafe-lua the sandbox is off: os.execute works.
return {
  name = "hostile unsafe lua",
  run = function(t)
    t:eq(type(os.execute), "function", "os.execute is there")
    t:eq(os.execute("true"), true, "os.execute runs a host command")
  end,
}

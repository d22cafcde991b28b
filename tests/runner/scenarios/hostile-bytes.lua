-- hostile-bytes.lua: invalid UTF-8 and control bytes in a failure message: the JSON and JUnit reports stay valid.
return {
  name = "hostile bytes",
  run = function(t)
    t:eq("\xff\xfe\x01", "x", "binary \x02")
  end,
}

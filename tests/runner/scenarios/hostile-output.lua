-- hostile-output.lua: 300 print()s and 300 t:note()s of 1 MiB each: the report keeps 1 MiB of each and says so.
return {
  name = "hostile output flood",
  run = function(t)
    local mib = ("p"):rep(1 << 20)
    for _ = 1, 300 do
      print(mib)
      t:note(mib)
    end
  end,
}

-- hostile-memory.lua: a scenario that allocates without end: an ERROR at its Lua memory cap, not the host's OOM.
return {
  name = "hostile memory bomb",
  run = function(t)
    local x = {}
    for i = 1, 1e9 do
      x[i] = ("x"):rep(1000) .. i
    end
    t:fail(("%d strings of a kilobyte fitted under the cap"):format(#x))
  end,
}

-- fake-error.lua: a Lua error in the scenario is ERROR with file:line and a traceback.
local function helper()
  local x = nil
  return x.field -- line 4: indexing nil
end

return {
  name = "fake error",
  run = function(t)
    assert(t:vm())
    helper()
  end,
}

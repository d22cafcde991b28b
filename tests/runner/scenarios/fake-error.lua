-- SPDX-License-Identifier: MIT
-- fake-error.lua: a Lua error in the scenario is ERROR with file:line and a traceback.
local function helper()
  local x = nil
  return x.field -- Indexing nil: the line the ERROR names.
end

return {
  name = "fake error",
  run = function(t)
    assert(t:vm())
    helper()
  end,
}

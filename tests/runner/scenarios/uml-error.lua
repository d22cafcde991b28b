-- SPDX-License-Identifier: MIT
-- uml-error.lua: a Lua error after booting the real kernel: ERROR with file:line.
return {
  name = "Lua error is ERROR",
  run = function(t)
    local vm = assert(t:vm())
    assert(vm:spawn())
    error("deliberate error in the scenario") -- The line the ERROR names.
  end,
}

-- SPDX-License-Identifier: MIT
-- fake-warn.lua: the kernel prints a WARNING during the last request: the run is CRASHED, not ok.
return {
  name = "fake warning",
  run = function(t)
    local vm = assert(t:vm())
    assert(vm:request(1, "warn"))
  end,
}

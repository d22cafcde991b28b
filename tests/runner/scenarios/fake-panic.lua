-- SPDX-License-Identifier: MIT
-- fake-panic.lua: a kernel panic on the console: CRASHED with the console excerpt.
return {
  name = "fake panic",
  run = function(t)
    local vm = assert(t:vm())
    vm:request(1, "panic")
  end,
}

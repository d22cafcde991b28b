-- SPDX-License-Identifier: MIT
-- fake-ok.lua: a scenario that passes against the fake UML (umlbed-test in fake mode).
return {
  name = "fake ok",
  run = function(t)
    local vm = assert(t:vm())
    t:eq(4096, vm.pagesize, "page size from the ready event")
    t:eq("hi", vm:request(1, "echo", "hi"), "the fake echoes")
  end,
}

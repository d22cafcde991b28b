-- fake-ok.lua: a scenario that passes against the fake UML (umlbed-test in fake mode).
return {
  name = "fake ok",
  run = function(t)
    local vm = assert(t:vm())
    t:eq(vm.pagesize, 4096, "page size from the ready event")
    t:eq(vm:request(1, "echo", "hi"), "hi", "the fake echoes")
  end,
}

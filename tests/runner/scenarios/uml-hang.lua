-- uml-hang.lua: the guest is busy forever (a huge touch loop): TIMEOUT, or SIGINT in the cleanup test.
return {
  name = "hung guest is TIMEOUT",
  run = function(t)
    local vm = assert(t:vm())
    local f = assert(vm:file("h", vm.pagesize))
    local p = assert(vm:spawn())
    local m = assert(p:mmap(f))
    -- A loop on a control that nobody stops never returns, on a host of any speed.
    assert(m:loop("r", assert(vm:loopctl())))
  end,
}

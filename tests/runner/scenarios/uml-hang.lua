-- uml-hang.lua: the guest is busy forever (a huge touch loop): TIMEOUT, or SIGINT in the cleanup test.
return {
  name = "hung guest is TIMEOUT",
  run = function(t)
    local vm = assert(t:vm())
    local f = assert(vm:file("h", vm.pagesize))
    local p = assert(vm:spawn())
    local m = assert(p:mmap(f))
    -- 2^32 passes (the agent's maximum) take far longer than any timeout.
    assert(m:loop("r", 1 << 32))
  end,
}

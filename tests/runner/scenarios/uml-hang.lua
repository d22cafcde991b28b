-- SPDX-License-Identifier: MIT
-- uml-hang.lua: the guest is busy forever (a loop nobody stops): TIMEOUT, or SIGINT in the cleanup test.
return {
  name = "hung guest is TIMEOUT",
  run = function(t)
    local vm = assert(t:vm())
    local f = assert(vm:file("h", vm.pagesize))
    local p = assert(vm:spawn())
    local m = assert(p:mmap(f))
    -- A loop on a control that nobody stops never returns, on a host of any speed.
    local ctl = assert(vm:loopctl())
    local loop = t:go(function() return m:loop("r", ctl) end)
    local started = assert(ctl:wait(1))
    assert(started == 1, "the guest's loop ended before its first pass")
    -- The loop is running now: tell a waiting test (sigint_cleanup in common.sh), an event instead of a delay.
    -- Tells a waiting test that the guest's loop runs: its write to the FIFO returns once this open happened.
    local fifo = os.getenv("UMLBED_READY_FIFO")
    if fifo then assert(io.open(fifo, "r")):close() end
    loop:wait()
  end,
}

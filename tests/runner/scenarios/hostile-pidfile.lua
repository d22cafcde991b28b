-- SPDX-License-Identifier: MIT
-- hostile-pidfile.lua: while its instance runs, the test writes UML's pid file (uml/UMID/pid in the instance's
-- folder, which the kernel and the run may write) with a victim's pid; the instance's end must not kill the victim
-- (trust.t B).
return {
  name = "hostile pid file",
  run = function(t)
    local vm = assert(t:vm())
    local fifo = assert(os.getenv("UMLBED_READY_FIFO"))
    -- The test writes the pid file between these two opens (common.sh's ready_wait on each).
    assert(io.open(fifo, "r")):close()
    assert(io.open(fifo .. ".written", "r")):close()
    t:expect(vm.pid ~= nil, "the instance ran")
  end,
}

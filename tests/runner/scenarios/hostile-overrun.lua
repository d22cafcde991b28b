-- SPDX-License-Identifier: MIT
-- hostile-overrun.lua: a C call (a FIFO read) that returns only after the deadline: the run is TIMEOUT, never ok.
return {
  name = "hostile overrun",
  run = function()
    -- Tells the test it reads next: the test's write to this FIFO returns once this open for reading happened.
    assert(io.open(assert(os.getenv("UMLBED_READY_FIFO")), "r")):close()
    -- Blocks in open() until the test opens the FIFO for writing, which it does once the deadline has passed.
    local r = assert(io.open(assert(os.getenv("HOSTILE_FIFO")), "r"))
    r:read("a")
    r:close()
  end,
}

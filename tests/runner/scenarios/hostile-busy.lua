-- SPDX-License-Identifier: MIT
-- hostile-busy.lua: a Lua loop that never waits for the guest, without a timeout: SIGINT must still stop the runner.
return {
  name = "hostile busy loop",
  run = function(t)
    assert(t:vm())
    -- Tell the waiting test that the loop starts now (an event, not a delay).
    -- Tells a waiting test that the loop starts: its write to the FIFO returns once this open for reading happened.
    local fifo = os.getenv("UMLBED_READY_FIFO")
    if fifo then assert(io.open(fifo, "r")):close() end
    while true do end
  end,
}

-- SPDX-License-Identifier: MIT
-- fake-hang.lua: the guest never answers: TIMEOUT (or SIGINT in the cleanup test).
return {
  name = "fake hang",
  run = function(t)
    local vm = assert(t:vm())
    -- The fake guest is up: tell a waiting test (sigint_cleanup in common.sh), an event instead of a delay.
    -- Tells a waiting test that the guest is up: the test's write to the FIFO returns once this open for reading
    -- has happened (an event, not a delay; a sandboxed run may read any file, and write only in its folder).
    local fifo = os.getenv("UMLBED_READY_FIFO")
    if fifo then assert(io.open(fifo, "r")):close() end
    vm:request(1, "hang")
  end,
}

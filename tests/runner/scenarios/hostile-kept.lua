-- SPDX-License-Identifier: MIT
-- hostile-kept.lua: a failed run, whose folder is kept: the test puts a link or a FIFO where the kept mark goes
-- (RUN/.umlbed-kept) while it runs (trust.t E).
return {
  name = "hostile kept mark",
  run = function(t)
    local fifo = assert(os.getenv("UMLBED_READY_FIFO"))
    assert(io.open(fifo, "r")):close()
    assert(io.open(fifo .. ".planted", "r")):close()
    t:fail("a failed run: its folder is kept")
  end,
}

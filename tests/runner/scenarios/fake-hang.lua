-- fake-hang.lua: the guest never answers: TIMEOUT (or SIGINT in the cleanup test).
return {
  name = "fake hang",
  run = function(t)
    local vm = assert(t:vm())
    -- The fake guest is up: tell a waiting test (sigint_cleanup in common.sh), an event instead of a delay.
    local fifo = os.getenv("UMLBED_READY_FIFO")
    if fifo then
      local w = assert(io.open(fifo, "w"))
      assert(w:write("the fake guest is up\n"))
      w:close()
    end
    vm:request(1, "hang")
  end,
}

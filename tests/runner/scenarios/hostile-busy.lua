-- hostile-busy.lua: a Lua loop that never waits for the guest, without a timeout: SIGINT must still stop the runner.
return {
  name = "hostile busy loop",
  run = function(t)
    assert(t:vm())
    -- Tell the waiting test that the loop starts now (an event, not a delay).
    local fifo = os.getenv("UMLBED_READY_FIFO")
    if fifo then
      local w = assert(io.open(fifo, "w"))
      assert(w:write("the busy loop starts\n"))
      w:close()
    end
    while true do end
  end,
}

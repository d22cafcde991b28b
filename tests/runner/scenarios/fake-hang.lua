-- fake-hang.lua: the guest never answers: TIMEOUT (or SIGINT in the cleanup test).
return {
  name = "fake hang",
  run = function(t)
    local vm = assert(t:vm())
    vm:request(1, "hang")
  end,
}

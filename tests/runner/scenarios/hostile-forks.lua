-- SPDX-License-Identifier: MIT
-- hostile-forks.lua: two instances at once each fork HOSTILE_FORKS processes, as a fork bomb in a guest would;
-- each must stop at its own process limit (UMLBED_NPROC), not at a count shared with the other (trust.t H).
return {
  name = "hostile forks",
  run = function(t)
    local want = assert(tonumber(os.getenv("HOSTILE_FORKS")))
    local limit = assert(tonumber(os.getenv("UMLBED_NPROC")))
    local a, b = assert(t:vm()), assert(t:vm())
    for name, vm in pairs { a = a, b = b } do
      local made, err = vm:request(1, "forks", tostring(want))
      made = tonumber(made)
      t:note(("instance %s: %s processes, then errno %s"):format(name, tostring(made), tostring(err)))
      -- The instance's own process is one of its limit.
      t:eq(limit - 1, made, "instance " .. name .. " stops at its own limit")
    end
  end,
}

-- SPDX-License-Identifier: MIT
-- fake-garbage.lua: the guest answers with garbage: ERROR (protocol error), not a runner crash.
return {
  name = "fake garbage",
  run = function(t)
    local vm = assert(t:vm())
    vm:request(1, "garbage")
  end,
}

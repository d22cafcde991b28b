-- SPDX-License-Identifier: MIT
-- fake-exit-hang.lua: a waiting exit whose "exited" event never comes is a TIMEOUT that says what it waited for.
return {
  name = "fake exit hang",
  run = function(t)
    local vm = assert(t:vm())
    local p = assert(vm:spawn())
    p:exit(3, { wait = true })
    t:fail("the waiting exit returned without its event")
  end,
}

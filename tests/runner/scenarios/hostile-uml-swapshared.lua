-- SPDX-License-Identifier: MIT
-- hostile-uml-swapshared.lua: the guest replaces /shared itself by a link to a host folder: the runner's host-side writes do not follow it.
return {
  name = "hostile shared folder swapped for a link",
  run = function(t)
    local vm = assert(t:vm())
    assert(vm:install(assert(os.getenv("HOSTILE_HELPER")), "/shared/helper"))
    local status, out = assert(vm:exec("/shared/helper", "swapshared", assert(os.getenv("HOSTILE_VICTIM_DIR"))))
    t:eq("exit:0", status, "the guest swapped /shared (" .. out .. ")")
    local f, err = vm:file("victim")
    local n, werr
    if f then n, werr = f:write(0, "x") end
    t:eq(nil, n, "f:write through the swapped shared folder fails (" .. tostring(err or werr) .. ")")
  end,
}

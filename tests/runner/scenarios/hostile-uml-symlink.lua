-- SPDX-License-Identifier: MIT
-- hostile-uml-symlink.lua: a guest-made symbolic link in /shared to a host file: the runner's host-side writes do not follow it.
return {
  name = "hostile symlink in the shared folder",
  run = function(t)
    local vm = assert(t:vm())
    assert(vm:install(assert(os.getenv("HOSTILE_HELPER")), "/shared/helper"))
    local status, out = assert(vm:exec("/shared/helper", "symlink", assert(os.getenv("HOSTILE_SCRATCH")), "/shared/l"))
    t:eq("exit:0", status, "the guest made the link (" .. out .. ")")
    local f, err = vm:file("l")
    local n, werr, ok, terr
    if f then
      n, werr = f:write(0, "x")
      ok, terr = f:truncate(0)
    end
    t:eq(nil, n, "f:write through the guest's link fails (" .. tostring(err or werr) .. ")")
    t:eq(nil, ok, "f:truncate through the guest's link fails (" .. tostring(err or terr) .. ")")
  end,
}

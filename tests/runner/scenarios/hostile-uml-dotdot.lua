-- SPDX-License-Identifier: MIT
-- hostile-uml-dotdot.lua: a hostfs mount of "/../../.." does not climb out of the run folder either (HOSTILE_HELPER: the helper to install).
return {
  name = "hostile hostfs mount with ..",
  run = function(t)
    local vm = assert(t:vm())
    assert(vm:install(assert(os.getenv("HOSTILE_HELPER")), "/shared/helper"))
    local status, out = assert(vm:exec("/shared/helper", "dotdot"))
    t:note(out)
    t:eq("exit:0", status, "the helper ran")
    t:eq("no", out:match("dotdot%-passwd: (%S+)") or "no", "the host's /etc/passwd is not reachable through ..")
  end,
}

-- SPDX-License-Identifier: MIT
-- hostile-uml-mount.lua: a guest program that mounts hostfs "/" sees the run folder, not the host's root (HOSTILE_HELPER: the helper to install).
return {
  name = "hostile hostfs mount",
  run = function(t)
    local vm = assert(t:vm())
    assert(vm:install(assert(os.getenv("HOSTILE_HELPER")), "/shared/helper"))
    local status, out = assert(vm:exec("/shared/helper", "mount"))
    t:note(out)
    t:eq("exit:0", status, "the helper ran")
    t:eq("ok", out:match("root%-mount: (%S+)"), "hostfs \"/\" mounts")
    t:eq("no", out:match("root%-passwd: (%S+)"), "the host's /etc/passwd is not reachable")
    t:eq("no", out:match("root%-work: (%S+)"), "the host's /work is not reachable")
    t:eq("yes", out:match("root%-agent: (%S+)"), "it shows the run folder (the agent's copy)")
  end,
}

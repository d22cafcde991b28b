-- hostile-uml-mount.lua: a guest program that mounts hostfs "/" sees the run folder, not the host's root (HOSTILE_HELPER: the helper to move in).
return {
  name = "hostile hostfs mount",
  run = function(t)
    local vm = assert(t:vm())
    assert(os.rename(assert(os.getenv("HOSTILE_HELPER")), vm.shared .. "/helper"))
    local status, out = assert(vm:exec("/shared/helper", "mount"))
    t:note(out)
    t:eq(status, "exit:0", "the helper ran")
    t:eq(out:match("root%-mount: (%S+)"), "ok", "hostfs \"/\" mounts")
    t:eq(out:match("root%-passwd: (%S+)"), "no", "the host's /etc/passwd is not reachable")
    t:eq(out:match("root%-work: (%S+)"), "no", "the host's /work is not reachable")
    t:eq(out:match("root%-agent: (%S+)"), "yes", "it shows the run folder (the agent's copy)")
  end,
}

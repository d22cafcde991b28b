-- SPDX-License-Identifier: MIT
-- uml-probe.lua: t:vm{probe = true} boots the run's probe kernel (--probe-variant), t:vm{} the run's own, both at once.
return {
  name = "a probe kernel beside the run's",
  run = function(t)
    local vm <close> = assert(t:vm())
    local pv <close> = assert(t:vm { probe = true })
    local other = os.getenv("EXPECT_PROBE") ~= os.getenv("EXPECT_KERNEL")
    t:eq(os.getenv("EXPECT_KERNEL"), vm.kernel, "t:vm{} runs the run's kernel")
    t:eq(os.getenv("EXPECT_PROBE"), pv.kernel, "t:vm{probe = true} runs the probe kernel")
    t:eq(false, vm.probe, "the run's own instance is no probe")
    t:eq(other, pv.probe, "vm.probe says whether the probe kernel is another one")
    t:eq(os.getenv("EXPECT_VARIANT"), vm.variant, "the run's instance names the run's variant")
    t:eq(not other and os.getenv("EXPECT_VARIANT") or nil, pv.variant, "another kernel's instance names no variant")
    -- The probe's agent answers as the run's does: a worker of its own and the kernel's release.
    t:expect(assert(pv:spawn()), "the probe instance's agent starts a worker")
    t:eq(vm.release, pv.release, "the probe kernel is of the run's generation (here, the same release)")
  end,
}

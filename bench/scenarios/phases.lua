-- SPDX-License-Identifier: MIT
-- phases.lua: notes when each step of one run ended, in seconds since the run function started (bench/breakdown.sh).
--
-- Scenarios have no clock but t:remaining() (uv_hrtime, nanoseconds, counting down to the timeout), so the
-- differences of its readings are the steps' durations. p.steps picks how far the run goes: "boot" (t:vm()
-- only; the runner kills the instance at the end), "reply" (boot and one request), "poweroff" (boot, one
-- request, the one-page peek set-up and vm:poweroff()), so that breakdown.sh can take differences of medians.
return {
  name = "phases",
  matrix = { steps = { "poweroff" } },
  run = function(t, p)
    local r0 = assert(t:remaining(), "phases.lua needs a timeout (not --timeout 0)")
    local marks = {}
    local function mark(what) marks[#marks + 1] = string.format("%s=%.6f", what, r0 - t:remaining()) end
    local vm = assert(t:vm())
    mark("ready")
    if p.steps ~= "boot" then
      assert(vm:tainted())
      mark("reply")
    end
    if p.steps == "poweroff" then
      local f = assert(vm:file("bench", vm.pagesize))
      local proc = assert(vm:spawn())
      local m = assert(proc:mmap(f, { mode = "shared", prot = "r" }))
      assert(m:peek(0, vm.pagesize))
      mark("body")
      assert(vm:poweroff())
      mark("poweroff")
    end
    t:note(string.format("phases boot_ms=%.3f %s", vm.boot_ms, table.concat(marks, " ")))
  end,
}

-- SPDX-License-Identifier: MIT
-- trigger-failslab.lua: a trigger write whose allocation fails returns ENOMEM, zaps nothing, and the kernel goes on.
--
-- trigger_store() copies its line (kmemdup_nul) before it parses or runs it; a copy that cannot be allocated must
-- fail the write with ENOMEM, as the kernel's convention for a failed allocation is, and must not act on anything.
-- No ordinary write reaches that path, so the scenario arms the writer's N-th slab allocation to fail
-- (/proc/thread-self/fail-nth, through the agent's failwrite) for N = 1, 2, 3 ... until a write gets through
-- without the fault being injected: every allocation of the write, kernfs's buffer and the trigger's copy among
-- them, fails once. Each write whose fault was injected must return ENOMEM and leave the mapping's pages present;
-- the first write the fault did not reach must return its full count and zap the range. The runner's timeout bounds
-- the walk, which ends on that event. failslab exempts allocations that may sleep (GFP_KERNEL) unless
-- /sys/kernel/debug/failslab/ignore-gfp-wait is N (mm/failslab.c), which the scenario sets.
--
-- The probes: the mapping's pages are seen present before the walk and gone after its last write, and at least
-- one injected write returned ENOMEM (the failure path was reached at all). The variant's definition says whether
-- the kernel has fault injection (a "config judge.config" line): where it does, its absence is a failure;
-- elsewhere a SKIP.
local bed = require "umlbed.bed"
local definition = require "umlbed.definition"

local TRIGGER = "/sys/kernel/mm/invalidate_mmap_range/trigger"
local GFP_WAIT = "/sys/kernel/debug/failslab/ignore-gfp-wait"
local NPAGES = 4

return {
  name = "a trigger write whose allocation fails returns ENOMEM and zaps nothing (fail-nth)",
  run = function(t)
    local vm = assert(t:vm())
    if not vm.variant then t:skip("kernel " .. vm.kernel .. " is not a known variant: no definition to consult") end
    local doc, why = definition.of_kernel(vm.kernel)
    local def
    if doc then def, why = definition.variant(doc, vm.variant) end
    if not def then t:skip(why) end
    if not definition.merges(def, "judge.config") then
      t:skip("variant " .. vm.variant .. " is not built with fault injection (uml-kernel/config/judge.config)")
    end

    t:require(vm:writefile(GFP_WAIT, "N"), "failslab fails GFP_KERNEL allocations too (%s)", GFP_WAIT)
    t:eq("N\n", vm:readfile(GFP_WAIT), "ignore-gfp-wait reads back N")

    local b = bed.setup(t, { vm = vm, pages = NPAGES, fill = "x", touch = true })
    local present, gone = ("F"):rep(NPAGES), ("-"):rep(NPAGES)
    t:require(b.map:pages() == present, "the probe sees the touched pages present (%s)", tostring(b.map:pages()))
    local writer = assert(vm:spawn())
    local line = ("%s 0 %d"):format(b.file.path, NPAGES * b.ps)

    local nth, enomem = 0, 0
    local written, ename
    while true do
      nth = nth + 1
      local w, a, e, inj = writer:failwrite(nth, TRIGGER, line)
      -- Without a fourth value a failure is the verb's own, before the write: no fail-nth, say.
      t:require(w ~= nil or inj ~= nil, "failwrite with fault %d: %s", nth, tostring(a))
      local injected
      if w ~= nil then injected = a else injected = inj end
      if not injected then
        written, ename = w, e
        break
      end
      t:note(("fault %d injected: the write returned %s"):format(nth, tostring(e or w)))
      t:eq("ENOMEM", e or w, ("fault %d: the write fails with ENOMEM"):format(nth))
      if e == "ENOMEM" then enomem = enomem + 1 end
      t:pages(present, b.map, ("fault %d: the failed write zapped nothing"):format(nth))
    end
    t:note(("the write with fault %d got through: %d allocation(s) failed before it"):format(nth, nth - 1))
    t:expect(enomem >= 1, "the failure path was reached: at least one injected write returned ENOMEM")
    t:eq(#line, written or ename, "the write the fault did not reach returns its full count")
    t:pages(gone, b.map, "the write the fault did not reach zapped the range")

    -- The kernel is still up, and an ordinary write works as before.
    assert(b.map:touch("r"))
    t:pages(present, b.map, "the pages fault back in")
    t:require(vm:invalidate { file = b.file, offset = 0, length = NPAGES * b.ps },
              "an ordinary trigger write after the faults")
    t:pages(gone, b.map, "the ordinary write zapped the range")
  end,
}

-- SPDX-License-Identifier: MIT
-- invalidate-range.lua: the time of one invalidation as the range grows from one page to 64 MiB (umlbed bench).
--
-- One process maps a file of p.pages pages and faults all of them in; the call zaps the whole range. The kernel's
-- own time (stats.last_call_ns). No time travel: its clock is simulated.
local bed = require "umlbed.bed"

return {
  name = "bench: invalidation time vs range",
  matrix = { impl = { "seed", "unmap" }, pages = { 1, 16, 256, 4096, 16384 }, reps = { 7 } },
  timeout = 300,
  run = function(t, p)
    local pages, reps = math.tointeger(p.pages), math.tointeger(p.reps)
    assert(pages and pages > 0 and reps and reps > 0, "pages, reps")
    local vm = assert(t:vm { mem = "256M" })
    local b = bed.setup(t, { vm = vm, pages = pages })
    for _ = 1, reps do
      assert(b.map:touch("r"))
      assert(vm:invalidate { file = b.file, offset = 0, length = pages * b.ps, impl = p.impl })
      local st = assert(vm:stats())
      t:metric("invalidate_ns", st.last_call_ns, "ns", { impl = p.impl, pages = pages })
    end
    t:eq(0, #(b.map:pages():gsub("-", "")), "the call zapped every page")
  end,
}

-- SPDX-License-Identifier: MIT
-- invalidate-sharers.lua: the time of one invalidation as the number of processes sharing the file grows (umlbed bench).
--
-- One file of p.pages pages, mapped shared by an owner and p.sharers - 1 forked children; before each call every
-- sharer has faulted every page in, so each call zaps sharers x pages PTEs. The time is the kernel's own
-- (stats.last_call_ns: ktime_get_ns() around the implementation call alone), without the protocol and sysfs
-- around it. Benchmarks run without time travel: under time-travel=inf-cpu the guest's clock is simulated and a
-- duration measured with it means nothing.
local bed = require "umlbed.bed"

return {
  name = "bench: invalidation time vs sharers",
  matrix = { impl = { "seed", "unmap" }, sharers = { 1, 4, 16, 64, 256 }, pages = { 16 }, reps = { 7 } },
  timeout = 300,
  run = function(t, p)
    local n, pages, reps = math.tointeger(p.sharers), math.tointeger(p.pages), math.tointeger(p.reps)
    assert(n and n >= 1 and n <= 257 and pages and pages > 0 and reps and reps > 0, "sharers 1..257, pages, reps")
    local vm = assert(t:vm { mem = "256M" })
    local b = bed.setup(t, { vm = vm, pages = pages, fill = "s" })
    local maps = n > 1 and bed.sharers(b.proc, b.map, n - 1) or { b.map }
    for _ = 1, reps do
      for _, m in ipairs(maps) do assert(m:touch("r")) end
      assert(vm:invalidate { file = b.file, offset = 0, length = pages * b.ps, impl = p.impl })
      local st = assert(vm:stats())
      t:metric("invalidate_ns", st.last_call_ns, "ns", { impl = p.impl, sharers = n, pages = pages })
    end
    -- Every sharer lost its PTEs: the figure is the time of the work it names.
    for _, m in ipairs(maps) do t:pages(("-"):rep(pages), m, "the call zapped every sharer's pages") end
  end,
}

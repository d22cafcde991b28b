-- SPDX-License-Identifier: MIT
-- invalidate-vmas.lua: the time of one invalidation as one process maps the same file in more and more VMAs (umlbed bench).
--
-- One process maps the whole file p.vmas times (separate mmap calls of the same pages: VMAs that cannot merge),
-- faults every page of every mapping in, and the call zaps them all; the slope is the cost per VMA of the walk and
-- its zap. The kernel's own time (stats.last_call_ns). No time travel: its clock is simulated.
local bed = require "umlbed.bed"

return {
  name = "bench: invalidation time vs VMAs",
  matrix = { impl = { "seed", "unmap" }, vmas = { 1, 4, 16, 64, 256, 1024 }, pages = { 4 }, reps = { 7 } },
  timeout = 300,
  run = function(t, p)
    local n, pages, reps = math.tointeger(p.vmas), math.tointeger(p.pages), math.tointeger(p.reps)
    assert(n and n >= 1 and pages and pages > 0 and reps and reps > 0, "vmas, pages, reps")
    local vm = assert(t:vm { mem = "128M" })
    local b = bed.setup(t, { vm = vm, pages = pages, fill = "v" })
    local maps = { b.map }
    for i = 2, n do maps[i] = assert(b.proc:mmap(b.file, { mode = "shared", prot = "r" })) end
    for _ = 1, reps do
      for _, m in ipairs(maps) do assert(m:touch("r")) end
      assert(vm:invalidate { file = b.file, offset = 0, length = pages * b.ps, impl = p.impl })
      local st = assert(vm:stats())
      t:metric("invalidate_ns", st.last_call_ns, "ns", { impl = p.impl, vmas = n, pages = pages })
    end
    t:pages(("-"):rep(pages), maps[n], "the last mapping lost its pages too")
  end,
}

-- SPDX-License-Identifier: MIT
-- refault.lua: what a process pays per page after an invalidation, against its first touch of the same pages (umlbed bench).
--
-- A fresh mapping of a file already in the page cache is touched once (first touch: minor faults that map cached
-- pages), invalidated, and touched again (the refault). With cache=keep the refault maps the same cached pages;
-- with cache=drop the page cache is dropped too and the refault reads the file back from the host (hostfs), as a
-- cluster filesystem's reader would after another node's write. The time is the guest's own around the touch loop
-- (m:faults' ns: CLOCK_MONOTONIC in the worker), per page. No time travel: its clock is simulated.
local bed = require "umlbed.bed"

return {
  name = "bench: refault cost per page after invalidation",
  matrix = { impl = { "seed", "unmap" }, cache = { "keep", "drop" }, pages = { 256 }, reps = { 7 } },
  timeout = 300,
  run = function(t, p)
    local pages, reps = math.tointeger(p.pages), math.tointeger(p.reps)
    assert(pages and pages > 0 and reps and reps > 0, "pages, reps")
    local vm = assert(t:vm { mem = "128M" })
    local b = bed.setup(t, { vm = vm, pages = pages, fill = "r", map = false })
    local proc = assert(vm:spawn())
    local labels = function(phase) return { impl = p.impl, cache = p.cache, pages = pages, phase = phase } end
    for _ = 1, reps do
      -- The file is in the page cache (written above, or read back by the last refault); the mapping is new.
      local m = assert(proc:mmap(b.file, { mode = "shared", prot = "r" }))
      local _, _, first, first_ns = assert(m:faults("r"))
      assert(vm:invalidate { file = b.file, offset = 0, length = pages * b.ps, impl = p.impl, cache = p.cache })
      local _, _, again, again_ns = assert(m:faults("r"))
      -- At least one fault per page, or the time is not that of the faults it is divided by.
      t:expect(first >= pages, ("the first touch faults every page (%d faults, %d pages)"):format(first, pages))
      t:expect(again >= pages, ("the refault faults every page again (%d faults, %d pages)"):format(again, pages))
      t:metric("touch_us_per_page", first_ns / 1000 / pages, "us", labels("first touch"))
      t:metric("touch_us_per_page", again_ns / 1000 / pages, "us", labels("refault"))
      assert(m:munmap())
    end
  end,
}

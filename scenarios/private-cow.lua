-- SPDX-License-Identifier: MIT
-- private-cow.lua: a private mapping's COW copy is discarded by seed and kept by unmap-keep-cows.
--
-- McKenney's invalidate_mmap_range() zaps every PTE of the range, anonymous COW copies of
-- MAP_PRIVATE pages included, so a later read sees the file again. unmap_mapping_range() with
-- even_cows = 0 ("unmap-keep-cows") keeps the process's private copy.
local bed = require "umlbed.bed"

local expect = {
  ["seed"]            = { pages = "----", cow = "file" },
  ["unmap"]           = { pages = "----", cow = "file" },
  ["unmap-keep-cows"] = { pages = "-A--", cow = "private" },
}

return {
  name = "private COW page after invalidation",
  matrix = { impl = { "seed", "unmap", "unmap-keep-cows" } },

  run = function(t, p)
    local want = expect[p.impl]
    local b = bed.setup(t, { pages = 4, name = "cow", fill = "f", mode = "private", prot = "rw", touch = true })
    local vm, ps, f, m = b.vm, b.ps, b.file, b.map
    t:pages("FFFF", m, "every page faulted in from the file")

    -- Writing page 1 of a private mapping makes an anonymous copy of it.
    assert(m:poke(ps, "P"))
    t:pages("FAFF", m, "page 1 is now a private COW copy")

    assert(vm:invalidate { file = f, impl = p.impl })
    t:pages(want.pages, m, "after invalidate with " .. p.impl)

    local byte = m:peek(ps, 1)
    if want.cow == "private" then
      t:eq("P", byte, "the COW copy survives " .. p.impl)
    else
      t:eq("f", byte, "the COW copy is gone after " .. p.impl .. ", the file shows through")
    end
    t:eq("f", f:read(ps, 1), "the private write never reached the file")
  end,
}

-- private-cow.lua: a private mapping's COW copy is discarded by seed and kept by unmap-keep-cows.
--
-- McKenney's invalidate_mmap_range() zaps every PTE of the range, anonymous COW copies of
-- MAP_PRIVATE pages included, so a later read sees the file again. unmap_mapping_range() with
-- even_cows = 0 ("unmap-keep-cows") keeps the process's private copy.
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
    local vm = assert(t:vm())
    local ps = vm.pagesize
    local f = assert(vm:file("cow", 4 * ps))
    assert(f:write(0, ("f"):rep(4 * ps)))

    local proc = assert(vm:spawn())
    local m = assert(proc:mmap(f, { mode = "private", prot = "rw" }))
    assert(m:touch("r"))
    t:pages(m, "FFFF", "every page faulted in from the file")

    -- Writing page 1 of a private mapping makes an anonymous copy of it.
    assert(m:poke(ps, "P"))
    t:pages(m, "FAFF", "page 1 is now a private COW copy")

    assert(vm:invalidate { file = f, impl = p.impl })
    t:pages(m, want.pages, "after invalidate with " .. p.impl)

    local byte = m:peek(ps, 1)
    if want.cow == "private" then
      t:eq(byte, "P", "the COW copy survives " .. p.impl)
    else
      t:eq(byte, "f", "the COW copy is gone after " .. p.impl .. ", the file shows through")
    end
    t:eq(f:read(ps, 1), "f", "the private write never reached the file")
  end,
}

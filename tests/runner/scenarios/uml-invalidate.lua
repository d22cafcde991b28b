-- SPDX-License-Identifier: MIT
-- uml-invalidate.lua: one invalidation through the trigger, for the --gdb breakpoint test.
return {
  name = "one invalidate_mmap_range call",
  run = function(t)
    local vm = assert(t:vm())
    local f = assert(vm:file("g", 2 * vm.pagesize))
    local p = assert(vm:spawn())
    local m = assert(p:mmap(f))
    assert(m:touch("r"))
    assert(vm:invalidate { file = f, impl = "seed" })
    t:pages("--", m, "the mapping was zapped")
  end,
}

-- SPDX-License-Identifier: MIT
-- uml-module.lua: the GPL test module calls the exported invalidate_mmap_range() at load time (for --gdb tests).
local ko = os.getenv("UMLBED_GPL_KO")

return {
  name = "GPL module calls invalidate_mmap_range",
  run = function(t)
    if not ko then t:skip("UMLBED_GPL_KO names no module") end
    local vm = assert(t:vm())
    local ps = vm.pagesize
    local f = assert(vm:file("m", 2 * ps))
    local p = assert(vm:spawn())
    local m = assert(p:mmap(f, { mode = "shared", prot = "r" }))
    assert(m:touch("r"))
    t:pages("FF", m, "both pages mapped")
    -- The module reaches the guest through the shared folder.
    local src = assert(io.open(ko, "rb"))
    local dst = assert(io.open(vm.shared .. "/umlbed_gpl.ko", "wb"))
    assert(dst:write(src:read("a")))
    src:close()
    dst:close()
    assert(vm:insmod("/shared/umlbed_gpl.ko", ("path=/shared/m offset=0 length=%d"):format(2 * ps)))
    t:pages("--", m, "the module's call zapped the mapping")
  end,
}

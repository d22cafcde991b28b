-- SPDX-License-Identifier: MIT
-- coherency.lua: clusterfs.ko keeps an mmap coherent when another node writes, and is refused where the export is GPL-only.
--
-- A scenario of the module's own repository: it needs nothing of umlbed's tree but the bed library, which the
-- runner carries (require "umlbed.bed"), and the module built beside it (make, or $CLUSTERFS_KO).
--
--   umlbed run coherency.lua                                   the default generation's full kernel
--   umlbed run --generation 6.12 --variant gpl-only coherency.lua
--
-- The story of the seeds: a process maps a file of the cluster filesystem and reads it; another node changes
-- pages 1 and 2 (the host writes the file behind the guest's page cache); the process still reads its old copy.
-- The node's message reaches clusterfs (remote_write), which shoots the range's mappings down and drops the
-- pages: the process faults exactly those pages again, and reads the new data; page 0 and 3 keep theirs.
--
-- Whether the module may load comes from the variant's definition, as the build recorded it in variant.json
-- ("export", read through umlbed.definition), never from the kernel under test: with EXPORT_SYMBOL it loads, with
-- EXPORT_SYMBOL_GPL the kernel refuses this non-GPL module with its own "Unknown symbol" message.
local bed = require "umlbed.bed"
local definition = require "umlbed.definition"

local PARAM = "/sys/module/clusterfs/parameters/"

return {
  name = "clusterfs: another node's write reaches every mapping",
  run = function(t)
    local vm = assert(t:vm())
    local ps = vm.pagesize
    local doc, why = definition.of_kernel(vm.kernel)
    if not doc then t:skip("no definition of this kernel's variant: " .. tostring(why)) end
    local info = definition.own(doc)
    t:require(info.export == "EXPORT_SYMBOL" or info.export == "EXPORT_SYMBOL_GPL",
              "the variant exports invalidate_mmap_range (variant.json says %s)", tostring(info.export))
    local here = t.file:match("^(.*)/[^/]+$") or "."
    local ko = assert(bed.stage(vm, os.getenv("CLUSTERFS_KO") or here .. "/clusterfs.ko"))

    local b = bed.setup(t, { vm = vm, pages = 4, fill = "o", touch = true })
    local f, m = b.file, b.map
    local old, new = ("o"):rep(ps), ("n"):rep(2 * ps)

    local ok, err, ename = vm:insmod(ko)
    t:require(ename ~= "ENOEXEC", "clusterfs.ko was built for another kernel than %s (make clean && make GEN=%s): %s",
              vm.release or vm.kernel, info.generation, tostring(err))
    if info.export == "EXPORT_SYMBOL_GPL" then
      t:eq("ENOENT", ename, "a non-GPL module is refused where the export is GPL-only (" .. tostring(ok or err) .. ")")
      t:expect(assert(vm:klog()):find("clusterfs: Unknown symbol invalidate_mmap_range", 1, true),
               "the kernel says why, in its own words")
      t:pages("FFFF", m, "nothing was zapped")
      return
    end
    t:assert_true(ok, "the module loads where the export is EXPORT_SYMBOL (" .. tostring(err) .. ")")

    -- Another node writes pages 1 and 2; this node's mapping still shows the old data.
    assert(f:write(ps, new))
    t:eq(old .. old, m:peek(ps, 2 * ps), "before the message, the mapping still reads this node's old copy")

    assert(vm:writefile(PARAM .. "remote_write", ("%s %d %d"):format(f.path, ps, 2 * ps)))
    t:eq("1\n", assert(vm:readfile(PARAM .. "invalidations")), "the module handled one message")
    t:pages("F--F", m, "the message shot down the mappings of pages 1 and 2, and only those")
    local _, _, faults = assert(m:faults("r"))
    t:eq(2, faults, "pages 1 and 2 refault once each")
    t:eq(new, m:peek(ps, 2 * ps), "the refault reads the other node's data")
    t:eq(old, m:peek(0, ps), "page 0 kept its data")

    -- A malformed message is refused and changes nothing.
    local wok, _, wename = vm:writefile(PARAM .. "remote_write", f.path .. " 0")
    t:eq(nil, wok, "a message without a length is refused")
    t:eq("EINVAL", wename, "with EINVAL")
    t:eq(true, vm:rmmod("clusterfs"), "the module unloads")
  end,
}

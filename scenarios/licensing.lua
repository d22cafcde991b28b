-- licensing.lua: the GPL module calls invalidate_mmap_range() on every variant; the proprietary one only where the export is not GPL-only.
--
-- Seed 001 and the article: IBM asked for invalidate_mmap_range() to be exported to non-GPL
-- modules (GPFS is proprietary); the -mm tree had it EXPORT_SYMBOL_GPL. The two variants
-- pin both states: on "gpl-only" a module with MODULE_LICENSE("Proprietary") cannot resolve
-- the symbol and the kernel refuses it with its own "Unknown symbol" message; on "full" it
-- loads, taints the kernel (P) and its call really zaps the mappings. A GPL module works on
-- both. The test modules call the function once at load time on path=, offset=, length=.
--
-- The kernel under test is vm.kernel (the runner's resolved --kernel/--variant), its modules
-- next to its obj folder (build/kernel/VARIANT/modules, else the full variant's, which the
-- broken variants share), and the export type from its obj/Module.symvers: that is the truth
-- the outcome is checked against. Fault counts: exact, clean read refaults, one per zapped page.
local bed = require "lib.bed"

local NPAGES = 4

local function slurp(path)
  local fh = io.open(path, "rb")
  if not fh then return nil end
  local s = fh:read("a")
  fh:close()
  return s
end

-- The kernel binary of the running vm, its modules folder and the export of the symbol.
local function kernel_info(vm)
  local kernel = vm.kernel
  local obj = kernel:match("^(.*)/[^/]+$")
  local symvers = slurp(obj .. "/Module.symvers")
  if not symvers then return nil, obj .. "/Module.symvers is missing (not a umlbed kernel build?)" end
  local export = symvers:match("%f[%w_]invalidate_mmap_range%s+%S+%s+(EXPORT_SYMBOL%S*)")
  if not export then return nil, "invalidate_mmap_range is not exported by " .. kernel end
  local vdir = obj:match("^(.*)/[^/]+$")
  local mods = vdir .. "/modules"
  if not slurp(mods .. "/umlbed_gpl.ko") then mods = vdir:match("^(.*)/[^/]+$") .. "/full/modules" end
  return { kernel = kernel, variant = vm.variant, export = export, modules = mods }
end

-- Copy a module into the shared folder; returns its guest path.
local function stage(vm, mods, name)
  local data = slurp(mods .. "/" .. name .. ".ko")
  if not data then return nil, mods .. "/" .. name .. ".ko is missing (make modules)" end
  local fh = assert(io.open(vm.shared .. "/" .. name .. ".ko", "wb"))
  fh:write(data)
  fh:close()
  return "/shared/" .. name .. ".ko"
end

return {
  name = "licensing: GPL module everywhere, proprietary module only on full",

  run = function(t)
    local vm = assert(t:vm())
    local ps = vm.pagesize
    local k, why = kernel_info(vm)
    if not k then t:skip(why) end
    local gpl_only = k.export == "EXPORT_SYMBOL_GPL"
    t:note(("kernel %s (variant %s) exports invalidate_mmap_range with %s"):format(k.kernel, tostring(k.variant),
                                                                                  k.export))
    local gpl = assert(stage(vm, k.modules, "umlbed_gpl"))
    local prop = assert(stage(vm, k.modules, "umlbed_proprietary"))

    local b = bed.setup(t, { vm = vm, pages = NPAGES, fill = "m", touch = true })
    local f, m = b.file, b.map
    local stats0 = assert(vm:stats())
    t:eq(0, vm:tainted() & 1, "the kernel is not tainted P before any module")

    -- The GPL module loads on every variant and zaps page 1.
    local ok, err = vm:insmod(gpl, ("path=%s offset=%d length=%d"):format(f.path, ps, ps))
    t:eq(true, ok, "the GPL module loads (" .. tostring(err) .. ")")
    t:pages("F-FF", m, "the GPL module's call zapped page 1")
    t:expect(assert(vm:klog()):find(("umlbed_gpl: invalidate_mmap_range(%s, %d, %d) done"):format(f.path, ps, ps),
                                    1, true), "the GPL module logged its call")
    t:eq(0, vm:tainted() & 1, "a GPL module does not taint the kernel P")
    t:eq(true, vm:rmmod("umlbed_gpl"), "the GPL module unloads")
    local _, _, faults = assert(m:faults("r"))
    t:eq(1, faults, "page 1 refaults once")

    -- The proprietary module: loads and zaps pages 2..3 on full, is refused on gpl-only.
    local ename
    ok, err, ename = vm:insmod(prop, ("path=%s offset=%d length=%d"):format(f.path, 2 * ps, 2 * ps))
    local klog = assert(vm:klog())
    if gpl_only then
      t:eq("ENOENT", ename, "the proprietary module is refused: the symbol is GPL-only (" .. tostring(ok or err) .. ")")
      t:expect(klog:find("umlbed_proprietary: Unknown symbol invalidate_mmap_range", 1, true),
               "the kernel says why, in its own words")
      t:pages("FFFF", m, "nothing was zapped")
      -- 6.1 taints P when it reads the license, before the symbol lookup fails: not judged.
      t:note("tainted after the refused module: " .. vm:tainted())
    else
      t:eq(true, ok, "the proprietary module loads on " .. k.export .. " (" .. tostring(err) .. ")")
      t:expect(klog:find(("umlbed_proprietary: invalidate_mmap_range(%s, %d, %d) done"):format(f.path, 2 * ps, 2 * ps),
                         1, true), "the proprietary module logged its call")
      t:pages("FF--", m, "the proprietary module's call zapped pages 2..3")
      t:eq(1, vm:tainted() & 1, "the kernel is tainted P (proprietary module)")
      t:eq(true, vm:rmmod("umlbed_proprietary"), "the proprietary module unloads")
      _, _, faults = assert(m:faults("r"))
      t:eq(2, faults, "pages 2..3 refault once each")
    end

    local stats1 = assert(vm:stats())
    t:eq(0, stats1.calls - stats0.calls, "module calls bypass the sysfs trigger")
    t:eq(("m"):rep(NPAGES * ps), m:peek(0, NPAGES * ps), "the data is unchanged")
  end,
}

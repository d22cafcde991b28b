-- SPDX-License-Identifier: MIT
-- licensing.lua: the GPL module calls invalidate_mmap_range() on every variant; the proprietary one only where the export is not GPL-only.
--
-- Seed 001 and the article: IBM asked for invalidate_mmap_range() to be exported to non-GPL
-- modules (GPFS is proprietary); the -mm tree had it EXPORT_SYMBOL_GPL. The two variants
-- pin both states: on "gpl-only" a module with MODULE_LICENSE("Proprietary") cannot resolve
-- the symbol and the kernel refuses it with its own "Unknown symbol" message; on "full" it
-- loads, taints the kernel (P) and its call really zaps the mappings. A GPL module works on
-- both. The test modules call the function once at load time on path=, offset=, length=.
--
-- The expected export comes from the variant's definition, never from the kernel under test:
-- the variant's stack (its generation's base, with its variant file's drops and adds) lists the
-- patches the kernel is built from, and the last of them that adds an
-- EXPORT_SYMBOL*(invalidate_mmap_range) gives the export it must have (0001 adds
-- EXPORT_SYMBOL_GPL, 0003 turns it into EXPORT_SYMBOL; gpl-only drops 0003). uml-kernel/generation.sh
-- resolves it, and build.sh writes its definitions of every variant beside the kernel (variant.json):
-- the definition of the name the kernel was given is the expectation. So a full build that silently
-- lost 0003 fails here, where reading the build's own Module.symvers would only have confirmed that
-- the kernel agrees with itself. A kernel that is not a known variant (--kernel PATH outside
-- BUILD/kernel/NAME/obj/linux, or no variant.json beside it) has no definition: SKIP.
--
-- The modules are tools, not the oracle (bed.test_modules finds those built for the running binary).
-- Fault counts: exact, clean read refaults, one per zapped page.
local bed = require "umlbed.bed"
local definition = require "umlbed.definition"

local NPAGES = 4

local function slurp(path)
  local fh = io.open(path, "rb")
  if not fh then return nil end
  local s = fh:read("a")
  fh:close()
  return s
end

-- The export the definition def gives invalidate_mmap_range(), and the patch that gives it (the last added
-- EXPORT_SYMBOL*(invalidate_mmap_range) line of the patches of its stack, as generation.sh found it). nil and why
-- when it is built without modules.
local function defined_export(ROOT, def)
  for _, frag in ipairs(def.configs) do
    -- A variant built without modules (the coverage variant: UML's gcov excludes them) has nothing to load.
    local text = slurp(ROOT .. "/uml-kernel/config/" .. frag) or ""
    if text:match("\n# CONFIG_MODULES is not set") or text:match("^# CONFIG_MODULES is not set") then
      return nil, "variant " .. def.name .. " is built without modules (uml-kernel/config/" .. frag .. ")"
    end
  end
  if def.export == "none" then
    error("no patch of variant " .. def.name .. "'s stack exports invalidate_mmap_range", 0)
  end
  return def.export, def.export_patch
end

return {
  name = "licensing: GPL module everywhere, proprietary module only on full",

  run = function(t)
    local vm = assert(t:vm())
    local ps = vm.pagesize
    if not vm.variant then
      t:skip("kernel " .. vm.kernel .. " is not a known variant: no definition to expect an export from")
    end
    local root = (t.file:match("^(.*)/[^/]+$") or ".") .. "/.."
    local doc, why = definition.of_kernel(vm.kernel)
    local def
    if doc then def, why = definition.variant(doc, vm.variant) end
    if not def then t:skip(why) end
    local export, by = defined_export(root, def)
    if not export then t:skip(by) end
    local gpl_only = export == "EXPORT_SYMBOL_GPL"
    t:note(("variant %s (kernel %s) must export invalidate_mmap_range with %s (%s)"):format(def.name, vm.kernel,
                                                                                            export, by))
    local mods = assert(bed.test_modules(vm, root))
    local gpl = assert(bed.stage(vm, mods .. "/umlbed_gpl.ko"))
    local prop = assert(bed.stage(vm, mods .. "/umlbed_proprietary.ko"))

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
      t:eq(true, ok, "the proprietary module loads on " .. export .. " (" .. tostring(err) .. ")")
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

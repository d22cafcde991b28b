-- SPDX-License-Identifier: MIT
-- huge-ranges.lua: offsets near 2^63, offsets with bit 63 set and lengths up to 2^64-1 are survived and pinned.
--
-- The trigger passes OFFSET and LENGTH on as loff_t, a signed 64-bit type, so every value of
-- the u64 range reaches the page arithmetic of both interfaces. Three things are pinned:
--  * A length in (2^64-4096, 2^64-1] is a negative loff_t, and holelen + PAGE_SIZE - 1 wraps
--    to a page count of 0: the seed then does nothing, while mainline, for which a page count
--    of 0 means "to the end of the file", unmaps everything from OFFSET on. It is the zero
--    length difference (zero-length.lua) reached through overflow.
--  * An offset with bit 63 set is negative: the seed shifts it arithmetically (hba gets the top
--    bits set and hea wraps), mainline casts it to pgoff_t first (the "high bits shift" fix).
--    Both must zap nothing of a mapping at the start of the file, and must not crash. Where the
--    two differ (file page 2^51 and up for mainline) no mapping can be: mmap offsets stop at
--    2^63-1, and the host file system at far less.
--  * Offsets near 2^63 and lengths near 2^63 clamp or miss without crashing.
-- A kernel oops or WARN here fails the scenario through the runner's console scanner.
--
-- Fault counts (minor + major) are exact: clean pages, read accesses, one fault per missing page.
local bed = require "umlbed.bed"

local NPAGES = 8

-- offset, length (u64 as text), seed's states, mainline's states, VMAs seed visits.
local cases = {
  { "0", "0xFFFFFFFFFFFFFFFF", "FFFFFFFF", "--------", 0 },
  { "0x2000", "0xFFFFFFFFFFFFFFFF", "FFFFFFFF", "FF------", 0 },
  { "0", "0xFFFFFFFFFFFFF001", "FFFFFFFF", "--------", 0 },
  { "0", "0xFFFFFFFFFFFFF000", "--------", "--------", 1 },
  { "0", "0xFFFFFFFFFFFFEFFF", "--------", "--------", 1 },
  { "0", "0x8000000000000000", "--------", "--------", 1 },
  { "0x1000", "0x7FFFFFFFFFFFFFFF", "F-------", "F-------", 1 },
  { "0x7FFFFFFFFFFFF000", "0x1000", "FFFFFFFF", "FFFFFFFF", 0 },
  { "0x7FFFFFFFFFFFF000", "0x7FFFFFFFFFFFFFFF", "FFFFFFFF", "FFFFFFFF", 0 },
  { "0x8000000000000000", "0x1000", "FFFFFFFF", "FFFFFFFF", 0 },
  { "0x8000000000000000", "0xFFFFFFFFFFFFFFFF", "FFFFFFFF", "FFFFFFFF", 0 },
  { "0xFFFFFFFFFFFFF000", "0x2000", "FFFFFFFF", "FFFFFFFF", 0 },
  { "0xFFFFFFFFFFFFF000", "0x4000", "FFFFFFFF", "FFFFFFFF", 0 },
  { "0xFFFFFFFFFFFFFFFF", "2", "FFFFFFFF", "FFFFFFFF", 0 },
  { "0xFFFFFFFFFFFFFFFF", "0xFFFFFFFFFFFFFFFF", "FFFFFFFF", "FFFFFFFF", 0 },
}

return {
  name = "huge and overflowing offsets and lengths are survived and pinned",
  matrix = { impl = { "seed", "unmap" } },

  run = function(t, p)
    local b = bed.setup(t, { pages = NPAGES, fill = "h", touch = true })
    local vm, ps, f, m = b.vm, b.ps, b.file, b.map
    local before = assert(vm:stats())

    for _, c in ipairs(cases) do
      local want = p.impl == "seed" and c[3] or c[4]
      local line = ("%s %s %s %s"):format(f.path, c[1], c[2], p.impl)
      t:pages(("F"):rep(NPAGES), m, line .. ": every page mapped before")
      t:eq(#line, vm:trigger(line), line .. ": accepted")
      t:pages(want, m, line)
      if p.impl == "seed" then
        local st = assert(vm:stats())
        t:eq(c[5], st.last_seed_vmas_visited, line .. ": VMAs seed visited")
      end
      local _, _, faults = assert(m:faults("r"))
      t:eq(select(2, want:gsub("-", "")), faults, line .. ": one refault per zapped page")
    end

    local after = assert(vm:stats())
    t:eq(0, after.failures - before.failures, "no call failed")
    t:eq(#cases, after.calls - before.calls, "every call counted")
    t:eq(("h"):rep(NPAGES * ps), m:peek(0, NPAGES * ps), "the data is unchanged")
  end,
}

-- SPDX-License-Identifier: MIT
-- rounding.lua: the byte range is rounded to pages as documented, begin down and length up, each on its own.
--
-- The seed's kernel-doc says holebegin is rounded down and holelen rounded up to a page
-- boundary, and the code does them independently: the end is begin/PAGE_SIZE plus
-- ceil(len/PAGE_SIZE) pages, not the page of the last byte. So 2 bytes at offset 4095 zap
-- page 0 only, although they span pages 0 and 1. A port that truncates the length instead
-- zaps nothing for short ranges and leaves a partial last page mapped (stale data). Mainline
-- unmap_mapping_range() rounds the same way; the same table is run against both.
--
-- Fault counts (minor + major) are exact: clean pages, read accesses, one fault per missing page.
local bed = require "umlbed.bed"

local NPAGES = 4

-- offset, length (bytes, as multiples of the page size P plus bytes), expected states.
local cases = {
  { "2 bytes at 4095 (span pages 0..1)", function(P) return P - 1, 2 end, "-FFF" },
  { "1 byte at 4095", function(P) return P - 1, 1 end, "-FFF" },
  { "1 byte at 0", function() return 0, 1 end, "-FFF" },
  { "1 byte at 100", function() return 100, 1 end, "-FFF" },
  { "a page and a byte at 0", function(P) return 0, P + 1 end, "--FF" },
  { "one page at 4096", function(P) return P, P end, "F-FF" },
  { "one page at 4097 (spans pages 1..2)", function(P) return P + 1, P end, "F-FF" },
  { "a page and 2 bytes at 8191 (spans pages 1..3)", function(P) return 2 * P - 1, P + 2 end, "F--F" },
  { "a page and a byte at 4095 (spans pages 0..2)", function(P) return P - 1, P + 1 end, "--FF" },
  { "all but one byte at 1", function(P) return 1, NPAGES * P - 1 end, "----" },
}

return {
  name = "byte ranges round begin down and length up, independently",
  matrix = { impl = { "seed", "unmap" } },

  run = function(t, p)
    local b = bed.setup(t, { pages = NPAGES, fill = "r", touch = true })
    local vm, ps, f, m = b.vm, b.ps, b.file, b.map
    for _, c in ipairs(cases) do
      local off, len = c[2](ps)
      local what = ("%s: offset %d length %d, %s"):format(c[1], off, len, p.impl)
      t:pages(("F"):rep(NPAGES), m, what .. ": every page mapped before")
      assert(vm:invalidate { file = f, offset = off, length = len, impl = p.impl })
      t:pages(c[3], m, what)
      local _, _, faults = assert(m:faults("r"))
      t:eq(select(2, c[3]:gsub("-", "")), faults, what .. ": one refault per zapped page")
    end
  end,
}

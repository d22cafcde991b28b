-- SPDX-License-Identifier: MIT
-- drop-unaligned.lua: cache=drop of an unaligned range drops exactly the seed's rounded pages; sharers read stale data on the rest.
--
-- A cluster filesystem calls invalidate_mmap_range() and then drops the same pages from the page
-- cache to pick up another node's write. Which pages those are for a byte range that is not
-- page-aligned is the seed's rounding rule (its kernel-doc, seed 002): the begin is rounded
-- down and the length rounded up, each on its own, so the last page is begin/PAGE_SIZE +
-- ceil(len/PAGE_SIZE) - 1, not the page of the last byte; the trigger's drop (patch 0002,
-- imr_cache_range()) uses the same pages. So 2 bytes at 4095 drop page 0 only, and page 1,
-- which holds the second byte, keeps its PTEs and its stale page in every sharer. The
-- expected sets below come from this file's own model of that rule (range()), never from a
-- first run: the page-cache residency right after the call (f:cached()), the PTEs of a shared
-- mapping (zapped = dropped), the COW copies of a private mapping (discarded in the range by
-- seed and unmap, kept by unmap-keep-cows), and the data that a shared mapping, a private one
-- and read() see after the other node's write: new data exactly on the model's pages, stale
-- data on every other page, including those the byte range touches. A port that truncates the
-- length (broken-rounding) keeps the private COW copy of a short range: caught here even where
-- the drop's own unmapping hides it from the shared mapping.
--
-- No fault counts: the data reads fault pages in, and the scenario pins what they read.
local pd = require "umlbed.pagedata"

local NPAGES = 6

-- offset and length as functions of the page size P; the last case runs past the end of the file.
local cases = {
  { "2 bytes at P-1 (bytes on pages 0..1)", function(P) return P - 1, 2 end },
  { "1 byte at 100", function() return 100, 1 end },
  { "one page at P+1 (bytes on pages 1..2)", function(P) return P + 1, P end },
  { "a page and 2 bytes at 2P-1 (bytes on pages 1..3)", function(P) return 2 * P - 1, P + 2 end },
  { "a page and a byte at 0", function(P) return 0, P + 1 end },
  { "3 bytes in the middle of page 3", function(P) return 3 * P + P // 2, 3 end },
  { "two pages at 4P-1 (bytes on pages 3..5)", function(P) return 4 * P - 1, 2 * P end },
  { "3 pages at 5P+1 (past the end of the file)", function(P) return 5 * P + 1, 3 * P end },
}

-- The model: the seed's rounding, begin down and length up independently; first and last page (inclusive),
-- cut to the file.
local function range(off, len, P)
  local first = off // P
  local last = first + (len + P - 1) // P - 1
  return first, math.min(last, NPAGES - 1)
end

-- A string of one character per page: inner on pages first..last, outer elsewhere.
local function per_page(first, last, inner, outer)
  local s = {}
  for i = 0, NPAGES - 1 do s[#s + 1] = (i >= first and i <= last) and inner(i) or outer(i) end
  return table.concat(s)
end

return {
  name = "cache=drop of an unaligned range drops the seed's pages; the rest stays stale",
  matrix = { impl = { "seed", "unmap", "unmap-keep-cows" } },

  run = function(t, p)
    local vm = assert(t:vm())
    local P = vm.pagesize
    local sharer, cow = assert(vm:spawn()), assert(vm:spawn())
    local function old(i) return pd.letter(i, 0) end
    local function new(i) return pd.letter(i, 1) end
    local function mine() return "#" end
    local stale_notes = {}

    for k, c in ipairs(cases) do
      local off, len = c[2](P)
      local first, last = range(off, len, P)
      local what = ("%s (offset %d length %d, %s): model pages %d..%d"):format(c[1], off, len, p.impl, first, last)
      local f = assert(vm:file("c" .. k, NPAGES * P))
      assert(pd.fill(f, P, NPAGES, 0))
      local ms = assert(sharer:mmap(f, { mode = "shared", prot = "r" }))
      assert(ms:touch("r"))
      local mp = assert(cow:mmap(f, { mode = "private", prot = "rw" }))
      for i = 0, NPAGES - 1 do assert(mp:poke(i * P, "#")) end
      t:assert_eq(("1"):rep(NPAGES), f:cached(), what .. ": every page cached before")
      t:assert_pages(("A"):rep(NPAGES), mp, what .. ": every private page is a COW copy before")

      -- The other node rewrites the whole file; then the range is invalidated and dropped.
      assert(pd.fill(f, P, NPAGES, 1))
      local before = assert(vm:stats())
      assert(vm:invalidate { file = f, offset = off, length = len, impl = p.impl, cache = "drop" })
      local after = assert(vm:stats())
      t:eq(1, after.cache_drops - before.cache_drops, what .. ": one cache drop")

      local function is_in(i) return i >= first and i <= last end
      t:eq(per_page(first, last, function() return "0" end, function() return "1" end), f:cached(),
           what .. ": exactly the model's pages left the page cache")
      t:pages(per_page(first, last, function() return "-" end, function() return "F" end), ms,
              what .. ": the shared mapping lost exactly those pages")
      local cows_go = p.impl ~= "unmap-keep-cows"
      t:pages(per_page(first, last, function() return cows_go and "-" or "A" end, function() return "A" end), mp,
              what .. ": COW copies " .. (cows_go and "discarded" or "kept") .. " in the range only")

      -- What each reader sees: the other node's data on the model's pages, stale data everywhere else.
      local fresh = per_page(first, last, new, old)
      t:eq(fresh, pd.firstbytes(ms, P), what .. ": the shared mapping reads new data on the model's pages only")
      t:eq(fresh, pd.firstbytes_of(assert(sharer:pread(f, 0, NPAGES * P)), P),
           what .. ": read() agrees with the shared mapping")
      t:eq(per_page(first, last, cows_go and new or mine, mine), pd.firstbytes(mp, P),
           what .. ": the private mapping reads " .. (cows_go and "new data where its copies went" or "its own copies"))
      local stale = {}
      for i = off // P, math.min((off + len - 1) // P, NPAGES - 1) do
        if not is_in(i) then stale[#stale + 1] = i end
      end
      if #stale > 0 then stale_notes[#stale_notes + 1] = ("%d+%d: %s"):format(off, len, table.concat(stale, ",")) end
      t:eq(("1"):rep(NPAGES), f:cached(), what .. ": the reads refilled the page cache")
      assert(ms:munmap())
      assert(mp:munmap())
    end
    t:note("stale pages inside the byte range (offset+length: pages): " .. table.concat(stale_notes, "; "))
  end,
}

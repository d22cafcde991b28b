-- SPDX-License-Identifier: MIT
-- dirty-shared.lua: a dirty MAP_SHARED page survives invalidation: refaults read it, msync/fsync put it in the host file.
--
-- Zapping a PTE that maps a written shared page moves the dirty bit to the page cache
-- (zap_pte_range() calls folio_mark_dirty()), so invalidation must never lose a write: the
-- refault reads the written data from the cache and writeback later puts it on disk. With
-- cache=drop the trigger then asks invalidate_inode_pages2_range() to drop a dirty page,
-- which hostfs cannot launder: the call fails with EBUSY (counted in stats.failures) and the
-- page, and the write, stay. After msync or fsync the page is clean and the drop succeeds;
-- the refault then reads the write back from the host file. A cluster filesystem that
-- invalidated before writing back would lose data exactly here.
--
-- Fault counts are not checked: a written shared page takes a read fault and a write
-- (dirty-tracking) fault, and writeback can write-protect it again at any time, which adds
-- faults this scenario does not control. Page states and data are exact.
local bed = require "umlbed.bed"

local NPAGES = 4

return {
  name = "a dirty shared page survives invalidation and reaches the host file",
  matrix = { impl = { "seed", "unmap" }, cache = { "keep", "drop" }, sync = { "msync", "fsync" } },

  run = function(t, p)
    local b = bed.setup(t, { pages = NPAGES, fill = "o", prot = "rw", touch = true })
    local vm, ps, f, proc, m = b.vm, b.ps, b.file, b.proc, b.map
    assert(m:poke(ps, "DIRTY"))
    t:pages("FFFF", m, "the written page is still a file page (shared, no copy)")

    local before = assert(vm:stats())
    local ok, err, ename = vm:invalidate { file = f, offset = ps, length = ps, impl = p.impl, cache = p.cache }
    local after = assert(vm:stats())
    t:pages("F-FF", m, "the dirty page lost its PTE")
    if p.cache == "drop" then
      t:eq("EBUSY", ename, "dropping a dirty page from the cache fails (" .. tostring(ok or err) .. ")")
      t:eq(1, after.failures - before.failures, "the failed drop is counted")
    else
      t:eq(true, ok, "cache=keep succeeds (" .. tostring(err) .. ")")
      t:eq(0, after.failures - before.failures, "nothing failed")
    end
    t:eq("1111", f:cached(), "the dirty page is still in the page cache")
    t:eq("DIRTY", m:peek(ps, 5), "the refault reads the write back from the cache")
    t:pages("FFFF", m, "the page is mapped again")

    if p.sync == "msync" then assert(m:msync()) else assert(proc:fsync(f)) end
    t:eq("DIRTY", f:read(ps, 5), "after " .. p.sync .. " the host file holds the write")
    t:eq("ooo", f:read(0, 1) .. f:read(ps + 5, 1) .. f:read(2 * ps, 1), "and nothing else changed")

    -- Now clean: invalidating with cache=drop succeeds and the refault reads the host file.
    before = assert(vm:stats())
    ok, err = vm:invalidate { file = f, offset = ps, length = ps, impl = p.impl, cache = "drop" }
    t:eq(true, ok, "dropping the clean page succeeds (" .. tostring(err) .. ")")
    after = assert(vm:stats())
    t:eq(0, after.failures - before.failures, "nothing failed")
    t:pages("F-FF", m, "the page lost its PTE again")
    t:eq("1011", f:cached(), "the clean page left the page cache")
    t:eq("DIRTYo", m:peek(ps, 6), "the refault reads the write back from the host file")
  end,
}

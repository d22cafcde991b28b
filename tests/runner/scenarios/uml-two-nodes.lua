-- SPDX-License-Identifier: MIT
-- uml-two-nodes.lua: two UML instances ("cluster nodes") share one folder; node B's write reaches node A's
-- mapping only after node A invalidates it.
return {
  name = "two nodes on one shared folder",
  run = function(t)
    local a = assert(t:vm())
    local b = assert(t:vm())
    local ps = a.pagesize
    local fa = assert(a:file("shared-data", 2 * ps))
    local fb = assert(b:file("shared-data"))
    t:eq(2 * ps, fb.length, "node B sees the file node A created")

    local pa = assert(a:spawn())
    local m = assert(pa:mmap(fa, { mode = "shared", prot = "r" }))
    t:eq("\0\0\0\0", m:peek(0, 4), "node A reads zeros")

    local pb = assert(b:spawn())
    assert(pb:pwrite(fb, 0, "node-b"))
    assert(pb:fsync(fb))
    t:eq("node-b", fa:read(0, 6), "the write reached the disk")
    t:eq("\0\0\0\0", m:peek(0, 4), "node A still has its cached page")

    assert(a:invalidate { file = fa, impl = "seed", cache = "drop" })
    t:pages("--", m, "node A's mapping was zapped")
    t:eq("node-b", m:peek(0, 6), "node A refaults and reads node B's data")
  end,
}

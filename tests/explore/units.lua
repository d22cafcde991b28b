-- SPDX-License-Identifier: MIT
-- units.lua: the explorer's Lua parts on the host (lua5.4, no kernel): the oracle's rule, the contract, the generator and the schedules, as TAP.
--
-- Run by tests/explore/explore.t with package.path on runner/lua/lua/. Each rule is shown to refuse a state it must
-- refuse before it is shown to accept one it must accept.
local oracle = require "umlbed.explore_oracle"
local xcase = require "umlbed.explore_case"
local explore = require "umlbed.explore"

local n = 0
local function ok(cond, what)
  n = n + 1
  print(("%s %d - %s"):format(cond and "ok" or "not ok", n, what))
  return cond
end

-- A state as umlbed-explore prints it: two processes sharing a 4-page VMA, task T0 an invalidation of page 1.
local function state(t)
  local lines = {
    "result T0 " .. (t.r0 or "ok"), "result T1 " .. (t.r1 or "v0"), "pagesize 4096",
    "proc P0 alive", "vma P0 40000000-40004000 0 rw-s", "pte P0 40000000 " .. (t.pte or "FFFF"),
    "proc P1 alive", "vma P1 40000000-40004000 0 rw-s", "pte P1 40000000 " .. (t.pte1 or "F---"),
    "cache " .. (t.cache or "1111"), "data P0 40000000 " .. (t.data or "v0*4"), "data P1 40000000 v0*4",
    "file 4 " .. (t.file or "v0*4"), "kernel tainted " .. (t.taint or 0) .. " debug_locks 1",
  }
  for _, l in ipairs(t.extra or {}) do lines[#lines + 1] = l end
  return oracle.parse(table.concat(lines, "\n") .. "\n")
end

-- parse
local st = state { pte = "F-FF", extra = { "edge 0.0 3 9", "edge 1.0 10 -", "steps 20 4" } }
ok(st.ptes["P0 40000000"] == "F-FF" and #st.data["P0 40000000"] == 4 and st.data["P0 40000000"][4] == "v0",
  "parse: PTEs and run-length data of a VMA")
ok(st.edges["0.0"].b == 3 and st.edges["0.0"].e == 9 and st.edges["1.0"].e == nil and st.steps == 20,
  "parse: the edges (an exit's end is nil) and the steps")
ok(st.file.pages == 4 and st.cache == "1111" and st.tainted == 0 and st.debug_locks == 1, "parse: file, cache, kernel")

-- check: whole, per page, real time
local A = { order = "0.0,1.0", state = state { pte = "F-FF", r1 = "v0" } }
local B = { order = "1.0,0.0", state = state { pte = "F-FF", pte1 = "----", r1 = "v0" } }
ok(oracle.check(state { pte = "F-FF" }, { A, B }), "check: a state equal to an order's is explained")
local good, why = oracle.check(state { pte = "FFFF" }, { A, B })
ok(not good and why:find("file page 1", 1, true), "check: a page no order leaves so is refused, named (" ..
  tostring(why):match("^[^\n]*") .. ")")
ok(not oracle.check(state { pte = "F-FF", r1 = "v1" }, { A, B }), "check: results no order gives are refused")
local C = { order = "0.0,1.0", state = state { pte = "F---", pte1 = "----", cache = "1000" } }
local D = { order = "1.0,0.0", state = state { pte = "FF--", pte1 = "F---", cache = "1100" } }
ok(oracle.check(state { pte = "F---", pte1 = "F---", cache = "1000" }, { C, D }),
  "check: per page, page 0 from one order and page 1 from the other (a refill behind a walk)")
ok(not oracle.check(state { pte = "F-F-", pte1 = "----", cache = "1000" }, { C, D }),
  "check: per page, a page's views from two orders at once are refused")
ok(oracle.check(state { pte = "F-FF", cache = "1011" }, { A, B }),
  "check: whether a page no PTE maps is cached (readahead's choice) is not judged")
ok(not oracle.check(state { pte = "F-FF", cache = "1110" }, { A, B }),
  "check: a mapped page out of the page cache is refused")
do
  -- T0 truncates (0.0) while T1 reads the old page (1.1) after its first primitive saw the new size (1.0).
  local T1 = { order = "0.0,1.0,1.1", state = state { pte = "F-FF", r1 = "EIO ; SIGBUS" } }
  local T2 = { order = "1.0,1.1,0.0", state = state { pte = "F-FF", r1 = "ok ; v0" } }
  local during = state { pte = "F-FF", r1 = "EIO ; v0", extra = { "edge 0.0 1 9", "edge 1.0 3 4", "edge 1.1 5 6" } }
  ok(not oracle.check(during, { T1, T2 }), "check: results no order gives are refused when nothing truncates")
  ok(oracle.check(during, { T1, T2 }, { "0.0" }),
    "check: what a primitive overlapping a truncation returned is not judged (new size, old PTE)")
  local after = state { pte = "F-FF", r1 = "EIO ; v0", extra = { "edge 0.0 1 2", "edge 1.0 3 4", "edge 1.1 5 6" } }
  ok(not oracle.check(after, { T1, T2 }, { "0.0" }), "check: a primitive after the truncation ended is judged")
  ok(not oracle.check(state { pte = "FFFF", r1 = "EIO ; v0", extra = { "edge 0.0 1 9", "edge 1.0 3 4",
    "edge 1.1 5 6" } }, { T1, T2 }, { "0.0" }), "check: the state a truncation leaves is judged as always")
end
do
  -- T0 drops the cache (0.0, then reads: 0.1) while T1 stores into a page (1.0): the store's fault made the page
  -- dirty before its data landed, so the drop failed (EBUSY) and T0 still read the old data.
  local W1 = { order = "1.0,0.0,0.1", state = state { r0 = "EBUSY ; v1", r1 = "ok" } }
  local W2 = { order = "0.0,0.1,1.0", state = state { r0 = "ok ; v0", r1 = "ok" } }
  local edges = { "edge 0.0 2 5", "edge 0.1 6 7", "edge 1.0 1 8" }
  local raced = state { r0 = "EBUSY ; v0", r1 = "ok", extra = edges }
  ok(not oracle.check(raced, { W1, W2 }), "check: a drop's EBUSY with the old data read after it is refused alone")
  ok(oracle.check(raced, { W1, W2 }, nil, nil, { { "0.0", "1.0" } }),
    "check: a drop that overlapped another task's store is not judged by its own result (dirty before the data)")
  local apart = state { r0 = "EBUSY ; v0", r1 = "ok", extra = { "edge 1.0 1 2", "edge 0.0 3 5", "edge 0.1 6 7" } }
  ok(oracle.check(apart, { W1, W2 }) == nil and not oracle.check(apart, { W1, W2 }, nil, nil, { { "0.0", "1.0" } }),
    "check: a drop that began after the store ended is judged (the order the real time keeps gives the new data)")
end
do
  -- T0's direct I/O reads page 1 into its own mapping (0.0) while T1 punches it (1.0): the read came first, its
  -- store after the punch re-created the page, with the data read before.
  local holed = "v0 z v0*2"
  local P1st = { order = "1.0,0.0", state = state { pte = "FFFF", cache = "1111", data = holed, file = holed } }
  local D1st = { order = "0.0,1.0", state = state { pte = "F-FF", cache = "1011", data = holed, file = holed } }
  local edges = { "edge 0.0 1 9", "edge 1.0 2 5" }
  local copy = { { "0.0", 1 } }
  local back = state { pte = "FFFF", cache = "1111", data = "v0*4", file = "v0*4", extra = edges }
  ok(not oracle.check(back, { P1st, D1st }), "check: a punched page holding its old data is refused alone")
  ok(oracle.check(back, { P1st, D1st }, nil, nil, nil, copy),
    "check: a copy's destination may hold a version of itself read before a racing punch, its PTE one order's")
  ok(not oracle.check(state { pte = "FFFF", cache = "1111", data = "v0 v0@2 v0*2", file = "v0 v0@2 v0*2",
    extra = edges }, { P1st, D1st }, nil, nil, nil, copy), "check: but not another page's data (vN@K)")
  ok(not oracle.check(state { pte = "FFFF", pte1 = "FF--", cache = "1111", data = "v0*4", file = "v0*4",
    extra = edges }, { P1st, D1st }, nil, nil, nil, copy), "check: nor a PTE no order leaves (P1's, mapped)")
  ok(not oracle.check(state { pte = "FFFF", cache = "1111", data = "v0*4", file = "v0*4",
    extra = { "edge 0.0 1 2", "edge 1.0 3 5" } }, { P1st, D1st }, nil, nil, nil, copy),
    "check: nor when the copy ended before the punch began")
end
do
  -- T2 (in P1) invalidates page 0 while T0 (in P0) faults it back; T1 (in P1) comes after both. The walk zaps one
  -- VMA at a time: P0's part of the page from one order and P1's from the other is what it may leave.
  local X = { order = "0.0,2.0,1.0", state = state { pte = "F---", pte1 = "----" } }
  local Y = { order = "2.0,0.0,1.0", state = state { pte = "----", pte1 = "F---" } }
  local walks = { prims = { "2.0" }, proc = { ["0"] = "P0", ["1"] = "P1", ["2"] = "P1" } }
  local edges = { "edge 0.0 1 9", "edge 2.0 2 8", "edge 1.0 10 11" }
  local mixed = state { pte = "----", pte1 = "----", extra = edges }
  ok(not oracle.check(mixed, { X, Y }), "check: a page's VMAs from two orders are refused when no walk is named")
  ok(oracle.check(mixed, { X, Y }, nil, walks),
    "check: the VMA of a process whose task overlapped a walk may come from another order (a refill behind it)")
  local before = state { pte = "----", pte1 = "----", extra = { "edge 0.0 1 2", "edge 2.0 3 8", "edge 1.0 10 11" } }
  ok(not oracle.check(before, { X, Y }, nil, walks), "check: a task that ended before the walk began is judged whole")
  ok(not oracle.check(state { pte = "F---", pte1 = "----", data = "v7 v0*3", extra = edges }, { X, Y }, nil, walks),
    "check: a walked process's part of a page that no order leaves is refused")
end
local E = state { pte = "F-FF", pte1 = "----", extra = { "edge 0.0 2 5", "edge 1.0 7 9" } }
ok(not oracle.check(E, { A, B }), "check: an order that breaks the real-time order does not explain (T0 ended first)")
E.edges["1.0"] = { b = 1, e = 2 }
ok(oracle.check(E, { A, B }), "check: the same state with T1 first in real time is explained")
ok(not oracle.check(state { pte = "F-FF", taint = 512 }, { A, B }), "check: a tainted kernel fails any run")
ok(oracle.check(state { pte = "F-FF", extra = { "kernel-after tainted 0 debug_locks 1" } }, { A, B })
  and not oracle.check(state { pte = "F-FF", extra = { "kernel-after tainted 0 debug_locks 0" } }, { A, B })
  and not oracle.check(state { pte = "F-FF", extra = { "kernel-after tainted 512 debug_locks 1" } }, { A, B }),
  "check: a report once the case's processes ended (lockdep off, a taint) fails the run too")
ok(not oracle.check(state { pte = "F-FF", extra = { "klog 4 WARNING: suspicious RCU usage" } }, { A, B }),
  "check: a warning in the kernel's log fails the run, though it neither taints nor turns lockdep off")
ok(not oracle.check(state { pte = "F-FF", data = "v0 v0@2 v0*2" }, { A, B }),
  "check: a page holding another offset's data (vN@K) fails whatever the orders")
ok(oracle.inconsistent(state { data = "v0*4" }) == nil and oracle.inconsistent(state { data = "v0 v0@0 v0*2" }),
  "inconsistent: only vN@K is")

-- the contract of one call
ok(select(1, oracle.inval_pages(4095, 2, "seed", 4096)) == 0 and select(2, oracle.inval_pages(4095, 2, "seed", 4096))
  == 0, "inval_pages: 2 bytes at 4095 are page 0 only (begin down, length up, each on its own)")
ok(oracle.inval_pages(8192, 0, "seed", 4096) == nil, "inval_pages: a zero length is nothing for the seed")
local f0, l0 = oracle.inval_pages(8192, 0, "unmap", 4096)
ok(f0 == 2 and l0 == nil, "inval_pages: a zero length is the rest of the file for unmap_mapping_range()")
local function snaps(before, after)
  return state { extra = { "snap 0.0:before 0 rw-p P0 40000000 " .. before, "snap 0.0:after 0 rw-p P0 40000000 " ..
    after } }
end
local w = { "inval", "4096", "8192", "unmap-keep-cows", "keep" }
ok(oracle.contract(snaps("FAFF", "FA-F"), "0.0", w) == nil, "contract: keep-cows keeps the COW page, zaps the rest")
ok(oracle.contract(snaps("FAFF", "F--F"), "0.0", w), "contract: keep-cows that drops the COW page is refused")
w[4] = "seed"
ok(oracle.contract(snaps("FAFF", "F--F"), "0.0", w) == nil, "contract: the seed zaps the COW page too")
ok(oracle.contract(snaps("FAFF", "---F"), "0.0", w), "contract: a PTE outside the range that went is refused")
ok(oracle.contract(snaps("FAFF", "FAFF"), "0.0", w), "contract: a PTE of the range left is refused")

-- the generator
local function args(seed, k)
  local c = explore.case_of(seed, k, 4096)
  return table.concat(xcase.directives(c), "\n"), c
end
ok(args(7, 3) == args(7, 3), "generate: the same seed and case give the same case")
ok(args(7, 3) ~= args(8, 3), "generate: another seed gives another case")
local pairs_list = xcase.pairs(1)
local function tier(p)
  local a, b = xcase.OPS[p[1]], xcase.OPS[p[2]]
  if p[1] == "inval" or p[2] == "inval" then return 1 end
  local nb = { truncate = true, punch = true }
  if (nb[p[1]] and b.makes) or (nb[p[2]] and a.makes) then return 2 end
  if (a.removes and b.makes) or (b.removes and a.makes) then return 3 end
  return (a.removes and b.removes) and 4 or 5
end
local ordered, count1 = true, 0
for i, p in ipairs(pairs_list) do
  if tier(p) == 1 then count1 = count1 + 1 end
  if i > 1 and tier(p) < tier(pairs_list[i - 1]) then ordered = false end
end
ok(ordered and count1 == #xcase.NAMES, ("pairs: the series' call against each of the %d operations first, then "
  .. "truncate and punch against the makers, then the other tiers in order (%d pairs)"):format(count1, #pairs_list))
ok(table.concat(pairs_list[1], "+") ~= table.concat(xcase.pairs(2)[1], "+") or
  table.concat(pairs_list[2], "+") ~= table.concat(xcase.pairs(2)[2], "+"), "pairs: another seed, another order")
local sizes, bounds, mapped, across = {}, { pud = 0, pmd = 0 }, 0, 0
for i = 0, 199 do
  local _, c = args(3, i)
  sizes[#sizes + 1] = c.pages
  for _, m in ipairs(c.procs[0].maps) do
    mapped = mapped + 1
    if bounds[m.kind] then
      bounds[m.kind] = bounds[m.kind] + 1
      local b = m.kind == "pud" and 1 << 30 or 1 << 21
      -- A mapping of several pages has pages on both sides of its boundary; one of a page starts at it or ends there.
      local crosses = m.addr // b ~= (m.addr + m.pages * 4096 - 1) // b
      if crosses or (m.pages == 1 and (m.addr % b == 0 or (m.addr + 4096) % b == 0)) then across = across + 1 end
    end
  end
end
table.sort(sizes)
ok(sizes[1] == 1 or sizes[1] <= 2, "geometry: files as small as a page or two (" .. sizes[1] .. ")")
ok(sizes[#sizes] > 600, "geometry: files of hundreds to thousands of pages (" .. sizes[#sizes] .. ")")
ok(bounds.pud > 0 and bounds.pmd > 0 and across == bounds.pud + bounds.pmd,
  ("geometry: mappings across PUD (%d) and PMD (%d) boundaries of %d, each on its boundary (%d)"):format(
  bounds.pud, bounds.pmd, mapped, across))
local _, c = args(1, 0)
local orders = xcase.orders(c)
local total, fact = 0, { 1, 1, 2, 6, 24, 120, 720 }
for _, tk in ipairs(c.tasks) do total = total + #tk.prims end
local count = fact[total + 1]
for _, tk in ipairs(c.tasks) do count = count // fact[#tk.prims + 1] end
ok(#orders == count, ("orders: %d interleavings of %d primitives keeping each task's order"):format(#orders, total))
-- A store into a private mapping: about half the cases leave that mapping unfaulted in the storing process and its
-- forebears (a fresh COW fault), the others keep their set-up faults (the probe sees a touch where one is left).
local fresh, faulted = 0, 0
for i = 0, 999 do
  local _, cx = args(1, i)
  local parent, touched = {}, {}
  for _, line in ipairs(cx.setup) do
    local a, b = line:match("^do P(%d+) fork P(%d+)$")
    if a then parent[b] = a end
    local p, id = line:match("^do P(%d+) touch M(%d+) ")
    if p then touched[p .. "/" .. id] = true end
  end
  for _, tk in ipairs(cx.tasks) do
    local op, id = tk.prims[1]:match("^(%a+) M(%d+) ")
    local shared
    for _, m in ipairs(cx.procs[tk.proc].maps) do
      if m.id == tonumber(id) then shared = m.shared end
    end
    if (op == "write" or op == "gupwrite" or op == "dio") and shared == false then
      local q, any = tostring(tk.proc), false
      while q do
        any = any or touched[q .. "/" .. id] or false
        q = parent[q]
      end
      if any then faulted = faulted + 1 else fresh = fresh + 1 end
    end
  end
end
local altered, same = 0, 0
for i = 0, 1999 do
  local _, cx = args(1, i)
  for _, tk in ipairs(cx.tasks) do
    local id, prot = tk.prims[1]:match("^mprotect M(%d+) %d+ %d+ (%S+)$")
    for _, m in ipairs(id and cx.procs[tk.proc].maps or {}) do
      if m.id == tonumber(id) then
        if prot == (m.rw and "rw" or "r") then same = same + 1 else altered = altered + 1 end
      end
    end
  end
end
ok(altered > 0 and same == 0, ("generate: each mprotect changes its mapping's protection (%d of %d)"):format(
  altered, altered + same))
ok(fresh > 0 and faulted > 0 and fresh >= faulted,
  ("generate: private stores into pages their process never faulted (%d) and into faulted ones (%d)"):format(
  fresh, faulted))
-- A move of a mapping to just below another of its process's, where the file has room for that one after the moved
-- one's pages: about half the time it maps those next file pages with the same flags, so that vma_merge() may join
-- them, and the set-up maps it so.
local mergeable, apart = 0, 0
for i = 0, 2999 do
  local _, cx = args(1, i)
  for _, tk in ipairs(cx.tasks) do
    local id, to = tk.prims[1]:match("^mremap M(%d+) %d+ (%d+)$")
    local maps = id and cx.procs[tk.proc].maps or {}
    local m
    for _, a in ipairs(maps) do
      if a.id == tonumber(id) then m = a end
    end
    for _, o in ipairs(m and maps or {}) do
      if o ~= m and o.addr > 0 and o.addr - m.pages * cx.pagesize == tonumber(to)
        and m.off + m.pages + o.pages <= cx.pages then
        local line = ("do P0 map M%d %d %d %d %s %s"):format(o.id, o.off, o.pages, o.addr,
          o.shared and "shared" or "private", o.rw and "rw" or "r")
        local set_up = false
        for _, l in ipairs(cx.setup) do set_up = set_up or l == line end
        if set_up and o.off == m.off + m.pages and o.shared == m.shared and o.rw == m.rw then
          mergeable = mergeable + 1
        else
          apart = apart + 1
        end
      end
    end
  end
end
ok(mergeable > 0 and apart > 0 and mergeable * 3 >= mergeable + apart,
  ("generate: moves next to a mapping of the next file pages with the same flags (%d) and next to others (%d)"):format(
  mergeable, apart))

-- the schedules
local r = xcase.rng(5)
local s = explore.pct(r, 3, 40, 3)
local prios, changes = s:match("^([^/]*)/(.*)$")
local seen, nprio, last, nchange = {}, 0, 0, 0
for p in prios:gmatch("%d+") do seen[p] = true; nprio = nprio + 1 end
local sorted = true
for step, p in changes:gmatch("(%d+):(%d+)") do
  step = tonumber(step)
  sorted = sorted and step > last and step <= 40 and tonumber(p) < 10 + 3 + 1
  last, nchange = step, nchange + 1
end
local distinct = 0
for _ in pairs(seen) do distinct = distinct + 1 end
ok(nprio == 3 and distinct == 3 and nchange == 2 and sorted,
  "pct: three distinct priorities, d - 1 = 2 change points in order within k, below them (" .. s .. ")")
ok(#explore.preemptions(2, 5) == 10, "preemptions: one at each of 5 steps, for each of 2 initial orders")
local pts = explore.preemptions_at_points({ 3, 4 }, table.concat({ "1 0 mark begin -", "2 0 acquire ptl zap+0x1/0x9",
  "3 0 released ptl zap+0x5/0x9", "4 0 acquire ptl zap+0x1/0x9", "5 1 acquire ptl zap+0x1/0x9", "junk" }, "\n"))
ok(table.concat(pts, " ") == "13,14/1:11 13,14/2:11 13,14/3:11 13,14/5:11",
  "preemptions at points: the first step of each task's point, a loop's repeats once ("
  .. table.concat(pts, " ") .. ")")
local walk = table.concat({ "1 0 enter zap m+0x1/0x9", "2 0 acquire ptl z+0x1/0x9", "3 0 enter zap m+0x1/0x9",
  "4 0 acquire ptl z+0x1/0x9", "5 0 enter zap m+0x1/0x9", "6 1 acquire ptl z+0x1/0x9" }, "\n")
local _, again = explore.preemptions_at_points({ 3, 4 }, walk)
ok(table.concat(again, " ") == "13,14/3:11 13,14/4:11 13,14/5:11",
  "preemptions at points: the repeats in rounds, each point's second step, then its third ("
  .. table.concat(again, " ") .. ")")
-- Direction toward a change: a point counts by the function its call sits in, or by the function it is the edge of.
local toward = { truncate_pagecache = true, tlb_finish_mmu = true }
ok(not explore.is_toward(toward, "unmap_mapping_range", "hostfs_setattr+0x5c/0x110")
  and not explore.is_toward(nil, "tlb_finish_mmu", "truncate_pagecache+0x4c/0x90"),
  "toward: a point neither in nor at the edge of a function named is not toward the change, nor any without names")
ok(explore.is_toward(toward, "unmap_mapping_range", "truncate_pagecache+0x4c/0x90")
  and explore.is_toward(toward, "i_mmap_rwsem", "truncate_pagecache.isra.0+0x4c/0x90")
  and explore.is_toward(toward, "tlb_finish_mmu", "zap_page_range_single+0xf5/0x12d"),
  "toward: a point whose call sits in a function named (a compiler's suffix aside), or at its edge, is")
local away_trace = "1 0 mark begin -\n2 0 enter unmap_mapping_range hostfs_setattr+0x5c/0x110\n3 1 mark end -"
ok(not explore.trace_toward(away_trace, toward)
  and explore.trace_toward(away_trace .. "\n4 1 enter unmap_mapping_range truncate_pagecache+0x4c/0x90", toward),
  "toward: a trace is toward the change once one of its points is")
local mixed = table.concat({ "1 0 acquire ptl zap+0x1/0x9", "2 0 enter tlb_finish_mmu zap+0x3/0x9",
  "3 1 acquire mmap_lock f+0x1/0x2", "4 1 enter unmap_mapping_range truncate_pagecache+0x4c/0x90" }, "\n")
pts = explore.preemptions_at_points({ 3, 4 }, mixed, toward)
ok(table.concat(pts, " ") == "13,14/2:11 13,14/4:11 13,14/1:11 13,14/3:11",
  "preemptions at points: with a change named, its points first, then the others, each list in step order ("
  .. table.concat(pts, " ") .. ")")
-- A campaign's cursors: in order without a change; with one, the change's cases ahead and the plain order in turns.
local function run_cursors(is_toward, want, eligible)
  local got = {}
  local all = function(k) return { k }, k end
  local cur = explore.cursors(0, eligible or all, is_toward, function() return #got < want end)
  while #got < want do
    local k = cur.next()
    if not k then break end
    got[#got + 1] = k
  end
  return table.concat(got, ","), cur
end
ok(run_cursors(nil, 6) == "0,1,2,3,4,5", "cursors: without a change, the cases in order")
local probes = {}
local order, cur = run_cursors(function(k) probes[#probes + 1] = k; return k % 7 == 3 end, 8)
ok(order == "0,3,1,10,2,17,4,24",
  "cursors: the change's next case ahead (3, 10, 17, 24), then the next in order that has not run (" .. order .. ")")
ok(table.concat(probes, ",") == table.concat({ 1, 2, 3, 4, 5, 6, 7, 8, 9, 10, 11, 12, 13, 14, 15, 16, 17, 18, 19, 20,
  21, 22, 23, 24 }, ",") and cur.toward == 4 and cur.away == 20,
  "cursors: each case probed once, none that ran already (" .. table.concat(probes, ",") .. ")")
order = run_cursors(function() return false end, 3)
ok(order == "0,1,2", "cursors: a turn whose probes find nothing goes to the plain order (" .. order .. ")")
order = run_cursors(function(k) return k == 5 end, 4, function(k) if k % 2 == 1 then return { k }, k end end)
ok(order == "1,5,3,7", "cursors: only the cases the campaign takes (its shard, its pairs) (" .. order .. ")")
ok(explore.interleaving("1 0 acquire i_mmap_rwsem f+0x1/0x2\n2 1 mark begin -"):find(
  "T0 passed: 1:acquire i_mmap_rwsem f+0x1/0x2", 1, true), "interleaving: the points each task passed")
print("1.." .. n)

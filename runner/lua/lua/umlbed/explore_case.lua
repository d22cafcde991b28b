-- SPDX-License-Identifier: MIT
-- explore_case.lua: generated cases for the explorer: a file, processes and their mappings, and two or three tasks of mm operations.
--
--   local xcase = require "umlbed.explore_case"
--   local r = xcase.rng(42)                                -- splitmix64: the same seed, the same case, anywhere
--   local c = xcase.generate(r, { ops = { "inval", "read" }, pagesize = 4096 })
--   xcase.directives(c)    -- the arguments of guest/explore's umlbed-explore that set it up and name its tasks
--   xcase.orders(c)        -- every sequential order of the tasks' primitives ("0.0,1.0", ...)
--   xcase.describe(c)      -- one line for a report
--
-- Nothing is sized by hand: the file has from one page to thousands; each mapping lies across a page-table boundary
-- (2 MiB, 1 GiB) or where the kernel puts it, or just after another mapping of the file (contiguous in the file or
-- not, so that the kernel may merge them); a process maps the file up to three times, shared or private, read-only
-- or writable; pages are faulted, dirtied, COWed, forked, made stale by the other node. The operations' arguments
-- lean towards a focus page that some mapping holds (QuickCheck's frequency), and towards the edges: the first and
-- last page of a mapping, the file's end, lengths of zero and past the end.
local M = {}

local PMD = 2 * 1024 * 1024
local PUD = 1024 * 1024 * 1024

-- splitmix64 (Steele et al., OOPSLA 2014): small, seedable, the same sequence on every host and Lua build.
local R = {}
R.__index = R

function M.rng(seed)
  assert(math.type(seed) == "integer", "explore_case.rng: an integer seed")
  return setmetatable({ s = seed }, R)
end

function R:next()
  self.s = self.s + 0x9e3779b97f4a7c15
  local z = self.s
  z = (z ~ (z >> 30)) * 0xbf58476d1ce4e5b9
  z = (z ~ (z >> 27)) * 0x94d049bb133111eb
  return z ~ (z >> 31)
end

-- An integer in [lo, hi].
function R:int(lo, hi)
  assert(hi >= lo, "rng:int: an empty range")
  return lo + (self:next() >> 1) % (hi - lo + 1)
end

function R:chance(p) return (self:next() >> 11) / (1 << 53) < p end

function R:pick(list) return list[self:int(1, #list)] end

-- A choice by weight: { {w, value}, ... }.
function R:weighted(list)
  local total = 0
  for _, e in ipairs(list) do total = total + e[1] end
  local x = self:int(1, total)
  for _, e in ipairs(list) do
    x = x - e[1]
    if x <= 0 then return e[2] end
  end
end

-- A size in pages: mostly small, sometimes hundreds or thousands (crossing many page tables).
local function pages_of(r, max)
  local n = r:weighted { { 50, r:int(1, 8) }, { 25, r:int(9, 64) }, { 15, r:int(65, 600) }, { 10, r:int(601, 4096) } }
  return math.min(n, max)
end

-- The operations. A "map" operation runs in a process that maps the file and names one of its mappings; a "file"
-- operation may run in any process. "removes" marks what takes PTEs or pages away, "makes" what brings them.
M.OPS = {
  read = { role = "map", makes = true }, write = { role = "map", makes = true, rw = true },
  gupread = { role = "map", makes = true }, gupwrite = { role = "map", makes = true, rw = true },
  dio = { role = "map", makes = true, rw = true }, fork = { role = "map", makes = true },
  mremap = { role = "map", makes = true, removes = true }, munmap = { role = "map", removes = true },
  mprotect = { role = "map", removes = true }, madvise = { role = "map", removes = true },
  msync = { role = "map" }, exit = { role = "map", removes = true },
  inval = { role = "file", removes = true }, truncate = { role = "file", removes = true },
  punch = { role = "file", removes = true, fs = "tmp" }, pwrite = { role = "file", makes = true },
  pread = { role = "file", makes = true }, fsync = { role = "file" }, close = { role = "file" },
  unlink = { role = "file", removes = true }, umount = { role = "file", removes = true, fs = "tmp" },
  stale = { role = "file", makes = true, fs = "host" },
}

-- The operations' names in a fixed order (pairs() has none).
M.NAMES = {}
for name in pairs(M.OPS) do M.NAMES[#M.NAMES + 1] = name end
table.sort(M.NAMES)

-- The unordered pairs of operations in tiers: the series' call against every operation (the API this bed exists for);
-- then the API's neighbours, the other callers of unmap_mapping_range() (truncate, punch), against the operations
-- that bring pages or PTEs back; then the other removers against those makers (Line-Up's conflicting operations);
-- then removers against removers; then the rest. Within a tier the order is the seed's.
local NEIGHBOUR = { truncate = true, punch = true }
function M.pairs(seed)
  local tiers = { {}, {}, {}, {}, {} }
  for i, a in ipairs(M.NAMES) do
    for j = i, #M.NAMES do
      local b = M.NAMES[j]
      local oa, ob = M.OPS[a], M.OPS[b]
      if not (oa.fs and ob.fs and oa.fs ~= ob.fs) then
        local tier = 5
        if a == "inval" or b == "inval" then
          tier = 1
        elseif (NEIGHBOUR[a] and ob.makes) or (NEIGHBOUR[b] and oa.makes) then
          tier = 2
        elseif (oa.removes and ob.makes) or (ob.removes and oa.makes) then
          tier = 3
        elseif oa.removes and ob.removes then
          tier = 4
        end
        table.insert(tiers[tier], { a, b })
      end
    end
  end
  local r = M.rng(seed or 0)
  local out = {}
  for _, list in ipairs(tiers) do
    for i = #list, 2, -1 do
      local j = r:int(1, i)
      list[i], list[j] = list[j], list[i]
    end
    for _, p in ipairs(list) do out[#out + 1] = p end
  end
  return out
end

-- The start address of a mapping of n pages: across a page-table boundary of its own slot (each mapping of a process
-- has a GiB of its own), or 0 (the kernel chooses).
local function place(r, slot, n, ps)
  local base = (16 + 2 * slot) * PUD
  local kind = r:weighted { { 40, "pud" }, { 40, "pmd" }, { 20, "any" } }
  if kind == "any" then return 0, kind end
  local boundary = kind == "pud" and base or base + r:int(1, 255) * PMD
  local before = n > 1 and r:int(1, n - 1) or r:int(0, 1)
  return boundary - before * ps, kind
end

-- A page of the mapping: its first or last, the one holding the focus, or any.
local function page_in(r, m, focus)
  local f = focus - m.off
  local choices = { { 2, 0 }, { 2, m.pages - 1 }, { 2, r:int(0, m.pages - 1) } }
  if f >= 0 and f < m.pages then choices[#choices + 1] = { 12, f } end
  return r:weighted(choices)
end

-- A range of pages of the mapping: its head or its tail (a split that moves one end of the VMA), a hole in the middle
-- (two splits), the page of the focus, or the whole.
local function range_in(r, m, focus)
  local kind = r:weighted { { 3, "head" }, { 3, "tail" }, { 2, "middle" }, { 2, "one" }, { 1, "whole" } }
  if kind == "whole" or m.pages == 1 then return 0, m.pages end
  if kind == "head" then return 0, r:int(1, m.pages - 1) end
  if kind == "tail" then
    local first = r:int(1, m.pages - 1)
    return first, m.pages - first
  end
  if kind == "middle" and m.pages > 2 then
    local first = r:int(1, m.pages - 2)
    return first, r:int(1, m.pages - 1 - first)
  end
  return page_in(r, m, focus), 1
end

-- The byte range of an invalidation: around the focus, the whole file, a part, unaligned or past the end.
local function byte_range(r, c, focus, ps)
  local kind = r:weighted { { 8, "focus" }, { 2, "whole" }, { 1, "any" }, { 1, "zero" }, { 1, "past" } }
  if kind == "whole" then return 0, c.pages * ps end
  if kind == "zero" then return r:int(0, c.pages - 1) * ps, 0 end
  if kind == "past" then return c.pages * ps, r:int(1, 4) * ps end
  local first = kind == "focus" and math.max(0, focus - r:int(0, 2)) or r:int(0, c.pages - 1)
  local len = r:int(1, math.max(1, c.pages - first)) * ps
  if r:chance(0.2) then return first * ps + r:int(1, ps - 1), len end
  return first * ps, len
end

-- The arguments of operation name for a task in process p (a process table of the case), as primitive words.
local function prim_of(r, c, name, p, task)
  local ps, focus = c.pagesize, c.focus
  local m = p.maps[1] and r:pick(p.maps)
  if name == "mremap" and #p.maps > 1 and r:chance(0.6) then m = p.maps[1] end
  local v = 10 + task
  local function mref() return "M" .. m.id end
  if name == "read" or name == "gupread" or name == "dio" then
    return ("%s %s %d"):format(name, mref(), page_in(r, m, focus))
  elseif name == "write" or name == "gupwrite" then
    return ("%s %s %d %d"):format(name, mref(), page_in(r, m, focus), v)
  elseif name == "fork" then
    return "fork P" .. c:new_proc(p)
  elseif name == "munmap" or name == "madvise" or name == "msync" then
    local first, n = range_in(r, m, focus)
    return ("%s %s %d %d"):format(name, mref(), first, n)
  elseif name == "mprotect" then
    -- A protection other than the mapping's own: mprotect() leaves a VMA whole when its flags do not change, and
    -- the split of a VMA in a file's i_mmap tree is what races with a walk of that tree.
    local first, n = range_in(r, m, focus)
    return ("mprotect %s %d %d %s"):format(mref(), first, n, r:pick(m.rw and { "r", "none" } or { "none", "rw" }))
  elseif name == "mremap" then
    local kind = r:weighted { { 3, "grow" }, { 2, "shrink" }, { 3, "move" } }
    if kind == "grow" then return ("mremap %s %d"):format(mref(), m.pages + r:int(1, 8)) end
    if kind == "shrink" then return ("mremap %s %d"):format(mref(), math.max(1, m.pages - r:int(1, m.pages))) end
    -- A move next to another mapping of the file, or across a boundary of a slot of its own.
    local other
    for _, o in ipairs(p.maps) do
      if o ~= m and o.addr > 0 then other = o end
    end
    local to = other and other.addr > 0 and other.addr - m.pages * ps or (40 + task) * PUD - ps
    return ("mremap %s %d %d"):format(mref(), m.pages, to)
  elseif name == "exit" or name == "fsync" or name == "close" or name == "unlink" or name == "umount" then
    return name
  elseif name == "inval" then
    local off, len = byte_range(r, c, focus, ps)
    return ("inval %d %d %s %s"):format(off, len, r:pick { "seed", "unmap", "unmap-keep-cows" },
      r:pick { "keep", "drop" })
  elseif name == "truncate" then
    return ("truncate %d"):format(r:pick { 0, focus, math.max(0, focus - 1), c.pages, c.pages + 1 })
  elseif name == "punch" or name == "stale" or name == "pwrite" then
    local first = math.max(0, focus - r:int(0, 1))
    local n = r:int(1, math.max(1, math.min(8, c.pages - first)))
    if name == "punch" then return ("punch %d %d"):format(first, n) end
    return ("%s %d %d %d"):format(name, first, n, name == "stale" and 1 + task or v)
  elseif name == "pread" then
    return ("pread %d"):format(focus)
  end
  error("explore_case: no operation " .. tostring(name))
end

local Case = {}
Case.__index = Case

-- A new process number, forked from p by a primitive (its mappings are p's).
function Case:new_proc(p)
  local q = #self.procs + 1
  assert(q <= 7, "explore_case: at most 8 processes")
  self.procs[q] = { n = q, maps = p.maps, forked = true }
  return q
end

function Case:set_up(line) self.setup[#self.setup + 1] = line end

function Case:has_op(name)
  for _, o in ipairs(self.ops) do
    if o == name then return true end
  end
  return false
end

-- A process with no mapping, for a file operation.
function Case:plain_proc()
  local q = #self.procs + 1
  self.procs[q] = { n = q, maps = {} }
  self:set_up("proc P" .. q)
  return self.procs[q]
end

-- The mappings of P0 and what was done to them before the tasks: faults, dirty pages, COWs, forks, a stale cache.
local function set_up_mappings(r, c)
  local ps = c.pagesize
  local p0 = { n = 0, maps = {} }
  c.procs[0] = p0
  c:set_up("proc P0")
  local nmaps = r:weighted { { 5, 1 }, { 3, 2 }, { 2, 3 } }
  -- A move of a mapping is most telling next to another mapping of the file.
  if c:has_op("mremap") then nmaps = math.max(nmaps, 2) end
  for i = 1, nmaps do
    local prev = p0.maps[i - 1]
    local off = r:int(0, c.pages - 1)
    local n = pages_of(r, c.pages - off)
    local follow = prev and r:weighted { { 5, "no" }, { 3, "adjacent" }, { 3, "next-pages" } }
    if follow == "adjacent" and prev.addr == 0 then follow = "no" end
    if follow and follow ~= "no" and (follow == "next-pages" or r:chance(0.5)) and prev.off + prev.pages < c.pages then
      -- The next file pages: just after the previous mapping the kernel may merge the two VMAs at once; in a slot
      -- of their own, a move of the previous one to just below them may merge them.
      off = prev.off + prev.pages
      n = math.min(n, c.pages - off)
    end
    local addr, kind = place(r, i, n, ps)
    if follow == "adjacent" then
      kind = "adjacent"
      addr = prev.addr + prev.pages * ps
    end
    local shared = r:chance(0.7)
    local rw = r:chance(0.8)
    local m = { id = i - 1, off = off, pages = n, addr = addr, shared = shared, rw = rw, kind = kind }
    p0.maps[i] = m
    c:set_up(("do P0 map M%d %d %d %d %s %s"):format(m.id, off, n, addr, shared and "shared" or "private",
      rw and "rw" or "r"))
  end
  local m1 = p0.maps[1]
  c.focus = m1.off + r:int(0, m1.pages - 1)
  -- Faults, dirty pages and COWs before the tasks.
  for _, m in ipairs(p0.maps) do
    local how = r:weighted { { 4, "all" }, { 3, "some" }, { 2, "none" } }
    if how ~= "none" then
      local first, n = 0, m.pages
      if how == "some" then first, n = range_in(r, m, c.focus) end
      local w = m.rw and r:chance(0.5)
      c:set_up(("do P0 touch M%d %d %d %s"):format(m.id, first, n, w and "w" or "r"))
    end
  end
  -- Sharers: forks of P0 (and of the first fork), each faulting its own pages.
  local sharers = r:weighted { { 3, 0 }, { 5, 1 }, { 2, 2 } }
  for k = 1, sharers do
    local parent = c.procs[k - 1]
    local q = c:new_proc(parent)
    c.procs[q].forked = false
    c:set_up(("do P%d fork P%d"):format(parent.n, q))
    if r:chance(0.5) then
      local m = r:pick(parent.maps)
      c:set_up(("do P%d touch M%d 0 %d r"):format(q, m.id, m.pages))
    end
  end
end

-- A store into a private mapping takes one of two paths: over a page the process has mapped, wp_page_copy() copies
-- it under the page table lock; over a page it has not, do_cow_fault() copies the file's page while holding that
-- page's lock, and truncation races with that window differently. The set-up faults most pages, and a read fault
-- maps the cached pages around it too, so half the time the mapping a task stores into privately is left unfaulted
-- in the task's process and in the processes it was forked from. The draw is taken only in a case with such a task,
-- so that every other case stays what it was.
local function fresh_cow(r, c)
  local parent, targets = {}, {}
  for _, line in ipairs(c.setup) do
    local a, b = line:match("^do P(%d+) fork P(%d+)$")
    if a then parent[tonumber(b)] = tonumber(a) end
  end
  for _, tk in ipairs(c.tasks) do
    local op, id = tk.prims[1]:match("^(%a+) M(%d+) ")
    local p = c.procs[tk.proc]
    if (op == "write" or op == "gupwrite" or op == "dio") and p then
      for _, m in ipairs(p.maps) do
        if m.id == tonumber(id) and not m.shared then targets[#targets + 1] = { proc = tk.proc, id = m.id } end
      end
    end
  end
  if #targets == 0 or not r:chance(0.5) then return end
  local drop = {}
  for _, t in ipairs(targets) do
    local q = t.proc
    while q do
      drop[("do P%d touch M%d "):format(q, t.id)] = true
      q = parent[q]
    end
  end
  local kept = {}
  for _, line in ipairs(c.setup) do
    if not drop[line:match("^do P%d+ touch M%d+ ") or ""] then kept[#kept + 1] = line end
  end
  c.setup = kept
end

-- A move of a mapping to just below another merges the two VMAs only when that one maps the file's next pages with
-- the same flags (vma_merge()), and the set-up makes that rare: 2 of seed 1's first 1,500 cases. Half the time a
-- case whose task moves a mapping to just below another of its process's gets that other one mapped at the moved
-- one's next file pages, both shared or both private, both writable if either was (so that no store of the case
-- faults). The draw is taken only in such a case, so that every other case stays what it was.
local function mergeable_move(r, c)
  local m, o
  for _, tk in ipairs(c.tasks) do
    local id, to = tk.prims[1]:match("^mremap M(%d+) %d+ (%d+)$")
    local p = c.procs[tk.proc]
    if id and p then
      for _, a in ipairs(p.maps) do
        if a.id == tonumber(id) then m = a end
      end
      for _, b in ipairs(p.maps) do
        if m and b ~= m and b.addr > 0 and b.addr - m.pages * c.pagesize == tonumber(to) then o = b end
      end
    end
    if o then break end
  end
  if not o or m.off + m.pages + o.pages > c.pages or not r:chance(0.5) then return end
  o.off, o.shared = m.off + m.pages, m.shared
  m.rw = m.rw or o.rw
  o.rw = m.rw
  for i, line in ipairs(c.setup) do
    local id = line:match("^do P0 map M(%d+) ")
    for _, x in ipairs { m, o } do
      if id and tonumber(id) == x.id then
        c.setup[i] = ("do P0 map M%d %d %d %d %s %s"):format(x.id, x.off, x.pages, x.addr,
          x.shared and "shared" or "private", x.rw and "rw" or "r")
      end
    end
  end
end

-- gen(r, {ops = {a, b [, c]}, pagesize = ps, fs = "host"|"tmp"}): a case whose tasks run those operations.
function M.generate(r, opts)
  local ops = assert(opts.ops, "explore_case.generate: ops")
  local c = setmetatable({ pagesize = assert(opts.pagesize), procs = {}, setup = {}, tasks = {}, ops = ops }, Case)
  local fs = opts.fs
  for _, name in ipairs(ops) do fs = fs or M.OPS[name].fs end
  c.fs = fs or (r:chance(0.8) and "host" or "tmp")
  c.pages = pages_of(r, opts.max_pages or 4096)
  set_up_mappings(r, c)
  if c.fs == "host" and r:chance(0.75) then
    -- The other node has written the focus and the pages around it: this node's cache is stale.
    local w = c:plain_proc()
    local first = math.max(0, c.focus - r:int(0, 2))
    c:set_up(("do P%d stale %d %d 1"):format(w.n, first, math.min(c.pages - first, r:int(1, 6))))
  end
  -- Each task runs in a process of its own: a mapper for a "map" operation (a new fork of P0 when none is free),
  -- else a plain process, or now and then a mapper.
  local used = {}
  for i, name in ipairs(ops) do
    local op = assert(M.OPS[name], "explore_case: no operation " .. tostring(name))
    local p
    if op.role == "map" or r:chance(0.5) then
      for q = 0, #c.procs do
        local cand = c.procs[q]
        if not used[q] and cand.maps[1] and not cand.forked and not p then p = cand end
      end
      if not p then
        local q = c:new_proc(c.procs[0])
        c.procs[q].forked = false
        c:set_up(("do P0 fork P%d"):format(q))
        p = c.procs[q]
      end
    else
      p = c:plain_proc()
    end
    used[p.n] = true
    local prims = { prim_of(r, c, name, p, i - 1) }
    -- Now and then a second primitive: what the task sees of the focus once its operation returned.
    if name ~= "exit" and r:chance(0.5) then
      if p.maps[1] then
        local m = r:pick(p.maps)
        local f = c.focus - m.off
        local pg = (f >= 0 and f < m.pages) and f or 0
        prims[2] = m.rw and r:chance(0.35) and ("write M%d %d %d"):format(m.id, pg, 20 + i) or
          ("read M%d %d"):format(m.id, pg)
      else
        prims[2] = ("pread %d"):format(c.focus)
      end
    end
    c.tasks[i] = { proc = p.n, prims = prims, op = name }
  end
  fresh_cow(r, c)
  mergeable_move(r, c)
  return c
end

-- The arguments of umlbed-explore for the case (after its -s or -o option).
function M.directives(c)
  local args = { ("file %s %d"):format(c.fs, c.pages) }
  for _, line in ipairs(c.setup) do args[#args + 1] = line end
  for _, tk in ipairs(c.tasks) do args[#args + 1] = ("task P%d %s"):format(tk.proc, table.concat(tk.prims, " ; ")) end
  return args
end

-- Every sequential order of the tasks' primitives that keeps each task's own order: "T.P,T.P,...".
function M.orders(c)
  local out, cur, next_of = {}, {}, {}
  local total = 0
  for i, tk in ipairs(c.tasks) do
    next_of[i] = 1
    total = total + #tk.prims
  end
  local function walk()
    if #cur == total then
      out[#out + 1] = table.concat(cur, ",")
      return
    end
    for i, tk in ipairs(c.tasks) do
      local k = next_of[i]
      if k <= #tk.prims then
        cur[#cur + 1] = ("%d.%d"):format(i - 1, k - 1)
        next_of[i] = k + 1
        walk()
        next_of[i] = k
        cur[#cur] = nil
      end
    end
  end
  walk()
  return out
end

function M.describe(c)
  local t = {}
  for i, tk in ipairs(c.tasks) do t[i] = ("T%d(P%d): %s"):format(i - 1, tk.proc, table.concat(tk.prims, "; ")) end
  return ("%s file of %d pages, focus %d; %s"):format(c.fs, c.pages, c.focus, table.concat(t, " | "))
end

return M

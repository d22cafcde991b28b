-- SPDX-License-Identifier: MIT
-- model.lua: reference model of page states and data for model-based random testing, with its step generator and shrinker.
--
-- Pure Lua 5.4, no umlbed calls: scenarios/model-fuzz.lua drives a guest with the steps and
-- compares; tests/scenarios/model_test.lua tests this file on the host (lua5.4).
--
-- What is modelled, per process and per mapping of one file of NPAGES pages:
--   pte[j]   '-' not present, 'F' file page, 'A' anonymous COW copy (as pagemap reports them)
--   anon[j]  the first byte of an anonymous copy
-- and per file page: disk[i] (the host file's first byte of page i) and cache[i], the set of
-- first bytes the guest's page cache may hold for it. The set has one member except after a
-- host write to a page that no process maps: the guest may or may not have had it cached
-- (readahead is not modelled), so both versions are possible until a read shows which one,
-- or a cache drop makes it the disk's.
--
-- Kernel behaviour the model encodes (each is pinned by a scenario of its own):
--   * fault-around is one page: touching page j maps page j only;
--   * fork() copies no PTEs of a VMA without an anon_vma (shared mappings, private ones never
--     written), and all PTEs of a private VMA that has one (it gets one at its first COW);
--   * invalidation: begin rounded down, length rounded up, independently; length 0 pages is
--     nothing for seed and "to the end of the file" for unmap/unmap-keep-cows; COW copies
--     are discarded except by unmap-keep-cows; cache=drop makes the range's cache the disk's;
--   * a shared write is followed by msync, so the page cache never stays dirty;
--   * mappings never merge into one VMA (the driver maps each at its own address with gaps),
--     so a private mapping's anon_vma, which decides what fork() copies, is its own.
local M = {}

M.IMPLS = { "seed", "unmap", "unmap-keep-cows" }

-- A small deterministic generator (xorshift64), the same on every Lua 5.4 build.
function M.rng(seed)
  local s = (seed * 0x9E3779B97F4A7C15) ~ 0x2545F4914F6CDD1D
  if s == 0 then s = 1 end
  return function(n)
    s = s ~ (s << 13)
    s = s ~ (s >> 7)
    s = s ~ (s << 17)
    return (s >> 1) % n + 1
  end
end

local Model = {}
Model.__index = Model

-- M.new{npages=, pagesize=}: the initial first byte of page i is the digit i (page identity).
function M.new(o)
  local m = setmetatable({ npages = o.npages, ps = o.pagesize or 4096, disk = {}, cache = {}, procs = {},
                           nprocs = 0 }, Model)
  for i = 0, m.npages - 1 do
    m.disk[i] = string.char(48 + i % 10)
    m.cache[i] = { [m.disk[i]] = true }
  end
  return m
end

local function copy(t)
  local r = {}
  for k, v in pairs(t) do r[k] = v end
  return r
end

local function setstr(set)
  local k = {}
  for v in pairs(set) do k[#k + 1] = v end
  table.sort(k)
  return table.concat(k)
end

-- Is the step valid in the current state (its process and mapping exist, ids are new)?
function Model:valid(s)
  if s.op == "spawn" then return self.procs[s.id] == nil end
  if s.op == "invalidate" or s.op == "hostwrite" then return true end
  local p = s.proc and self.procs[s.proc]
  if not p then return false end
  if s.op == "fork" then return self.procs[s.id] == nil end
  if s.op == "mmap" then return p.maps[s.id] == nil and s.first + s.n <= self.npages end
  if s.op == "exit" then return true end
  local mp = p.maps[s.map]
  if not mp then return false end
  if s.op == "write" then return s.page < mp.n end
  return true
end

-- Every live mapping as {proc, mapid, mapping}, in a stable order.
function Model:mappings()
  local r = {}
  local pids = {}
  for pid in pairs(self.procs) do pids[#pids + 1] = pid end
  table.sort(pids)
  for _, pid in ipairs(pids) do
    local mids = {}
    for mid in pairs(self.procs[pid].maps) do mids[#mids + 1] = mid end
    table.sort(mids)
    for _, mid in ipairs(mids) do r[#r + 1] = { pid, mid, self.procs[pid].maps[mid] } end
  end
  return r
end

-- Is file page i mapped (as a file page) anywhere? Then it is certainly in the cache.
function Model:mapped(i)
  for _, x in ipairs(self:mappings()) do
    local mp = x[3]
    local j = i - mp.first
    if j >= 0 and j < mp.n and mp.pte[j] == "F" then return true end
  end
  return false
end

-- The page states of a mapping, as t:pages wants them.
function M.states(mp)
  local s = {}
  for j = 0, mp.n - 1 do s[#s + 1] = mp.pte[j] end
  return table.concat(s)
end

-- The file page range [first, last] an invalidation acts on, or nil for none. off and len
-- are byte counts below 2^62 (the generator keeps them there; huge-ranges.lua pins the rest).
function M.range(impl, off, len, ps, _npages)
  local first = off // ps
  local n = (len + ps - 1) // ps
  if n == 0 then
    if impl == "seed" then return nil end
    return first, math.maxinteger
  end
  return first, first + n - 1
end

-- Apply a valid step. For "read" it returns the possible first bytes per page, a function
-- that checks an observed string and resolves the cache, and a description.
function Model:apply(s)
  local op = s.op
  if op == "spawn" then
    self.procs[s.id] = { maps = {} }
  elseif op == "fork" then
    local parent = self.procs[s.proc]
    local child = { maps = {} }
    for mid, mp in pairs(parent.maps) do
      local c = { mode = mp.mode, first = mp.first, n = mp.n, pte = {}, anon = {}, anon_vma = mp.anon_vma }
      for j = 0, mp.n - 1 do
        if mp.anon_vma then
          c.pte[j] = mp.pte[j]
          c.anon[j] = mp.anon[j]
        else
          c.pte[j] = "-"
        end
      end
      child.maps[mid] = c
    end
    self.procs[s.id] = child
  elseif op == "exit" then
    self.procs[s.proc] = nil
  elseif op == "mmap" then
    local mp = { mode = s.mode, first = s.first, n = s.n, pte = {}, anon = {}, anon_vma = false }
    for j = 0, s.n - 1 do mp.pte[j] = "-" end
    self.procs[s.proc].maps[s.id] = mp
  elseif op == "munmap" then
    self.procs[s.proc].maps[s.map] = nil
  elseif op == "touch" then
    local mp = self.procs[s.proc].maps[s.map]
    for j = 0, mp.n - 1 do
      if mp.pte[j] == "-" then mp.pte[j] = "F" end
    end
  elseif op == "read" then
    local mp = self.procs[s.proc].maps[s.map]
    local want = {}
    for j = 0, mp.n - 1 do
      if mp.pte[j] == "A" then want[j] = { [mp.anon[j]] = true } else want[j] = self.cache[mp.first + j] end
      if mp.pte[j] == "-" then mp.pte[j] = "F" end
    end
    local model = self
    local function check(got)
      local bad = {}
      for j = 0, mp.n - 1 do
        local c = got:sub(j + 1, j + 1)
        if not want[j][c] then
          bad[#bad + 1] = ("page %d read %q, model allows %q"):format(j, c, setstr(want[j]))
        elseif mp.pte[j] ~= "A" then
          model.cache[mp.first + j] = { [c] = true }
        end
      end
      return #bad == 0, table.concat(bad, "; ")
    end
    return want, check
  elseif op == "write" then
    local mp = self.procs[s.proc].maps[s.map]
    local i = mp.first + s.page
    if mp.mode == "shared" then
      mp.pte[s.page] = "F"
      self.disk[i] = s.byte
      self.cache[i] = { [s.byte] = true }
    else
      mp.pte[s.page] = "A"
      mp.anon[s.page] = s.byte
      mp.anon_vma = true
    end
  elseif op == "hostwrite" then
    local i = s.page
    self.disk[i] = s.byte
    if not self:mapped(i) then
      local c = copy(self.cache[i])
      c[s.byte] = true
      self.cache[i] = c
    end
  elseif op == "invalidate" then
    local first, last = M.range(s.impl, s.off, s.len, self.ps, self.npages)
    if first then
      for _, x in ipairs(self:mappings()) do
        local mp = x[3]
        for j = 0, mp.n - 1 do
          local i = mp.first + j
          if i >= first and i <= last then
            if mp.pte[j] == "F" or (mp.pte[j] == "A" and s.impl ~= "unmap-keep-cows") then
              mp.pte[j] = "-"
              mp.anon[j] = nil
            end
          end
        end
      end
      if s.cache == "drop" then
        for i = first, math.min(last, self.npages - 1) do self.cache[i] = { [self.disk[i]] = true } end
      end
    end
  else
    error("unknown step " .. tostring(op))
  end
end

-- One line per step, for reports and for pasting into a regression scenario.
function M.format(s)
  local f = {
    spawn = function() return ("spawn P%d"):format(s.id) end,
    fork = function() return ("fork P%d -> P%d"):format(s.proc, s.id) end,
    exit = function() return ("exit P%d"):format(s.proc) end,
    mmap = function() return ("mmap P%d M%d %s file pages %d..%d"):format(s.proc, s.id, s.mode, s.first,
                                                                          s.first + s.n - 1) end,
    munmap = function() return ("munmap P%d M%d"):format(s.proc, s.map) end,
    touch = function() return ("touch P%d M%d"):format(s.proc, s.map) end,
    read = function() return ("read P%d M%d"):format(s.proc, s.map) end,
    write = function() return ("write P%d M%d page %d %q"):format(s.proc, s.map, s.page, s.byte) end,
    hostwrite = function() return ("hostwrite page %d %q"):format(s.page, s.byte) end,
    invalidate = function() return ("invalidate offset %d length %d %s %s"):format(s.off, s.len, s.impl, s.cache) end,
  }
  return f[s.op] and f[s.op]() or ("? " .. tostring(s.op))
end

-- M.generate(seed, nsteps, {npages=, pagesize=, exit=}) -> a list of steps, valid in order.
-- The generator runs a model alongside so that it only names processes and mappings that
-- exist. Exit steps come unless exit=false; the scenario runs them as waiting exits
-- (proc:exit(0, {wait = true})), since an invalidation racing an exit that is still tearing
-- down its mm hits a known UML bug (exit-race.lua, docs/known-issues.md).
function M.generate(seed, nsteps, o)
  local rand = M.rng(seed)
  local ps, npages = o.pagesize or 4096, o.npages
  local m = M.new { npages = npages, pagesize = ps }
  local steps, nextid = {}, 1
  local lower, upper = "abcdefghijklmnopqrstuvwxyz", "ABCDEFGHIJKLMNOPQRSTUVWXYZ"
  local function pick(list) return list[rand(#list)] end
  local function procs()
    local r = {}
    for pid in pairs(m.procs) do r[#r + 1] = pid end
    table.sort(r)
    return r
  end
  local function emit(s)
    assert(m:valid(s), "generated an invalid step")
    m:apply(s)
    steps[#steps + 1] = s
  end
  emit { op = "spawn", id = nextid }
  nextid = nextid + 1
  local weights = { mmap = 10, fork = 5, spawn = 2, exit = o.exit ~= false and 2 or 0, munmap = 3, touch = 14,
                    read = 12, write = 12, hostwrite = 8, invalidate = 20 }
  local ops = {}
  for k in pairs(weights) do ops[#ops + 1] = k end
  table.sort(ops)
  local total = 0
  for _, k in ipairs(ops) do total = total + weights[k] end
  while #steps < nsteps do
    local r, op = rand(total), nil
    for _, k in ipairs(ops) do
      r = r - weights[k]
      if r <= 0 then op = k break end
    end
    local ps_ = procs()
    local maps = m:mappings()
    if op == "spawn" and #ps_ < 6 then
      emit { op = "spawn", id = nextid }
      nextid = nextid + 1
    elseif op == "fork" and #ps_ > 0 and #ps_ < 6 then
      emit { op = "fork", proc = pick(ps_), id = nextid }
      nextid = nextid + 1
    elseif op == "exit" and #ps_ > 1 then
      emit { op = "exit", proc = pick(ps_) }
    elseif op == "mmap" and #ps_ > 0 and #maps < 10 then
      local first = rand(npages) - 1
      local n = rand(npages - first)
      emit { op = "mmap", proc = pick(ps_), id = nextid, mode = rand(2) == 1 and "shared" or "private",
             first = first, n = n }
      nextid = nextid + 1
    elseif #maps > 0 and (op == "munmap" or op == "touch" or op == "read" or op == "write") then
      local x = pick(maps)
      local s = { op = op, proc = x[1], map = x[2] }
      if op == "write" then
        s.page = rand(x[3].n) - 1
        local c = rand(26)
        s.byte = lower:sub(c, c)
      end
      emit(s)
    elseif op == "hostwrite" then
      local c = rand(26)
      emit { op = "hostwrite", page = rand(npages) - 1, byte = upper:sub(c, c) }
    elseif op == "invalidate" then
      local first = rand(npages + 2) - 2 -- sometimes before 0: clamp below
      if first < 0 then first = 0 end
      local kind = rand(6)
      local off, len
      if kind <= 3 then -- page-aligned pages
        off, len = first * ps, rand(npages) * ps
      elseif kind == 4 then -- unaligned bytes: the rounding rules
        off, len = first * ps + rand(ps) - 1, rand(2 * ps)
      elseif kind == 5 then -- zero length: the documented seed/unmap difference
        off, len = first * ps, 0
      else -- to far beyond the end of the file
        off, len = first * ps, 1 << 40
      end
      emit { op = "invalidate", off = off, len = len, impl = pick(M.IMPLS), cache = rand(3) == 1 and "drop" or "keep" }
    end
  end
  return steps
end

-- The steps of a list that are valid when run in order from a fresh model (a shrunk list may
-- have lost the spawn or mmap that later steps name; those steps are dropped).
function M.normalize(steps, o)
  local m = M.new(o)
  local r = {}
  for _, s in ipairs(steps) do
    if m:valid(s) then
      m:apply(s)
      r[#r + 1] = s
    end
  end
  return r
end

-- M.shrink(steps, fails, o) -> a shorter list for which fails(list) is still true (ddmin:
-- drop chunks of halving size, then single steps, until nothing more can go). fails runs
-- the list (normalized) and returns true when the divergence shows. budget caps the runs.
function M.shrink(steps, fails, o, budget)
  budget = budget or 200
  local cur = M.normalize(steps, o)
  local runs = 0
  local chunk = #cur // 2
  while chunk >= 1 and runs < budget do
    local progress = false
    local i = 1
    while i <= #cur and runs < budget do
      local cand = {}
      for k = 1, #cur do
        if k < i or k >= i + chunk then cand[#cand + 1] = cur[k] end
      end
      cand = M.normalize(cand, o)
      runs = runs + 1
      if #cand < #cur and fails(cand) then
        cur = cand
        progress = true
      else
        i = i + chunk
      end
    end
    if not progress then chunk = chunk // 2 end
  end
  return cur, runs
end

return M

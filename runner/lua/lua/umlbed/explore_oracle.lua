-- SPDX-License-Identifier: MIT
-- explore_oracle.lua: the explorer's oracle: a concurrent run is right when what it left equals what a sequential order of the same operations leaves (Line-Up).
--
--   local oracle = require "umlbed.explore_oracle"
--   local st = oracle.parse(output)          -- umlbed-explore's state: results, VMAs, PTEs, data, cache, file
--   local ok, why = oracle.check(st, seqs)   -- seqs: { {order = "0.0,1.0", state = ...}, ... }
--
-- The rule (docs/explore.md has it with its reasons):
--  1. Orders: only the sequential orders that keep the real-time order of the run count: a primitive that ended
--     before another began comes first (the kernel's marks give both edges; an exit has no end).
--  2. Whole: the tasks' results, which processes are alive, their VMAs of the file and the file's size must be
--     those of one such order.
--  3. Per page: everything about one page of the file (its PTE and its data in every VMA that maps it, whether it
--     is in the page cache, its contents in the file) must be what one of the orders of rule 2 leaves, possibly a
--     different order for another page. An invalidation, a zap, a truncation, a writeback or a readahead works a
--     page (or a page table) at a time and promises nothing about a range as a whole: a fault may refill a page
--     the walk has passed while a page it has not reached is still to go. The same holds of one page's VMAs in
--     several processes: an invalidation, truncation or punch zaps them one VMA at a time, so the part of a page in
--     the VMAs of a process whose task overlapped such a walk may come from another order (check's walks).
-- A kernel report (KASAN, lockdep, a BUG or a WARNING: the taint, or lockdep turning itself off) fails any run.
local M = {}

-- Expands "v0*3 v1" into a list of tokens.
local function expand(words, from)
  local list = {}
  for i = from, #words do
    local tok, n = words[i]:match("^(.-)%*(%d+)$")
    for _ = 1, tonumber(n or 1) do list[#list + 1] = tok or words[i] end
  end
  return list
end

local function split(line)
  local w = {}
  for x in line:gmatch("%S+") do w[#w + 1] = x end
  return w
end

-- The state umlbed-explore printed, as a table.
function M.parse(text)
  local st = { results = {}, procs = {}, vmas = {}, ptes = {}, data = {}, edges = {}, snaps = {}, file = { toks = {} } }
  local in_trace = false
  local trace = {}
  for line in text:gmatch("[^\n]+") do
    if in_trace then
      if line == "end trace" then in_trace = false else trace[#trace + 1] = line end
    else
      local w = split(line)
      local k = w[1]
      if k == "result" then
        st.results[w[2]] = line:match("^result %S+ ?(.*)$")
      elseif k == "proc" then
        st.procs[w[2]] = w[3]
      elseif k == "vma" then
        st.vmas[w[2]] = st.vmas[w[2]] or {}
        table.insert(st.vmas[w[2]], { range = w[3], pgoff = tonumber(w[4]), perms = w[5] })
      elseif k == "pte" then
        st.ptes[w[2] .. " " .. w[3]] = w[4] or ""
      elseif k == "data" then
        st.data[w[2] .. " " .. w[3]] = expand(w, 4)
      elseif k == "cache" then
        st.cache = w[2] or ""
      elseif k == "file" then
        st.file = { pages = tonumber(w[2]), toks = expand(w, 3) }
      elseif k == "steps" then
        st.steps, st.skipped = tonumber(w[2]), tonumber(w[3])
      elseif k == "edge" then
        st.edges[w[2]] = { b = tonumber(w[3]), e = tonumber(w[4]) }
      elseif k == "snap" then
        -- snap T.P:before|after PGOFF PERMS Pn START PTES
        st.snaps[w[2]] = st.snaps[w[2]] or {}
        st.snaps[w[2]][w[5] .. " " .. w[6]] = { pgoff = tonumber(w[3]), perms = w[4], ptes = w[7] or "" }
      elseif k == "pagesize" then
        st.pagesize = tonumber(w[2])
      elseif k == "kernel" then
        st.tainted, st.debug_locks = tonumber(w[3]), tonumber(w[5])
      elseif k == "kernel-after" then
        st.after = { tainted = tonumber(w[3]), debug_locks = tonumber(w[5]) }
      elseif k == "klog" then
        st.klog = line:match("^klog %d+ (.*)$")
      elseif k == "trace" then
        in_trace = true
      end
    end
  end
  st.trace = #trace > 0 and table.concat(trace, "\n") or nil
  st.pagesize = st.pagesize or 4096
  return st
end

-- Whether the order ("0.0,1.0,...") keeps the run's real-time order: a ended before b began puts a first.
local function keeps(order, edges)
  local pos = {}
  local i = 0
  for tp in order:gmatch("[^,]+") do
    i = i + 1
    pos[tp] = i
  end
  for a, ea in pairs(edges) do
    for b, eb in pairs(edges) do
      if a ~= b and ea.e and eb.b and ea.e < eb.b and pos[a] and pos[b] and pos[a] > pos[b] then return false end
    end
  end
  return true
end

-- Whether primitive a ("T.P") overlapped primitive b in the run's real time (a missing end edge: to the end).
local function overlapped(edges, a, b)
  local ea, eb = edges[a], edges[b]
  if not (ea and eb and ea.b and eb.b) then return false end
  return ea.b < (eb.e or math.huge) and eb.b < (ea.e or math.huge)
end

-- The results of task T, its primitives' separated by " ; ", with those in masked ("T.P" keys) as "*".
local function masked_result(task, res, masked)
  if not next(masked) then return res end
  local out, i = {}, 0
  for part in (res .. " ; "):gmatch("(.-) ; ") do
    out[#out + 1] = masked[task:match("%d+") .. "." .. i] and "*" or part
    i = i + 1
  end
  return table.concat(out, " ; ")
end

-- The part of a state that must be one order's: results (but the masked ones), live processes, VMAs and the file's
-- size.
local function whole(st, masked)
  masked = masked or {}
  local parts = {}
  local function add(k, v) parts[#parts + 1] = k .. "=" .. tostring(v) end
  local keys = {}
  for k in pairs(st.results) do keys[#keys + 1] = k end
  table.sort(keys)
  for _, k in ipairs(keys) do add("result " .. k, masked_result(k, st.results[k], masked)) end
  keys = {}
  for k in pairs(st.procs) do keys[#keys + 1] = k end
  table.sort(keys)
  for _, k in ipairs(keys) do
    add("proc " .. k, st.procs[k])
    for _, v in ipairs(st.vmas[k] or {}) do add("vma " .. k, ("%s %d %s"):format(v.range, v.pgoff, v.perms)) end
  end
  add("file pages", st.file.pages)
  return parts
end

local function same(a, b)
  if #a ~= #b then return false end
  for i = 1, #a do
    if a[i] ~= b[i] then return false end
  end
  return true
end

-- What the state says about file page f, in parts: its PTE and data in each VMA that maps it (vmas: { key = "P0
-- 40000000", proc = "P0", text = ... }, sorted by key), its cache bit and its contents in the file.
local function page_parts(st, f)
  local keys = {}
  for p, list in pairs(st.vmas) do
    for _, v in ipairs(list) do
      local s, e = v.range:match("^(%x+)%-(%x+)$")
      local n = (tonumber(e, 16) - tonumber(s, 16)) // st.pagesize
      local i = f - v.pgoff
      if i >= 0 and i < n then keys[#keys + 1] = { p .. " " .. s, i, p } end
    end
  end
  table.sort(keys, function(x, y) return x[1] < y[1] end)
  local file_pte = false
  local vmas = {}
  for _, k in ipairs(keys) do
    local pte = (st.ptes[k[1]] or ""):sub(k[2] + 1, k[2] + 1)
    local data = st.data[k[1]] or {}
    file_pte = file_pte or pte == "F"
    local text = ("%s+%d:%s/%s"):format(k[1], k[2], pte, tostring(data[k[2] + 1]))
    vmas[#vmas + 1] = { key = k[1], proc = k[3], text = text }
  end
  -- Whether a page no PTE maps is cached is readahead's choice, and readahead's window is state the concurrent run
  -- shares and each fresh guest rebuilds, so only a mapped page's cache bit is judged (a mapped page out of the
  -- cache is a page the file lost).
  return { vmas = vmas, cache = "cache:" .. (file_pte and (st.cache or ""):sub(f + 1, f + 1) or "~"),
    file = "file:" .. tostring(st.file.toks[f + 1]) }
end

-- Everything the state says about file page f, as one string.
local function page_view(st, f)
  local pp = page_parts(st, f)
  local parts = {}
  for _, v in ipairs(pp.vmas) do parts[#parts + 1] = v.text end
  parts[#parts + 1] = pp.cache
  parts[#parts + 1] = pp.file
  return table.concat(parts, " ")
end

-- Whether file page f is the destination of a copy (copies: { {"T.P", f}, ... }) that overlapped, in real time, a
-- primitive of another task.
local function copied(st, copies, f)
  for _, cp in ipairs(copies or {}) do
    if cp[2] == f then
      for tp in pairs(st.edges) do
        if tp:match("^%d+") ~= cp[1]:match("^%d+") and overlapped(st.edges, cp[1], tp) then return true end
      end
    end
  end
  return false
end

-- Whether page f of the run is an order's page but for its data, each token of which is a version of the page
-- itself (vN, or z for a hole: not another page's vN@K, nor an error).
local function explained_copy(st, matching, f)
  local pp = page_parts(st, f)
  local shape, own = {}, true
  for _, v in ipairs(pp.vmas) do
    local head, data = v.text:match("^(.-)/(.*)$")
    shape[#shape + 1] = head
    own = own and (data:match("^v%d+$") or data == "z" or data == "nil") and true
  end
  local tok = pp.file:match("^file:(.*)$")
  own = own and (tok:match("^v%d+$") or tok == "z") and true
  if not own then return false end
  local want = table.concat(shape, " ") .. " " .. pp.cache
  for _, s in ipairs(matching) do
    local q = page_parts(s.state, f)
    local sh = {}
    for _, v in ipairs(q.vmas) do sh[#sh + 1] = v.text:match("^(.-)/") end
    if table.concat(sh, " ") .. " " .. q.cache == want then return true end
  end
  return false
end

-- The processes whose PTEs a walk may have passed at another moment than the rest of the page's: those of a task
-- with a primitive that overlapped, in real time, a primitive of another task that walks the file's mappings a VMA
-- at a time (walks.prims: invalidate, truncate, punch; walks.proc: each task's process).
local function walked_procs(st, walks)
  local set = {}
  for _, w in ipairs(walks and walks.prims or {}) do
    for tp in pairs(st.edges) do
      local t = tp:match("^%d+")
      if t ~= w:match("^%d+") and walks.proc[t] and overlapped(st.edges, tp, w) then set[walks.proc[t]] = true end
    end
  end
  return set
end

-- Page f as the matching orders leave it, but each VMA of a walked process taken from any one of them: the rest
-- (the other VMAs and the file's contents) from one order, the cache bit as one of them leaves it.
local function explained_walked(st, matching, f, walked)
  local run = page_parts(st, f)
  local views = {}
  for i, s in ipairs(matching) do views[i] = page_parts(s.state, f) end
  local function some(fn)
    for _, v in ipairs(views) do
      if fn(v) then return true end
    end
    return false
  end
  -- A page no PTE of the run maps has no cache bit to judge.
  if run.cache ~= "cache:~" and not some(function(v) return v.cache == run.cache end) then return false end
  for _, rv in ipairs(run.vmas) do
    if walked[rv.proc] and not some(function(v)
      for _, x in ipairs(v.vmas) do
        if x.text == rv.text then return true end
      end
      return false
    end) then return false end
  end
  return some(function(v)
    if v.file ~= run.file or #v.vmas ~= #run.vmas then return false end
    for i, rv in ipairs(run.vmas) do
      if v.vmas[i].key ~= rv.key or (not walked[rv.proc] and v.vmas[i].text ~= rv.text) then return false end
    end
    return true
  end)
end

-- The highest file page any VMA or the file reaches, plus one.
local function page_count(st)
  local n = math.max(st.file.pages or 0, #(st.cache or ""))
  for _, list in pairs(st.vmas) do
    for _, v in ipairs(list) do
      local s, e = v.range:match("^(%x+)%-(%x+)$")
      n = math.max(n, v.pgoff + (tonumber(e, 16) - tonumber(s, 16)) // st.pagesize)
    end
  end
  return n
end

-- A kernel report of the guest: the taint or lockdep's own switch.
function M.report(st)
  if st.tainted and st.tainted ~= 0 then
    return ("the kernel is tainted (%d): it reported a problem"):format(st.tainted)
  end
  if st.debug_locks == 0 then return "lockdep turned itself off: it reported a problem" end
  -- The same once the case's processes have ended: their teardown (an exit that meets an invalidation) comes after
  -- the state.
  local after = st.after or {}
  if after.tainted and after.tainted ~= 0 then
    return ("the kernel is tainted (%d) once the case's processes ended: their teardown reported a problem")
      :format(after.tainted)
  end
  if after.debug_locks == 0 then
    return "lockdep turned itself off once the case's processes ended: their teardown reported a problem"
  end
  -- A report that neither taints nor turns lockdep off (lockdep's "suspicious RCU usage") is in the kernel's log.
  if st.klog then return ("the kernel logged a warning: %s"):format(st.klog) end
  return nil
end

-- A state at odds with itself: a VMA's page i, or a task's read, that holds another file page than the VMA's file
-- offset says ("vN@K"): the page tables and the VMA disagree, whatever the order.
function M.inconsistent(st)
  local keys = {}
  for k in pairs(st.data) do keys[#keys + 1] = k end
  table.sort(keys)
  for _, k in ipairs(keys) do
    for i, tok in ipairs(st.data[k]) do
      if tok:find("@", 1, true) then
        return ("%s: page %d holds %s, not the file page its VMA's offset says"):format(k, i - 1, tok)
      end
    end
  end
  for task, res in pairs(st.results) do
    local tok = res:match("(v%d+@%d+)")
    if tok then return ("%s read %s, not the file page its mapping's offset says"):format(task, tok) end
  end
  return nil
end

-- The pages an invalidation of OFF LEN reaches, as the seed's kernel-doc and unmap_mapping_range() say: the begin
-- rounded down, the length rounded up, each on its own; a zero length is nothing for the seed and the rest of the
-- file for unmap_mapping_range(). Returns first, last (last nil: to the end), or nil for none.
function M.inval_pages(off, len, impl, ps)
  local first = off // ps
  if len == 0 then
    if impl == "seed" then return nil end
    return first, nil
  end
  return first, first + (len + ps - 1) // ps - 1
end

-- The contract of one call of the series, run alone (a sequential order): every PTE of the range that a VMA had
-- before is gone after, COW copies too but for unmap-keep-cows, which keeps them; no PTE outside the range changes.
-- words: the primitive's words ("inval", OFF, LEN, IMPL, CACHE); tag: its "T.P".
function M.contract(st, tag, words)
  local before, after = st.snaps[tag .. ":before"], st.snaps[tag .. ":after"]
  if not before or not after then return nil end
  local off, len, impl = tonumber(words[2]), tonumber(words[3]), words[4]
  local first, last = M.inval_pages(off, len, impl, st.pagesize)
  local keys = {}
  for k in pairs(before) do keys[#keys + 1] = k end
  table.sort(keys)
  for _, k in ipairs(keys) do
    local b, a = before[k], after[k]
    if a and a.pgoff == b.pgoff then
      for i = 1, #b.ptes do
        local f = b.pgoff + i - 1
        local inside = first and f >= first and (not last or f <= last)
        local was, now = b.ptes:sub(i, i), a.ptes:sub(i, i)
        local want = was
        if inside and was == "F" then want = "-" end
        if inside and was == "A" then want = impl == "unmap-keep-cows" and "A" or "-" end
        if now ~= want then
          return ("%s (%s %s %s %s): %s page %d (file page %d) was %s and is %s after the call, where its contract "
            .. "says %s"):format(tag, words[2], words[3], words[4], words[5], k, i - 1, f, was, now, want)
        end
      end
    end
  end
  return nil
end

-- check(state, seqs[, loose[, walks]]) -> true, order | nil, why: seqs are { {order =, state =}, ... }, each run in a
-- guest of its own. loose lists the primitives ("T.P") that change the file's size before they unmap it (truncate,
-- punch): what another task's primitive that overlapped one of them in real time returned is not judged, because it
-- may see the new size and still read a page through a PTE not yet zapped, which no order gives; the state it leaves
-- is judged as always. walks ({ prims = {"T.P", ...}, proc = { ["T"] = "Pn" } }) lists the primitives that zap the
-- file's mappings a VMA at a time (invalidate, truncate, punch): a process whose task overlapped one of them in real
-- time may have faulted a page back in a VMA the walk had passed, before the walk reached another process's VMA of
-- the same page, so each of its VMAs' part of a page may come from another order than the rest of that page's.
-- unjudged lists pairs { "T.P", "T.P" }: the first's own result is not judged when the two overlapped in real time.
-- The explorer pairs an invalidation that drops the cache with another task's store into the file's pages (write,
-- gupwrite, dio): the store's fault (or pin) makes the page dirty before its data lands, so the drop may fail with
-- EBUSY while a read still gets the old data, which no order gives; what the invalidation leaves is judged as always.
-- copies lists { "T.P", f }: a direct I/O that reads the file into the mapping of file page f. It reads, then stores
-- what it read, and another task's primitive may come in between (a punch that the store's fault waits for, then
-- re-creates the page with the data read before it): while the two overlapped in real time, page f may hold any
-- version of itself (vN, or z for a hole) in place of an order's data, its PTEs and cache bit still one order's.
function M.check(st, seqs, loose, walks, unjudged, copies)
  local rep = M.report(st) or M.inconsistent(st)
  if rep then return nil, rep end
  local cands = {}
  for _, s in ipairs(seqs) do
    if keeps(s.order, st.edges) then cands[#cands + 1] = s end
  end
  if #cands == 0 then return nil, "no sequential order keeps the run's real-time order" end
  local masked = {}
  for _, l in ipairs(loose or {}) do
    for tp in pairs(st.edges) do
      if tp:match("^%d+") ~= l:match("^%d+") and overlapped(st.edges, tp, l) then masked[tp] = true end
    end
  end
  for _, u in ipairs(unjudged or {}) do
    if overlapped(st.edges, u[1], u[2]) then masked[u[1]] = true end
  end
  local w = whole(st, masked)
  local matching = {}
  for _, s in ipairs(cands) do
    if same(w, whole(s.state, masked)) then matching[#matching + 1] = s end
  end
  if #matching == 0 then
    local lines = { "no sequential order gives these results, processes and VMAs:",
      "  run:   " .. table.concat(w, "; ") }
    for _, s in ipairs(cands) do
      lines[#lines + 1] = ("  %s: %s"):format(s.order, table.concat(whole(s.state, masked), "; "))
    end
    return nil, table.concat(lines, "\n")
  end
  local n = page_count(st)
  for _, s in ipairs(matching) do n = math.max(n, page_count(s.state)) end
  local walked = walked_procs(st, walks)
  for f = 0, n - 1 do
    local v = page_view(st, f)
    local explained = false
    for _, s in ipairs(matching) do
      if page_view(s.state, f) == v then
        explained = true
        break
      end
    end
    if not explained and next(walked) then explained = explained_walked(st, matching, f, walked) end
    if not explained and copied(st, copies, f) then explained = explained_copy(st, matching, f) end
    if not explained then
      local lines = { ("file page %d: no sequential order leaves it so:"):format(f), "  run:   " .. v }
      for _, s in ipairs(matching) do lines[#lines + 1] = ("  %s: %s"):format(s.order, page_view(s.state, f)) end
      return nil, table.concat(lines, "\n")
    end
  end
  return true, matching[1].order
end

return M

-- SPDX-License-Identifier: MIT
-- explore.lua: the explorer: generated cases of mm operations, each run under many schedules of the kernel's automatic points (PCT, bounded preemption) and checked against its sequential orders.
--
--   local explore = require "umlbed.explore"
--   local found = explore.campaign(t, { seed = 1, cases = 4 })   -- nil, or a finding (also reported as a failure)
--   explore.replay(t, { seed = 1, case = 17, schedule = "12,11/31:11" })
--
-- Each case (umlbed.explore_case) is run in every sequential order of its tasks' primitives, each in a fresh guest,
-- and then, in one guest, under schedules of the kernel's explorer (/sys/kernel/umlbed_explore/): every initial
-- order of the tasks' priorities, every placement of one preemption (CHESS's bound 1) while that is small, then
-- PCT schedules of depth d (Burckhardt et al., ASPLOS 2010: random priorities and d - 1 change points at random
-- steps, which find a bug of depth d with probability at least 1/(n k^(d-1))). umlbed.explore_oracle compares
-- each run with the sequential orders. A finding names the case, the schedule, the replay command and the
-- interleaving: the list of points each task passed, in order.
local xcase = require "umlbed.explore_case"
local oracle = require "umlbed.explore_oracle"

local M = {}

local GUEST = "/umlbed-explore"

-- The program in the guest: the host's copy is beside the agent (BUILD/guest/, or the installed lib folder). The
-- guests of a run share their root folder, so it is installed once: a copy made while another guest runs it would
-- make that guest's next exec fail (ENOEXEC, seen).
local installed
local function install(vm)
  if installed then return true end
  local dir = (vm.agent or ""):match("^(.*)/[^/]+$")
  if not dir then return nil, "explore: the vm has no agent path to find umlbed-explore beside" end
  local ok, err = vm:install(dir .. "/umlbed-explore", GUEST)
  installed = ok and true
  return ok, err
end

-- A guest with room for a case: a file of thousands of pages, on tmpfs too, and private copies of it.
-- A schedule (or order) that brings the kernel down ends the run before its result comes back, and the run's
-- folder is kept: each is written, before it runs, to RUN/explore-tries ("vm=N seed=S case=C schedule=..."), so
-- that the last line of the instance the report names is the replay (uml-kernel/explore-historic.sh reads it).
local function tried(vm, what)
  local f = io.open(vm.dir:match("^(.*)/[^/]+$") .. "/explore-tries", "a")
  if f then
    f:write(("vm=%d %s\n"):format(vm.index, what))
    f:close()
  end
end

local function boot(t, opts, probe)
  local o = { probe = probe }
  for k, v in pairs(opts.vm or { mem = "256M" }) do o[k] = v end
  local vm = assert(t:vm(o))
  -- The replay command names the kernel's variant, when the runner knows it.
  if not vm.probe then opts.variant = opts.variant or vm.variant end
  assert(install(vm))
  return vm
end

-- A kernel built without the automatic points (the coverage kernels, DEBUG=0) has no explorer to schedule by: the
-- run is a SKIP, said before any case runs (t:skip works in the run function only, not in the tasks below).
local function need_explorer(t)
  local vm <close> = assert(t:vm())
  if not vm:readfile("/sys/kernel/umlbed_explore/steps") then
    t:skip(("kernel %s has no explorer: it is built without CONFIG_UMLBED_EXPLORE (uml-kernel/config/debug.config)")
      :format(vm.variant or vm.kernel or "?"))
  end
end

-- Runs umlbed-explore on a batch of modes ({"-o", ORDER} or {"-s", SCHEDULE}, each a run of the case afresh, in a
-- child of its own): a list of parsed states, in order, up to the first run that did not end well, and for that one
-- its index, kind and text. Each run has a folder of its own: the guests of a run share their root folder.
local runs = 0
local function run_batch(vm, modes, c, opts)
  runs = runs + 1
  local args = { "-d", ("/xp-%d-%d"):format(vm.index, runs) }
  if opts.trace then args[#args + 1] = "-t" end
  for _, m in ipairs(modes) do args[#args + 1], args[#args + 2] = m[1], m[2] end
  for _, d in ipairs(xcase.directives(c)) do args[#args + 1] = d end
  local status, out = vm:run { path = GUEST, args = args, timeout = (opts.guest_timeout or 120) * #modes }
  if not status then return {}, 1, "guest", "the guest did not answer: " .. tostring(out) end
  local states = {}
  local i = 0
  for body, code in out:gmatch("run %d+ [so] %S+\n(.-)end run %d+ (%d+)\n") do
    i = i + 1
    if code == "3" then return states, i, "setup", body end
    if code ~= "0" then return states, i, "explorer", ("umlbed-explore %s %s: exit %s\n%s"):format(
      modes[i][1], modes[i][2], code, body) end
    states[i] = oracle.parse(body)
  end
  if status ~= "exit:0" or i < #modes then
    return states, i + 1, status:match("^timeout") and "hang" or "explorer", ("umlbed-explore %s %s: %s\n%s"):format(
      modes[i + 1][1], modes[i + 1][2], status, out:sub(-4000))
  end
  return states
end

-- One run: the parsed state, or nil, kind, text.
local function run(vm, mode, c, opts)
  local states, _, kind, text = run_batch(vm, { mode }, c, opts)
  if states[1] then return states[1] end
  return nil, kind, text
end

-- The schedule the guest program takes: task i at SCHED_FIFO 10 + prios[i], then at each change {step, value} the
-- running task at 10 + value.
local function schedule_string(prios, changes)
  local p, c = {}, {}
  for i, v in ipairs(prios) do p[i] = tostring(10 + v) end
  for i, ch in ipairs(changes) do c[i] = ("%d:%d"):format(ch[1], 10 + ch[2]) end
  return table.concat(p, ",") .. "/" .. table.concat(c, ",")
end

local function permutations(n)
  local out, cur, used = {}, {}, {}
  local function walk()
    if #cur == n then
      out[#out + 1] = table.move(cur, 1, n, 1, {})
      return
    end
    for v = 1, n do
      if not used[v] then
        used[v], cur[#cur + 1] = true, v
        walk()
        used[v], cur[#cur] = nil, nil
      end
    end
  end
  walk()
  return out
end

-- The schedules without a change: each initial order of the tasks (the values above every change's).
function M.orders_without_change(n, floor)
  local list = {}
  for _, perm in ipairs(permutations(n)) do
    local prios = {}
    for i, v in ipairs(perm) do prios[i] = floor + v end
    list[#list + 1] = { prios = prios, s = schedule_string(prios, {}) }
  end
  return list
end

-- One preemption at each step of [1, k], for each initial order: the running task drops below every other.
function M.preemptions(n, k)
  local list = {}
  for _, base in ipairs(M.orders_without_change(n, 1)) do
    for s = 1, k do list[#list + 1] = schedule_string(base.prios, { { s, 1 } }) end
  end
  return list
end

-- Whether a point is toward a change (toward: a set of kernel function names): its call sits in one of them (the
-- site's function, without the compiler's .isra/.constprop suffix), or it is the edge of one (what: "enter
-- unmap_mapping_range" names unmap_mapping_range).
function M.is_toward(toward, what, site)
  return toward ~= nil and (toward[(site or ""):match("^([%w_]+)") or ""] or toward[what or ""]) and true or false
end

-- Whether a trace passes a point toward the change.
function M.trace_toward(trace, toward)
  for line in (trace or ""):gmatch("[^\n]+") do
    local what, site = line:match("^%d+ %d+ %S+ (%S+) (%S+)$")
    if what and M.is_toward(toward, what, site) then return true end
  end
  return false
end

-- One preemption at the first step of each point a task passes in a run without change (its kind, lock and call
-- site), for that run's initial order: bounded preemption (CHESS) with the repeats of one point in a loop (a zap's
-- page tables, a fault's retries) taken as one. trace is that run's trace, prios its initial priorities. With
-- toward (a set of function names), the points toward the change come first: a cut at the case's budget keeps them.
-- The second list holds the repeats in rounds: the second step of each point that repeats, then the third, and so
-- on. A walk over the VMAs of a file passes the same point once for each VMA, and a race with one VMA needs the
-- preemption at that VMA's turn.
function M.preemptions_at_points(prios, trace, toward)
  local list, later, seen, order = {}, {}, {}, {}
  for line in (trace or ""):gmatch("[^\n]+") do
    local step, task, kind, what, site = line:match("^(%d+) (%d+) (%S+) (%S+) (%S+)$")
    local key = step and table.concat({ task, kind, what, site }, " ")
    if key and not seen[key] then
      seen[key] = { tonumber(step) }
      local near = toward == nil or M.is_toward(toward, what, site)
      local into = near and list or later
      into[#into + 1] = schedule_string(prios, { { tonumber(step), 1 } })
      order[#order + 1] = { key = key, near = near }
    elseif key then
      table.insert(seen[key], tonumber(step))
    end
  end
  table.move(later, 1, #later, #list + 1, list)
  local repeats, round, more = {}, 2, true
  while more do
    more = false
    for _, near in ipairs { true, false } do
      for _, o in ipairs(order) do
        local steps = seen[o.key]
        if o.near == near and steps[round] then
          repeats[#repeats + 1] = schedule_string(prios, { { steps[round], 1 } })
          more = true
        end
      end
    end
    round = round + 1
  end
  return list, repeats
end

-- A PCT schedule of depth d for n tasks and about k steps.
function M.pct(r, n, k, d)
  local prios = {}
  for i = 1, n do prios[i] = d + i end
  for i = n, 2, -1 do
    local j = r:int(1, i)
    prios[i], prios[j] = prios[j], prios[i]
  end
  local changes, used = {}, {}
  for i = 1, math.min(d - 1, k) do
    local s
    repeat s = r:int(1, math.max(1, k)) until not used[s]
    used[s] = true
    changes[#changes + 1] = { s, i }
  end
  table.sort(changes, function(a, b) return a[1] < b[1] end)
  return schedule_string(prios, changes)
end

-- The trace as the interleaving: one line per step, and the list of points each task passed.
function M.interleaving(trace)
  if not trace then return "(no trace)" end
  local per, order = {}, {}
  for line in trace:gmatch("[^\n]+") do
    local step, task, kind, what, site = line:match("^(%d+) (%d+) (%S+) (%S+) (%S+)$")
    if step then
      local p = ("%s %s %s"):format(kind, what, site)
      order[#order + 1] = ("%4s T%s %s"):format(step, task, p)
      per[task] = per[task] or {}
      table.insert(per[task], step .. ":" .. p)
    end
  end
  local out = { "steps in order:" }
  for _, l in ipairs(order) do out[#out + 1] = "  " .. l end
  local tasks = {}
  for k in pairs(per) do tasks[#tasks + 1] = k end
  table.sort(tasks)
  for _, k in ipairs(tasks) do out[#out + 1] = ("T%s passed: %s"):format(k, table.concat(per[k], ", ")) end
  return table.concat(out, "\n")
end

-- The case of a campaign: case number n of seed s takes the n-th pair of operations (the series' call against every
-- operation first: umlbed.explore_case.pairs), and now and then a third task.
function M.case_of(seed, n, pagesize)
  local list = xcase.pairs(seed)
  local pair = list[n % #list + 1]
  local r = xcase.rng(seed * 1000003 + n)
  local ops = { pair[1], pair[2] }
  if r:chance(0.15) then ops[3] = r:pick(xcase.NAMES) end
  local ok, c = pcall(xcase.generate, r, { ops = ops, pagesize = pagesize })
  if not ok then return nil, c end
  c.seed, c.number = seed, n
  return c, r
end

-- Runs fn(item) for each item of list in opts.workers tasks at once (default 2, each with guests of its own: the
-- runner pins each instance to a CPU of its own), in order; stops handing out items once one returns a value,
-- and returns the value of the earliest item that did (its index too), whatever the tasks' timing.
local function in_parallel(t, list, workers, fn)
  local nexti, first, firsti = 1, nil, nil
  local tasks = {}
  for w = 1, math.max(1, math.min(workers, #list)) do
    tasks[w] = t:go(function()
      while not first and nexti <= #list do
        local i = nexti
        nexti = i + 1
        local v = fn(list[i], w)
        if v ~= nil and (not firsti or i < firsti) then first, firsti = v, i end
      end
    end)
  end
  for _, tk in ipairs(tasks) do tk:wait() end
  return first, firsti
end

-- The sequential orders of case c, each in a guest of its own; nil, kind, text when one cannot run.
local function sequential(t, c, opts)
  local orders = xcase.orders(c)
  local states = {}
  local bad = in_parallel(t, orders, opts.workers or 2, function(order)
    local vm <close> = boot(t, opts)
    tried(vm, ("seed=%d case=%d order=%s"):format(c.seed, c.number, order))
    local st, kind, text = run(vm, { "-o", order }, c, opts)
    if not st then return { kind, text } end
    local rep = oracle.report(st) or oracle.inconsistent(st)
    for i, tk in ipairs(c.tasks) do
      -- Each primitive's result, in the task's order: the contract holds of a call that returned success.
      local res = {}
      for r in ((st.results["T" .. (i - 1)] or "") .. " ; "):gmatch("(.-) ; ") do res[#res + 1] = r end
      for j, prim in ipairs(tk.prims) do
        local w = {}
        for x in prim:gmatch("%S+") do w[#w + 1] = x end
        if w[1] == "inval" and res[j] == "ok" then
          rep = rep or oracle.contract(st, ("%d.%d"):format(i - 1, j - 1), w)
        end
      end
    end
    if rep then return { "sequential", ("the order %s alone: %s"):format(order, rep) } end
    states[order] = st
  end)
  if bad then return nil, bad[1], bad[2] end
  local seqs = {}
  for _, order in ipairs(orders) do seqs[#seqs + 1] = { order = order, state = states[order] } end
  return seqs
end

-- What a finding says: the case, the schedule, why, the replay command and the interleaving.
local function finding(t, f, opts)
  local replay = ("umlbed explore%s --seed %d --case %d --schedule %s"):format(
    opts.variant and (" --variant " .. opts.variant) or "", f.seed, f.case, f.schedule or "-")
  local lines = {
    ("explore: %s after %d case(s) and %d schedule(s), %d s%s"):format(f.kind, f.cases, f.schedules, f.seconds,
      f.toward_note or ""),
    "case: " .. xcase.describe(f.c),
    "schedule: " .. (f.schedule or "- (a sequential order alone)"),
    "replay: " .. replay,
    f.why,
  }
  if f.schedule and f.schedule ~= "-" and opts.trace_findings ~= false then
    -- The trace of the same schedule, in a fresh guest: what each task passed, and in which order. A finding in a
    -- sequential order ("-") has no schedule to trace.
    local vm <close> = boot(t, opts)
    local st = run(vm, { "-s", f.schedule }, f.c, { trace = true, guest_timeout = opts.guest_timeout })
    lines[#lines + 1] = M.interleaving(st and st.trace)
  end
  f.replay = replay
  f.text = table.concat(lines, "\n")
  t:fail(f.text)
  t:note("explore-found " .. f.kind .. " seconds=" .. f.seconds .. " replay=" .. replay)
  return f
end

-- Runs a batch of schedules; a finding (a table) for the first the oracle refuses, else nil and the runs' most steps.
local function try(vm, c, batch, seqs, opts)
  local modes = {}
  for i, s in ipairs(batch) do modes[i] = { "-s", s } end
  local states, bad, kind, text = run_batch(vm, modes, c, opts)
  local k = 0
  local loose, walks, drops, dirtiers, copies = {}, { prims = {}, proc = {} }, {}, {}, {}
  -- Each mapping's first file page: P0 maps the file, and a forked process has its parent's mappings.
  local pgoff = {}
  for _, m in ipairs(c.procs[0] and c.procs[0].maps or {}) do pgoff["M" .. m.id] = m.off end
  for i, tk in ipairs(c.tasks) do
    walks.proc[tostring(i - 1)] = "P" .. tk.proc
    for j, prim in ipairs(tk.prims) do
      local tp = ("%d.%d"):format(i - 1, j - 1)
      local op, cache = prim:match("^(%S+)"), prim:match("^inval %S+ %S+ %S+ (%S+)")
      if op == "truncate" or op == "punch" then loose[#loose + 1] = tp end
      if op == "truncate" or op == "punch" or op == "inval" then walks.prims[#walks.prims + 1] = tp end
      if cache == "drop" then drops[#drops + 1] = tp end
      if op == "write" or op == "gupwrite" or op == "dio" then dirtiers[#dirtiers + 1] = tp end
      local m, page = prim:match("^dio (M%d+) (%d+)")
      if m and pgoff[m] then copies[#copies + 1] = { tp, pgoff[m] + tonumber(page) } end
    end
  end
  -- An invalidation that drops the cache, against a store into the file's pages by another task.
  local unjudged = {}
  for _, d in ipairs(drops) do
    for _, w in ipairs(dirtiers) do
      if d:match("^%d+") ~= w:match("^%d+") then unjudged[#unjudged + 1] = { d, w } end
    end
  end
  for i, st in ipairs(states) do
    local ok, why = oracle.check(st, seqs, loose, walks, unjudged, copies)
    if not ok then return { kind = "oracle", why = why, schedule = batch[i] } end
    k = math.max(k, st.steps or 0)
  end
  if bad and kind ~= "setup" then return { kind = kind, why = text, schedule = batch[bad] } end
  return nil, k, states
end

-- The schedules of case c, in opts.workers guests at once, until one is refused or opts.schedules have run: each
-- initial order of the tasks (traced: which gives k, the steps of a run, and the points each task passes), one
-- preemption at every step while n k is at most opts.exhaustive (120) and else at the first step of each point and
-- then at its repeats, then PCT of depth opts.depth (2); opts.schedules in all, by default 30 for each initial order
-- (60 for two tasks, 180 for three): a third task multiplies the orders, and a cut at 60 left each order of a case
-- of three only its first few points.
local function concurrent(t, c, r, seqs, opts, counters)
  local workers = opts.workers or 2
  local vms = {}
  local k = 0
  local traces = {}
  local traced = setmetatable({ trace = true }, { __index = opts })
  local function go(batch, w)
    vms[w] = vms[w] or boot(t, opts)
    counters.schedules = counters.schedules + #batch
    for _, s in ipairs(batch) do tried(vms[w], ("seed=%d case=%d schedule=%s"):format(c.seed, c.number, s)) end
    local plain = not batch.traced
    local f, steps, states = try(vms[w], c, batch, seqs, plain and opts or traced)
    if f then return f end
    k = math.max(k, steps)
    if not plain then traces[batch[1]] = states[1] and states[1].trace end
  end
  -- Batches of schedules, each one run of umlbed-explore: the exec and the round trip are shared.
  local function batches(list, size)
    local out = {}
    for i = 1, #list, size do out[#out + 1] = table.move(list, i, math.min(#list, i + size - 1), 1, {}) end
    return out
  end
  local n = #c.tasks
  local list = {}
  local bases = M.orders_without_change(n, opts.depth or 2)
  for _, o in ipairs(bases) do list[#list + 1] = { o.s, traced = true } end
  local f = in_parallel(t, list, workers, go)
  if not f then
    local rest = {}
    local budget = (opts.schedules or 30 * #bases) - #list
    if n * k <= (opts.exhaustive or 120) then
      rest = M.preemptions(n, k)
    else
      -- The orders' points in turn, so that a cut at opts.schedules keeps the first points of every order.
      local per, rep, most = {}, {}, 0
      for i, o in ipairs(bases) do
        per[i], rep[i] = M.preemptions_at_points(o.prios, traces[o.s], opts.toward)
        most = math.max(most, #per[i], #rep[i])
      end
      local again = {}
      for j = 1, most do
        for i = 1, #per do
          rest[#rest + 1] = per[i][j]
          again[#again + 1] = rep[i][j]
        end
      end
      -- The first steps take at most two thirds of the budget, the repeats half of what is left, PCT the rest.
      local firsts = math.min(#rest, math.max(budget - math.min(#again, budget // 3), 0))
      for i = #rest, firsts + 1, -1 do rest[i] = nil end
      for i = 1, math.min(#again, (budget - firsts + 1) // 2) do rest[#rest + 1] = again[i] end
    end
    for _ = #rest + 1, budget do rest[#rest + 1] = M.pct(r, n, k, opts.depth or 2) end
    f = in_parallel(t, batches(rest, opts.batch or 8), workers, go)
  end
  for _, vm in pairs(vms) do vm:kill() end
  return f
end

-- Whether case c's tasks pass a point toward the change (opts.toward) in a run without change, each initial order
-- once, traced, on the run's probe kernel: the base kernel (umlbed run --probe-variant), whose points in the changed
-- functions a change may have removed (a lock taken no more), else the kernel under test. The probes of a campaign
-- share a guest (held.vm), as the schedules of a case do: each run sets its
-- case up afresh in a folder of its own, and a boot would cost about as much as the probe. A case whose runs do not
-- all come back is taken as toward (its full run reports why), and its guest is not used again.
local function probe(t, c, opts, held)
  held.vm = held.vm or boot(t, opts, true)
  local modes = {}
  for i, o in ipairs(M.orders_without_change(#c.tasks, opts.depth or 2)) do
    modes[i] = { "-s", o.s }
    tried(held.vm, ("seed=%d case=%d schedule=%s"):format(c.seed, c.number, o.s))
  end
  local states = run_batch(held.vm, modes, c, setmetatable({ trace = true }, { __index = opts }))
  if #states < #modes then
    held.vm:kill()
    held.vm = nil
    return true
  end
  for _, st in ipairs(states) do
    if M.trace_toward(st.trace, opts.toward) then return true end
  end
  return false
end

-- A directed campaign (opts.toward) has two cursors that take turns. The change's cursor probes the cases ahead of
-- it, at most PROBES a turn, and runs whole the first whose tasks pass a point toward the change; the plain cursor
-- runs whole the next case in order, whatever it passes, so that a change whose effect no point shows (a lock taken
-- out, a function inlined into a caller in another file) is explored all the same, at half the undirected pace. A
-- turn of the change's cursor that finds none goes to the plain cursor. No case runs whole twice.
local PROBES = 30

-- The cursors from case first: eligible(n) is case n's (c, r) or nil (not this shard, not these pairs),
-- is_toward(n, c) whether it passes the change's points (nil for an undirected campaign), more() whether the budget
-- has room. Each next() is the number of the next case to run whole, with its c and r, or nil.
function M.cursors(first, eligible, is_toward, more)
  local cur = { plain = first, ahead = first, turn = 0, done = {}, probed = {}, toward = 0, away = 0 }
  function cur.next()
    cur.turn = cur.turn + 1
    local n, c, r
    if is_toward and cur.turn % 2 == 0 then
      local tries = 0
      while not n and tries < PROBES and more() do
        local a = cur.ahead
        cur.ahead = a + 1
        local ca, ra
        if not cur.done[a] and cur.probed[a] == nil then ca, ra = eligible(a) end
        if ca then
          tries = tries + 1
          cur.probed[a] = is_toward(a, ca) and true or false
          if cur.probed[a] then
            n, c, r = a, ca, ra
            cur.toward = cur.toward + 1
          else
            cur.away = cur.away + 1
          end
        end
      end
    end
    while not n and more() do
      local p = cur.plain
      cur.plain = p + 1
      if not cur.done[p] then
        c, r = eligible(p)
        if c then n = p end
      end
    end
    if n then cur.done[n] = true end
    return n, c, r
  end
  return cur
end

-- campaign(t, opts): cases opts.first .. of seed opts.seed (every opts.shard_n-th from opts.shard_k), until one is
-- refused, opts.cases have run, or opts.seconds have passed; returns the finding, or nil.
function M.campaign(t, opts)
  need_explorer(t)
  local seed = opts.seed or 1
  local t0 = os.time()
  local counters = { cases = 0, schedules = 0, skipped = 0 }
  local ps = opts.pagesize or 4096
  local shard_n, shard_k = opts.shard_n or 1, opts.shard_k or 1
  local function eligible(n)
    if n % shard_n ~= shard_k - 1 then return nil end
    local c, r = M.case_of(seed, n, ps)
    if c and (not opts.pairs or opts.pairs[c.ops[1] .. "+" .. c.ops[2]]) then return c, r end
  end
  local function more()
    return not ((opts.cases and counters.cases >= opts.cases) or (opts.seconds and os.time() - t0 >= opts.seconds))
  end
  local held <close> = setmetatable({}, { __close = function(h) if h.vm then h.vm:kill() end end })
  local cur = M.cursors(opts.first or 0, eligible, opts.toward and function(_, c) return probe(t, c, opts, held) end,
    more)
  local function toward_note()
    return opts.toward and ("; toward the change: of %d case(s) probed, %d passed its points"):format(
      cur.toward + cur.away, cur.toward) or ""
  end
  while true do
    local n, c, r = cur.next()
    if not n then break end
    counters.cases = counters.cases + 1
    local seqs, kind, text = sequential(t, c, opts)
    local f
    if not seqs and kind == "setup" then
      counters.skipped = counters.skipped + 1
    elseif not seqs then
      f = { kind = kind, why = text }
    else
      f = concurrent(t, c, r, seqs, opts, counters)
    end
    if f then
      f.seed, f.case, f.c, f.cases, f.schedules = seed, n, c, counters.cases, counters.schedules
      f.seconds, f.toward_note = os.time() - t0, toward_note()
      return finding(t, f, opts)
    end
  end
  t:note(("explore: nothing found in %d case(s) (%d could not be set up) and %d schedule(s), %d s%s"):format(
    counters.cases, counters.skipped, counters.schedules, os.time() - t0, toward_note()))
  return nil
end

-- replay(t, opts): case opts.case of seed opts.seed under schedule opts.schedule ("-": its sequential orders only).
function M.replay(t, opts)
  need_explorer(t)
  local c, r = M.case_of(opts.seed, opts.case, opts.pagesize or 4096)
  if not c then error("explore: case " .. opts.case .. " cannot be generated: " .. tostring(r), 2) end
  local t0 = os.time()
  local seqs, kind, text = sequential(t, c, opts)
  local f
  if not seqs then
    f = { kind = kind, why = text }
  elseif opts.schedule and opts.schedule ~= "-" then
    local vm <close> = boot(t, opts)
    tried(vm, ("seed=%d case=%d schedule=%s"):format(c.seed, c.number, opts.schedule))
    f = try(vm, c, { opts.schedule }, seqs, opts)
  end
  if not f then
    t:note("explore: replay found nothing: " .. xcase.describe(c))
    return nil
  end
  f.seed, f.case, f.c, f.cases, f.schedules, f.seconds = opts.seed, opts.case, c, 1, 1, os.time() - t0
  f.schedule = f.schedule or opts.schedule
  return finding(t, f, opts)
end

return M

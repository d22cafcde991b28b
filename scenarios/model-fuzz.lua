-- SPDX-License-Identifier: MIT
-- model-fuzz.lua: random mmap/fork/exit/touch/write/invalidate/munmap/host-write sequences checked page by page against a reference model.
--
-- The fixed scenarios pin one behaviour each; this one checks that they compose. A seeded
-- generator (runner/lua/lua/umlbed/model.lua) emits a sequence of steps, the guest runs them on a
-- fresh file, and after every step the page state of every mapping in every process is
-- compared with the model's prediction; "read" steps compare the data too. On a divergence
-- the scenario fails with the seed, the step and a shrunk list of steps that still diverges
-- (replayed on fresh files in the same vm), ready to paste into a regression scenario.
--
-- A fixed set of seeds runs by default. For a long run use
--   umlbed fuzz --seed S --steps N --runs K [-j 2]
-- which runs seeds S..S+K-1 with N steps each (p.seed, p.steps through --param, no timeout
-- unless --timeout is given); a divergence report names the seed to replay with
-- `umlbed fuzz --seed S --steps N`. The environment still works as a fallback:
-- UMLBED_FUZZ_SEED (one or more seeds) and UMLBED_FUZZ_STEPS.
--
-- No fault counts: the model predicts states and data, and written pages take UML's extra
-- dirty/young faults.
local model = require "umlbed.model"

local NPAGES = 8
local SEEDS = { 1, 2, 3, 4, 5, 6, 7, 8 }
local STEPS = tonumber(os.getenv("UMLBED_FUZZ_STEPS") or "") or 80
if os.getenv("UMLBED_FUZZ_SEED") then
  SEEDS = {}
  for w in os.getenv("UMLBED_FUZZ_SEED"):gmatch("%d+") do SEEDS[#SEEDS + 1] = tonumber(w) end
end

-- Each mapping gets its own address with a gap, so that no two mappings merge into one VMA
-- (the model relies on it: a merged VMA would share one anon_vma).
local BASE, GAP = 0x100000000, 0x1000000

-- Run steps on a fresh file; returns nil, or the index of the first diverging step and why.
local function execute(vm, steps, name)
  local ps = vm.pagesize
  local f = assert(vm:file(name, NPAGES * ps))
  local init = {}
  for i = 0, NPAGES - 1 do init[#init + 1] = string.char(48 + i % 10):rep(ps) end
  assert(f:write(0, table.concat(init)))
  local m = model.new { npages = NPAGES, pagesize = ps }
  local procs, maps = {}, {}
  local bad, why

  local function fail(i, msg)
    bad, why = i, msg
  end

  for i, s in ipairs(steps) do
    local ok, err = true, nil
    local op = s.op
    local mo = s.map and maps[s.proc] and maps[s.proc][s.map]
    if op == "spawn" then
      procs[s.id], err = vm:spawn()
      maps[s.id] = {}
      ok = procs[s.id] ~= nil
    elseif op == "fork" then
      local kids
      kids, err = procs[s.proc]:fork(1)
      ok = kids ~= nil
      if ok then
        procs[s.id], maps[s.id] = kids[1], {}
        for mid, x in pairs(maps[s.proc]) do maps[s.id][mid] = x:on(kids[1]) end
      end
    elseif op == "exit" then
      -- Wait until the agent has reaped the worker: an invalidation racing the teardown of its
      -- mm hits a known UML bug (exit-race.lua), which this scenario is not about.
      ok, err = procs[s.proc]:exit(0, { wait = true })
      procs[s.proc], maps[s.proc] = nil, nil
    elseif op == "mmap" then
      local x
      x, err = procs[s.proc]:mmap(f, { offset = s.first * ps, length = s.n * ps, mode = s.mode, prot = "rw",
                                      addr = BASE + s.id * GAP })
      ok = x ~= nil
      maps[s.proc][s.id] = x
    elseif op == "munmap" then
      ok, err = mo:munmap()
      maps[s.proc][s.map] = nil
    elseif op == "touch" then
      ok, err = mo:touch("r")
    elseif op == "write" then
      ok, err = mo:poke(s.page * ps, s.byte)
      if ok and mo.mode == "shared" then ok, err = mo:msync() end
    elseif op == "hostwrite" then
      ok, err = f:write(s.page * ps, s.byte:rep(ps))
    elseif op == "invalidate" then
      ok, err = vm:invalidate { file = f, offset = s.off, length = s.len, impl = s.impl, cache = s.cache }
    end
    if op == "read" then
      local data
      data, err = mo:peek(0, mo.length)
      if data then
        local got = {}
        for j = 0, mo.npages - 1 do got[#got + 1] = data:sub(j * ps + 1, j * ps + 1) end
        local _, check = m:apply(s)
        local good, msg = check(table.concat(got))
        if not good then fail(i, "data: " .. msg) end
      else
        ok = false
      end
    else
      m:apply(s)
    end
    if not ok then
      fail(i, "the step failed: " .. tostring(err))
    end
    if bad then break end
    -- Every mapping of every process, after every step.
    for _, x in ipairs(m:mappings()) do
      local got = maps[x[1]][x[2]]:pages()
      local want = model.states(x[3])
      if got ~= want then
        fail(i, ("P%d M%d pages %q, model %q"):format(x[1], x[2], tostring(got), want))
        break
      end
    end
    if bad then break end
  end
  -- End this run's processes, children first, so the next replay starts clean.
  local ids = {}
  for id in pairs(procs) do ids[#ids + 1] = id end
  table.sort(ids, function(a, b) return a > b end)
  for _, id in ipairs(ids) do procs[id]:exit(0, { wait = true }) end
  return bad, why
end

return {
  name = "model-based random steps agree with the reference model",
  matrix = { seed = SEEDS },
  -- A hang guard: 50 ms a step (five times what a step takes on the development machine);
  -- UMLBED_TIMEOUT_SCALE stretches it further. Shrinking fits itself into what is left.
  timeout = function(p) return 60 + (p.steps or STEPS) // 20 end,

  run = function(t, p)
    local vm = assert(t:vm())
    local o = { npages = NPAGES, pagesize = vm.pagesize }
    local steps = model.generate(p.seed, p.steps or STEPS, o)
    local runs = 0
    local before = t:remaining()
    local bad, why = execute(vm, steps, "fuzz-0")
    if not bad then
      t:eq(nil, bad, "seed " .. p.seed .. ": " .. #steps .. " steps agree")
      return
    end
    -- Shrink by replaying on fresh files; a replay diverging anywhere counts. A replay is no
    -- longer than the first run, so shrinking stops while three of those still fit before the
    -- timeout (one replay, the final one, a margin): a divergence is FAILED, never TIMEOUT,
    -- however fast the host. Without a timeout, the 150 replays are the only bound.
    local took = before and before - t:remaining()
    local small = model.shrink(steps, function(list)
      if took and t:remaining() < 3 * took then return false end
      runs = runs + 1
      return execute(vm, list, "fuzz-" .. runs) ~= nil
    end, o, 150)
    local lines = {}
    for i, s in ipairs(small) do lines[#lines + 1] = ("  %2d %s"):format(i, model.format(s)) end
    local sbad, swhy = execute(vm, small, "fuzz-final")
    t:fail(("seed %d step %d (%s): %s\nshrunk to %d steps in %d replays (diverges at step %s: %s):\n%s"):format(
      p.seed, bad, model.format(steps[bad]), why, #small, runs, tostring(sbad), tostring(swhy),
      table.concat(lines, "\n")))
  end,
}

-- SPDX-License-Identifier: MIT
-- explore.lua: the explorer on generated cases (umlbed.explore): a fixed list of seeds here, campaigns and replays through `umlbed explore`.
--
-- Each case is two or three tasks of mm operations on one file (invalidate, faults, GUP, fork, munmap, mprotect,
-- mremap, truncate, hole punch, exit, madvise, msync, writes, close, unlink, umount, the other node's write), with
-- its geometry generated: the file from one page to thousands, mappings across page-table boundaries, several VMAs
-- of the file in a process, private mappings with and without COW pages. Every sequential order of the tasks runs
-- in a fresh guest; then schedules of the kernel's automatic points (every acquire and release of mmap_lock,
-- i_mmap_rwsem, the page table lock, invalidate_lock and the folio lock, no point placed by hand) run the tasks at
-- once, and each end state must be one the sequential orders leave (docs/explore.md has the rule). The
-- expectation is the sequential orders', on the same kernel: no model of the kernel is written down here.
--
-- Parameters (--param, or umlbed explore's options): seed (the matrix: 1 here), cases (2 here, and then schedules
-- 30), first (the first case number), seconds (a time budget instead of a count), depth (PCT's d, 2), schedules
-- (per case; by default 30 for each initial order of the tasks), shard
-- (K/N: every N-th case from the K-th), pairs ("inval+read,truncate+write": those pairs only), toward
-- ("truncate_pagecache,zap_pte_range": kernel functions a change touched, whose points direct the campaign), case
-- and schedule (replay one case under one schedule), runs (how many times to replay it).
local explore = require "umlbed.explore"

local function num(v)
  if v == nil then return nil end
  local n = math.tointeger(tonumber(v))
  assert(n and n >= 0, "explore: a parameter must be a whole number, not " .. tostring(v))
  return n
end

return {
  name = "explore: generated mm operations under PCT schedules, checked against their sequential orders",
  matrix = { seed = { 1 } },
  timeout = 900,
  run = function(t, p)
    local opts = {
      seed = num(p.seed), cases = num(p.cases), first = num(p.first), seconds = num(p.seconds),
      depth = num(p.depth), schedules = num(p.schedules), variant = p.variant,
    }
    -- The suite's short exploration: two cases of the seed, 30 schedules each (a campaign sets its own).
    if not opts.seconds and not opts.cases then opts.cases, opts.schedules = 2, opts.schedules or 30 end
    if p.shard then
      local k, n = tostring(p.shard):match("^(%d+)/(%d+)$")
      k, n = tonumber(k), tonumber(n)
      assert(k and n and k >= 1 and k <= n, "explore: shard is K/N with 1 <= K <= N")
      opts.shard_k, opts.shard_n = k, n
    end
    if p.pairs then
      opts.pairs = {}
      for a, b in tostring(p.pairs):gmatch("([%w]+)%+([%w]+)") do
        opts.pairs[a .. "+" .. b], opts.pairs[b .. "+" .. a] = true, true
      end
    end
    if p.toward then
      opts.toward = {}
      for name in (tostring(p.toward) .. ","):gmatch("([^,]*),") do
        assert(name:match("^[%a_][%w_]*$"), ("explore: toward names kernel functions, not %q"):format(name))
        opts.toward[name] = true
      end
    end
    if p.case then
      opts.case, opts.schedule = num(p.case), p.schedule and tostring(p.schedule)
      opts.seed = opts.seed or 1
      -- Each replay runs the case afresh (new guests); every one of them must find it again.
      local runs, found = num(p.runs) or 1, 0
      for i = 1, runs do
        if explore.replay(t, opts) then found = found + 1 end
        t:note(("explore-replay %d/%d found %d"):format(i, runs, found))
      end
    else
      explore.campaign(t, opts)
    end
  end,
}

-- SPDX-License-Identifier: MIT
-- explore-exit.lua: every placement of one or two preemptions over the schedule points of a small schedule: an invalidation against a mapper's exit.
--
-- The schedule: process A maps a file and forks B (two VMAs of the file); a worker W invalidates the file while B
-- exits. A preemption parks one task at one point (CHESS's preemption, with the kernel's own scheduler: UML runs
-- one task at a time and switches only where a task sleeps):
--   W at imr_locked, imr_before_zap (hit 1 or 2), imr_after_zap (hit 1 or 2), or unmap_before_zap (hit 1 or 2)
--     for impl=unmap;
--   B at exit_in_unmap, exit_before_unlink or munmap_unlink.
-- Depth 1 (the default) places one preemption, on W or on B; depth 2 (--param depth=2) also every pair, one on W and
-- one on B, each of the two going first. Each interleaving runs in the same guest with fresh processes and a fresh
-- file: arm; start the first task and wait until it is parked at its point (an event), then the other, and wait for
-- it too if it has a point; settle (every other task is blocked); release the parked tasks in the same order, with a
-- settle after each. Then what the seed's specification says whatever the order: the invalidation returns true,
-- A's mapping has lost every page, B's exit ends, and no kernel report (the console scanner fails the run on any;
-- the guest's log is checked too). A point armed and never hit fails its interleaving, naming it.
-- A failing interleaving is named in the failure; --param only=LABEL runs that one alone.
local umlbed = require "umlbed"
local points = require "umlbed.points"

local NP = 4
local W_POINTS = {
  seed = { { "imr_locked", 1 }, { "imr_before_zap", 1 }, { "imr_before_zap", 2 }, { "imr_after_zap", 1 },
           { "imr_after_zap", 2 } },
  unmap = { { "unmap_before_zap", 1 }, { "unmap_before_zap", 2 } },
}
local B_POINTS = { { "exit_in_unmap", 1 }, { "exit_before_unlink", 1 }, { "munmap_unlink", 1 } }

-- The interleavings of depth 1 or 2, each { label =, w = point or nil, b = point or nil, first = "w" or "b" }.
local function interleavings(impl, depth)
  local list = {}
  local function label(w, b, first)
    local parts = {}
    if w then parts[#parts + 1] = ("W@%s:%d"):format(w[1], w[2]) end
    if b then parts[#parts + 1] = ("B@%s:%d"):format(b[1], b[2]) end
    return table.concat(parts, "+") .. (w and b and (" " .. first .. "-first") or "")
  end
  for _, w in ipairs(W_POINTS[impl]) do list[#list + 1] = { label = label(w, nil), w = w, first = "w" } end
  for _, b in ipairs(B_POINTS) do list[#list + 1] = { label = label(nil, b), b = b, first = "b" } end
  if depth >= 2 then
    for _, w in ipairs(W_POINTS[impl]) do
      for _, b in ipairs(B_POINTS) do
        for _, first in ipairs { "w", "b" } do
          list[#list + 1] = { label = label(w, b, first), w = w, b = b, first = first }
        end
      end
    end
  end
  return list
end

return {
  name = "exploration: every placement of preemptions over an invalidation and an exit",
  matrix = { impl = { "seed", "unmap" } },
  timeout = function(p) return (p.depth or 1) >= 2 and 300 or 120 end,
  run = function(t, p)
    local depth = p.depth or 1
    t:require(depth == 1 or depth == 2, "depth must be 1 or 2")
    local vm = assert(t:vm())
    local ps = vm.pagesize
    local ctl = assert(vm:spawn())   -- settles: a settle blocks its writer
    local ran = 0
    for round, il in ipairs(interleavings(p.impl, depth)) do
      if p.only == nil or p.only == il.label then
        ran = ran + 1
        local ok, why = pcall(function()
          local f = assert(vm:file("e" .. round, NP * ps))
          assert(f:write(0, ("e"):rep(NP * ps)))
          local A = assert(vm:spawn())
          local ma = assert(A:mmap(f, { mode = "shared", prot = "r" }))
          assert(ma:touch("r"))
          local B = assert(A:fork(1))[1]
          assert(ma:on(B):touch("r"))
          local W = assert(vm:spawn())
          local hw = il.w and assert(points.arm(vm, il.w[1], { hit = il.w[2], proc = W }))
          local hb = il.b and assert(points.arm(vm, il.b[1], { hit = il.b[2], proc = B }))
          -- The task that goes first starts, and is parked at its point before the other starts: the order of
          -- events is the interleaving's, never the host's.
          local inv
          local function start_w() inv = t:go(function() return W:invalidate { file = f, impl = p.impl } end) end
          local function start_b() assert(B:exit()) end
          local sw, sb = { start = start_w, point = hw }, { start = start_b, point = hb }
          assert(points.schedule(ctl, il.first == "w" and { sw, sb } or { sb, sw }))
          local r, err = inv:wait()
          assert(r, "the invalidation failed: " .. tostring(err))
          local pages = assert(ma:pages())
          assert(pages == ("-"):rep(NP), "A's mapping kept pages: " .. pages)
          local st = points.pstate(vm, B)
          assert(st == "gone" or st == "Z", "B's exit did not end: state " .. st)
          assert(A:exit())
          assert(W:exit())
          if hw then assert(hw:close()) end
          if hb then assert(hb:close()) end
        end)
        if not ok then
          t:fail(("interleaving %s: %s (replay: --param impl=%s --param only='%s')"):format(
            il.label, tostring(why), p.impl, il.label))
          return
        end
      end
    end
    t:require(ran > 0, "no interleaving named %s", tostring(p.only))
    t:eq({}, umlbed.findings(assert(vm:klog())), "the kernel log has no WARNING, lockdep report, BUG, Oops or panic")
    t:note(("%d interleavings at depth %d, impl=%s"):format(ran, depth, p.impl))
  end,
}

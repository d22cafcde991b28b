-- SPDX-License-Identifier: MIT
-- explore-invalidators.lua: two invalidations of one file interleaved at every pair of their schedule points.
--
-- The schedule: process A maps a file and forks B (two VMAs of the file, both faulted in); workers W1 and W2 each
-- invalidate the whole file. W1 parks at a point of its walk; W2 then starts and parks at a point of its own; once
-- every other task has settled, the two are released, W1 first or W2 first, with a settle after each. W1 runs the
-- seed's walk; W2 the seed's too (pair=seed-seed) or mainline's unmap_mapping_range() (pair=seed-unmap). The points:
--   seed:  imr_locked, imr_before_zap (hit 1 or 2), imr_after_zap (hit 1 or 2)
--   unmap: unmap_before_zap (hit 1 or 2)
-- A point parks one task at a time (its one slot in the kernel: arming it twice is EBUSY), so the two never share a
-- point's name: 16 pairs x 2 release orders = 32 interleavings for seed-seed, 5 x 2 x 2 = 20 for seed-unmap. Both walks take i_mmap_rwsem
-- for reading, so neither waits for the other: each parked walk has zapped what its point says, and the other walks
-- past it. What the seed's specification says whatever the interleaving: both calls return true, and both mappings
-- have lost every page (each call zaps every PTE of the range that existed when it began, and none refaulted). The
-- console scanner fails the run on any kernel report; the kernel log is checked at the end too. A failing
-- interleaving is named, and --param only=LABEL runs it alone.
local umlbed = require "umlbed"
local points = require "umlbed.points"

local NP = 4
local POINTS = {
  seed = { { "imr_locked", 1 }, { "imr_before_zap", 1 }, { "imr_before_zap", 2 }, { "imr_after_zap", 1 },
           { "imr_after_zap", 2 } },
  unmap = { { "unmap_before_zap", 1 }, { "unmap_before_zap", 2 } },
}

local function interleavings(impl2)
  local list = {}
  for _, a in ipairs(POINTS.seed) do
    for _, b in ipairs(POINTS[impl2]) do
      for _, order in ipairs(a[1] ~= b[1] and { { 1, 2 }, { 2, 1 } } or {}) do
        list[#list + 1] = {
          label = ("W1@%s:%d+W2@%s:%d release W%d-first"):format(a[1], a[2], b[1], b[2], order[1]),
          a = a, b = b, order = order,
        }
      end
    end
  end
  return list
end

return {
  name = "exploration: two invalidations of one file at every pair of schedule points",
  matrix = { pair = { "seed-seed", "seed-unmap" } },
  timeout = 120,
  run = function(t, p)
    local impl2 = p.pair == "seed-seed" and "seed" or "unmap"
    local vm = assert(t:vm())
    local ps = vm.pagesize
    local ctl = assert(vm:spawn())   -- settles: a settle blocks its writer
    local ran = 0
    for round, il in ipairs(interleavings(impl2)) do
      if p.only == nil or p.only == il.label then
        ran = ran + 1
        local ok, why = pcall(function()
          local f = assert(vm:file("i" .. round, NP * ps))
          assert(f:write(0, ("i"):rep(NP * ps)))
          local A = assert(vm:spawn())
          local ma = assert(A:mmap(f, { mode = "shared", prot = "r" }))
          assert(ma:touch("r"))
          local B = assert(A:fork(1))[1]
          local mb = ma:on(B)
          assert(mb:touch("r"))
          local W1, W2 = assert(vm:spawn()), assert(vm:spawn())
          local h1 <close> = assert(points.arm(vm, il.a[1], { hit = il.a[2], proc = W1 }))
          local h2 <close> = assert(points.arm(vm, il.b[1], { hit = il.b[2], proc = W2 }))
          local inv1, inv2
          local steps = {
            { point = h1, start = function()
              inv1 = t:go(function() return W1:invalidate { file = f, impl = "seed" } end)
            end },
            { point = h2, start = function()
              inv2 = t:go(function() return W2:invalidate { file = f, impl = impl2 } end)
            end },
          }
          assert(points.schedule(ctl, steps, il.order))
          for i, inv in ipairs { inv1, inv2 } do
            local r, err = inv:wait()
            assert(r, ("W%d's invalidation failed: %s"):format(i, tostring(err)))
          end
          local sa, sb = assert(ma:pages()), assert(mb:pages())
          assert(sa == ("-"):rep(NP) and sb == ("-"):rep(NP), ("a mapping kept pages: A %s, B %s"):format(sa, sb))
          for _, proc in ipairs { B, A, W1, W2 } do assert(proc:exit()) end
        end)
        if not ok then
          t:fail(("interleaving %s: %s (replay: --param pair=%s --param only='%s')"):format(
            il.label, tostring(why), p.pair, il.label))
          return
        end
      end
    end
    t:require(ran > 0, "no interleaving named %s", tostring(p.only))
    t:eq({}, umlbed.findings(assert(vm:klog())), "the kernel log has no WARNING, lockdep report, BUG, Oops or panic")
    t:note(("%d interleavings, pair=%s"):format(ran, p.pair))
  end,
}

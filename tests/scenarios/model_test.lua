-- SPDX-License-Identifier: MIT
-- model_test.lua: host-side tests of the fuzzer's reference model, generator and shrinker, a scenario that boots nothing (tests/scenarios/model.t runs it).
local here = debug.getinfo(1, "S").source:match("^@(.*/)") or "./"
local M = dofile(here .. "../../runner/lua/lua/umlbed/model.lua")


local PS = 4096
local function model(npages) return M.new { npages = npages, pagesize = PS } end
local function run(m, steps)
  for _, s in ipairs(steps) do
    assert(m:valid(s), "invalid step " .. M.format(s))
    m:apply(s)
  end
  return m
end
local function states(m, pid, mid) return M.states(m.procs[pid].maps[mid]) end

return {
  name = "the fuzzer's reference model, step generator and shrinker",
  run = function(t)
    -- A check that a condition holds, in the suite's one harness (t:eq(expected, seen, what)).
    local function ok(cond, what) t:eq(true, not not cond, what) end

  -- Rounding: begin down, length up, independently; zero length differs between impls.
  do
    local a, b = M.range("seed", PS - 1, 2, PS, 4)
    ok(a == 0 and b == 0, "4095 + 2 bytes is page 0 only")
    a, b = M.range("seed", 2 * PS - 1, PS + 2, PS, 4)
    ok(a == 1 and b == 2, "8191 + 4098 bytes is pages 1..2")
    ok(M.range("seed", 2 * PS, 0, PS, 4) == nil, "zero length is nothing for seed")
    a, b = M.range("unmap", 2 * PS, 0, PS, 4)
    ok(a == 2 and b == math.maxinteger, "zero length is to the end for unmap")
  end

  -- Shared mapping, touch, invalidate pages 1..2.
  do
    local m = run(model(4), {
      { op = "spawn", id = 1 },
      { op = "mmap", proc = 1, id = 2, mode = "shared", first = 0, n = 4 },
      { op = "touch", proc = 1, map = 2 },
      { op = "invalidate", off = PS, len = 2 * PS, impl = "seed", cache = "keep" },
    })
    t:eq("F--F", states(m, 1, 2), "seed zaps pages 1..2 of a shared mapping")
  end

  -- vm_pgoff: a mapping of file pages 2..5 loses user page 1 for file page 3.
  do
    local m = run(model(8), {
      { op = "spawn", id = 1 },
      { op = "mmap", proc = 1, id = 2, mode = "shared", first = 2, n = 4 },
      { op = "touch", proc = 1, map = 2 },
      { op = "invalidate", off = 3 * PS, len = PS, impl = "unmap", cache = "keep" },
    })
    t:eq("F-FF", states(m, 1, 2), "file page 3 is user page 1 of a mapping at file page 2")
  end

  -- Private COW: discarded by seed and unmap, kept by unmap-keep-cows.
  for _, c in ipairs { { "seed", "----", "1" }, { "unmap", "----", "1" }, { "unmap-keep-cows", "-A--", "x" } } do
    local m = run(model(4), {
      { op = "spawn", id = 1 },
      { op = "mmap", proc = 1, id = 2, mode = "private", first = 0, n = 4 },
      { op = "touch", proc = 1, map = 2 },
      { op = "write", proc = 1, map = 2, page = 1, byte = "x" },
      { op = "invalidate", off = 0, len = 4 * PS, impl = c[1], cache = "keep" },
    })
    t:eq(c[2], states(m, 1, 2), "private COW after " .. c[1])
    local want, check = m:apply { op = "read", proc = 1, map = 2 }
    ok(want[1][c[3]] and check("0" .. c[3] .. "23"), "page 1 reads " .. c[3] .. " after " .. c[1])
  end

  -- fork: shared and never-written private mappings are not copied, written private ones are.
  do
    local m = run(model(4), {
      { op = "spawn", id = 1 },
      { op = "mmap", proc = 1, id = 2, mode = "shared", first = 0, n = 4 },
      { op = "mmap", proc = 1, id = 3, mode = "private", first = 0, n = 4 },
      { op = "mmap", proc = 1, id = 4, mode = "private", first = 0, n = 4 },
      { op = "touch", proc = 1, map = 2 },
      { op = "touch", proc = 1, map = 3 },
      { op = "touch", proc = 1, map = 4 },
      { op = "write", proc = 1, map = 4, page = 2, byte = "w" },
      { op = "fork", proc = 1, id = 5 },
    })
    t:eq("----", states(m, 5, 2), "fork copies no PTEs of a shared mapping")
    t:eq("----", states(m, 5, 3), "fork copies no PTEs of a private mapping without anon_vma")
    t:eq("FFAF", states(m, 5, 4), "fork copies every PTE of a private mapping with anon_vma")
    m:apply { op = "write", proc = 5, map = 4, page = 2, byte = "c" }
    local _, check = m:apply { op = "read", proc = 1, map = 4 }
    ok(check("01w3"), "the child's write does not reach the parent's copy")
  end

  -- Host write: uncertain until read or dropped; a mapped page keeps the old data.
  do
    local m = run(model(4), {
      { op = "spawn", id = 1 },
      { op = "mmap", proc = 1, id = 2, mode = "shared", first = 0, n = 4 },
      { op = "touch", proc = 1, map = 2 },
      { op = "invalidate", off = 0, len = PS, impl = "seed", cache = "keep" },
      { op = "hostwrite", page = 0, byte = "N" },
      { op = "hostwrite", page = 1, byte = "N" },
    })
    local want = m:apply { op = "read", proc = 1, map = 2 }
    ok(want[0]["0"] and want[0]["N"], "an unmapped page after a host write may read old or new")
    ok(want[1]["1"] and not want[1]["N"], "a mapped page after a host write reads the old data")
    local _, check = m:apply { op = "read", proc = 1, map = 2 }
    ok(check("0123"), "an observed version is accepted")
    _, check = m:apply { op = "read", proc = 1, map = 2 }
    ok(not check("N123"), "and then it is the only one")
    m:apply { op = "invalidate", off = 0, len = 2 * PS, impl = "unmap", cache = "drop" }
    _, check = m:apply { op = "read", proc = 1, map = 2 }
    ok(check("NN23"), "cache=drop makes the range read the disk")
  end

  -- Zero length: seed nothing, unmap to the end, both for PTEs and for cache=drop.
  do
    local steps = {
      { op = "spawn", id = 1 },
      { op = "mmap", proc = 1, id = 2, mode = "shared", first = 0, n = 4 },
      { op = "touch", proc = 1, map = 2 },
    }
    local s = run(model(4), steps)
    s:apply { op = "invalidate", off = PS, len = 0, impl = "seed", cache = "drop" }
    t:eq("FFFF", states(s, 1, 2), "zero length seed does nothing")
    local u = run(model(4), steps)
    u:apply { op = "invalidate", off = PS, len = 0, impl = "unmap", cache = "drop" }
    t:eq("F---", states(u, 1, 2), "zero length unmap unmaps to the end")
  end

  -- Generator: deterministic, valid, varied.
  do
    local o = { npages = 8, pagesize = PS }
    local a, b, c = M.generate(7, 200, o), M.generate(7, 200, o), M.generate(8, 200, o)
    local fa, fb, fc = {}, {}, {}
    for i = 1, #a do fa[i], fb[i] = M.format(a[i]), M.format(b[i]) end
    for i = 1, #c do fc[i] = M.format(c[i]) end
    t:eq(200, #a, "200 steps generated")
    t:eq(table.concat(fb, "\n"), table.concat(fa, "\n"), "the same seed gives the same steps")
    ok(table.concat(fa, "\n") ~= table.concat(fc, "\n"), "another seed gives other steps")
    t:eq(#a, #M.normalize(a, o), "every generated step is valid in order")
    local seen = {}
    for _, s in ipairs(a) do seen[s.op] = true end
    for _, op in ipairs { "spawn", "fork", "mmap", "munmap", "touch", "read", "write", "hostwrite", "invalidate" } do
      ok(seen[op], "the generator emits " .. op)
    end
    ok(seen.exit, "the generator emits exit by default")
    seen = {}
    for _, s in ipairs(M.generate(7, 200, { npages = 8, pagesize = PS, exit = false })) do seen[s.op] = true end
    ok(not seen.exit, "no exit steps with exit=false")
  end

  -- Shrinker: a synthetic divergence (a private write followed by a seed invalidation that
  -- discards it) shrinks to the few steps that make it.
  do
    local o = { npages = 8, pagesize = PS }
    local function fails(steps)
      local m = M.new(o)
      for _, s in ipairs(steps) do
        m:apply(s)
        if s.op == "invalidate" and s.impl == "seed" then
          for _, x in ipairs(m:mappings()) do
            if x[3].mode == "private" and x[3].anon_vma then return true end
          end
        end
      end
      return false
    end
    local seed
    for sd = 1, 100 do
      if fails(M.generate(sd, 120, o)) then seed = sd break end
    end
    ok(seed ~= nil, "some seed shows the synthetic divergence")
    local small, runs = M.shrink(M.generate(seed, 120, o), fails, o)
    ok(fails(small), "the shrunk list still fails")
    -- At most spawn, (fork,) mmap, write, invalidate: the shrinker drops steps but does not
    -- rename processes, so a fork whose child does the work stays.
    ok(#small <= 5, ("it is short (%d steps, %d runs)"):format(#small, runs))
    for _, s in ipairs(small) do t:note(M.format(s)) end
  end
  end,
}

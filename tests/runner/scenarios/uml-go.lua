-- SPDX-License-Identifier: MIT
-- uml-go.lua: on UML, a worker's loop in a t:go task runs while PID 1 invalidates its file; vm.kernel and vm.variant.
return {
  name = "t:go: a sharer loops while PID 1 invalidates",
  run = function(t)
    local vm = assert(t:vm())
    t:eq(os.getenv("EXPECT_KERNEL"), vm.kernel, "vm.kernel is the kernel the runner was given")
    t:eq(os.getenv("EXPECT_VARIANT"), vm.variant, "vm.variant")
    local ps = vm.pagesize
    local f = assert(vm:file("go", 4 * ps))
    local w = assert(vm:spawn())
    local m = assert(w:mmap(f, { mode = "shared", prot = "r" }))
    assert(m:touch("r"))
    local ctl = assert(vm:loopctl())
    local loop = t:go(function() return m:loop("r", ctl) end)
    t:eq(0, select(2, assert(ctl:wait(1))), "the loop made its first pass")
    -- PID 1 works while the worker's loop is in flight; each invalidation zaps the loop's pages.
    for i = 1, 5 do assert(vm:invalidate { file = f, impl = i % 2 == 0 and "seed" or "unmap" }) end
    local s = assert(vm:stats())
    t:expect(not loop.done, "the loop was still running when PID 1's calls returned")
    local started = assert(ctl:stop())
    t:eq(1, started, "ctl:stop() counts the started loop")
    local n = loop:wait()
    t:expect(math.type(n) == "integer" and n >= 1, "the loop returned its iterations after the stop")
    t:eq(5, s.calls, "five invalidations ran meanwhile")
  end,
}

-- uml-go.lua: on UML, a worker's long loop in a t:go task runs while PID 1 invalidates its file; vm.kernel and vm.variant.
local LOOPS = tonumber(os.getenv("UML_GO_LOOPS") or "") or 100000000
return {
  name = "t:go: a sharer loops while PID 1 invalidates",
  run = function(t)
    local vm = assert(t:vm())
    t:eq(vm.kernel, os.getenv("EXPECT_KERNEL"), "vm.kernel is the kernel the runner was given")
    t:eq(vm.variant, os.getenv("EXPECT_VARIANT"), "vm.variant")
    local ps = vm.pagesize
    local f = assert(vm:file("go", 4 * ps))
    local w = assert(vm:spawn())
    local m = assert(w:mmap(f, { mode = "shared", prot = "r" }))
    assert(m:touch("r"))
    local started = os.clock()
    local loop = t:go(function() return m:loop("r", LOOPS) end)
    -- PID 1 works while the worker's loop is in flight; each invalidation zaps the loop's pages.
    for i = 1, 5 do assert(vm:invalidate { file = f, impl = i % 2 == 0 and "seed" or "unmap" }) end
    local s = assert(vm:stats())
    t:expect(not loop.done, "the loop was still running when PID 1's calls returned")
    t:eq(loop:wait(), LOOPS, "the loop finished all its iterations")
    t:eq(s.calls, 5, "five invalidations ran meanwhile")
    t:note(("loop of %d iterations took %.2f s of host CPU here"):format(LOOPS, os.clock() - started))
  end,
}

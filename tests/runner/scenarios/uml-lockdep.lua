-- SPDX-License-Identifier: MIT
-- uml-lockdep.lua: lockdep is still on after forks and an invalidation (no early report turned it off), so "no lockdep report" means something.
return {
  name = "lockdep stays on after fork and invalidation",
  run = function(t)
    local vm = assert(t:vm())
    local f = assert(vm:file("l", vm.pagesize))
    local w = assert(vm:spawn())
    local m = assert(w:mmap(f, { mode = "shared", prot = "r" }))
    assert(m:touch("r"))
    assert(w:fork(2))
    assert(vm:invalidate { file = f, impl = "seed" })
    local stats, err = vm:readfile("/proc/lockdep_stats")
    if not stats then t:skip("no /proc/lockdep_stats (kernel without lockdep): " .. err) end
    t:eq("1", stats:match("debug_locks:%s*(%d+)"), "debug_locks is still 1")
  end,
}

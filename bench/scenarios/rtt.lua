-- SPDX-License-Identifier: MIT
-- rtt.lua: the round trip of one protocol request, a one-page peek, timed p.n times (bench/rtt.sh).
--
-- Each request is timed on its own with t:remaining() (uv_hrtime: nanoseconds; reading it costs well under a
-- microsecond), so the note carries this run's min, median, 99th percentile and max, the mean, and how many
-- requests took over a millisecond (the tail: UML's clock ticks every 10 ms).
return {
  name = "rtt",
  matrix = { n = { 1000 } },
  run = function(t, p)
    local n = math.tointeger(p.n)
    assert(n and n > 0, "n must be a positive integer")
    local vm = assert(t:vm())
    local f = assert(vm:file("bench", vm.pagesize))
    local proc = assert(vm:spawn())
    local m = assert(proc:mmap(f, { mode = "shared", prot = "r" }))
    assert(m:peek(0, vm.pagesize))
    local us = {}
    local first = assert(t:remaining(), "rtt.lua needs a timeout (not --timeout 0)")
    for i = 1, n do
      local before = t:remaining()
      assert(m:peek(0, vm.pagesize))
      us[i] = (before - t:remaining()) * 1e6
    end
    local total = (first - t:remaining()) * 1e6
    table.sort(us)
    local med = n % 2 == 1 and us[(n + 1) // 2] or (us[n // 2] + us[n // 2 + 1]) / 2
    local slow = 0
    for i = 1, n do
      if us[i] > 1000 then slow = slow + 1 end
    end
    t:note(string.format("rtt n=%d min_us=%.1f median_us=%.1f p99_us=%.1f max_us=%.1f mean_us=%.1f over_1ms=%d",
      n, us[1], med, us[math.max(1, math.ceil(n * 0.99))], us[n], total / n, slow))
  end,
}

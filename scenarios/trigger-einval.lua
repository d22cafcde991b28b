-- SPDX-License-Identifier: MIT
-- trigger-einval.lua: malformed writes to the sysfs trigger fail with EINVAL and are counted.
--
-- The counters expected come from patch 0002's specification, not from a first run: every
-- write counts in calls, every refused one in failures, and only the one accepted seed line
-- calls a function (seed_calls); a refused write calls nothing and drops nothing.
local cases = {
  { "relative/path 0 4096",                     "a relative path" },
  { "/shared/f",                                "no offset or length" },
  { "/shared/f 0",                              "no length" },
  { "/shared/f zero 4096",                      "an offset that is not a number" },
  { "/shared/f 0 0x",                           "a bare 0x length" },
  { "/shared/f 0 99999999999999999999999",      "a length beyond 64 bits" },
  { "/shared/f 0 4096 bogus",                   "an unknown implementation" },
  { "/shared/f 0 4096 seed bogus",              "an unknown cache mode" },
  { "/shared/f 0 4096 seed keep extra",         "trailing garbage" },
  { "/shared 0 4096",                           "a directory" },
}

return {
  name = "malformed trigger writes get EINVAL",

  run = function(t)
    local vm = assert(t:vm())
    assert(vm:file("f", 4 * vm.pagesize))
    -- The counters are part of what this scenario checks: a read of them that fails is a failure, not an error.
    local before = t:require(vm:stats())

    for _, c in ipairs(cases) do
      local n, err, ename = vm:trigger(c[1])
      t:eq("EINVAL", ename, ("%s (%q): got %s"):format(c[2], c[1], tostring(n or err)))
    end

    -- A write of a page or more is refused before it is parsed.
    local _, ename
    _, _, ename = vm:trigger("/shared/f 0 4096 " .. (" "):rep(vm.pagesize))
    t:eq("EINVAL", ename, "a write of a whole page")
    local bad = #cases + 1

    -- A missing file is a lookup error, not EINVAL; a good line is accepted.
    _, _, ename = vm:trigger("/shared/missing 0 4096")
    t:eq("ENOENT", ename, "a path that does not exist")
    local line = "/shared/f 0 4096 seed keep\n"
    t:eq(#line, vm:trigger(line), "a well-formed line returns its length")

    local after = t:require(vm:stats())
    t:eq(bad + 1, after.failures - before.failures, "every refused write is counted in failures")
    t:eq(bad + 2, after.calls - before.calls, "every write is counted in calls")
    t:eq({ seed = 1, unmap = 0, keep_cows = 0, drops = 0 },
         { seed = after.seed_calls - before.seed_calls, unmap = after.unmap_calls - before.unmap_calls,
           keep_cows = after.unmap_keep_cows_calls - before.unmap_keep_cows_calls,
           drops = after.cache_drops - before.cache_drops }, "only the accepted line called a function")
  end,
}

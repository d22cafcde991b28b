-- SPDX-License-Identifier: MIT
-- fake-fail.lua: an expectation fails, the scenario goes on, the verdict is FAILED.
return {
  name = "fake fail",
  run = function(t)
    local vm = assert(t:vm())
    t:eq("b", vm:request(1, "echo", "a"), "deliberate mismatch")
    t:pages("FFAA", "F-A-", "deliberate page diff")
    t:expect(vm:request(1, "echo", "still", "running"), "the scenario continued")
    -- A sample in the JSON report, which fake.t reads: the scenario got here after its failed expectations.
    t:metric("went_on", 1, "")
  end,
}

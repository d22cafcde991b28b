-- SPDX-License-Identifier: MIT
-- uml-run-escape.lua: vm:run's timeout bounds a run whose child left the process group (setsid) holding the output.
return {
  name = "run: the timeout bounds a program with an escaped child",
  run = function(t)
    -- Under time-travel guest time stands still while any process can run: the deadline passes only once the
    -- program has set up and sleeps, on a host of any speed.
    local vm = assert(t:vm { time_travel = true })
    local tp = assert(os.getenv("UMLBED_TESTPROG"), "UMLBED_TESTPROG names tests/agent's testprog")
    assert(vm:install(tp))
    -- The program forks a child that calls setsid and keeps stdout, then sleeps for ever: the reviewer's
    -- `setsid sleep 20 & sleep 100` with a timeout of 2 s, without a shell.
    local st, out = assert(vm:run {
      path = "/bin/testprog", args = { "escape", "/shared/release-1", "hold" }, timeout = 2 })
    t:eq({ "timeout+escaped", "escapee\nleader\n" }, { st, out }, "the timeout ends the run; +escaped says why")
    -- Without a timeout the run ends once the program has exited and nothing is left in its group.
    st, out = assert(vm:run { path = "/bin/testprog", args = { "escape", "/shared/release-2" } })
    t:eq({ "exit:0+escaped", "escapee\nleader\n" }, { st, out },
      "a run without a timeout does not wait for the escapee")
    -- The escapees were not waited for: the guest's /proc still shows both (live processes, one line each).
    local ps, listing = assert(vm:run { path = "/bin/testprog", args = { "procs", "/shared/release-" } })
    t:eq("exit:0", ps, "the probe ran")
    t:eq(2, select(2, listing:gsub("\n", "")), "both escapees are still alive (" .. listing .. ")")
    assert(vm:file("release-1", 0))
    assert(vm:file("release-2", 0))
  end,
}

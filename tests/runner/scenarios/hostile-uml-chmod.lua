-- SPDX-License-Identifier: MIT
-- hostile-uml-chmod.lua: the guest changes /umlbed-agent's mode; the test checks that the host's agent kept its own (each run has a copy).
return {
  name = "hostile chmod of the agent",
  run = function(t)
    local vm = assert(t:vm())
    assert(vm:install(assert(os.getenv("HOSTILE_HELPER")), "/shared/helper"))
    local status, out = assert(vm:exec("/shared/helper", "chmod", "/umlbed-agent"))
    t:note(out)
    t:eq("exit:0", status, "the helper ran")
  end,
}

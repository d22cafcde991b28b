-- SPDX-License-Identifier: MIT
-- hostile-uml-plain.lua: one boot and one request, for the command-line checks (--mem, --kernel) that must fail before any run.
return {
  name = "hostile plain boot",
  run = function(t)
    local vm = assert(t:vm())
    t:eq("1", vm:request(1, "hello"), "the agent answers")
  end,
}

-- SPDX-License-Identifier: MIT
-- uml-panic.lua: the guest kernel panics (sysrq c) in the middle of a scenario: the verdict is CRASHED.
return {
  name = "guest panic is CRASHED",
  run = function(t)
    local vm = assert(t:vm())
    vm:writefile("/proc/sysrq-trigger", "c")
    t:fail("the scenario went on after the panic")
  end,
}

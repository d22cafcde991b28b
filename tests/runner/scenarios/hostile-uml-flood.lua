-- SPDX-License-Identifier: MIT
-- hostile-uml-flood.lua: more than 2 MiB of console text, then a real panic: CRASHED, and the excerpt shows the panic, not the flood.
return {
  name = "console flood then a crash",
  run = function(t)
    local vm = assert(t:vm())
    local line = "flood-line-" .. ("x"):rep(68) .. "\n"
    local chunk = line:rep(65536 // #line)
    local total = 0
    while total <= 2 * 1048576 + 65536 do
      total = total + assert(vm:writefile("/dev/console", chunk))
    end
    t:note("wrote " .. total .. " bytes to the console")
    vm:writefile("/proc/sysrq-trigger", "c")
    t:fail("the scenario went on after the crash")
  end,
}

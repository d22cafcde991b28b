-- SPDX-License-Identifier: MIT
-- hostile-uml-usertext.lua: user-space text on /dev/console that looks like a kernel report is not a finding (kernel lines carry a printk timestamp).
return {
  name = "hostile user-space console text",
  run = function(t)
    local vm = assert(t:vm())
    for _, s in ipairs { "BUG: not really\n", "Oops: no\n", "WARNING: CPU: 0 PID: 1 at user.c:1 not really\n",
                         "Kernel panic - not syncing: not really\n" } do
      t:eq(#s, vm:writefile("/dev/console", s), "written to /dev/console: " .. s:sub(1, -2))
    end
    t:eq("1", vm:request(1, "hello"), "the agent still answers")
  end,
}

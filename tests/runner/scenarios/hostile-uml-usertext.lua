-- hostile-uml-usertext.lua: user-space text on /dev/console that looks like a kernel report is not a finding (kernel lines carry a printk timestamp).
return {
  name = "hostile user-space console text",
  run = function(t)
    local vm = assert(t:vm())
    for _, s in ipairs { "BUG: not really\n", "Oops: no\n", "WARNING: CPU: 0 PID: 1 at user.c:1 not really\n",
                         "Kernel panic - not syncing: not really\n" } do
      t:eq(vm:writefile("/dev/console", s), #s, "written to /dev/console: " .. s:sub(1, -2))
    end
    t:eq(vm:request(1, "hello"), "1", "the agent still answers")
  end,
}

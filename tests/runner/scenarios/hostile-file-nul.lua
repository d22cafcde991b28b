-- SPDX-License-Identifier: MIT
-- hostile-file-nul.lua: a NUL byte in a shared file's name is misuse (it would name another file): an ERROR at file:line.
return {
  name = "hostile file name with NUL",
  run = function(t)
    local vm = assert(t:vm())
    vm:file("a\0b", 10) -- The line the ERROR names.
    t:fail("vm:file took a name with a NUL byte")
  end,
}

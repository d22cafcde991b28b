-- SPDX-License-Identifier: MIT
-- hostile-file-blank.lua: a blank in a shared file's name is misuse (the trigger could not name the file): an ERROR at file:line.
return {
  name = "hostile file name with a blank",
  run = function(t)
    local vm = assert(t:vm())
    vm:file("my data", 10) -- The line the ERROR names.
    t:fail("vm:file took a name with a blank")
  end,
}

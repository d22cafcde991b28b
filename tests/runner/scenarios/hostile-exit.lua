-- SPDX-License-Identifier: MIT
-- hostile-exit.lua: os.exit is not there in the sandbox: calling it is an ERROR at that line, and the runner goes on.
return {
  name = "hostile os.exit",
  run = function() os.exit(0) end,
}

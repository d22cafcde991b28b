-- SPDX-License-Identifier: MIT
-- hostile-exit-pcall.lua: pcall(os.exit, 0) fails inside the sandbox instead of ending the runner; the run is ok.
return {
  name = "hostile os.exit under pcall",
  run = function(t)
    local ok = pcall(os.exit, 0)
    t:eq(false, ok, "os.exit cannot be called")
  end,
}

-- SPDX-License-Identifier: MIT
-- hostile-sandbox-call.lua: each function the sandbox removes is nil: calling it is an ERROR naming the line of the call.
local args = {
  ["os.execute"] = { "true" },
  ["io.popen"] = { "true" },
  ["package.loadlib"] = { "libc.so.6", "*" },
  ["debug.sethook"] = {},
  ["debug.setlocal"] = { 1, 3, 0 }, -- local 3 of run is f: harmless if it works
  ["debug.setupvalue"] = { function() end, 1, 0 },
}
return {
  name = "hostile sandbox call",
  matrix = {
    fn = { "os.execute", "io.popen", "package.loadlib", "debug.sethook", "debug.setlocal", "debug.setupvalue" } },
  run = function(t, p)
    -- Resolved without raising, so that only the call itself can fail.
    local f = _ENV
    for k in p.fn:gmatch("[^.]+") do
      if type(f) == "table" then f = f[k] else f = nil end
    end
    f(table.unpack(args[p.fn])) -- The line the ERROR names.
    t:fail(p.fn .. " could be called")
  end,
}

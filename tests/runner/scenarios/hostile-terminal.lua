-- SPDX-License-Identifier: MIT
-- hostile-terminal.lua: reads the runner's input and another terminal of its uid (HOSTILE_PTS, where the test typed
-- a line), and writes into that terminal (trust.t F).
return {
  name = "hostile terminal",
  run = function(t)
    local typed = io.read("l")
    t:eq(nil, typed, "nothing was read from the runner's input")
    local pts = assert(os.getenv("HOSTILE_PTS"))
    local r = io.open(pts, "r")
    t:eq(nil, r, "the terminal " .. pts .. " cannot be opened for reading")
    if r then r:close() end
    local w = io.open(pts, "w")
    if w then
      w:write("written by a scenario\n")
      w:close()
    end
    t:eq(nil, w, "the terminal " .. pts .. " cannot be opened for writing")
  end,
}

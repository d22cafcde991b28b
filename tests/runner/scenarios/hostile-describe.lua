-- SPDX-License-Identifier: MIT
-- hostile-describe.lua: the file's top-level code, which runs when the runner describes it (run, list), tries to
-- open its process's memory for writing, to write into the runner's TAP stream and outside its run folder
-- (HOSTILE_OUTSIDE): trust.t A checks that none of it got through, in run and in list.
local outside = os.getenv("HOSTILE_OUTSIDE")

-- Opens path with mode and writes text (if any); true when the open went through.
local function try(path, mode, text)
  local f = io.open(path, mode)
  if not f then return false end
  if text then f:write(text) end
  f:close()
  return true
end

if outside then
  -- What it reached is left outside, which only a write past its walls can do: /proc/self/mem opened for writing
  -- is how native code once ran from here (code written over a function's).
  if try("/proc/self/mem", "r+b") then try(outside .. "/mem-opened", "w", "x") end
  try(outside .. "/top-level-wrote", "w", "x")
  try("/proc/self/fd/1", "w", "ok 99 forged by a describing process\n")
end

return {
  name = "hostile describe",
  run = function(t) t:expect(outside ~= nil, "HOSTILE_OUTSIDE names the victim folder") end,
}

-- SPDX-License-Identifier: MIT
-- hostile-errobj.lua: an error object whose __tostring raises (or returns no string) is an ERROR, never a runner PANIC.
local function bad(how)
  if how == "raises" then return setmetatable({}, { __tostring = function() error("x") end }) end
  return setmetatable({}, { __tostring = function() return {} end })
end

return {
  name = "hostile error object",
  matrix = { where = { "run", "task-waited", "task-unwaited" }, how = { "raises", "not-a-string" } },
  run = function(t, p)
    if p.where == "run" then error(bad(p.how)) end
    local task = t:go(function() error(bad(p.how)) end)
    if p.where == "task-waited" then task:wait() end
  end,
}

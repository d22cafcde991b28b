-- SPDX-License-Identifier: MIT
-- hostile-reaper.lua: a scenario that tries to order the runner's reaper and the runner itself to delete a folder and
-- kill a process group of its choosing (VICTIM_DIR, VICTIM_PGID), to reach the runner's descriptors and to write into
-- the runner's TAP stream.
local victim_dir, victim_pgid = os.getenv("VICTIM_DIR"), os.getenv("VICTIM_PGID")
local orders = "D+ " .. victim_dir .. "\nG+ " .. victim_pgid .. "\n"

-- Writes the orders to path; true when the write went through.
local function order(path)
  local f = io.open(path, "w")
  if not f then return false end
  local ok = f:write(orders) and f:flush()
  f:close()
  return ok and true or false
end

-- The runner's pid, or nil where the run process may not read its own /proc files (the sandbox's Landlock domain):
-- then walls.t runs this file again with --unsafe-lua, whose domain leaves them readable, to try the runner's.
local function ppid()
  local f = io.open("/proc/self/stat")
  if not f then return nil end
  local stat = f:read("a")
  f:close()
  return stat:match("^%d+ %b() %S+ (%d+)")
end

return {
  name = "hostile reaper orders",
  run = function(t)
    local reached = {}
    -- Where a run process once inherited the reaper's pipe. Its other descriptors are its own loop's.
    if order("/proc/self/fd/4") then reached[#reached + 1] = "own fd 4" end
    -- The runner's descriptors: opened only, but for the TAP stream (1), which gets a forged line.
    local runner = ppid()
    if not runner then
      t:note("its own /proc files are out of its reach: the runner's pid is unknown to it")
      runner = "0"
    end
    for fd = 0, 40 do
      local f = io.open("/proc/" .. runner .. "/fd/" .. fd, "r")
      if f then
        reached[#reached + 1] = "runner fd " .. fd
        f:close()
      end
    end
    local tap = io.open("/proc/" .. runner .. "/fd/1", "w")
    if tap then
      tap:write("ok 99 forged by a scenario\n")
      tap:close()
    end
    t:eq("", table.concat(reached, ", "), "descriptors of its runner's the scenario reached")
  end,
}

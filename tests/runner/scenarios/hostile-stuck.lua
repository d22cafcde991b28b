-- SPDX-License-Identifier: MIT
-- hostile-stuck.lua: code stuck where Lua cannot stop it (a C call, or a pcall loop that cannot yield): the runner still ends it at the deadline or on a signal.
local function ready(what)
  -- Tells the waiting test that the run is about to get stuck (an event, not a delay): the test's write to this
  -- run's own FIFO (UMLBED_READY_FIFO.how) returns once this open for reading happened.
  local fifo = os.getenv("UMLBED_READY_FIFO")
  if fifo then assert(io.open(fifo .. "." .. what, "r")):close() end
end

local function spin_catching()
  while true do pcall(function() while true do end end) end
end

local stuck = {
  -- A backtracking match that takes longer than any deadline, inside one C call.
  find = function() local s = ("a"):rep(2e5); return s:find(".-.-.-.-.-b") end,
  -- An open of a FIFO that nobody opens for writing.
  fifo = function() return io.open(assert(os.getenv("HOSTILE_FIFO")), "r") end,
  -- pcall loops where the deadline hook cannot yield: a sort comparator, a gsub callback, a required module.
  sort = function() table.sort({ 3, 2, 1 }, function() spin_catching() end) end,
  gsub = function() return ("x"):gsub("x", function() spin_catching() end) end,
  require = function() return require("hostile-stuck-mod") end,
}

return {
  name = "hostile stuck",
  matrix = { how = { "find", "fifo", "sort", "gsub", "require" } },
  run = function(t, p)
    ready(p.how)
    stuck[p.how]()
    t:fail("the stuck call returned")
  end,
}

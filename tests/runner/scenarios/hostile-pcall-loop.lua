-- SPDX-License-Identifier: MIT
-- hostile-pcall-loop.lua: a busy loop that catches the deadline's error (pcall, or an xpcall whose handler loops too) still ends at the timeout.
return {
  name = "hostile pcall loop",
  matrix = { how = { "pcall", "xpcall" } },
  run = function(_, p)
    local function spin() while true do end end
    if p.how == "pcall" then
      while true do pcall(spin) end
    end
    while true do xpcall(spin, spin) end
  end,
}

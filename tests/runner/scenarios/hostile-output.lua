-- SPDX-License-Identifier: MIT
-- hostile-output.lua: 300 print()s and 300 t:note()s of 1 MiB each (HOSTILE_FLOOD_MIB: another count): the report keeps 1 MiB of each and says so.
local count = tonumber(os.getenv("HOSTILE_FLOOD_MIB") or "300")
return {
  name = "hostile output flood",
  run = function(t)
    local mib = ("p"):rep(1 << 20)
    for _ = 1, count do
      print(mib)
      t:note(mib)
    end
  end,
}

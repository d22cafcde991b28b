-- SPDX-License-Identifier: MIT
-- hostile-shm.lua: writes more into /dev/shm than its Lua state may hold (--lua-memory), memory no cap would count
-- (trust.t G).
return {
  name = "hostile /dev/shm",
  run = function(t)
    local mib = assert(tonumber(os.getenv("HOSTILE_SHM_MIB")))
    local f = io.open("/dev/shm/umlbed-hostile-shm", "w")
    local written = 0
    if f then
      local chunk = ("x"):rep(1 << 20)
      for _ = 1, mib do
        if not f:write(chunk) then break end
        written = written + 1
      end
      f:close()
    end
    t:eq(0, written, "MiB written into /dev/shm")
  end,
}

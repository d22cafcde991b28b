-- SPDX-License-Identifier: MIT
-- uml-big-line.lua: requests and replies of several KiB up to 100 KB get through (lines of 4 KiB once left the UML serial line deaf).
return {
  name = "large requests get replies",
  run = function(t)
    local vm = assert(t:vm())
    assert(vm:file("big", 0))
    for _, n in ipairs { 1000, 3000, 4000, 4095, 4096, 4097, 5000, 20000, 100000 } do
      local data = ("x"):rep(n)
      t:eq(n, vm:writefile("/shared/big", data), "writefile of " .. n .. " bytes")
      t:eq(n, #assert(vm:readfile("/shared/big")), "readfile of " .. n .. " bytes")
    end
  end,
}

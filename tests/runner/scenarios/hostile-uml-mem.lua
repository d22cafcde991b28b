-- SPDX-License-Identifier: MIT
-- hostile-uml-mem.lua: t:vm{mem = "0"} (or a size that does not parse) returns nil, EINVAL; it is not a CRASHED boot.
return {
  name = "hostile vm memory size",
  run = function(t)
    for _, mem in ipairs { "0", "lots" } do
      local vm, err, ename = t:vm { mem = mem }
      t:eq(nil, vm, "mem=" .. mem .. " is refused")
      t:expect(tostring(err):find("EINVAL", 1, true) or ename == "EINVAL",
        "mem=" .. mem .. ": EINVAL (" .. tostring(err) .. ")")
    end
    t:expect(t:vm(), "a good boot after the refused ones")
  end,
}

-- SPDX-License-Identifier: MIT
-- api-vm-opts.lua: t:vm refuses a boot option it does not know, by argument, and boots with the ones it knows.
return {
  name = "api: vm options",
  run = function(t)
    local bad = {
      { "a misspelt option", { memory = "64M" }, "'memory'" },
      { "a key that is not a string", { "64M" }, "type number" },
      { "a known option beside an unknown one", { mem = "64M", timetravel = true }, "'timetravel'" },
    }
    for _, c in ipairs(bad) do
      local ok, err = pcall(t.vm, t, c[2])
      t:eq(false, ok, c[1] .. " is refused")
      err = tostring(err)
      t:expect(err:find("bad argument", 1, true) and err:find(c[3], 1, true),
        c[1] .. ": a bad-argument error naming " .. c[3] .. " (" .. err .. ")")
    end
    t:expect(t:vm { mem = "64M", cmdline = "quiet", time_travel = false }, "a boot with every known option")
  end,
}

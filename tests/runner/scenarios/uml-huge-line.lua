-- SPDX-License-Identifier: MIT
-- uml-huge-line.lua: requests of 1 MB and of almost the 4 MiB line limit, and 1 MiB replies, arrive whole (bytes were once lost past ~640 KiB).
local MIB = 1048576

-- The byte offset of the first 8-byte record that differs, or nil.
local function first_diff(a, b)
  for i = 1, math.max(#a, #b), 8 do
    if a:sub(i, i + 7) ~= b:sub(i, i + 7) then return i - 1 end
  end
  return nil
end

return {
  name = "MB-sized requests and replies arrive whole",
  run = function(t)
    local vm = assert(t:vm())
    assert(vm:file("huge", 0))
    -- The 4 MiB limit holds the whole line ("ID 1 writefile /shared/huge DATA\n"): stay just
    -- below it. readfile replies are at most 1 MiB (the agent's MAX).
    for _, n in ipairs { 1000000, 4190000 } do
      -- Numbered 8-byte records, so that a failure says where bytes went missing.
      local parts = {}
      for i = 0, n // 8 - 1 do parts[#parts + 1] = ("%08d"):format(i) end
      local data = table.concat(parts)
      t:eq(n, vm:writefile("/shared/huge", data), "writefile of " .. n .. " bytes")
      local fh = assert(io.open(vm.shared .. "/huge", "rb"))
      local host = fh:read("a")
      fh:close()
      t:eq(nil, first_diff(host, data), n .. " bytes reached the host file unchanged (first difference at)")
      local back = assert(vm:readfile("/shared/huge", MIB))
      t:eq(nil, first_diff(back, data:sub(1, MIB)), "a readfile reply of " .. #back .. " bytes is unchanged")
    end
  end,
}

-- uml-huge-line.lua: a request of 1 MB must arrive whole (known to lose bytes past ~640 KiB, docs/known-issues.md #2).
return {
  name = "a 1 MB request arrives whole",
  run = function(t)
    local vm = assert(t:vm())
    assert(vm:file("huge", 0))
    -- Numbered 8-byte records, so that a failure says where bytes went missing.
    local parts = {}
    for i = 0, 1000000 // 8 - 1 do parts[#parts + 1] = ("%08d"):format(i) end
    local data = table.concat(parts)
    t:eq(vm:writefile("/shared/huge", data), #data, "writefile of " .. #data .. " bytes")
    local back = assert(vm:readfile("/shared/huge"))
    local first
    for i = 1, #data, 8 do
      if back:sub(i, i + 7) ~= data:sub(i, i + 7) then
        first = i - 1
        break
      end
    end
    t:eq(first, nil, "the data arrived unchanged (first difference at this byte offset)")
  end,
}

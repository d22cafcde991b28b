-- SPDX-License-Identifier: MIT
-- api-mapping.lua: page and byte ranges near the integer limits are refused, never summed into a signed overflow (UB); m:faults adds the total.
--
-- The fake agent answers a request with its own arguments, so mapping the "path" 4096 gives a mapping at
-- address 4096 without a kernel. Every call below is refused by its argument check before any request.
local cases = {
  { "touch", "page count out of the mapping", function(m) return m:touch("r", 1, math.maxinteger) end },
  { "touch", "page index out of the mapping", function(m) return m:touch("r", math.mininteger) end },
  { "faults", "page count out of the mapping", function(m) return m:faults("r", 3, math.maxinteger) end },
  { "pages", "page index out of the mapping", function(m) return m:pages(math.mininteger, 1) end },
  { "peek", "length out of the mapping", function(m) return m:peek(1, math.maxinteger) end },
  { "peek", "length out of the mapping", function(m) return m:peek(4095, math.maxinteger - 4094) end },
  { "poke", "offset out of the mapping", function(m) return m:poke(math.maxinteger, "x") end },
}

return {
  name = "api: mapping ranges near the integer limits, faults total",
  run = function(t)
    local vm = assert(t:vm())
    local proc = assert(vm:spawn())
    local m = assert(proc:mmap("4096", { length = 4 * 4096 }))
    t:eq(4096, m.addr, "the fake agent's mmap reply is the address")
    -- The fake agent answers "faults ADDR LENGTH r" with ADDR LENGTH 7: minor, major and the time stand-ins.
    local minor, major, total, ns = m:faults("r")
    t:eq({ 4096, 4 * 4096, 5 * 4096, 7 }, { minor, major, total, ns },
         "m:faults returns minor, major, their total and the access time")
    -- "pagemap ADDR COUNT" comes back as two entries: page 1 (0-based) starts at the mapping's second page.
    t:eq({ 4096 + 4096, 2 }, m:pagemap(1, 2), "m:pagemap(1, 2) asks for 2 pages from page 1")
    for i, c in ipairs(cases) do
      local ok, err = pcall(c[3], m)
      t:expect(not ok and tostring(err):find(c[2], 1, true),
        ("case %d: m:%s: %s (%s)"):format(i, c[1], c[2], tostring(err)))
    end
  end,
}

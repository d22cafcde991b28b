-- SPDX-License-Identifier: MIT
-- uml-failwrite.lua: proc:failwrite refuses bad arguments by argument; without fault injection it fails before it writes.
return {
  name = "failwrite: arguments, and a write with or without fail-nth",
  run = function(t)
    local vm = assert(t:vm())
    local f = assert(vm:file("fw", 0))
    local p = assert(vm:spawn())
    local bad = {
      { "n 0 (no fault)", { 0, f, "x" }, "#1" },
      { "n above 2^32-1", { 1 << 32, f, "x" }, "#1" },
      { "n not a number", { "one", f, "x" }, "#1" },
      { "no path", { 1, nil, "x" }, "#2" },
      { "no data", { 1, f }, "#3" },
    }
    for _, c in ipairs(bad) do
      -- A method call, as a scenario writes it: the error numbers the arguments after self.
      local ok, err = pcall(function() return p:failwrite(table.unpack(c[2], 1, 3)) end)
      t:eq(false, ok, c[1] .. " is refused")
      err = tostring(err)
      t:expect(err:find("bad argument " .. c[3], 1, true), c[1] .. ": a bad-argument error of argument " .. c[3]
        .. " (" .. err .. ")")
    end
    local has = vm:readfile("/proc/self/fail-nth")
    if has then
      -- A kernel with fault injection (the judge variants): a fault the write does not reach is no failure.
      t:eq({ 3, false }, { p:failwrite(4000000000, f, "abc") }, "the count, and false for a fault not injected")
      t:eq("abc", assert(vm:readfile(f.path)), "the data was written")
      return
    end
    -- The full variant has no CONFIG_FAULT_INJECTION: the verb fails at fail-nth's open, with no fourth value.
    local w, err, ename, injected = p:failwrite(1, f, "abc")
    t:eq(nil, w, "no count without fail-nth")
    t:eq("ENOENT", ename, "fail-nth is not there: " .. tostring(err))
    t:expect(tostring(err):find("fail-nth", 1, true), "the error names fail-nth: " .. tostring(err))
    t:eq(nil, injected, "a failure before the write says nothing of a fault")
    t:eq("", assert(vm:readfile(f.path)), "nothing was written")
  end,
}

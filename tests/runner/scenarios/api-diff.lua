-- SPDX-License-Identifier: MIT
-- api-diff.lua: t:eq(expected, seen) shows what differs: the keys of tables (nested too), the first differing offset of long strings.
return {
  name = "api: diff",
  run = function(t)
    t:expect(t:eq({ 1, { 2, x = "y" } }, { 1, { 2, x = "y" } }, "equal nested tables"), "t:eq returns true when equal")
    t:eq({ "A", "B", "C", x = { y = 1 }, same = 0 }, { "A", "B", "D", x = { y = 2 }, same = 0, z = true }, "tables")
    t:eq({ list = { 1, 2 } }, { list = "not a table" }, "a table against a string")
    t:eq(("a"):rep(100) .. "X" .. ("b"):rep(50), ("a"):rep(100) .. "Y" .. ("b"):rep(50), "long strings")
    t:eq("one\ntwo", "one\nthree", "lines")
    t:eq(4, 5, "numbers")
    t:eq("F-A-", "FFAA", "short strings")
    t:pages("FFAA", "F-A-", "page states")
  end,
}

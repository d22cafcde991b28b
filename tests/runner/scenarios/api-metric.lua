-- SPDX-License-Identifier: MIT
-- api-metric.lua: t:metric records samples (the JSON report has them, labels in key order, numbers as numbers); misuse is refused by argument.
return {
  name = "api: metric",
  run = function(t)
    t:metric("invalidate_ns", 1234.5, "ns", { sharers = 16, impl = "seed", drop = false })
    t:metric("plain", 3, "")
    local bad = {
      { "an empty name", "", 1, "ns" },
      { "a name with '='", "a=b", 1, "ns" },
      { "a name with a tab", "a\tb", 1, "ns" },
      { "NaN", "x", 0 / 0, "ns" },
      { "infinity", "x", math.huge, "ns" },
      { "a unit with '#'", "x", 1, "n#s" },
      { "labels that are not a table", "x", 1, "ns", "impl=seed" },
      { "a label key that is not a string", "x", 1, "ns", { "seed" } },
      { "a label value that is a table", "x", 1, "ns", { impl = {} } },
      { "a label value with a newline", "x", 1, "ns", { impl = "a\nb" } },
    }
    for _, c in ipairs(bad) do
      local ok, err = pcall(t.metric, t, table.unpack(c, 2))
      t:eq(false, ok, c[1] .. " is refused")
      t:expect(tostring(err):find("bad argument", 1, true), c[1] .. ": a bad-argument error (" .. tostring(err) .. ")")
    end
  end,
}

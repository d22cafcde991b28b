-- SPDX-License-Identifier: MIT
-- fake-param.lua: the matrix as --param and umlbed fuzz change it; timeout may be a function of the parameters.
return {
  name = "fake param",
  matrix = { n = { 1, 2 } },
  timeout = function(p) return 30 + (p.steps or 0) end,
  run = function(t, p)
    assert(t:vm())
    t:eq("integer", math.type(p.n or p.seed), "numbers are converted")
    if p.word then t:eq("abc", p.word, "strings stay strings") end
    if p.steps then t:eq(7, p.steps, "steps from umlbed fuzz") end
    t:note("p.n=" .. tostring(p.n) .. " p.seed=" .. tostring(p.seed))
  end,
}

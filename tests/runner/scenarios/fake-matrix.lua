-- SPDX-License-Identifier: MIT
-- fake-matrix.lua: a 2 x 2 matrix runs four times, one TAP line each, with its parameters.
return {
  name = "fake matrix",
  matrix = { mode = { "shared", "private" }, sharers = { 1, 3 } },
  run = function(t, p)
    t:expect(p.mode == "shared" or p.mode == "private", "mode is a matrix value")
    t:eq(p, t.params, "t.params is p")
    if p.sharers == 3 and p.mode == "private" then t:skip("not meaningful here") end
  end,
}

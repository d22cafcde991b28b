-- SPDX-License-Identifier: MIT
-- hostile-matrix32.lua: 32 keys x 2 values (2^32 combinations) is an error naming the file, not an empty plan.
local m = {}
for i = 1, 32 do m[("k%02d"):format(i)] = { 1, 2 } end
return { name = "hostile matrix 32", matrix = m, run = function() end }

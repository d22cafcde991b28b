-- SPDX-License-Identifier: MIT
-- hostile-matrix31.lua: 31 keys x 2 values (2^31 combinations) is an error naming the file, not an empty plan.
local m = {}
for i = 1, 31 do m[("k%02d"):format(i)] = { 1, 2 } end
return { name = "hostile matrix 31", matrix = m, run = function() end }

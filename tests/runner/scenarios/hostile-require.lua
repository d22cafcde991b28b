-- SPDX-License-Identifier: MIT
-- hostile-require.lua: require cannot load a C module (the C searchers are loadlib in disguise); the test checks the module's constructor never ran.
return {
  name = "hostile require of a C module",
  run = function(t)
    pcall(function() package.cpath = os.getenv("HOSTILE_CPATH") end)
    local ok = pcall(require, "hostilemod")
    t:eq(false, ok, "require of a C module fails")
  end,
}

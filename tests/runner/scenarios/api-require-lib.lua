-- SPDX-License-Identifier: MIT
-- api-require-lib.lua: require "lib.x" loads a Lua helper from the scenario's own folder, never a precompiled chunk.
--
-- tests/runner/api.t copies this file into a folder with lib/answer.lua and lib/bin.lua (bytecode).
local answer = require "lib.answer"

return {
  name = "api: require",
  run = function(t)
    t:eq(42, answer.value, "lib.answer comes from the scenario's folder")
    t:eq(answer, require "lib.answer", "a second require returns the same module")
    local ok, err = pcall(require, "lib.bin")
    t:eq(false, ok, "a precompiled chunk cannot be required")
    t:expect(tostring(err):find("binary chunk", 1, true), "the error says why: " .. tostring(err))
    t:eq(nil, rawget(_G, "BIN_RAN"), "the bytecode never ran (it would set this global)")
  end,
}

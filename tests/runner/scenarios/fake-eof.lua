-- SPDX-License-Identifier: MIT
-- fake-eof.lua: the guest dies without a word: CRASHED (unexpected EOF).
return {
  name = "fake eof",
  run = function(t)
    local vm = assert(t:vm())
    vm:request(1, "die")
  end,
}

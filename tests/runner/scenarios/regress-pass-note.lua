-- SPDX-License-Identifier: MIT
-- regress-pass-note.lua: a passing run's t:note text is printed in the TAP output (notes were once printed only for failures).
return {
  name = "regress note of a passing run",
  run = function(t)
    local vm = assert(t:vm())
    t:note("regress passing note one\nregress passing note two")
    t:eq("hi", vm:request(1, "echo", "hi"), "the fake echoes")
  end,
}

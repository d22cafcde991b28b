-- SPDX-License-Identifier: MIT
-- hostile-request.lua: a newline in vm:request's verb or fields would smuggle a second request: misuse, an ERROR at file:line.
return {
  name = "hostile request",
  matrix = { part = { "verb", "field" } },
  run = function(t, p)
    local vm = assert(t:vm())
    if p.part == "verb" then
      vm:request(1, "hello\n999 1 hello") -- The line the ERROR names.
    else
      vm:request(1, "echo", "x\n999 1 die") -- The line the ERROR names.
    end
    t:fail("the request was sent")
  end,
}

-- SPDX-License-Identifier: MIT
-- fake-go-skip.lua: t:skip() inside a task is an error, re-raised where the task is waited for.
return {
  name = "fake go skip",
  run = function(t)
    assert(t:vm())
    t:go(function() t:skip("not from a task") end):wait()
    t:fail("the scenario went on after the re-raised error")
  end,
}

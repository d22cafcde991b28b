-- SPDX-License-Identifier: MIT
-- api-require.lua: t:require and t:assert_* end the scenario FAILED at once, from the run function or a t:go task.
--
-- One matrix entry per way to stop. Each records its failure with file:line and then would call t:fail: a
-- "went on" failure in the report means the scenario did not stop.
local stop = {
  require = function(t, vm) t:require(vm:request(1, "echo", "a") == "b", "echo said %s, not %s", "a", "b") end,
  -- What a failed call returns (nil, message, name); a message with a '%' is shown as it is.
  require_err = function(t) t:require(nil, "EINVAL: 100% bad", "EINVAL") end,
  assert_eq = function(t, vm) t:assert_eq({ 1, 2 }, { 1, vm:request(1, "echo", "3") }, "assert_eq") end,
  assert_true = function(t) t:assert_true(false, "assert_true") end,
  assert_pages = function(t) t:assert_pages("FF", "F-", "assert_pages") end,
}

return {
  name = "api: stop",
  matrix = { how = { "require", "require_err", "assert_eq", "assert_true", "assert_pages", "go" } },
  run = function(t, p)
    local vm = assert(t:vm())
    t:eq(true, t:require(true, "not shown"), "a requirement that holds returns its value")
    if p.how == "go" then
      local task = t:go(function()
        assert(vm:request(1, "echo", "task"))
        t:assert_eq(1, 2, "assert_eq in a task")
        t:fail("the task went on")
      end)
      task:wait()
      t:fail("the run function went on after the task's assert_eq")
      return
    end
    stop[p.how](t, vm)
    t:fail("the run function went on after " .. p.how)
  end,
}

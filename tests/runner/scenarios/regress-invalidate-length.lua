-- SPDX-License-Identifier: MIT
-- regress-invalidate-length.lua: vm:invalidate{file = PATH} without length= is an error naming length= (it once invalidated zero bytes).
return {
  name = "regress invalidate path without length",
  run = function(t)
    local vm = assert(t:vm())
    -- With a path the runner cannot know the file's size: no length must not become a zero length at offset 0.
    local ok, err = pcall(vm.invalidate, vm, { file = "/shared/regress" })
    t:expect(not ok, "vm:invalidate{file = PATH} without length= raises")
    t:expect(not ok and tostring(err):find("length=", 1, true), "the error names length=: " .. tostring(err))
    -- The same call with length= goes to the guest (the fake answers it), so the error above is about length= alone.
    t:expect(vm:invalidate({ file = "/shared/regress", length = 4096 }), "with length= the trigger is written")
  end,
}

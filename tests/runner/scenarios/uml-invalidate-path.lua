-- SPDX-License-Identifier: MIT
-- uml-invalidate-path.lua: vm:invalidate with a path needs a length (once it silently meant zero length, the one case where seed and mainline differ).
return {
  name = "invalidate by path needs a length",
  run = function(t)
    local vm = assert(t:vm())
    local f = assert(vm:file("p", 2 * vm.pagesize))
    t:expect(vm:invalidate { file = f }, "a file object defaults to the rest of the file")
    t:expect(vm:invalidate { file = f.path, length = 2 * vm.pagesize }, "a path with a length")
    local ok, err = pcall(vm.invalidate, vm, { file = f.path })
    t:eq(false, ok, "a path without a length is refused")
    t:expect(tostring(err):find("length= is required", 1, true), "the error says why: " .. tostring(err))
  end,
}

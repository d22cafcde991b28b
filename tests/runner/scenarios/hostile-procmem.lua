-- SPDX-License-Identifier: MIT
-- hostile-procmem.lua: sandboxed Lua tries to write code over its own functions through /proc/self/mem, and to write
-- files outside TMPDIR (HOSTILE_OUTSIDE): the run process's Landlock domain refuses both (walls.t B).
local outside = os.getenv("HOSTILE_OUTSIDE") or error("HOSTILE_OUTSIDE is not set (walls.t sets it)")

-- Opens path with mode; true when the open went through (the file is closed at once).
local function opens(path, mode)
  local f = io.open(path, mode)
  if f then f:close() end
  return f ~= nil
end

return {
  name = "sandboxed Lua reaches neither its own /proc files nor files outside TMPDIR",
  run = function(t)
    -- The controls: a file of the run's own (os.tmpname, beneath TMPDIR) is written and read back, and a host file
    -- outside TMPDIR can be read.
    local tmp = os.tmpname()
    local f = assert(io.open(tmp, "w"))
    assert(f:write("inside"))
    f:close()
    f = assert(io.open(tmp))
    t:eq("inside", f:read("a"), "the control: a file beneath TMPDIR is written and read back")
    f:close()
    t:expect(opens("/etc/passwd", "r"), "the control: a host file outside TMPDIR can be read")
    -- The L4 attack wrote machine code over os.clock through /proc/self/mem; every name of that file is refused.
    for _, path in ipairs { "/proc/self/mem", "/proc/thread-self/mem", "/dev/fd/../mem", "/proc/self/task/../mem" } do
      t:expect(not opens(path, "r+b"), path .. " cannot be opened for writing")
    end
    t:expect(not opens("/proc/self/environ", "r"), "/proc/self/environ cannot be read")
    t:expect(not opens(outside .. "/lua-wrote", "w"), "a file outside TMPDIR cannot be created")
    t:expect(not opens(outside .. "/test-own", "a"), "a file outside TMPDIR cannot be appended to")
  end,
}

-- SPDX-License-Identifier: MIT
-- hostile-kmod.lua: a guest root loads a module that makes host system calls from guest kernel context (kmod-walls.t).
--
-- The module (tests/runner/kmod/umlbed_hostile.c) lists each action's return value in its parameter "results".
-- Its first action writes a file in the run's shared folder: that one must work, or the others prove nothing.
-- Every other action must come back refused (negative), but those named contained-*, which may work in what is the
-- kernel's alone (its private /dev/shm); kmod-walls.t then looks on the host for what any of them would have left.
local env = {}
for _, k in ipairs {
  "HOSTILE_KO", "HOSTILE_OUT", "HOSTILE_VICTIM", "HOSTILE_SOCK", "HOSTILE_KERNEL", "HOSTILE_META", "HOSTILE_PEER",
  "HOSTILE_PTS", "HOSTILE_SQUAT",
} do
  env[k] = os.getenv(k) or error(k .. " is not set (kmod-walls.t sets it)")
end

return {
  name = "a hostile guest module reaches nothing on the host",
  run = function(t)
    local vm = assert(t:vm())
    local src = assert(io.open(env.HOSTILE_KO, "rb"))
    local dst = assert(io.open(vm.shared .. "/umlbed_hostile.ko", "wb"))
    assert(dst:write(src:read("a")))
    src:close()
    dst:close()
    -- The wall opens the guest's root as descriptor 7 (runner/core/vm.c); an unwalled kernel reaches it by path.
    local params = ("out=%s victim=%s sock=%s kernel=%s inside=%s/inside"):format(
      env.HOSTILE_OUT, env.HOSTILE_VICTIM, env.HOSTILE_SOCK, env.HOSTILE_KERNEL, vm.shared)
      .. " inside_alt=/proc/self/fd/7/shared/inside"
      .. (" meta=%s peer=%s pts=%s squat=%s"):format(env.HOSTILE_META, env.HOSTILE_PEER, env.HOSTILE_PTS,
        env.HOSTILE_SQUAT)
      -- The kernel's uml_dir, the instance's folder's uml/ (the wall opens that folder as descriptor 8).
      .. " umldir=/proc/self/fd/8/uml"
    assert(vm:insmod("/shared/umlbed_hostile.ko", params))
    -- While the instance lives (and holds what it bound), the test looks at the host: between these two opens.
    local fifo = os.getenv("UMLBED_READY_FIFO")
    if fifo then
      assert(io.open(fifo, "r")):close()
      assert(io.open(fifo .. ".checked", "r")):close()
    end
    local text = assert(vm:readfile("/sys/module/umlbed_hostile/parameters/results"))
    local n = 0
    for name, value in text:gmatch("(%S+) (%-?%d+)\n") do
      n = n + 1
      print(name .. " " .. value)
      if name == "control-inside" then
        t:eq("0", value, "the control: the module writes a file in the run folder")
      elseif name:match("^contained") then
        -- It lands in what the wall gave the kernel alone; kmod-walls.t looks for it on the host.
        t:note(name .. " " .. value .. ": contained, if the host has nothing of it")
      else
        t:expect(tonumber(value) < 0, name .. " is refused (" .. value .. ")")
      end
    end
    t:expect(n >= 21, "the module reported the control and at least 20 actions (" .. n .. ")")
    local f = io.open(vm.shared .. "/inside", "rb")
    t:eq("inside\n", f and f:read("a"), "the control's file is in the run folder, as the module wrote it")
    if f then f:close() end
  end,
}

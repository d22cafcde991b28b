-- SPDX-License-Identifier: MIT
-- uml-install.lua: vm:install puts a host program into the guest read-only; vm:run and proc:run give it a folder, environment, user and timeout.
return {
  name = "install and run with options",
  run = function(t)
    local vm = assert(t:vm())
    local tp = assert(os.getenv("UMLBED_TESTPROG"), "UMLBED_TESTPROG names tests/agent's testprog")
    t:eq("/bin/testprog", vm:install(tp), "install: /bin/NAME by default")
    t:eq("/opt/t/prog", vm:install(tp, "/opt/t/prog"), "install: a path of one's own, folders made")
    local st, out = assert(vm:run { path = "/bin/testprog", args = { "echo", "a b" } })
    t:eq({ "exit:0", "a b\nstderr\n" }, { st, out }, "run without options")
    st, out = assert(vm:run { path = "/opt/t/prog", args = { "pwd" }, cwd = "/shared" })
    t:eq({ "exit:0", "/shared\n" }, { st, out }, "run: cwd")
    st, out = assert(vm:run { path = "/bin/testprog", args = { "getenv", "X" }, env = { X = "1 2", Y = "3" } })
    t:eq({ "exit:0", "1 2\n" }, { st, out }, "run: env")
    local w = assert(vm:spawn())
    st, out = assert(w:run { path = "/bin/testprog", args = { "ids" }, uid = 65534 })
    t:eq({ "exit:0", "65534 65534\n" }, { st, out }, "proc:run: uid")
    st = assert(vm:run { path = "/bin/testprog", args = { "waitfile", "/shared/never" }, timeout = 0.2 })
    t:eq("timeout", st, "run: the timeout kills the program")
    -- The installed program is mode 0555: a user other than root cannot change it.
    local nobody = assert(vm:spawn())
    assert(nobody:setuid(65534))
    local enc = require("umlbed").encode
    local _, _, ename = vm:request(nobody.pid, "writefile", enc("/bin/testprog"), enc("x"))
    t:eq("EACCES", ename, "an installed program is not writable (mode 0555)")
    -- Misuse is an argument error, before anything is sent.
    for _, c in ipairs({
      { "a relative guest path", function() return vm:install(tp, "bin/x") end },
      { "a guest path with ..", function() return vm:install(tp, "/bin/../x") end },
      { "run without path", function() return vm:run {} end },
      { "a uid of -1", function() return vm:run { path = "/bin/testprog", uid = -1 } end },
      { "a timeout of 0", function() return vm:run { path = "/bin/testprog", timeout = 0 } end },
      { "an env name with =", function() return vm:run { path = "/bin/testprog", env = { ["A=B"] = "1" } } end },
    }) do
      local ok, err = pcall(c[2])
      t:eq(false, ok, c[1] .. " is refused")
      t:expect(tostring(err):find("bad argument", 1, true), c[1] .. ": an argument error (" .. tostring(err) .. ")")
    end
    -- The root is the guest's too: a symbolic link it made there, to a host folder, is not followed.
    local host_dir = assert(os.getenv("UMLBED_INSTALL_VICTIM"), "UMLBED_INSTALL_VICTIM names a host folder")
    t:eq("exit:0", (vm:run { path = "/bin/testprog", args = { "symlink", host_dir, "/evil" } }),
      "the guest links /evil")
    local ok, lerr = vm:install(tp, "/evil/prog")
    t:eq(nil, ok, "install through the guest's symbolic link fails (" .. tostring(lerr) .. ")")
    t:eq(nil, io.open(host_dir .. "/prog"), "and writes nothing in the host folder it points to")
    local r, err = vm:install("/nonexistent/prog")
    t:eq(nil, r, "install of a missing host file fails (" .. tostring(err) .. ")")
  end,
}

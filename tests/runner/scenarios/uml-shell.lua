-- SPDX-License-Identifier: MIT
-- uml-shell.lua: vm:shell stages a static busybox as /bin/sh with its applets, so scripts and popen() work in the guest.
return {
  name = "a staged shell runs scripts",
  run = function(t)
    local vm = assert(t:vm())
    -- Before staging, the guest has no shell at all.
    local st = vm:run { path = "/bin/sh", args = { "-c", "true" } }
    t:expect(st ~= "exit:0", "no /bin/sh before vm:shell (" .. tostring(st) .. ")")
    t:eq("/bin/sh", assert(vm:shell()), "vm:shell returns the shell's path")
    -- A script with a pipe, applets through PATH, the environment and the working folder.
    local out
    st, out = assert(vm:run { path = "/bin/sh", args = { "-c", 'echo "$X" | tr a-z A-Z; pwd; ls /bin/cat' },
                              env = { X = "abc" }, cwd = "/shared" })
    t:eq({ "exit:0", "ABC\n/shared\n/bin/cat\n" }, { st, out }, "sh -c with a pipe, env and cwd")
    st = assert(vm:run { path = "/bin/sh", args = { "-c", "exit 4" } })
    t:eq("exit:4", st, "a script's exit status comes back (kselftest's skip code)")
    -- A script file in the shared folder, as upstream wrappers are run.
    local f = io.open(vm.shared .. "/script.sh", "w")
    f:write("#!/bin/sh\nset -e\nfor i in 1 2 3; do printf %s $i; done\necho\n")
    f:close()
    st, out = assert(vm:run { path = "/bin/sh", args = { "/shared/script.sh" }, uid = 65534 })
    t:eq({ "exit:0", "123\n" }, { st, out }, "a script file, run as nobody")
    -- Staging twice is harmless: the applets' links are there already.
    t:eq("/bin/sh", assert(vm:shell()), "vm:shell twice")
    -- A busybox that is not static, or missing, is a runtime error naming the package, not a guest failure.
    local refused = { { "/bin/true", "a dynamically linked busybox" }, { "/nonexistent/busybox", "a missing one" } }
    for _, c in ipairs(refused) do
      local ok, err = vm:shell(c[1])
      t:eq(nil, ok, c[2] .. " is refused")
      t:expect(tostring(err):find("busybox-static", 1, true),
        c[2] .. ": the error names busybox-static: " .. tostring(err))
    end
  end,
}

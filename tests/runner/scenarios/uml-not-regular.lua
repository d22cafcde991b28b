-- SPDX-License-Identifier: MIT
-- uml-not-regular.lua: host-side file I/O never blocks on what the guest or the caller put in a file's place.
return {
  name = "host file I/O refuses what is not a regular file",
  run = function(t)
    local vm = assert(t:vm())
    local f = assert(vm:file("data", vm.pagesize))
    local sh = assert(vm:shell())
    local function guest(cmd, what)
      local st, out = vm:run { path = sh, args = { "-c", cmd } }
      t:eq("exit:0", st, what .. " (" .. tostring(out) .. ")")
    end
    local function refused(what, r, err)
      t:eq(nil, r, what .. " fails")
      t:expect(tostring(err):find("not a regular file", 1, true), what .. ": says why (" .. tostring(err) .. ")")
    end
    -- A FIFO: an open for reading or writing would wait for a peer that never comes.
    guest("rm /shared/data && mkfifo /shared/data", "the guest puts a FIFO where the file was")
    refused("f:read of a FIFO", f:read(0, 10))
    refused("f:write to a FIFO", f:write(0, "x"))
    refused("f:truncate of a FIFO", f:truncate(1))
    -- A folder.
    guest("rm /shared/data && mkdir /shared/data", "the guest puts a folder where the file was")
    refused("f:read of a folder", f:read(0, 10))
    refused("f:write to a folder", f:write(0, "x"))
    -- A regular file again reads as before.
    guest("rmdir /shared/data && echo hello > /shared/data", "the guest puts a file back")
    t:eq("hello", f:read(0, 5), "f:read of a regular file")
    -- vm:install of a host FIFO, a host folder, and a file over the size cap: refused at once, naming why.
    local dir = assert(os.getenv("UMLBED_NOT_REGULAR"), "UMLBED_NOT_REGULAR names a folder with fifo and big")
    refused("install of a host FIFO", vm:install(dir .. "/fifo", "/bin/fifo"))
    refused("install of a host folder", vm:install(dir, "/bin/dir"))
    local r, err = vm:install(dir .. "/big", "/bin/big")
    t:eq(nil, r, "install of a 2 GiB file fails")
    t:expect(tostring(err):find("larger than 64 MiB", 1, true),
      "install of a 2 GiB file: says why (" .. tostring(err) .. ")")
  end,
}

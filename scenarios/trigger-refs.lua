-- SPDX-License-Identifier: MIT
-- trigger-refs.lua: a trigger write keeps no reference to its file: the filesystem it names can be unmounted right after.
--
-- The trigger looks its PATH up (kern_path) and must put the path back on every way out: after an accepted call,
-- a refused one (a directory) and a drop. A leaked reference pins the file's dentry and mount, and umount then
-- fails with EBUSY, which is what this checks, on a tmpfs of the guest's own: mounted, the file made and mapped
-- nowhere, one trigger write of each kind, then umount must succeed. The kinds: seed and unmap, accepted; a drop,
-- whose invalidate_inode_pages2_range() fails with EBUSY after the call (a tmpfs page is dirty: the ABI's example
-- of an error passed through); a directory, refused at the path. The probe first shows that umount does say
-- EBUSY while a process keeps a file of that mount open, so a pass means the trigger held nothing.
local TRIGGER = "/sys/kernel/mm/invalidate_mmap_range/trigger"

return {
  name = "a trigger write keeps no reference to its file",
  matrix = { write = { "seed", "unmap", "drop", "refused" } },
  run = function(t, p)
    local vm = assert(t:vm())
    local sh = assert(vm:shell())
    local function guest(cmd)
      local st, out = vm:run { path = sh, args = { "-c", cmd } }
      return st, out
    end
    local function ok(cmd, what)
      local st, out = guest(cmd)
      t:eq("exit:0", st, what .. " (" .. tostring(out) .. ")")
    end
    ok("mkdir -p /mnt/t && mount -t tmpfs none /mnt/t && printf x > /mnt/t/f", "a tmpfs with a file")
    -- The probe: a file held open keeps the mount busy, and umount says so.
    local st, out = guest("exec 3</mnt/t/f; umount /mnt/t; echo rc=$?")
    t:expect(tostring(out):find("rc=[1-9]"), "umount fails while a file of the mount is open (" .. tostring(out) .. ")")
    t:eq("exit:0", st, "the probe ran")
    local line = ({
      seed = "/mnt/t/f 0 4096 seed keep",
      unmap = "/mnt/t/f 0 4096 unmap keep",
      drop = "/mnt/t/f 0 4096 seed drop",
      refused = "/mnt/t 0 4096",
    })[p.write]
    local want = (p.write == "refused" or p.write == "drop") and "rc=1" or "rc=0"
    ok(("echo '%s' > %s; echo rc=$? > /tmp/rc"):format(line, TRIGGER), "the trigger write ran")
    local _, rc = guest("cat /tmp/rc")
    t:eq(want, tostring(rc):match("rc=%d+"), "the write's status (a directory is refused, the drop is EBUSY)")
    ok("umount /mnt/t", "umount succeeds right after the write: the trigger put its path back")
  end,
}

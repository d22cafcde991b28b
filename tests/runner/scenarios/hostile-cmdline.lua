-- SPDX-License-Identifier: MIT
-- hostile-cmdline.lua: t:vm{cmdline=} takes only the allow-listed options; any other is a bad-argument error that
-- names the option and the scenario's line, before anything boots. The allowed ones boot (on the fake UML).
local refused = {
  { "hostfs=/", "'hostfs'" },
  { "quiet rootflags=/etc", "'rootflags'" },
  { "uml_dir=/tmp/elsewhere", "'uml_dir'" },
  { "init=/bin/sh", "'init'" },
  { "root=/dev/ubda", "'root'" },
  { "umid=../../x", "'umid'" },
  { "con=pts", "'con'" },
  { "ubd0=/etc/passwd", "'ubd0'" },
  { "eth0=tuntap,tap0", "'eth0'" },
  { "nosuchoption", "'nosuchoption'" },
  { "mem=100G", "'mem'" },
  { "mem=1M", "'mem'" },
  { "kmemleak=maybe", "'kmemleak'" },
  { "time-travel=ext:/tmp/sock", "'time-travel'" },
  { "lpj=fast", "'lpj'" },
  { "quiet\vhostfs=/", "quiet\\x0bhostfs=/" },
  { 'UMLBED_X="a', "'UMLBED_X=\"a'" },
}
return {
  name = "hostile kernel command line",
  run = function(t)
    for _, c in ipairs(refused) do
      local line = debug.getinfo(1, "l").currentline + 1
      local ok, err = pcall(function() return t:vm { cmdline = c[1] } end)
      t:eq(false, ok, ("cmdline %q is refused"):format(c[1]))
      err = tostring(err)
      t:expect(err:find("bad argument", 1, true) and err:find(c[2], 1, true),
        ("cmdline %q: a bad-argument error naming %s (%s)"):format(c[1], c[2], err))
      t:expect(err:find("hostile-cmdline.lua:" .. line .. ":", 1, true),
        ("cmdline %q: the error names hostile-cmdline.lua:%d (%s)"):format(c[1], line, err))
    end
    local vm, err = t:vm { cmdline = "mem=128M kmemleak=on time-travel=inf-cpu time-travel-start=0 lpj=0 "
      .. "umlbed.fault_around_bytes=65536 quiet UMLBED_NOTE=x" }
    t:expect(vm, "every allowed option boots (" .. tostring(err) .. ")")
    if vm then t:eq(0, vm.index, "the refused boots took no index") end
  end,
}

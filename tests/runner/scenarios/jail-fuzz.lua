-- SPDX-License-Identifier: MIT
-- jail-fuzz.lua: a hostile guest against hostfs's jail (hostfs=DIR): generated mount options and a two-mount dcache race read, create and change nothing outside the run's root folder (JAIL_OUTSIDE: a host folder outside the run folder, JAIL_PROBE: a static build of jail/probe.c, both from jail.t).
--
-- Forms are generated, never drawn from a clock: symbolic links at every depth of a folder chain (to /, to the
-- outside folder, to the run folder, absolute and relative, chained, dangling, into the jail), joined with "/",
-- "//" or "/./", with trailing "", "/", "/.", "//", "/./", "/.//./"; "..", "//" and "." forms; the reviewer's
-- "ln -s / /x" forms; paths around PATH_MAX and past the mount data page. Each form: mount hostfs with it on /mnt,
-- probe, umount. A form escapes when the guest reads an outside canary, creates a file beside one, or mounts
-- anything that is not proven to be inside the jail (a marker file, or for the longest paths the folder's inode).
-- The race: a folder that one mount holds in its dcache (a cwd) is replaced by a link through another mount, then
-- every kind of host operation runs through the stale dentry; each must fail. Controls first show that each probe
-- sees what it looks for: the same probes on a mirror of the outside folders planted inside the jail, and each
-- race operation on a real folder.
local OUT = os.getenv("JAIL_OUTSIDE")
local PROBE = os.getenv("JAIL_PROBE")
local PATH_MAX = 4096

-- The host's text of a file, or nil.
local function slurp(path)
  local f = io.open(path, "rb")
  if not f then return nil end
  local s = f:read("a")
  f:close()
  return s
end

-- Whether a host path exists, whatever it is (a dangling link too): renaming it onto itself changes nothing.
-- Whether path names something, a link not followed: renaming it onto itself finds it, or fails with ENOENT (2) or
-- ENOTDIR (20); outside TMPDIR the run's Landlock domain refuses the rename itself (EACCES, EXDEV) once it is found.
local function lexists(path)
  local ok, _, code = os.rename(path, path)
  return ok ~= nil or (code ~= 2 and code ~= 20)
end

local function ncomp(path)
  local n = 0
  for _ in path:gmatch("[^/]+") do n = n + 1 end
  return n
end

-- A quoted shell word; the generator never makes a quote.
local function q(s)
  assert(not s:find("'", 1, true), "a quote in a generated word")
  return "'" .. s .. "'"
end

return {
  name = "hostfs jail fuzz",
  timeout = 900,
  run = function(t)
    assert(OUT and OUT:sub(1, 1) == "/", "JAIL_OUTSIDE must name a host folder (absolute) holding jail-canary")
    assert(PROBE, "JAIL_PROBE must name a static build of tests/runner/jail/probe.c")
    local secret = assert(slurp(OUT .. "/jail-canary"), "no jail-canary in JAIL_OUTSIDE"):match("^(%S+)")
    assert(secret, "jail-canary's first word is the secret")
    local vm = assert(t:vm())
    assert(vm:shell())
    local JR = assert(vm.shared:match("^(.*)/shared$"), "the run's root folder")
    local RUN = assert(JR:match("^(.*)/[^/]+$"), "the run folder")
    local VMDIR, vmname = vm.dir, assert(vm.dir:match("/([^/]+)$"))
    assert(vm.dir == RUN .. "/" .. vmname, "the instance folder is in the run folder")
    for _, p in ipairs { OUT, VMDIR } do
      assert(p:sub(1, #JR + 1) ~= JR .. "/" and p ~= JR, p .. " must be outside the jail")
      assert(not p:find("[%s',]"), p .. ": no blank, quote or comma")
    end
    -- The second canary, next to the jail (in the run folder, outside its root).
    local f = assert(io.open(VMDIR .. "/jail-canary", "w"))
    f:write(secret, "\n")
    f:close()
    -- Where a probe looks for a canary below the mount point: the landing folder itself, or the outside folders
    -- below a mount of the host's /.
    local spots = { "", OUT, VMDIR }

    -- ---- The layout in the jail, made by the guest through its root (the jail itself). ----
    local setup = { "mkdir -p /mnt /m1 /m2", "cp /shared/jail-probe /jail-probe && chmod 755 /jail-probe",
                    "echo jail-inside:/ > /.jailmark", "ln -s / /x" }
    local inside_dirs = { "/" }
    local function mkdir(dir)
      setup[#setup + 1] = "mkdir -p " .. q(dir) .. " && echo " .. q("jail-inside:" .. dir) .. " > "
        .. q(dir .. "/.jailmark")
      inside_dirs[#inside_dirs + 1] = dir
    end
    local function link(target, at) setup[#setup + 1] = "ln -s " .. q(target) .. " " .. q(at) end

    local levels = { "jf" }
    for i = 1, 5 do levels[i + 1] = levels[i] .. "/d" .. i end
    for _, lv in ipairs(levels) do
      local dir = "/" .. lv
      mkdir(dir)
      local up = ncomp(JR) + ncomp(lv) -- from JR/lv to the host's /
      link("/", dir .. "/r")
      link(OUT, dir .. "/o")
      link(RUN, dir .. "/u")
      link(string.rep("../", up) .. OUT:sub(2), dir .. "/ro")
      link(string.rep("../", ncomp(lv) + 1):sub(1, -2), dir .. "/ru")
      link("c2", dir .. "/c1")
      link("c3", dir .. "/c2")
      link("/", dir .. "/c3")
      link(JR .. "/jf", dir .. "/j")
      link(".", dir .. "/s")
      link("/nonexistent-jail-fuzz", dir .. "/n")
      if lv ~= "jf" then link("../r", dir .. "/m") end
    end
    -- Each link kind with what follows it in a form, so that an escape lands on a canary's folder.
    local kinds = {
      { "r", OUT }, { "o", "" }, { "u", "/" .. vmname }, { "ro", "" }, { "ru", "/" .. vmname }, { "c1", OUT },
      { "m", OUT }, { "j", "" }, { "s", "" }, { "n", "" },
    }
    link(OUT .. "/jail-canary", "/jf/fc")

    -- The mirror: the outside canaries' places below a folder inside the jail, with another secret. Not a marked
    -- folder: it stands for a mount that landed outside.
    local inside_secret = "inside-canary"
    for _, spot in ipairs(spots) do
      setup[#setup + 1] = "mkdir -p " .. q("/jf/mirror" .. spot) .. " && echo " .. inside_secret .. " > "
        .. q("/jf/mirror" .. spot .. "/jail-canary")
    end

    -- Long paths: a chain of 240-byte names (walked with cd, past the guest's own PATH_MAX), as deep as the host
    -- can make it (each folder's .jailmark must fit in PATH_MAX), each folder with a link r to /, and below it pad
    -- folders sized so that the host path of a form is exactly so long.
    local names = {}
    while #JR + #"/jf/long" + 241 * (#names + 1) + #"/.jailmark" < PATH_MAX do
      names[#names + 1] = string.rep(string.char(97 + #names), 240)
    end
    mkdir("/jf/long")
    setup[#setup + 1] = "cd /jf/long"
    for i = 1, #names do
      setup[#setup + 1] = "mkdir " .. names[i] .. " && cd " .. names[i] .. " && echo jail-inside:long" .. i
        .. " > .jailmark && ln -s / r && echo INO $(stat -c %i .) long" .. i .. " || echo LONG-FAILED " .. i
    end
    setup[#setup + 1] = "cd /"
    local longforms = {}
    -- host path = JR .. "/" .. option; option = /jf/long/NAMES(k)/PAD[/r OUT]
    local function long(total, escape)
      local tail = escape and ("/r" .. OUT) or ""
      local fixed = #JR + 1 + #"/jf/long" + 1 + #tail -- plus 241 k - 1 for the names, 1 + pad for the pad
      local k = math.min(#names, (total - fixed - 2) // 241)
      local pad = total - fixed - (241 * k - 1) - 1
      if pad < #tostring(total) + 2 then k, pad = k - 1, pad + 241 end
      if k < 1 or pad > 255 then return end
      local padname = string.rep("p", pad - #tostring(total) - 1) .. (escape and "e" or "i") .. total
      local cds = { "cd /jf/long" }
      for i = 1, k do cds[#cds + 1] = "cd " .. names[i] end
      -- The inode first: near PATH_MAX the marker and the link may not fit.
      setup[#setup + 1] = table.concat(cds, " && ") .. " && mkdir " .. padname .. " && cd " .. padname
        .. " && echo INO $(stat -c %i .) pad" .. total .. (escape and "e" or "i") .. " && { echo jail-inside:pad"
        .. total .. " > .jailmark; ln -s / r; } 2>/dev/null; cd /"
      local opt = "/jf/long/" .. table.concat(names, "/", 1, k) .. "/" .. padname .. tail
      assert(#JR + 1 + #opt == total)
      longforms[#longforms + 1] = { opt = opt, what = (escape and "link" or "inside") .. " at host length " .. total,
                                    family = escape and "long link" or "long inside" }
    end
    for _, total in ipairs { 1024, 2048, 3000, PATH_MAX - 200, PATH_MAX - 2, PATH_MAX - 1, PATH_MAX, PATH_MAX + 1,
                             PATH_MAX + 100 } do
      long(total, true)
      long(total, false)
    end
    -- Past the mount data page (4095 bytes and its NUL): the kernel cuts the option.
    for _, extra in ipairs { 0, 1, 300 } do
      local opt = "/jf/long/" .. table.concat(names, "/") .. "/r" .. OUT
      opt = opt .. string.rep("/", math.max(0, 4095 + extra - #opt))
      longforms[#longforms + 1] = { opt = opt, what = "option of " .. #opt .. " bytes (the page holds 4095)",
                                    family = "over the page" }
    end
    for _, d in ipairs(inside_dirs) do
      if d:sub(1, 9) ~= "/jf/long/" then setup[#setup + 1] = "echo INO $(stat -c %i " .. q(d) .. ") " .. d end
    end

    -- ---- The forms. ----
    local forms = {}
    local function form(opt, what, family) forms[#forms + 1] = { opt = opt, what = what, family = family or what } end
    local seps = { "/", "//", "/./" }
    local leads = { "/", "//", "/./", "" }
    local tails = { "", "/", "/.", "//", "/./", "/.//./" }
    local n = 0
    for li, lv in ipairs(levels) do
      for _, kind in ipairs(kinds) do
        if kind[1] ~= "m" or lv ~= "jf" then
          for _, tail in ipairs(tails) do
            n = n + 1
            local sep, lead = seps[n % #seps + 1], leads[n % #leads + 1]
            local prefix = lead .. lv:gsub("/", sep)
            form(prefix .. sep .. kind[1] .. kind[2] .. tail,
                 ("link %s at depth %d, tail %q"):format(kind[1], li, tail), "link " .. kind[1])
          end
        end
      end
    end
    -- The reviewer's forms, and their kin.
    for _, opt in ipairs { "/x/", "/x/.", "/x/etc", "/x", "/x//", "/x/./", "x/", "//x/", "/./x/.", "/x" .. OUT,
                           "/x" .. OUT .. "/", "/x" .. VMDIR .. "/.", "/x/x/", "/jf/fc", "/jf/fc/", "/jf/fc/." } do
      form(opt, "the reviewer's forms and kin", "reviewer")
    end
    -- "..": above the jail, and through links.
    for _, opt in ipairs { "/..", "/../..", "..", "../", "/jf/..", "/jf/d1/../..", "/jf/r/..", "/jf/o/..",
                           "/x/..", "/jf/../../../../../../..", "/.." .. OUT, "/./../.", "/jf/u/../root",
                           "/jf/d1/d2/../../../" .. vmname, "/" .. string.rep("../", 40) } do
      form(opt, "dotdot")
    end
    -- Inside, plainly.
    for _, opt in ipairs { "", "/", "//", "/.", "/./", "/jf", "/jf/", "/jf/.", "//jf//d1//", "/jf/./d1/./d2",
                           "jf/d1", "/jf/d1/d2/d3/d4/d5/", "////jf////" } do
      form(opt, "inside")
    end
    for _, lf in ipairs(longforms) do form(lf.opt, lf.what, lf.family) end

    local function script(name, lines)
      local path = vm.shared .. "/" .. name
      local w = assert(io.open(path, "w"))
      w:write(table.concat(lines, "\n"), "\necho END-OF-SCRIPT\n")
      w:close()
      local status, out = assert(vm:run { path = "/bin/sh", args = { "/shared/" .. name }, timeout = 600 })
      t:assert_true(status == "exit:0" and out:find("\nEND%-OF%-SCRIPT\n$"),
                    name .. " ran to its end (" .. status .. "): " .. out:sub(-2000))
      return out
    end
    local function parse(out)
      local res = {}
      for id, rest in ("\n" .. out):gmatch("\nP (%S+) ([^\n]*)") do res[id] = rest end
      return res
    end

    -- ---- The probe: one guest process (jail.t's build of tests/runner/jail/probe.c), the same for every form and
    -- for the controls. For each form it mounts, reads the inode and marker of what it mounted, reads and creates
    -- beside each canary it shows, and unmounts. ----
    local pf = assert(io.open(PROBE, "rb"))
    local pw = assert(io.open(vm.shared .. "/jail-probe", "wb"))
    pw:write(pf:read("a"))
    pf:close()
    pw:close()
    -- probe(NAME, FORMS): FORMS ({id, option} pairs) written to /shared/NAME and probed by one run of the probe; its
    -- results by id.
    local function probe(name, list)
      local w = assert(io.open(vm.shared .. "/" .. name, "w"))
      for _, form_ in ipairs(list) do w:write(form_[1], "\t", form_[2], "\n") end
      w:close()
      local status, out = assert(vm:run { path = "/jail-probe", args = { "/shared/" .. name, table.unpack(spots) },
                                          timeout = 600 })
      t:assert_true(status == "exit:0", name .. " ran to its end (" .. status .. "): " .. out:sub(-2000))
      return parse(out)
    end

    local out = script("jail-setup.sh", setup)
    t:assert_true(not out:find("LONG-FAILED", 1, true), "the long chain was made\n" .. out:sub(1, 2000))
    local inos = {}
    for ino in out:gmatch("INO (%d+)") do inos[ino] = true end
    t:assert_true(inos[out:match("INO (%d+) /jf\n")] and inos[out:match("INO (%d+) pad2048i")],
                  "the setup listed the inodes of the jail's folders\n" .. out:sub(1, 2000))

    -- ---- Controls: the probe sees a canary, creates beside it and finds a marker where they are. ----
    local ctl = probe("jail-control", { { "ctl-mirror", "/jf/mirror" }, { "ctl-marker", "/jf/d1" },
                                        { "ctl-refused", "/jf/nonexistent" } })
    local m = ctl["ctl-mirror"] or ""
    for i = 0, #spots - 1 do
      t:eq(inside_secret, m:match("R" .. i .. ":(%S+)"),
           "control: the probe reads the canary planted inside at spot " .. i)
      t:expect(m:find(" C" .. i, 1, true), "control: the probe creates a file beside it (" .. m .. ")")
      t:expect(lexists(JR .. "/jf/mirror" .. spots[i + 1] .. "/jail-created-ctl-mirror"),
               "control: the host sees the file created at spot " .. i)
    end
    t:eq(nil, m:match("I:"), "control: no marker in the mirror")
    t:expect(m:match("N:(%d+)") and not inos[m:match("N:(%d+)")],
             "control: the mirror's inode is not a marked folder's")
    t:eq("jail-inside:/jf/d1", (ctl["ctl-marker"] or ""):match("I:(%S+)"), "control: the probe reads a marker")
    t:expect(inos[(ctl["ctl-marker"] or ""):match("N:(%d+)") or "-"], "control: the probe's inode is a known folder's")
    t:eq("F", ctl["ctl-refused"], "control: a failed mount is seen as refused")

    -- ---- The forms, all in one run of the probe. ----
    local list = {}
    for id, fm in ipairs(forms) do list[id] = { id, fm.opt } end
    local res = probe("jail-forms", list)
    local refused, inside, escaped, bad, by_family, families = 0, 0, 0, {}, {}, {}
    for id, fm in ipairs(forms) do
      local r = res[tostring(id)]
      local why
      if r == nil then
        why = "no probe result"
      elseif r == "F" then
        refused = refused + 1
      else
        for i = 0, #spots - 1 do
          if r:match("R" .. i .. ":(%S+)") == secret then why = "read the outside canary" end
        end
        if lexists(OUT .. "/jail-created-" .. id) or lexists(VMDIR .. "/jail-created-" .. id) then
          why = "created a file outside"
        end
        local marker, ino = r:match("I:(%S+)"), r:match("N:(%d+)")
        if not why and not (marker and marker:match("^jail%-inside:")) and not (marker == nil and inos[ino or "-"]) then
          why = "mounted somewhere not shown to be inside"
        end
        if r:find(" U", 1, true) then why = (why and why .. ", " or "") .. "umount failed" end
        if not why then inside = inside + 1 end
      end
      if why then
        escaped = escaped + 1
        if not by_family[fm.family] then families[#families + 1] = fm.family end
        by_family[fm.family] = (by_family[fm.family] or 0) + 1
        if #bad < 25 then
          bad[#bad + 1] = ("  %s (%s): %s [%s]"):format(q(fm.opt:sub(1, 120)), fm.what, why, r or "-")
        end
      end
    end
    t:note(("forms tried: %d (refused %d, mounted inside %d, escaped %d)"):format(#forms, refused, inside, escaped))
    if escaped > 0 then
      local parts = {}
      for _, fam in ipairs(families) do parts[#parts + 1] = fam .. " " .. by_family[fam] end
      t:note("escaped by family: " .. table.concat(parts, ", "))
    end
    t:eq(0, escaped, "forms that escaped the jail\n" .. table.concat(bad, "\n"))
    t:eq(#forms, refused + inside + escaped, "every form was classified")

    -- ---- The race: a folder held in one mount's dcache, replaced by a link through another. ----
    -- Each operation, its command in the stale folder (success is status 0), and what it would change outside.
    local ops = {
      { "read", "{ read -r x < jail-canary; } 2>/dev/null && echo \"got $x\"" },
      { "stat", "stat -c %i jail-canary >/dev/null 2>&1" },
      { "readdir", "ls -a . 2>/dev/null | grep -q jail-canary" },
      { "create", "{ true > jail-created-$ID; } 2>/dev/null", "jail-created-$ID" },
      { "write", "{ echo pwned >> v-write; } 2>/dev/null" },
      { "mkdir", "mkdir jail-mkdir-$ID 2>/dev/null", "jail-mkdir-$ID" },
      { "mkfifo", "mkfifo jail-fifo-$ID 2>/dev/null", "jail-fifo-$ID" },
      { "symlink", "ln -s jail-x jail-symlink-$ID 2>/dev/null", "jail-symlink-$ID" },
      { "link", "ln v-link jail-hardlink-$ID 2>/dev/null", "jail-hardlink-$ID" },
      { "rename", "mv v-rename jail-renamed-$ID 2>/dev/null", "jail-renamed-$ID" },
      { "unlink", "rm v-unlink 2>/dev/null" },
      { "rmdir", "rmdir v-rmdir 2>/dev/null" },
      { "chmod", "chmod 600 v-chmod 2>/dev/null" },
      { "chown", "chown \"$(stat -c %u:%g v-chown 2>/dev/null)\" v-chown 2>/dev/null" },
      { "truncate", "truncate -s 0 v-trunc 2>/dev/null" },
      { "utimes", "touch -d '2001-01-01 00:00:00' v-touch 2>/dev/null" },
      { "readlink", "readlink v-readlink 2>/dev/null" },
    }
    local victims = { "v-write", "v-link", "v-rename", "v-unlink", "v-chmod", "v-chown", "v-trunc", "v-touch" }
    -- (op, how the stale folder is held): two fresh mounts and a cwd in the second; the root mount's dcache; a cwd
    -- one folder deeper.
    local cases = {}
    for _, op in ipairs(ops) do cases[#cases + 1] = { op = op, how = "two" } end
    for _, i in ipairs { 1, 3, 4 } do cases[#cases + 1] = { op = ops[i], how = "root" } end
    for _, i in ipairs { 1, 4 } do cases[#cases + 1] = { op = ops[i], how = "sub" } end
    local lines = {}
    for id, c in ipairs(cases) do
      for _, swap in ipairs { false, true } do
        local tag = (swap and "race" or "ctl") .. id
        local dir = "/jf/" .. tag
        local body = {
          "mkdir -p " .. dir .. "/d/sub " .. dir .. "/d/v-rmdir && echo " .. inside_secret .. " > " .. dir
            .. "/d/jail-canary && echo " .. inside_secret .. " > " .. dir .. "/d/sub/jail-canary",
          "for v in " .. table.concat(victims, " ") .. "; do echo victim > " .. dir .. "/d/$v; done",
          "ln -s jail-inside-target " .. dir .. "/d/v-readlink",
          "mount -t hostfs none /m1 -o " .. dir,
        }
        local cwd = "/m2/d"
        if c.how == "root" then
          cwd = dir .. "/d"
        else
          body[#body + 1] = "mount -t hostfs none /m2 -o " .. dir
          if c.how == "sub" then cwd = "/m2/d/sub" end
        end
        body[#body + 1] = "cd " .. cwd
        if swap then
          body[#body + 1] = "mv /m1/d /m1/d.old && ln -s " .. q(OUT) .. " /m1/d || echo SWAP-FAILED " .. tag
        end
        body[#body + 1] = "ID=" .. tag .. "; if " .. c.op[2] .. "; then echo \"RACE " .. tag .. " ok\"; else echo "
          .. "\"RACE " .. tag .. " failed\"; fi"
        body[#body + 1] = "cd /"
        if c.how ~= "root" then body[#body + 1] = "umount /m2" end
        body[#body + 1] = "umount /m1"
        for _, l in ipairs(body) do lines[#lines + 1] = l end
      end
    end
    out = script("jail-race.sh", lines)
    t:eq(nil, out:match("SWAP%-FAILED %S+"), "every race swapped its folder for a link")
    local raced, race_escaped, race_bad = 0, 0, {}
    for id, c in ipairs(cases) do
      local name = c.op[1] .. " (" .. c.how .. ")"
      t:eq("ok", out:match("RACE ctl" .. id .. " (%a+)"), "control: " .. name .. " works in a real folder")
      local got = out:match("RACE race" .. id .. " (%a+)")
      raced = raced + 1
      local why = got ~= "failed" and ("through the stale folder: " .. tostring(got)) or nil
      if c.op[3] then
        local made = c.op[3]:gsub("%$ID", "race" .. id)
        if lexists(OUT .. "/" .. made) or lexists(OUT .. "/sub/" .. made) then why = "made " .. made .. " outside" end
        local inside_made = c.op[3]:gsub("%$ID", "ctl" .. id)
        t:expect(lexists(JR .. "/jf/ctl" .. id .. (c.how == "sub" and "/d/sub/" or "/d/") .. inside_made),
                 "control: the host sees what " .. name .. " made inside")
      end
      if why then
        race_escaped = race_escaped + 1
        race_bad[#race_bad + 1] = "  " .. name .. ": " .. why
      end
    end
    if out:find("got " .. secret, 1, true) then race_bad[#race_bad + 1] = "  read: the outside canary was read" end
    for _, v in ipairs { "v-write", "v-trunc" } do
      if slurp(OUT .. "/" .. v) ~= "victim\n" then race_bad[#race_bad + 1] = "  " .. v .. " changed outside" end
    end
    for _, v in ipairs { "v-unlink", "v-rename", "v-rmdir", "v-link" } do
      if not lexists(OUT .. "/" .. v) then race_bad[#race_bad + 1] = "  " .. v .. " is gone outside" end
    end
    t:note(("race: %d operations through a held dentry whose folder became a link, %d escaped"):format(
      raced, race_escaped))
    t:eq(0, #race_bad, "operations through a stale dentry that reached outside\n" .. table.concat(race_bad, "\n"))
  end,
}

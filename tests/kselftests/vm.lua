-- SPDX-License-Identifier: MIT
-- vm.lua: the kernel's own mm selftests, each in a fresh guest, checked against tests/kselftests/expected-GEN.
--
-- Each line of the expectation table is one run: a fresh guest (256M unless the line says mem=) with a staged
-- shell (compaction_test's popen and the .sh wrappers need one), the test's program installed read-only in
-- /kselftests, run from there as the user upstream's run_vmtests.sh uses, with its arguments. kselftest's exit
-- codes give the result (0 pass, 4 skip, anything else fail); the run fails when that differs from the table in
-- either direction, so a kernel or config change that breaks a test, or fixes an expected failure, shows at once.
--
-- $UMLBED_KSELFTESTS_GEN picks the generation (default: uml-kernel/generations/default's); its file gives the
-- table (kselftests), the selftests folder (vm before Linux 6.3, mm since) and the kernel version the table is for.
-- $UMLBED_KSELFTESTS names the folder of static binaries tests/kselftests/build.sh made (default
-- BUILD/kselftests/GEN/vm or mm, BUILD from $UMLBED_BUILD).
local expected = require "lib.expected"

local GEN, G = expected.generation(os.getenv("UMLBED_KSELFTESTS_GEN"))
local SUB = G.selftests
local list, TABLE = expected.load(GEN, G)
local by_id, ids = {}, {}
for _, e in ipairs(list) do
  by_id[e.id] = e
  ids[#ids + 1] = e.id
end

-- Hang guard for one test program, in seconds: a test still running then is killed with its process group and
-- counts as a failure (an xfail in the table says why it hangs). The slowest passing test takes a few seconds.
-- Stretched by $UMLBED_TIMEOUT_SCALE as the runner stretches the run's own timeout below.
local TEST_TIMEOUT = 300 * (tonumber(os.getenv("UMLBED_TIMEOUT_SCALE") or "") or 1)

local function exists(path)
  local fh = io.open(path, "rb")
  if fh then fh:close() end
  return fh ~= nil
end

-- The last n lines of s.
local function tail(s, n)
  local lines = {}
  for l in s:gmatch("[^\n]*\n?") do if l ~= "" then lines[#lines + 1] = l end end
  return table.concat(lines, "", math.max(1, #lines - n + 1))
end

local function bins_dir(t)
  local d = os.getenv("UMLBED_KSELFTESTS")
  if d and d ~= "" then return d end
  local build = os.getenv("UMLBED_BUILD")
  if not build or build == "" then build = (t.file:match("^(.*)/[^/]+$") or ".") .. "/../../build" end
  local dir = build .. "/kselftests/" .. GEN .. "/" .. SUB
  if exists(dir .. "/map_fixed_noreplace") then return dir end
  error("no selftests built for Linux " .. GEN .. " under " .. build .. "/kselftests (tests/kselftests/build.sh " ..
        GEN .. ")", 0)
end

return {
  name = "selftests/" .. SUB,
  matrix = { test = ids },
  timeout = 360,
  run = function(t, p)
    local e = assert(by_id[p.test], "not in the expectation table: " .. tostring(p.test))
    local dir = bins_dir(t)
    local vm = assert(t:vm { mem = e.mem })
    local rel = vm.release:match("^(%d+%.%d+)")
    t:require(rel == G.version, "the table is Linux %s's, the kernel is %s", G.version, vm.release)
    assert(vm:shell())
    -- As run_vmtests.sh: a ./huge folder with hugetlbfs mounted on it if the kernel has hugetlbfs.
    local mst, mout = assert(vm:run { path = "/bin/sh", cwd = "/",
                                      args = { "-c", "mkdir -p /kselftests/huge && " ..
                                                     "mount -t hugetlbfs none /kselftests/huge" } })
    if mst ~= "exit:0" then t:note("no hugetlbfs mount: " .. mout:gsub("\n$", "")) end
    for _, sc in ipairs(e.sysctls) do assert(vm:writefile(sc.path, sc.value)) end
    -- The program, and for a wrapper script X.sh the program X it runs.
    local prog, args = e.argv[1], table.move(e.argv, 2, #e.argv, 1, {})
    assert(vm:install(dir .. "/" .. prog, "/kselftests/" .. prog))
    local path = "/kselftests/" .. prog
    if prog:match("%.sh$") then
      local companion = prog:gsub("%.sh$", "")
      if exists(dir .. "/" .. companion) then
        assert(vm:install(dir .. "/" .. companion, "/kselftests/" .. companion))
      end
      -- Upstream's scripts say #!/bin/bash; busybox's sh runs them (the guest has no bash).
      table.insert(args, 1, "./" .. prog)
      path = "/bin/sh"
    end
    local st, out = assert(vm:run { path = path, args = args, cwd = "/kselftests", uid = e.uid,
                                    timeout = TEST_TIMEOUT })
    local got = expected.result(st)
    local want = e.result == "xfail" and "fail" or e.result
    t:note(("%s as %s: %s (%s), expected %s%s"):format(e.id, e.user, got, st, e.result,
                                                      e.why and (": " .. e.why) or ""))
    if st == "timeout" then t:note(("%s was still running after %g s: killed"):format(prog, TEST_TIMEOUT)) end
    if got ~= want then t:note("its output, last lines:\n" .. tail(out, 40)) end
    t:eq(want, got, ("%s (%s:%d)"):format(e.id, TABLE:gsub("^.*/tests/", "tests/"), e.line))
  end,
}

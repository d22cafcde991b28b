-- SPDX-License-Identifier: MIT
-- expected.lua: reads a generation's expectation table (tests/kselftests/expected-GEN) of the kernel's mm selftests.
--
-- One line per test, as upstream's run_vmtests.sh runs it:
--   RESULT  USER  [mem=SIZE]  [sysctl=NAME=VALUE]...  COMMAND [ARG...]  [# why]
-- RESULT is pass, skip (kselftest's exit code 4) or xfail (any other exit, a signal or a timeout); a skip or
-- xfail must say why. USER is root or nobody. mem= gives the guest more memory than the default 256M; sysctl=
-- sets /proc/sys/NAME (dots for slashes) first, as run_vmtests.sh does around some tests. The command is run
-- from the folder the tests are installed in.
local M = {}

-- This file's folder, from the path the module searcher hands its loader, and the repository's top above it.
local here = (select(2, ...) or ""):match("^(.*)/lib/[^/]+$") or "."
local root = here .. "/../.."
-- The reader of uml-kernel/generation.sh's JSON, from the bed library.
local definition = require "umlbed.definition"

M.USERS = { root = 0, nobody = 65534 }
M.RESULTS = { pass = true, skip = true, xfail = true }
-- Guest memory unless a line says otherwise: what upstream's tests need on a small VM.
M.MEM = "256M"

-- The generation gen (nil or empty: the default one) and its keys, as uml-kernel/generation.sh read them:
-- tests/kselftests/build.sh writes its JSON beside the binaries' folders (BUILD/kselftests/definitions.json): that of
-- the binaries $UMLBED_KSELFTESTS names, else of $UMLBED_BUILD, else of the tree's build/. An error names what is
-- missing. The selftests use its version, selftests folder and expectation table (kselftests).
function M.generation(gen)
  local build = os.getenv("UMLBED_BUILD")
  if not build or build == "" then build = root .. "/build" end
  local path = build .. "/kselftests/definitions.json"
  local bins = os.getenv("UMLBED_KSELFTESTS")
  if bins and bins ~= "" then path = bins .. "/../../definitions.json" end
  local doc, derr = definition.load(path)
  if not doc then error("no generations' definitions (tests/kselftests/build.sh writes them): " .. derr, 0) end
  if not gen or gen == "" then gen = doc.default end
  local keys = doc.generations[gen]
  if not keys then error("UMLBED_KSELFTESTS_GEN: no generation '" .. tostring(gen) .. "'", 0) end
  for _, k in ipairs { "version", "selftests", "kselftests" } do
    if not keys[k] or keys[k] == "" then error("uml-kernel/generations/" .. gen .. " has no " .. k, 0) end
  end
  return gen, keys
end

-- The table of generation gen, whose keys M.generation gave: a list of {result=, user=, uid=, mem=, sysctls=,
-- argv=, id=, why=, line=} in file order, and the file's path; a malformed line is an error naming file:line.
-- $UMLBED_KSELFTESTS_EXPECTED names another table (tests/kselftests/kselftests.t checks that a wrong one fails).
function M.load(gen, keys)
  local path = os.getenv("UMLBED_KSELFTESTS_EXPECTED") or (root .. "/" .. keys.kselftests)
  local fh, err = io.open(path, "r")
  if not fh then error("no expectation table for Linux " .. gen .. ": " .. tostring(err), 0) end
  local list, seen, n = {}, {}, 0
  for line in fh:lines() do
    n = n + 1
    local body, why = line:match("^([^#]*)#%s*(.-)%s*$")
    body = body or line
    local words = {}
    for w in body:gmatch("%S+") do words[#words + 1] = w end
    if #words > 0 then
      local where = path .. ":" .. n .. ": "
      local result, user = words[1], words[2]
      if not M.RESULTS[result] then error(where .. "result must be pass, skip or xfail, not " .. result, 0) end
      if not M.USERS[user or ""] then error(where .. "user must be root or nobody", 0) end
      local mem, sysctls, first = M.MEM, {}, 3
      while (words[first] or ""):match("^[a-z]+=") do
        local w = words[first]
        if w:match("^mem=") then
          mem = w:match("^mem=(%d+[KMG])$")
          if not mem then error(where .. "mem= takes a size such as 512M or 3G", 0) end
        elseif w:match("^sysctl=") then
          local name, value = w:match("^sysctl=([%w_]+[%w_.]*)=(%S+)$")
          if not name then error(where .. "sysctl= takes NAME=VALUE, such as vm.overcommit_memory=1", 0) end
          sysctls[#sysctls + 1] = { path = "/proc/sys/" .. name:gsub("%.", "/"), value = value }
        else
          error(where .. "unknown option " .. w .. " (mem= or sysctl=)", 0)
        end
        first = first + 1
      end
      if #words < first then error(where .. "no command", 0) end
      if result ~= "pass" and (not why or why == "") then error(where .. result .. " needs a reason after #", 0) end
      local argv = table.move(words, first, #words, 1, {})
      local id = table.concat(argv, " ")
      if seen[id] then error(where .. "'" .. id .. "' is listed twice (line " .. seen[id] .. ")", 0) end
      seen[id] = n
      list[#list + 1] = { result = result, user = user, uid = M.USERS[user], mem = mem, sysctls = sysctls,
                          argv = argv, id = id, why = why, line = n }
    end
  end
  fh:close()
  return list, path
end

-- A kselftest result from vm:run's status: 0 is pass, 4 (KSFT_SKIP) is skip, anything else fails.
function M.result(status)
  if status == "exit:0" then return "pass" end
  if status == "exit:4" then return "skip" end
  return "fail"
end

return M

-- SPDX-License-Identifier: MIT
-- bed.lua: the set-up most scenarios start with: a vm, a file of known contents, a process and its mapping of the file.
--
--   local bed = require "umlbed.bed"
--   local b = bed.setup(t, { pages = 4, fill = "a", mode = "private", prot = "rw", touch = true })
--   -- b.vm, b.ps (page size), b.file, b.proc, b.map
--
-- Options (page numbers are 0-based, like everywhere in the API):
--   pages  the file's size in pages (required)
--   name   the file's name in the shared folder (default "data")
--   fill   a one-byte string repeated over the file, or a function(file, pagesize, pages) that
--          writes it and returns true or nil, err (pagedata's fill fits); nil leaves zeros
--   vm     a vm to use (default: boot one with t:vm())
--   mode, prot   as proc:mmap (default "shared", "r")
--   first, count the mapped file pages (default the whole file)
--   map    false: stop after the file (no process, no mapping)
--   touch  true: read every page of the mapping once (m:touch("r"))
-- A step that fails raises an error naming the scenario's line (verdict ERROR, like assert).
--
-- bed.sharers(owner, m, n) forks n sharers of mapping m; bed.loops(t, vm, list) starts a read loop on each
-- mapping of list (see below).
-- bed.stage(vm, hostpath [, name]) copies a host file (a module of one's own, a program) into the vm's shared
-- folder and returns its guest path; bed.test_modules(vm, root) is the host folder with the project's test modules
-- built for the running kernel (umlbed_gpl.ko, umlbed_proprietary.ko; root: the source tree, unused now that the
-- kernel's variant.json says which modules variants without their own share).
local definition = require "umlbed.definition"

local M = {}

-- Raise err from the line that called setup, not from here.
local function need(v, err, ...)
  if not v then error(tostring(err), 3) end
  return v, err, ...
end

-- Misuse names the scenario's line, as an argument error of the API does.
local MODES = { shared = true, private = true }
local PROTS = { r = true, rw = true }
local function check(ok, fmt, ...)
  if not ok then error("bed.setup: " .. fmt:format(...), 3) end
end

function M.setup(t, o)
  check(type(o) == "table", "an options table is required")
  check(math.type(o.pages) == "integer" and o.pages > 0, "pages= must be a positive integer, not %s", tostring(o.pages))
  check(o.mode == nil or MODES[o.mode], "mode= must be shared or private, not %s", tostring(o.mode))
  check(o.prot == nil or PROTS[o.prot], "prot= must be r or rw, not %s", tostring(o.prot))
  check(o.fill == nil or type(o.fill) == "string" or type(o.fill) == "function",
        "fill= must be a string or a function, not a %s", type(o.fill))
  local b = {}
  b.vm = o.vm or need(t:vm())
  b.ps = b.vm.pagesize
  local ps = b.ps
  b.file = need(b.vm:file(o.name or "data", o.pages * ps))
  if type(o.fill) == "string" then
    need(b.file:write(0, o.fill:rep(o.pages * ps)))
  elseif o.fill then
    need(o.fill(b.file, ps, o.pages))
  end
  if o.map == false then return b end
  b.proc = need(b.vm:spawn())
  local first = o.first or 0
  local opts = { mode = o.mode or "shared", prot = o.prot or "r" }
  if o.first or o.count then
    opts.offset = first * ps
    opts.length = (o.count or o.pages - first) * ps
  end
  b.map = need(b.proc:mmap(b.file, opts))
  if o.touch then need(b.map:touch("r")) end
  return b
end

-- The owner's mapping and n forked sharers of it: { m, m:on(child1), ... }.
function M.sharers(owner, m, n)
  local all = { m }
  for _, k in ipairs(need(owner:fork(n))) do all[#all + 1] = m:on(k) end
  return all
end

-- Starts a read loop over each mapping of list in its own t:go task, on one loop control, and returns once every
-- loop has made a first pass: ctl (ctl:stop() ends them), the tasks (task:wait() gives a loop's passes), and
-- how many started. The loops are then live by construction, on a host of any speed.
function M.loops(t, vm, list)
  local ctl = need(vm:loopctl())
  local tasks = {}
  for i, ms in ipairs(list) do tasks[i] = t:go(function() return ms:loop("r", ctl) end) end
  local started = need(ctl:wait(#list))
  return ctl, tasks, started
end

-- The file's bytes, or nil and why.
local function slurp(path)
  local fh, err = io.open(path, "rb")
  if not fh then return nil, err end
  local data = fh:read("a")
  fh:close()
  return data
end

function M.stage(vm, hostpath, name)
  name = name or hostpath:match("[^/]+$")
  local data, err = slurp(hostpath)
  if not data then return nil, "cannot read " .. hostpath .. ": " .. tostring(err) end
  local fh, werr = io.open(vm.shared .. "/" .. name, "wb")
  if not fh then return nil, "cannot write into the shared folder: " .. tostring(werr) end
  fh:write(data)
  fh:close()
  return "/shared/" .. name
end

-- The modules are tools, not an oracle: they are taken from next to the running binary
-- (BUILD/kernel/VARIANT/modules), else from its generation's full variant's, which the broken variants share
-- (the kernel's variant.json names its generation and that generation's suffix of variant names).
function M.test_modules(vm, _root)
  local vdir = vm.kernel:match("^(.*)/[^/]+/[^/]+$")
  if not vdir then return nil, "kernel " .. vm.kernel .. " is not at BUILD/kernel/VARIANT/obj/linux" end
  local mods = vdir .. "/modules"
  if slurp(mods .. "/umlbed_gpl.ko") then return mods end
  local doc, err = definition.of_kernel(vm.kernel)
  if not doc then return nil, err end
  local _, gen = definition.own(doc)
  return vdir:match("^(.*)/[^/]+$") .. "/full" .. gen.suffix .. "/modules"
end

return M

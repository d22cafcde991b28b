---@meta
-- SPDX-License-Identifier: MIT
-- bed.lua: LuaLS definitions of umlbed.bed (runner/lua/lua/umlbed/bed.lua): the usual set-up in one call.
-- luacheck: no unused

---The options of bed.setup (page numbers are 0-based).
---@class umlbed.bed.options
---@field pages integer the file's size in pages (required)
---@field name? string the file's name in the shared folder (default "data")
---@field fill? string|fun(file:umlbed.file,ps:integer,pages:integer):any a byte repeated over the file, or a writer such as pagedata.fill
---@field vm? umlbed.vm a vm to use (default: boot one with t:vm())
---@field mode? umlbed.mode as proc:mmap (default "shared")
---@field prot? umlbed.prot as proc:mmap (default "r")
---@field first? integer the first mapped file page (default 0)
---@field count? integer the mapped file pages (default to the end of the file)
---@field map? boolean false: stop after the file (no process, no mapping)
---@field touch? boolean true: read every page of the mapping once

---What bed.setup returns.
---@class umlbed.bed.bed
---@field vm umlbed.vm the vm (booted, or the one given)
---@field ps integer the guest page size
---@field file umlbed.file the file of pages * ps bytes
---@field proc? umlbed.proc the process that maps it (nil with map = false)
---@field map? umlbed.mapping its mapping of the file (nil with map = false)

---The module: require "umlbed.bed".
---@class umlbed.bed
local bed = {}

---Boots a vm (or takes o.vm), creates a file of known contents, spawns a process and maps the file.
---@param t umlbed.t the scenario's t
---@param o umlbed.bed.options the set-up
---@return umlbed.bed.bed b vm, ps, file, proc and map; a failed step raises from the caller's line
function bed.setup(t, o) end

---Forks n sharers of mapping m of owner.
---@param owner umlbed.proc the process that maps m
---@param m umlbed.mapping the owner's mapping
---@param n integer how many sharers
---@return umlbed.mapping[] all m, then m as each child sees it
function bed.sharers(owner, m, n) end

---Starts a read loop over each mapping of list in its own t:go task and returns once every loop has started.
---@param t umlbed.t the scenario's t
---@param vm umlbed.vm the vm of the mappings
---@param list umlbed.mapping[] the mappings to loop over
---@return umlbed.loopctl ctl the loop control (ctl:stop() ends the loops)
---@return umlbed.task[] tasks one per mapping; task:wait() gives the loop's passes
---@return integer started how many loops started
function bed.loops(t, vm, list) end

---Copies a host file (a module of one's own, a program) into the vm's shared folder.
---@param vm umlbed.vm the vm
---@param hostpath string the host file
---@param name? string the name in the shared folder (default the host file's name)
---@return string|nil path the guest path, /shared/NAME
---@return string|nil err why not
function bed.stage(vm, hostpath, name) end

---The host folder with the project's test modules (umlbed_gpl.ko, umlbed_proprietary.ko) for the vm's kernel.
---@param vm umlbed.vm the vm whose kernel the modules are for
---@param root string the source tree's top (for the generation files)
---@return string|nil dir the modules' folder
---@return string|nil err why not
function bed.test_modules(vm, root) end

return bed

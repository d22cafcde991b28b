---@meta
-- SPDX-License-Identifier: MIT
-- model.lua: LuaLS definitions of umlbed.model (runner/lua/lua/umlbed/model.lua): the reference model of page states.
-- luacheck: no unused

---The options of model.new, generate, normalize and shrink.
---@class umlbed.model.options
---@field npages integer the file's pages
---@field pagesize? integer the page size (default 4096)
---@field exit? boolean false: generate no exit steps

---One step: op and the fields it uses.
---@class umlbed.model.step
---@field op string spawn, fork, exit, mmap, munmap, touch, read, write, hostwrite or invalidate
---@field id? integer the new process or mapping (spawn, fork, mmap)
---@field proc? integer the process
---@field map? integer the mapping
---@field mode? umlbed.mode the mapping's mode (mmap)
---@field first? integer the first file page (mmap)
---@field n? integer the pages (mmap)
---@field page? integer the page written (write, hostwrite)
---@field byte? string the byte written (write, hostwrite)
---@field off? integer the byte offset (invalidate)
---@field len? integer the byte length (invalidate)
---@field impl? umlbed.impl the implementation (invalidate)
---@field cache? umlbed.cache_policy the cache policy (invalidate)

---A modelled mapping of one process.
---@class umlbed.model.mapping
---@field mode umlbed.mode shared or private
---@field first integer the first file page
---@field n integer the pages
---@field pte table<integer,string> page states by mapping page (0-based): "-", "F" or "A"
---@field anon table<integer,string> the first byte of each anonymous copy
---@field anon_vma boolean whether the VMA has an anon_vma (decides what fork copies)

---The module: require "umlbed.model".
---@class umlbed.model
---@field IMPLS umlbed.impl[] every implementation name
local model = {}

---A small deterministic generator (xorshift64), the same on every Lua 5.4 build.
---@param seed integer the seed
---@return fun(n:integer):integer rand gives an integer from 1 to n
function model.rng(seed) end

---A fresh model; the first byte of page i is the digit i % 10.
---@param o umlbed.model.options npages and pagesize
---@return umlbed.model.state m the model
function model.new(o) end

---The page states of a modelled mapping, as t:pages wants them.
---@param mp umlbed.model.mapping the mapping
---@return string states one character per page
function model.states(mp) end

---The file page range an invalidation acts on, or nil for none.
---@param impl umlbed.impl the implementation
---@param off integer byte offset
---@param len integer byte length
---@param ps integer the page size
---@param _npages? integer unused
---@return integer|nil first the first page
---@return integer|nil last the last page (math.maxinteger: to the end)
function model.range(impl, off, len, ps, _npages) end

---One line per step, for reports and regression scenarios.
---@param s umlbed.model.step the step
---@return string line the step in words
function model.format(s) end

---A list of nsteps steps from seed, valid in order.
---@param seed integer the seed
---@param nsteps integer how many steps
---@param o umlbed.model.options npages, pagesize, exit
---@return umlbed.model.step[] steps the steps
function model.generate(seed, nsteps, o) end

---The steps of a list that are valid when run in order from a fresh model.
---@param steps umlbed.model.step[] the steps
---@param o umlbed.model.options npages and pagesize
---@return umlbed.model.step[] valid the valid steps
function model.normalize(steps, o) end

---A shorter list for which fails(list) is still true (ddmin), in at most budget runs.
---@param steps umlbed.model.step[] the failing steps
---@param fails fun(steps:umlbed.model.step[]):boolean runs a list, true when the divergence shows
---@param o umlbed.model.options npages and pagesize
---@param budget? integer at most this many runs (default 200)
---@return umlbed.model.step[] steps the shrunk list
---@return integer runs how many runs it took
function model.shrink(steps, fails, o, budget) end

---The model's state: processes, their mappings, the disk and the page cache.
---@class umlbed.model.state
---@field npages integer the file's pages
---@field ps integer the page size
---@field disk table<integer,string> the host file's first byte of each page
---@field cache table<integer,table<string,boolean>> the first bytes the page cache may hold for each page
---@field procs table<integer,{maps:table<integer,umlbed.model.mapping>}> the processes by id
---@field nprocs integer kept at 0 (unused)
local state = {}

---Whether the step is valid now (its process and mapping exist, its ids are new).
---@param s umlbed.model.step the step
---@return boolean valid whether it may be applied
function state:valid(s) end

---Every live mapping as {proc, mapid, mapping}, in a stable order.
---@return table[] mappings the mappings
function state:mappings() end

---Whether file page i is mapped as a file page anywhere (then it is certainly cached).
---@param i integer the file page
---@return boolean mapped whether some mapping has it present
function state:mapped(i) end

---Applies a valid step; for read, returns the allowed first bytes and a checker of what was read.
---@param s umlbed.model.step the step
---@return table<integer,table<string,boolean>>|nil want for read: the allowed first bytes per page
---@return (fun(got:string):boolean,string)|nil check for read: checks a read's first bytes and resolves the cache
function state:apply(s) end

return model

---@meta
-- SPDX-License-Identifier: MIT
-- explore_case.lua: LuaLS definitions of umlbed.explore_case (runner/lua/lua/umlbed/explore_case.lua): the explorer's generated cases.
-- luacheck: no unused

---A seeded generator (splitmix64): the same seed gives the same numbers everywhere.
---@class umlbed.explore_case.rng
local rng = {}

---The next 64-bit number.
---@return integer x the number
function rng:next() end

---An integer in [lo, hi].
---@param lo integer the lowest
---@param hi integer the highest
---@return integer x the number
function rng:int(lo, hi) end

---True with probability p.
---@param p number the probability
---@return boolean yes the draw
function rng:chance(p) end

---An element of list.
---@param list any[] the list
---@return any x the element
function rng:pick(list) end

---A value of a list of {weight, value}, by weight.
---@param list table[] the weights and values
---@return any x the value
function rng:weighted(list) end

---The options of explore_case.generate.
---@class umlbed.explore_case.opts
---@field ops string[] the operations of the tasks, two or three
---@field pagesize integer the guest's page size
---@field fs? string "host" or "tmp" (default: what an operation needs, else host four times in five)
---@field max_pages? integer the file's largest size in pages (default 4096)

---An operation of the explorer.
---@class umlbed.explore_case.op
---@field role string "map" (runs in a process that maps the file) or "file"
---@field makes? boolean it may bring pages or PTEs
---@field removes? boolean it may take pages or PTEs away
---@field rw? boolean it needs a writable mapping
---@field fs? string the file system it needs

---The module: require "umlbed.explore_case".
---@class umlbed.explore_case
---@field OPS table<string,umlbed.explore_case.op> the operations by name
---@field NAMES string[] their names, sorted
local explore_case = {}

---A generator seeded with seed.
---@param seed integer the seed
---@return umlbed.explore_case.rng r the generator
function explore_case.rng(seed) end

---The unordered pairs of operations, removers against makers first.
---@return string[][] pairs each {a, b}
function explore_case.pairs() end

---A case whose tasks run ops: the file, the processes and mappings, their set-up, the tasks.
---@param r umlbed.explore_case.rng the generator
---@param opts umlbed.explore_case.opts ops and pagesize
---@return table case the case
function explore_case.generate(r, opts) end

---The arguments of umlbed-explore that set the case up and name its tasks.
---@param c table the case
---@return string[] args one directive each
function explore_case.directives(c) end

---Every sequential order of the tasks' primitives that keeps each task's own order.
---@param c table the case
---@return string[] orders "T.P,T.P,..."
function explore_case.orders(c) end

---One line that says what the case is.
---@param c table the case
---@return string line the description
function explore_case.describe(c) end

return explore_case

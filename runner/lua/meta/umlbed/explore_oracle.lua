---@meta
-- SPDX-License-Identifier: MIT
-- explore_oracle.lua: LuaLS definitions of umlbed.explore_oracle (runner/lua/lua/umlbed/explore_oracle.lua): the explorer's oracle.
-- luacheck: no unused

---What umlbed-explore printed, read.
---@class umlbed.explore_oracle.state
---@field results table<string,string> each task's results ("T0" = "ok ; v1")
---@field procs table<string,string> each process: "alive" or "gone"
---@field vmas table<string,table[]> each process's VMAs of the file: {range =, pgoff =, perms =}
---@field ptes table<string,string> "Pn START" = one letter per page: - F A
---@field data table<string,string[]> "Pn START" = one token per page (vN, vN@K, z, hHASH, an errno name)
---@field cache string one digit per page of the file: in the page cache or not
---@field file table {pages =, toks =}: the file's size in pages and its pages' tokens
---@field edges table<string,table> each primitive "T.P": {b =, e =} the steps of its marks
---@field snaps table<string,table> the PTEs before and after each call of the series in a sequential order
---@field pagesize integer the guest's page size
---@field steps? integer the schedule's steps
---@field skipped? integer points passed where a task could not sleep
---@field tainted? integer the kernel's taint
---@field debug_locks? integer 1 while lockdep checks
---@field trace? string the kernel's trace, when asked for

---The module: require "umlbed.explore_oracle".
---@class umlbed.explore_oracle
local explore_oracle = {}

---Reads umlbed-explore's output.
---@param text string the output
---@return umlbed.explore_oracle.state st the state
function explore_oracle.parse(text) end

---A kernel report (the taint, or lockdep off), or nil.
---@param st umlbed.explore_oracle.state the state
---@return string|nil why what the kernel reported
function explore_oracle.report(st) end

---A state at odds with itself (a VMA's page holds another file page than its offset says), or nil.
---@param st umlbed.explore_oracle.state the state
---@return string|nil why the page and what it holds
function explore_oracle.inconsistent(st) end

---The file pages an invalidation of off, len reaches: first and last (nil: to the end), or nil for none.
---@param off integer the byte offset
---@param len integer the length in bytes
---@param impl string "seed", "unmap" or "unmap-keep-cows"
---@param ps integer the page size
---@return integer|nil first the first page
---@return integer|nil last the last page, nil for the end of the file
function explore_oracle.inval_pages(off, len, impl, ps) end

---The contract of one call of the series in a sequential order, or nil when it held.
---@param st umlbed.explore_oracle.state the state, with its snapshots
---@param tag string the primitive "T.P"
---@param words string[] its words: "inval", OFF, LEN, IMPL, CACHE
---@return string|nil why the page that broke it
function explore_oracle.contract(st, tag, words) end

---Whether a run's state is one the sequential orders leave (the whole, then page by page).
---@param st umlbed.explore_oracle.state the run's state
---@param seqs table[] each {order =, state =}
---@return boolean|nil ok true when explained
---@return string why the order that explains it, or why none does
function explore_oracle.check(st, seqs) end

return explore_oracle

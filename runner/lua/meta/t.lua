---@meta
-- SPDX-License-Identifier: MIT
-- t.lua: LuaLS definitions of the objects a scenario's run function gets: the test object t and its tasks.
--
-- A definition file for editors, never loaded by the runner, with umlbed.lua's conventions (its header says them);
-- the source of truth is runner/lua/t.c, runner/lua/task.c and docs/lua-t.md.
-- luacheck: no unused

---Expectations (record and go on) and requirements (end the scenario FAILED): run's first argument.
---@class umlbed.t
---@field name string display name with the matrix parameters
---@field file string the scenario file
---@field failures integer failures recorded so far
---@field params table<string,any> the matrix combination, also run's p argument
---@field [string] any other fields can be set and read freely, for helpers that only get t
local t = {}

---Seconds left before the scenario's timeout, for work that can stop early; never a verdict.
---@return number|nil seconds left, or nil without a timeout
function t:remaining() end

---Expects deep equality of expected and seen; a mismatch records a diff and the scenario goes on.
---@param expected any the expected value (first)
---@param seen any the value seen
---@param what? string what is compared, for the message
---@return boolean equal whether they are equal
function t:eq(expected, seen, what) end

---Expects cond to be truthy; t:expect(call()) with nil, err shows err.
---@param cond any the condition
---@param what? string what is expected, for the message
---@return any cond cond itself
function t:expect(cond, what) end

---Expects page states: want against m:pages() (a guest call) or a state string; "." matches any state.
---@param want string expected states, one character per page
---@param seen umlbed.mapping|string the mapping or the states seen
---@param what? string what is compared, for the message
---@return boolean equal whether they match
function t:pages(want, seen, what) end

---Requires cond; else records string.format(fmt, ...) (or err of a nil, err call) and ends the scenario FAILED.
---@param cond any the condition
---@param fmt? string message format, or the err of a failed call
---@param ... any format arguments
---@return any cond cond itself when it holds
function t:require(cond, fmt, ...) end

---t:eq that ends the scenario FAILED on a mismatch.
---@param expected any the expected value (first)
---@param seen any the value seen
---@param what? string what is compared, for the message
---@return true equal true when it returns
function t:assert_eq(expected, seen, what) end

---t:expect that ends the scenario FAILED.
---@param cond any the condition
---@param what? string what is expected, for the message
---@return any cond cond itself when it holds
function t:assert_true(cond, what) end

---t:pages that ends the scenario FAILED on a mismatch.
---@param want string expected states, one character per page
---@param seen umlbed.mapping|string the mapping or the states seen
---@param what? string what is compared, for the message
---@return true equal true when it returns
function t:assert_pages(want, seen, what) end

---Records an unconditional failure; the scenario goes on.
---@param msg? string the message (default "failed")
---@return nil
function t:fail(msg) end

---Adds a line to the report (not a failure).
---@param msg string the note
---@return nil
function t:note(msg) end

---Records one benchmark sample in the JSON report; never a verdict.
---@param name string the metric's name: printable, no '=' or '#'
---@param value number a finite number
---@param unit string the unit ("" for none)
---@param labels? table<string,string|number|boolean> at most 32 labels
---@return nil
function t:metric(name, value, unit, labels) end

---Ends the scenario as ok ... # SKIP reason; does not return (an error in a t:go task).
---@param reason? string why (default "skipped")
---@return nil
function t:skip(reason) end

---Boots an instance and yields until its agent is ready.
---@param opts? umlbed.vm_opts boot options
---@return umlbed.vm|nil vm the booted instance
---@return string|nil err "ENAME: message" if it could not start
---@return string|nil ename the errno name
function t:vm(opts) end

---Runs fn(...) as a concurrent task of the scenario from the next turn of the event loop.
---@param fn function the task's body
---@param ... any its arguments
---@return umlbed.task task the task, at once
function t:go(fn, ...) end

---A task started by t:go.
---@class umlbed.task
---@field done boolean fn has returned or raised
---@field index integer 1, 2, ... in t:go order (the run function is 0)
local task = {}

---Yields until the task's function returns and gives its results; re-raises its error.
---@return any ... the function's results
function task:wait() end

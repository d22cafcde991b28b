---@meta
-- SPDX-License-Identifier: MIT
-- points.lua: LuaLS definitions of umlbed.points (runner/lua/lua/umlbed/points.lua): the kernel's schedule points.
-- luacheck: no unused

---The options of points.arm.
---@class umlbed.points.arm_opts
---@field hit? integer the K-th task to pass the point from now parks there (default 1)
---@field proc? umlbed.proc count only this process's passes

---A point's status, as h:status and points.list give it.
---@class umlbed.points.status
---@field name string the point's name
---@field hits? integer passes since it was armed
---@field armed_hit? integer the hit that parks
---@field pid? integer the parked task's guest pid, or 0
---@field state string "idle", "armed", "parked" or "released" ("unknown" if the kernel does not list it)

---One step of points.schedule.
---@class umlbed.points.step
---@field start fun() starts the step (typically a t:go task)
---@field point? umlbed.points.handle the point the step parks at, if any

---The module: require "umlbed.points".
---@class umlbed.points
local points = {}

---Arms a point: the hit-th task to pass name from now parks there; armed when this returns.
---@param vm umlbed.vm the vm
---@param name string the point's name
---@param opts? umlbed.points.arm_opts hit and proc
---@return umlbed.points.handle|nil h the handle (close it, or use <close>)
---@return string|nil err "ENAME: message" (EBUSY if the point is armed or parked already)
---@return string|nil ename the errno name
function points.arm(vm, name, opts) end

---Every point's status, by name, read through a process when given one.
---@param from umlbed.vm|umlbed.proc where to read /sys/kernel/umlbed_points/points
---@return table<string,umlbed.points.status>|nil all the statuses by name
---@return string|nil err "ENAME: message" on a guest error
---@return string|nil ename the errno name
function points.list(from) end

---Returns once every other guest task has blocked or ended (the idle loop ran): an event, never a delay.
---@param proc umlbed.proc the worker that waits
---@param seconds? number the guest-clock bound (default 20, times UMLBED_TIMEOUT_SCALE)
---@return true|nil ok true
---@return string|nil err "ENAME: message" on a guest error
---@return string|nil ename the errno name
function points.settle(proc, seconds) end

---Settles until done() holds, or until a settle started after begun() held: an event, never a delay.
---@param ctl umlbed.proc the worker that settles
---@param begun fun(): boolean the event that shows the task has begun
---@param done fun(): boolean whether the task has returned
---@return true|nil ok true
---@return string|nil err "ENAME: message" on a guest error
---@return string|nil ename the errno name
function points.settle_after(ctl, begun, done) end

---A process's state letter from /proc (R, S, D, Z), or "gone".
---@param vm umlbed.vm the vm
---@param proc umlbed.proc the process
---@return string state the letter, or "gone"
function points.pstate(vm, proc) end

---Runs one interleaving: each step starts once the one before is parked, then all settle, then release in order.
---@param ctl umlbed.proc the worker that settles
---@param steps umlbed.points.step[] the steps
---@param order? integer[] the release order, as step indexes (default the steps' order)
---@return true|nil ok true
---@return string|nil err "ENAME: message" on a guest error
---@return string|nil ename the errno name
function points.schedule(ctl, steps, order) end

---A handle on one armed point, with a guest worker of its own; <close> closes it.
---@class umlbed.points.handle
---@field vm umlbed.vm the vm the point is armed in
---@field name string the point's name
---@field ctl? umlbed.proc the handle's worker (nil once closed)
local handle = {}

---Returns once a task is parked at the point, waiting in slices of at most a second.
---@param seconds? number the guest-clock bound (default 20, times UMLBED_TIMEOUT_SCALE)
---@return true|nil ok true
---@return string|nil err "ETIMEDOUT: point NAME was not hit ..." or another "ENAME: message"
---@return string|nil ename the errno name
function handle:wait(seconds) end

---Lets the parked task go on; the point is idle again.
---@return true|nil ok true
---@return string|nil err "ENAME: message" (EAGAIN if it was not hit yet)
---@return string|nil ename the errno name
function handle:release() end

---The point's status.
---@return umlbed.points.status|nil status name, hits, armed_hit, pid and state
---@return string|nil err "ENAME: message" on a guest error
---@return string|nil ename the errno name
function handle:status() end

---Back to idle; a parked task is released.
---@return true|nil ok true
---@return string|nil err "ENAME: message" on a guest error
---@return string|nil ename the errno name
function handle:disarm() end

---Disarms unless idle and ends the handle's worker; also the handle's __close.
---@return true|nil ok true
---@return string|nil err "ENAME: message" on a guest error
---@return string|nil ename the errno name
function handle:close() end

return points

---@meta
-- SPDX-License-Identifier: MIT
-- explore.lua: LuaLS definitions of umlbed.explore (runner/lua/lua/umlbed/explore.lua): the explorer's campaigns, schedules and replays.
-- luacheck: no unused

---The options of explore.campaign and explore.replay (scenarios/explore.lua fills them from its parameters).
---@class umlbed.explore.opts
---@field seed? integer the campaign's seed (default 1)
---@field cases? integer how many cases to run
---@field seconds? integer how long to run, instead of a count
---@field first? integer the first case number (default 0)
---@field depth? integer PCT's depth d (default 2)
---@field schedules? integer schedules per case (default 60)
---@field shard_k? integer this shard (1-based) of shard_n: every shard_n-th case from the shard_k-th
---@field shard_n? integer how many shards
---@field pairs? table<string,boolean> only the pairs of operations named "a+b" (both orders)
---@field toward? table<string,boolean> kernel functions a change touched: the campaign is directed at their points
---@field case? integer replay: the case number
---@field schedule? string replay: the schedule ("-": the sequential orders only)
---@field variant? string the variant, for the replay command a finding prints
---@field vm? umlbed.vm_opts the options of every vm booted

---A finding: what the oracle refused, or a hang, a crash or a contract broken in a sequential order.
---@class umlbed.explore.finding
---@field kind string "oracle", "sequential", "hang", "explorer" or "guest"
---@field why string what was wrong
---@field seed integer the campaign's seed
---@field case integer the case number
---@field schedule? string the schedule, nil for a sequential order
---@field seconds integer from the campaign's start to the finding
---@field cases integer cases run
---@field schedules integer schedules run
---@field replay string the command that replays it
---@field text string the whole report (the failure's text)

---The module: require "umlbed.explore".
---@class umlbed.explore
local explore = {}

---Runs generated cases until one is refused, or the count or the time is spent; a finding is also a failure of t.
---@param t umlbed.t the scenario's t
---@param opts umlbed.explore.opts seed, cases or seconds, depth, schedules, shard, pairs, toward
---@return umlbed.explore.finding|nil finding nil when nothing was found
function explore.campaign(t, opts) end

---Runs one case under one schedule (or only its sequential orders); a finding is also a failure of t.
---@param t umlbed.t the scenario's t
---@param opts umlbed.explore.opts seed, case and schedule
---@return umlbed.explore.finding|nil finding nil when nothing was found
function explore.replay(t, opts) end

---Case n of a campaign of seed seed: the n-th pair of operations (removers against makers first), generated.
---@param seed integer the campaign's seed
---@param n integer the case number
---@param pagesize integer the guest's page size
---@return table|nil case the case (umlbed.explore_case.generate's)
---@return umlbed.explore_case.rng|string rng_or_err its generator, or why it could not be made
function explore.case_of(seed, n, pagesize) end

---The schedules with no change: each initial order of n tasks' priorities, above floor.
---@param n integer the tasks
---@param floor integer the value the priorities start above
---@return table[] list each {prios = {...}, s = SCHEDULE}
function explore.orders_without_change(n, floor) end

---One preemption at each step of [1, k], for each initial order of n tasks.
---@param n integer the tasks
---@param k integer the steps
---@return string[] schedules the schedules
function explore.preemptions(n, k) end

---One preemption at the first step of each point (kind, lock, call site) of a run without change; then its repeats.
---@param prios integer[] the run's initial priorities
---@param trace string|nil the run's trace, a step a line ("STEP TASK KIND WHAT SITE")
---@param toward? table<string,boolean> a change's functions: their points first
---@return string[] schedules the first steps' schedules
---@return string[] repeats the repeats' schedules
function explore.preemptions_at_points(prios, trace, toward) end

---Whether a point is toward a change: its call sits in one of the functions, or it is the edge of one.
---@param toward table<string,boolean>|nil the change's functions
---@param what string the point's lock or edge ("i_mmap_rwsem", "unmap_mapping_range")
---@param site string its call site ("truncate_pagecache+0x4c/0x90")
---@return boolean
function explore.is_toward(toward, what, site) end

---Whether a trace passes a point toward a change.
---@param trace string|nil the trace, a step a line
---@param toward table<string,boolean>|nil the change's functions
---@return boolean
function explore.trace_toward(trace, toward) end

---The cursors of a campaign: in order, or, with probe, the change's next case ahead and the next in order in turns.
---@param first integer the first case number
---@param eligible fun(n: integer): table|nil, any case n's case and generator, or nil when the campaign skips it
---@param probe? fun(n: integer, c: table): boolean whether case n passes the change's points (nil: undirected)
---@param more fun(): boolean whether the budget has room
---@return table cursors with next(): the next case number to run whole, its case and generator, or nil
function explore.cursors(first, eligible, probe, more) end

---A PCT schedule of depth d for n tasks and about k steps.
---@param r umlbed.explore_case.rng the generator
---@param n integer the tasks
---@param k integer the steps
---@param d integer the depth
---@return string schedule "PRIO,PRIO/STEP:PRIO,..."
function explore.pct(r, n, k, d) end

---The kernel's trace as the interleaving: the steps in order, then the points each task passed.
---@param trace string|nil the trace umlbed-explore -t printed
---@return string text the interleaving
function explore.interleaving(trace) end

return explore

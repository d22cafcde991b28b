-- SPDX-License-Identifier: MIT
-- points.lua: schedule points: park a kernel task at a named place, see it parked, release it (forced interleavings).
--
--   local points = require "umlbed.points"
--   local h = points.arm(vm, "imr_before_zap", { hit = 1 })    -- the first hit parks its task
--   local inv = t:go(function() return vm:invalidate { file = f } end)
--   assert(h:wait())                                            -- a task is parked there now
--   ... the interleaving under test: exit, munmap, fault, another invalidation ...
--   assert(h:release())                                         -- it goes on
--   assert(inv:wait())
--
-- The kernel side is uml-kernel/points/GEN/ (every variant carries it): /sys/kernel/umlbed_points/. A point
-- armed at HIT parks the HIT-th task to pass it (counted from the arm; of one guest process with opts.proc) until
-- released. UML runs one task at a time and preempts none (PREEMPT_NONE): while one sleeps there, the others run,
-- so the order of events is the scenario's, on a host of any speed.
--
-- Each handle writes the control files from a worker of its own (a blocking wait must not stall PID 1, which may
-- be the very task that is parked). Failures are nil, "ENAME: message", "ENAME", like the object API's:
--   h:wait([seconds])  true once a task is parked; nil, "ETIMEDOUT: point NAME was not hit ..." if none is within
--                      seconds of the guest's clock (default 20, times UMLBED_TIMEOUT_SCALE): a point never hit is
--                      reported as such, never taken for a pass
--   h:release()        the parked task goes on, the point is idle
--   h:status()         { name =, hits =, armed_hit =, pid =, state = "idle"|"armed"|"parked"|"released" }
--   h:disarm()         back to idle; a parked task is released
--   h:close()          disarms and ends the handle's worker (also the handle's __close; a call into the
--                      guest cannot run from a finalizer, so there is no __gc): a scenario that
--                      arms many points in one guest closes them, or its workers pile up to the guest's limit on
--                      processes (clone then fails with EAGAIN)
-- points.list(vm or proc) gives every point's status, by name. points.settle(proc [, seconds]) returns once every
-- other guest task has blocked or ended (the idle loop ran): "has that path gone as far as it can?" as an event.
-- points.pstate(vm, proc) is a process's state letter from /proc (R, S, D, Z), or "gone".
-- points.schedule(ctl, steps [, order]) runs one interleaving of steps { start = function, point = handle or nil }:
-- each step starts once the one before is parked at its point (an event, never a delay), then all settle, then the
-- parked steps are released in order (a list of step indexes; default the steps' order), with a settle after each.
local M = {}

local DIR = "/sys/kernel/umlbed_points/"

local function scale()
  local s = tonumber(os.getenv("UMLBED_TIMEOUT_SCALE") or "")
  return s and s > 0 and s or 1
end

-- The status lines of the points file: NAME HITS ARMED_HIT PARKED_PID STATE.
local function parse(text)
  local all = {}
  for name, hits, armed, pid, state in text:gmatch("(%S+) (%d+) (%d+) (%d+) (%S+)\n") do
    all[name] = { name = name, hits = tonumber(hits), armed_hit = tonumber(armed), pid = tonumber(pid), state = state }
  end
  return all
end

-- points.list(vm_or_proc): read through a process when given one (PID 1 may be the task that is parked).
function M.list(from)
  local text, err, ename
  if from.pread then
    text, err, ename = from:pread(DIR .. "points", 0, 65536)
  else
    text, err, ename = from:readfile(DIR .. "points")
  end
  if not text then return nil, err, ename end
  return parse(text)
end

function M.settle(proc, seconds)
  local ms = math.floor((seconds or 20 * scale()) * 1000)
  local n, err, ename = proc:pwrite(DIR .. "settle", 0, tostring(ms))
  if not n then return nil, err, ename end
  return true
end

-- A settle proves that a task waits only if it ran after the task had begun what it waits in: the CPU can go idle
-- before a request has even reached its process. So the settle that counts is one started after begun() held.
function M.settle_after(ctl, begun, done)
  local seen = false
  repeat
    seen = seen or begun()
    local ok, err, ename = M.settle(ctl)
    if not ok then return nil, err, ename end
  until done() or seen
  return true
end

function M.pstate(vm, proc)
  local s = vm:readfile("/proc/" .. proc.pid .. "/stat")
  return s and s:match("^%d+ %b() (%a)") or "gone"
end

function M.schedule(ctl, steps, order)
  for _, step in ipairs(steps) do
    step.start()
    if step.point then
      local ok, err, ename = step.point:wait()
      if not ok then return nil, err, ename end
    end
  end
  local ok, err, ename = M.settle(ctl)
  if not ok then return nil, err, ename end
  local seq = order or {}
  if not order then for i = 1, #steps do seq[i] = i end end
  for _, i in ipairs(seq) do
    local h = steps[i].point
    if h then
      ok, err, ename = h:release()
      if ok then ok, err, ename = M.settle(ctl) end
      if not ok then return nil, err, ename end
    end
  end
  return true
end

local H = {}
H.__index = H

local function write(h, file, line)
  return h.ctl:pwrite(DIR .. file, 0, line)
end

function H:status()
  local all, err, ename = M.list(self.ctl)
  if not all then return nil, err, ename end
  return all[self.name] or { name = self.name, state = "unknown" }
end

-- The wait is cut into slices of at most a second, each a round trip to the host: under time-travel an idle guest's
-- clock jumps to its next timer, and a slice can end before the host has sent the request that reaches the point;
-- between slices the host sends it. The total is still the guest's clock, as before.
function H:wait(seconds)
  local ms = math.floor((seconds or 20 * scale()) * 1000)
  assert(ms >= 1 and ms <= 3600000, "points: wait wants 0.001 to 3600 seconds")
  local left, n, err, ename = ms
  repeat
    local slice = math.min(left, 1000)
    n, err, ename = write(self, "wait", ("%s %d"):format(self.name, slice))
    left = left - slice
  until n or ename ~= "ETIMEDOUT" or left <= 0
  if n then return true end
  if ename == "ETIMEDOUT" then
    local st = self:status() or {}
    return nil, ("ETIMEDOUT: point %s was not hit within %d ms (%s hits since it was armed, state %s)"):format(
      self.name, ms, tostring(st.hits), tostring(st.state)), ename
  end
  return nil, err, ename
end

function H:release()
  local n, err, ename = write(self, "release", self.name)
  if not n then return nil, err, ename end
  return true
end

function H:disarm()
  local n, err, ename = write(self, "disarm", self.name)
  if not n then return nil, err, ename end
  return true
end

function H:close()
  if not self.ctl then return true end
  local ctl = self.ctl
  self.ctl = nil
  local st = M.list(ctl)
  if st and st[self.name] and st[self.name].state ~= "idle" then
    ctl:pwrite(DIR .. "disarm", 0, self.name)
  end
  local ok, err, ename = ctl:exit()
  if not ok then return nil, err, ename end
  return true
end

H.__close = function(h) h:close() end

-- points.arm(vm, name, { hit = 1, proc = p }) -> handle: the point is armed when this returns.
function M.arm(vm, name, opts)
  opts = opts or {}
  local hit = opts.hit or 1
  assert(type(name) == "string" and name:match("^[%w_]+$"), "points.arm: a point's name")
  assert(math.type(hit) == "integer" and hit >= 1, "points.arm: hit must be a positive integer")
  local ctl, err, ename = vm:spawn()
  if not ctl then return nil, err, ename end
  local h = setmetatable({ vm = vm, name = name, ctl = ctl }, H)
  local line = opts.proc and ("%s %d %d"):format(name, hit, opts.proc.pid) or ("%s %d"):format(name, hit)
  local n
  n, err, ename = write(h, "arm", line)
  if not n then
    h:close()
    return nil, err, ename
  end
  return h
end

return M

-- SPDX-License-Identifier: MIT
-- meta-api.lua: lists the umlbed Lua API as it is at run time (methods, module keys, fields), for meta.t (fake UML, --unsafe-lua).
--
-- Writes $UMLBED_META_OUT: "sampled CLASS all|functions", then "function CLASS NAME" and "field CLASS NAME" lines.
-- A C object's methods are the table its __index closure keeps as its first upvalue (runner/lua/util.c), hence
-- --unsafe-lua for debug.getupvalue; its fields come from a getter and cannot be listed, so each name of
-- $UMLBED_META_PROBE ("CLASS NAME" lines: the declared ones and the C getters') is read, and a non-nil value counts.
local umlbed = require "umlbed"

local out, probe

-- The environment names both files: the scenario writes one and reads the other when it runs, not when it loads.
local function open_files()
  out = assert(io.open((assert(os.getenv("UMLBED_META_OUT"), "UMLBED_META_OUT is not set")), "w"))
  probe = {}
  for l in io.lines((assert(os.getenv("UMLBED_META_PROBE"), "UMLBED_META_PROBE is not set"))) do
    local cn, name = l:match("^(%S+) (%S+)$")
    if cn then
      probe[cn] = probe[cn] or {}
      probe[cn][#probe[cn] + 1] = name
    end
  end
end

local function emit(kind, cn, name) out:write(kind, " ", cn, " ", name, "\n") end

-- A plain table's keys (a module, a Lua object): functions and fields, "__" metamethods left out.
local function keys(cn, tab, what)
  emit("sampled", cn, what or "all")
  for k, v in pairs(tab) do
    if type(k) == "string" and not k:match("^__") then
      if type(v) == "function" then
        emit("function", cn, k)
      elseif what ~= "functions" then
        emit("field", cn, k)
      end
    end
  end
end

-- A C object: its class is the metatable's __name; methods from the __index closure, fields by probing.
local function object(obj)
  local mt = getmetatable(obj)
  local cn = mt.__name
  local _, methods = debug.getupvalue(mt.__index, 1)
  assert(type(methods) == "table", cn .. ": __index keeps no method table")
  emit("sampled", cn, "all")
  for k in pairs(methods) do emit("function", cn, k) end
  for _, name in ipairs(probe[cn] or {}) do
    local v = obj[name]
    if v ~= nil and type(v) ~= "function" then emit("field", cn, name) end
  end
end

-- The upvalue NAME of function f.
local function upvalue(f, name)
  for i = 1, 255 do
    local n, v = debug.getupvalue(f, i)
    if n == nil then break end
    if n == name then return v end
  end
  error("no upvalue " .. name)
end

return {
  name = "meta: the API at run time",
  run = function(t)
    open_files()
    local vm = assert(t:vm())
    local proc = assert(vm:spawn())
    -- The fake agent's mmap reply echoes the path as the address, so a numeric path maps without a kernel.
    local m = assert(proc:mmap("4096", { length = 4096 }))
    local f = assert(vm:file("meta", 4096))
    local ctl = assert(vm:loopctl())
    local task = t:go(function() return true end)
    for _, obj in ipairs { vm, proc, m, f, ctl, t, task } do object(obj) end
    t:assert_true(task:wait(), "the task ran")
    keys("umlbed", umlbed)
    keys("umlbed.finding", umlbed.findings("[    1.0] WARNING: CPU: 0 PID: 1 at x.c:1 f+0x0/0x1\n")[1])
    for _, name in ipairs { "bed", "points", "pagedata", "model", "definition", "explore", "explore_case",
                            "explore_oracle" } do
      keys("umlbed." .. name, require("umlbed." .. name))
    end
    -- A points handle cannot be armed on the fake: its methods are those of the metatable points.arm sets.
    keys("umlbed.points.handle", upvalue(require("umlbed.points").arm, "H"), "functions")
    local state = require("umlbed.model").new { npages = 2 }
    keys("umlbed.model.state", getmetatable(state).__index, "functions")
    keys("umlbed.model.state", state)
    keys("umlbed.bed.bed", require("umlbed.bed").setup(t, { pages = 1, map = false, vm = vm }))
    keys("umlbed.explore_case.rng", getmetatable(require("umlbed.explore_case").rng(1)).__index, "functions")
    out:close()
  end,
}

-- SPDX-License-Identifier: MIT
-- meta-decls.lua: meta.t's host script (lua5.4, not a scenario): reads the LuaLS definitions, the docs and the C getters, and compares them.
--
--   lua5.4 meta-decls.lua decls META.lua...         the declarations: "class C", "function C NAME", "field C NAME req|opt"
--   lua5.4 meta-decls.lua lint META.lua...          FILE:LINE: what a function or field lacks (description, @param, @return)
--   lua5.4 meta-decls.lua docs DECLS DOC.md...      the API names the docs mention that DECLS does not declare
--   lua5.4 meta-decls.lua cgetters FILE.c|.h...     "field C NAME" for each name a C getter (X_get) answers
--   lua5.4 meta-decls.lua missing DECLS RUNTIME     what DECLS declares and the run did not see (in the classes it sampled)
--   lua5.4 meta-decls.lua extra DECLS RUNTIME       what the run saw and DECLS does not declare
-- Each prints one line per finding and exits 1 if there is any (decls and cgetters: 1 if they found nothing).
-- RUNTIME is meta-api.lua's output: "sampled C all|functions", "function C NAME", "field C NAME".
local mode = arg[1]

local function lines(path)
  local fh = assert(io.open(path, "r"))
  local r = {}
  for l in fh:lines() do r[#r + 1] = l end
  fh:close()
  return r
end

-- The end of the type that starts at s[i]: a blank outside brackets ends it.
local function type_end(s, i)
  local depth = 0
  while i <= #s do
    local c = s:sub(i, i)
    if c == "(" or c == "<" or c == "{" or c == "[" then
      depth = depth + 1
    elseif c == ")" or c == ">" or c == "}" or c == "]" then
      depth = depth - 1
    elseif c:match("%s") and depth <= 0 then
      return i - 1
    end
    i = i + 1
  end
  return #s
end

-- One field line "---@field NAME[?] TYPE description": name, optional, type, description (nil for an index field).
local function parse_field(l)
  local rest = l:match("^%-%-%-@field%s+(.*)$")
  if not rest or rest:match("^%[") then return nil end
  local name, after = rest:match("^([%w_]+%??)%s+(.*)$")
  if not name then return { bad = true } end
  local e = type_end(after, 1)
  local ty, desc = after:sub(1, e), after:sub(e + 1):match("^%s*(.-)%s*$")
  return { name = name:gsub("%?$", ""), opt = name:sub(-1) == "?", type = ty, desc = desc }
end

-- Reads META files: the classes, their fields and functions, and the problems (lint).
local function read_meta(files)
  local classes, order, problems = {}, {}, {}
  local function class(name)
    if not classes[name] then
      classes[name] = { fields = {}, functions = {} }
      order[#order + 1] = name
    end
    return classes[name]
  end
  for _, path in ipairs(files) do
    local ls = lines(path)
    local vars, current = {}, nil
    local function problem(i, text) problems[#problems + 1] = ("%s:%d: %s"):format(path, i, text) end
    -- The block of "---" lines just above line i.
    local function block(i)
      local b, j = {}, i - 1
      while j >= 1 and ls[j]:match("^%-%-%-") do
        table.insert(b, 1, { text = ls[j], line = j })
        j = j - 1
      end
      return b
    end
    for i, l in ipairs(ls) do
      local cname = l:match("^%-%-%-@class%s+([%w_.]+)")
      if cname then
        current = cname
        class(cname)
        local b = block(i)
        if not (b[1] and b[1].text:match("^%-%-%-[^@%s]")) then
          problem(i, "class " .. cname .. ": no description line above it")
        end
      end
      local f = parse_field(l)
      if f then
        if f.bad or not current then
          problem(i, "a field line that does not read as ---@field NAME TYPE description, in a class")
        else
          class(current).fields[f.name] = f.opt and "opt" or "req"
          if f.desc == "" then problem(i, current .. "." .. f.name .. ": a field without a description") end
        end
      end
      local var = l:match("^local%s+([%w_]+)%s*=%s*{}")
      if var then
        local b = block(i)
        for _, x in ipairs(b) do vars[var] = x.text:match("^%-%-%-@class%s+([%w_.]+)") or vars[var] end
        if not vars[var] then problem(i, "local " .. var .. " follows no ---@class") end
      end
      local v, sep, fname, params = l:match("^function%s+([%w_]+)([.:])([%w_]+)%s*%((.-)%)")
      if v then
        local cn = vars[v]
        local who = (cn or v) .. sep .. fname
        if not cn then
          problem(i, who .. ": " .. v .. " is bound to no class")
        else
          class(cn).functions[fname] = true
        end
        local b = block(i)
        local ndesc, first_desc, declared, nret = 0, false, {}, 0
        for k, x in ipairs(b) do
          local t = x.text
          if t:match("^%-%-%-[^@]") and t:match("^%-%-%-%s*%S") then
            ndesc = ndesc + 1
            if k == 1 then first_desc = true end
          end
          local pname, prest = t:match("^%-%-%-@param%s+([%w_.]+)%??%s*(.*)$")
          if pname then
            declared[pname] = true
            if prest == "" then problem(x.line, who .. ": @param " .. pname .. " has no type") end
          end
          if t:match("^%-%-%-@return%s+%S") then nret = nret + 1 end
        end
        if ndesc ~= 1 or not first_desc then
          problem(i, who .. ": wants one description line, first in its block (has " .. ndesc .. ")")
        end
        local sig = {}
        for p in params:gmatch("[^,%s]+") do
          sig[p] = true
          if not declared[p] then problem(i, who .. ": no @param for " .. p) end
        end
        for p in pairs(declared) do
          if not sig[p] then problem(i, who .. ": @param " .. p .. " is not in the signature") end
        end
        if nret == 0 then problem(i, who .. ": no @return (---@return nil for none)") end
      end
    end
  end
  return classes, order, problems
end

-- A DECLS file (the decls mode's output) as classes.
local function read_decls(path)
  local c = {}
  for _, l in ipairs(lines(path)) do
    local kind, cn, name, req = l:match("^(%S+) (%S+) ?(%S*) ?(%S*)$")
    if kind then
      c[cn] = c[cn] or { fields = {}, functions = {} }
      if kind == "field" then c[cn].fields[name] = req end
      if kind == "function" then c[cn].functions[name] = true end
    end
  end
  return c
end

local function sorted(t)
  local r = {}
  for k in pairs(t) do r[#r + 1] = k end
  table.sort(r)
  return r
end

local function finish(found)
  for _, f in ipairs(found) do print(f) end
  os.exit(#found == 0 and 0 or 1)
end

if mode == "decls" or mode == "lint" then
  local classes, order, problems = read_meta({ table.unpack(arg, 2) })
  if mode == "lint" then finish(problems) end
  for _, cn in ipairs(order) do
    print("class " .. cn)
    for _, f in ipairs(sorted(classes[cn].functions)) do print("function " .. cn .. " " .. f) end
    for _, f in ipairs(sorted(classes[cn].fields)) do
      print("field " .. cn .. " " .. f .. " " .. classes[cn].fields[f])
    end
  end
  os.exit(#order > 0 and 0 or 1)
elseif mode == "docs" then
  -- How the docs name objects: `vm:spawn()`, `m.addr`, `points.arm(...)`, `umlbed.encode(s)`.
  local prefix = { vm = "umlbed.vm", proc = "umlbed.proc", m = "umlbed.mapping", f = "umlbed.file", t = "umlbed.t",
                   task = "umlbed.task", ctl = "umlbed.loopctl", h = "umlbed.points.handle", umlbed = "umlbed",
                   points = "umlbed.points", pd = "umlbed.pagedata", bed = "umlbed.bed" }
  -- `umlbed.bed` and the like are module names, not members of the umlbed module.
  local modules = { bed = true, points = true, pagedata = true, model = true, definition = true }
  -- Tables of names: the boot options (lua-vm.md's "option" table) and the scenario table (scenarios.md).
  local tables = { ["lua-vm.md|option"] = "umlbed.vm_opts", ["scenarios.md|## The table"] = "umlbed.scenario" }
  local decls = read_decls(arg[2])
  local found, seen = {}, 0
  local function want(cn, name, fn, where, sep)
    seen = seen + 1
    local c = decls[cn]
    if not c or not (c.functions[name] or (not fn and c.fields[name])) then
      found[#found + 1] = ("%s: %s%s%s is documented, not declared"):format(where, cn, sep or ".", name)
    end
  end
  for k = 3, #arg do
    local path = arg[k]
    local base = path:match("[^/]+$")
    local heading, intable = nil, nil
    for i, l in ipairs(lines(path)) do
      local where = base .. ":" .. i
      if l:match("^#") then heading = l end
      if l:match("^|") then
        if not intable then
          intable = tables[base .. "|" .. (l:match("^|%s*(%w+)") or "")] or tables[base .. "|" .. (heading or "")] or
                    false
        elseif not l:match("^|%-") then
          local name = l:match("^|%s*`([%w_]+)`%s*|")
          if intable and name then want(intable, name, false, where) end
        end
      else
        intable = nil
      end
      for span in l:gmatch("`([^`]+)`") do
        local p, sep, name, after = span:match("^([%w_]+)([:.])([%w_]+)(.?)")
        local cn = p and prefix[p]
        local assignment = span:match("^[%w_]+%.[%w_]+%s*=")
        if cn and after ~= "*" and not assignment and not (p == "umlbed" and modules[name]) then
          want(cn, name, sep == ":" or after == "(", where, sep)
        end
      end
    end
  end
  if seen == 0 then found[#found + 1] = "the docs name no API at all: the reader is broken" end
  finish(found)
elseif mode == "cgetters" then
  -- The class of each metatable macro (lumlbed.h), and each class's getter (umb_lua_newclass's last argument).
  local mt, getter_class, text = {}, {}, {}
  for k = 2, #arg do
    local all = table.concat(lines(arg[k]), "\n")
    text[#text + 1] = all
    for macro, name in all:gmatch('#define%s+(UMB_[%w_]+_MT)%s+"([^"]+)"') do mt[macro] = name end
  end
  local n = 0
  for _, all in ipairs(text) do
    for macro, getter in all:gmatch("umb_lua_newclass%(L,%s*([%w_]+),[^;]-,%s*([%w_]+)%)") do
      getter_class[getter] = mt[macro]
    end
  end
  for _, all in ipairs(text) do
    for getter, body in all:gmatch("\nstatic int ([%w_]+)%(lua_State %*L%) {\n(.-)\n}") do
      local cn = getter_class[getter]
      if cn then
        for name in body:gmatch('strcmp%(k, "([^"]+)"%)') do
          print("field " .. cn .. " " .. name)
          n = n + 1
        end
      end
    end
  end
  os.exit(n > 0 and 0 or 1)
elseif mode == "missing" or mode == "extra" then
  local decls = read_decls(arg[2])
  local sampled, rt = {}, {}
  for _, l in ipairs(lines(arg[3])) do
    local kind, cn, name = l:match("^(%S+) (%S+) (%S+)$")
    if kind == "sampled" then sampled[cn] = name end
    if kind == "function" or kind == "field" then
      rt[cn] = rt[cn] or { fields = {}, functions = {} }
      rt[cn][kind == "field" and "fields" or "functions"][name] = true
    end
  end
  local found = {}
  if mode == "missing" then
    for _, cn in ipairs(sorted(sampled)) do
      local d, r = decls[cn] or { fields = {}, functions = {} }, rt[cn] or { fields = {}, functions = {} }
      for _, f in ipairs(sorted(d.functions)) do
        if not r.functions[f] then found[#found + 1] = ("%s:%s is declared, not there at run time"):format(cn, f) end
      end
      if sampled[cn] == "all" then
        for _, f in ipairs(sorted(d.fields)) do
          if d.fields[f] == "req" and not r.fields[f] then
            found[#found + 1] = ("%s.%s is declared (not optional), nil at run time"):format(cn, f)
          end
        end
      end
    end
    -- A class with functions that the run did not sample would go unchecked.
    for _, cn in ipairs(sorted(decls)) do
      if next(decls[cn].functions) and not sampled[cn] then
        found[#found + 1] = cn .. " declares functions, and the run sampled no such object"
      end
    end
  else
    for _, cn in ipairs(sorted(rt)) do
      local d = decls[cn] or { fields = {}, functions = {} }
      for _, f in ipairs(sorted(rt[cn].functions)) do
        if not d.functions[f] then found[#found + 1] = ("%s:%s is there at run time, not declared"):format(cn, f) end
      end
      for _, f in ipairs(sorted(rt[cn].fields)) do
        if not d.fields[f] then found[#found + 1] = ("%s.%s is there at run time, not declared"):format(cn, f) end
      end
    end
  end
  finish(found)
else
  io.stderr:write("usage: meta-decls.lua decls|lint|docs|cgetters|missing|extra ...\n")
  os.exit(2)
end

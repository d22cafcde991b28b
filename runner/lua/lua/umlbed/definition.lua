-- SPDX-License-Identifier: MIT
-- definition.lua: the variant and generation definitions as uml-kernel/generation.sh resolved them, read from its JSON.
--
-- generation.sh is the one reader of the variant, generation and series files; the sandbox cannot run it, so
-- uml-kernel/build.sh writes its document (generation.sh json VARIANT) beside each kernel it builds, as
-- BUILD/kernel/VARIANT/variant.json. The document has every variant name of every generation, built or not, so a
-- kernel answers for the name it was given (a full binary named gpl-only is judged by gpl-only's definition):
--   variant      the name the kernel was built as
--   default      the default generation
--   generations  GEN -> its file's keys (and name = GEN)
--   variants     NAME -> {name, generation, base, file, configs = {...}, export, stack = {...}}
local M = {}

local ESCAPES = { ['"'] = '"', ["\\"] = "\\", ["/"] = "/", b = "\b", f = "\f", n = "\n", r = "\r", t = "\t" }

-- The value of the JSON text s (null is nil), or an error naming the byte where it is malformed.
function M.decode(s)
  local pos = 1
  local function fail(what) error(("JSON byte %d: %s"):format(pos, what), 0) end
  local function skip() pos = s:find("[^ \t\r\n]", pos) or #s + 1 end
  local function at() return s:sub(pos, pos) end
  local function str()
    local out = {}
    pos = pos + 1
    while true do
      local _, last, chunk, stop = s:find('^([^"\\]*)(["\\])', pos)
      if not last then fail("unterminated string") end
      out[#out + 1] = chunk
      pos = last + 1
      if stop == '"' then return table.concat(out) end
      local hex = s:match("^u(%x%x%x%x)", pos)
      if hex then
        out[#out + 1] = utf8.char(tonumber(hex, 16))
        pos = pos + 5
      else
        out[#out + 1] = ESCAPES[at()] or fail("bad escape")
        pos = pos + 1
      end
    end
  end
  local value
  -- A list of values (or key: value pairs) up to close, the opening bracket at pos.
  local function items(close, one)
    pos = pos + 1
    skip()
    if at() == close then
      pos = pos + 1
      return
    end
    while true do
      one()
      skip()
      local c = at()
      pos = pos + 1
      if c == close then return end
      if c ~= "," then fail("',' or '" .. close .. "' expected") end
    end
  end
  function value()
    skip()
    local c = at()
    if c == "{" then
      local t = {}
      items("}", function()
        skip()
        if at() ~= '"' then fail("a key expected") end
        local k = str()
        skip()
        if at() ~= ":" then fail("':' expected") end
        pos = pos + 1
        t[k] = value()
      end)
      return t
    elseif c == "[" then
      local t = {}
      items("]", function() t[#t + 1] = value() end)
      return t
    elseif c == '"' then
      return str()
    end
    for word, v in pairs { ["true"] = true, ["false"] = false, null = "null" } do
      if s:sub(pos, pos + #word - 1) == word then
        pos = pos + #word
        if v == "null" then return nil end
        return v
      end
    end
    local num = s:match("^-?%d+%.?%d*[eE]?[-+]?%d*", pos)
    if not num or num == "" then fail("a value expected") end
    pos = pos + #num
    return tonumber(num) or fail("bad number " .. num)
  end
  local v = value()
  skip()
  if pos <= #s then fail("text after the value") end
  return v
end

-- The document in the file path, or nil and why.
function M.load(path)
  local fh, err = io.open(path, "r")
  if not fh then return nil, tostring(err) end
  local text = fh:read("a")
  fh:close()
  local ok, doc = pcall(M.decode, text)
  if not ok then return nil, path .. ": " .. doc end
  return doc
end

-- The document beside a built kernel (BUILD/kernel/VARIANT/obj/linux: its variant.json), or nil and why.
function M.of_kernel(kernel)
  local vdir = tostring(kernel):match("^(.*)/[^/]+/[^/]+$")
  if not vdir then return nil, "kernel " .. tostring(kernel) .. " is not at BUILD/kernel/VARIANT/obj/linux" end
  local doc, err = M.load(vdir .. "/variant.json")
  if doc and not (doc.variant and doc.variants and doc.generations and doc.variants[doc.variant]) then
    doc, err = nil, vdir .. "/variant.json: not a definition of the kernel's variant"
  end
  if not doc then return nil, err .. " (uml-kernel/build.sh VARIANT writes it)" end
  return doc
end

-- The kernel's own definition in doc (of_kernel's) and its generation's keys.
function M.own(doc)
  local def = doc.variants[doc.variant]
  return def, doc.generations[def.generation]
end

-- The definition of variant name in doc for the kernel doc is beside: the name in the kernel's generation (as
-- given, or with the generation's suffix, as umlbed run --generation GEN --variant NAME gives it), else the name's
-- own. nil and why when no generation has that variant.
function M.variant(doc, name)
  local _, gen = M.own(doc)
  local def = doc.variants[name]
  if def and def.generation == gen.name then return def end
  def = doc.variants[name .. (gen.suffix or "")] or def
  if not def then return nil, "no variant " .. tostring(name) .. " (uml-kernel/variants/)" end
  return def
end

-- Whether definition def merges the config fragment frag (a file name of uml-kernel/config/).
function M.merges(def, frag)
  for _, f in ipairs(def.configs) do
    if f == frag then return true end
  end
  return false
end

return M

-- SPDX-License-Identifier: MIT
-- generation.lua: reads the kernel generation files (uml-kernel/generations/) and a built kernel's variant.info.
--
-- The format is uml-kernel/generations/README.md's: a first comment line, then "KEY VALUE" lines (a key alone has
-- the empty value; blank lines and # comments are ignored). variant.info has the same format.
local M = {}

-- The keys of a KEY VALUE file, or nil and why.
function M.parse(path)
  local fh, err = io.open(path, "r")
  if not fh then return nil, tostring(err) end
  local keys = {}
  for line in fh:lines() do
    local key, rest = line:match("^%s*([^%s#]%S*)(.*)$")
    if key and keys[key] == nil then keys[key] = rest:match("^%s*(.-)%s*$") end
  end
  fh:close()
  return keys
end

-- The keys of generation gen of the tree at root (the repository's top), or nil and why.
function M.read(root, gen)
  if not tostring(gen):match("^%d[^/]*$") then return nil, "no generation '" .. tostring(gen) .. "'" end
  local keys, err = M.parse(root .. "/uml-kernel/generations/" .. gen)
  if not keys then return nil, "no generation " .. gen .. " (" .. err .. ")" end
  return keys
end

-- The default generation of the tree at root, or nil and why.
function M.default(root)
  local keys, err = M.parse(root .. "/uml-kernel/generations/default")
  if not keys or not keys.generation then
    return nil, "uml-kernel/generations/default names no generation" .. (err and " (" .. err .. ")" or "")
  end
  return keys.generation
end

-- The lines of file path without comments ("#" to the end) and blanks, or nil and why.
local function lines_of(path)
  local fh, err = io.open(path, "r")
  if not fh then return nil, tostring(err) end
  local out, no = {}, 0
  for line in fh:lines() do
    no = no + 1
    line = line:gsub("#.*$", ""):match("^%s*(.-)%s*$")
    if line ~= "" then out[#out + 1] = { text = line, no = no } end
  end
  fh:close()
  return out
end

-- The stack of variant name in the tree at root, composed as uml-kernel/generation.sh stack composes it: the base of
-- its generation (the folders its "stack" key names, each in its series file's order) without the variant file's
-- "drop" lines, then its "add" lines. {generation =, patches = {PATH...}, configs = {NAME...}} or nil and why; a
-- variant file that generation.sh refuses is refused here with the same file and line.
function M.variant(root, name)
  if not tostring(name):match("^[%w_.-]+$") then return nil, "no variant '" .. tostring(name) .. "'" end
  local rel = "uml-kernel/variants/" .. name
  local lines, err = lines_of(root .. "/" .. rel)
  if not lines then return nil, "no definition " .. rel .. " (" .. err .. ")" end
  local v = { patches = {}, configs = {} }
  local adds, drops = {}, {}
  for _, l in ipairs(lines) do
    local k, val = l.text:match("^(%S+)%s+(.-)$")
    local where = rel .. ":" .. l.no
    if k == "generation" then v.generation = val
    elseif k == "config" then v.configs[#v.configs + 1] = val
    elseif k == "add" then adds[#adds + 1] = val
    elseif k == "drop" then drops[val] = where
    else
      return nil, where .. ": '" .. l.text .. "' is not a line of a variant file (generation, config, add or drop)"
    end
  end
  if not v.generation then
    local g, gerr = M.default(root)
    if not g then return nil, gerr end
    v.generation = g
  end
  local gen, gerr = M.read(root, v.generation)
  if not gen then return nil, gerr end
  local base = {}
  for key in (gen.stack or ""):gmatch("%S+") do
    local dir = gen[key]
    if not dir then return nil, "generation " .. v.generation .. " has no key '" .. key .. "'" end
    local series, serr = lines_of(root .. "/" .. dir .. "/series")
    if not series then return nil, "no series file " .. dir .. "/series (" .. serr .. ")" end
    for _, l in ipairs(series) do base[#base + 1] = dir .. "/" .. l.text:match("^%S+") end
  end
  if #base == 0 then return nil, "generation " .. v.generation .. " has no base stack (its stack key)" end
  local left = {}
  for _, p in ipairs(base) do
    if drops[p] then left[p] = true else v.patches[#v.patches + 1] = p end
  end
  for p, where in pairs(drops) do
    if not left[p] then
      return nil, where .. ": drop " .. p .. ": not a patch of generation " .. v.generation .. "'s base stack"
    end
  end
  for _, p in ipairs(adds) do
    for _, q in ipairs(v.patches) do
      if p == q then return nil, rel .. ": add " .. p .. ": already in the stack" end
    end
    v.patches[#v.patches + 1] = p
  end
  return v
end

-- Whether the definition of variant name, in the tree at root, merges the config fragment frag (a file name of
-- uml-kernel/config/, as its "config" lines give it), or nil and why.
function M.merges(root, name, frag)
  local def, err = M.variant(root, name)
  if not def then return nil, err end
  for _, f in ipairs(def.configs) do
    if f == frag then return true end
  end
  return false
end

-- The repository root of a scenario file (a file of its scenarios/ folder), as the runner loaded it (t.file).
function M.root_of(file) return (tostring(file):match("^(.*)/[^/]+$") or ".") .. "/.." end

-- What build.sh wrote next to a built kernel (BUILD/kernel/VARIANT/obj/linux): {generation=, base=, export=, configs=}
-- (export: the EXPORT_SYMBOL* its definition's patches give invalidate_mmap_range, or "none"; configs: its own
-- fragments), or nil and why.
function M.info(kernel)
  local vdir = kernel:match("^(.*)/[^/]+/[^/]+$")
  if not vdir then return nil, "kernel " .. kernel .. " is not at BUILD/kernel/VARIANT/obj/linux" end
  local keys, err = M.parse(vdir .. "/variant.info")
  if keys and not (keys.generation and keys.base) then err = vdir .. "/variant.info: no generation or base line" end
  if err then return nil, err .. " (uml-kernel/build.sh writes it)" end
  return keys
end

return M

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

-- What build.sh wrote next to a built kernel (BUILD/kernel/VARIANT/obj/linux): {generation=, base=, export=}
-- (export: the EXPORT_SYMBOL* its definition's patches give invalidate_mmap_range, or "none"), or nil and why.
function M.info(kernel)
  local vdir = kernel:match("^(.*)/[^/]+/[^/]+$")
  if not vdir then return nil, "kernel " .. kernel .. " is not at BUILD/kernel/VARIANT/obj/linux" end
  local keys, err = M.parse(vdir .. "/variant.info")
  if keys and not (keys.generation and keys.base) then err = vdir .. "/variant.info: no generation or base line" end
  if err then return nil, err .. " (uml-kernel/build.sh writes it)" end
  return keys
end

return M

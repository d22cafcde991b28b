---@meta
-- SPDX-License-Identifier: MIT
-- generation.lua: LuaLS definitions of umlbed.generation (runner/lua/lua/umlbed/generation.lua): kernel generation files.
-- luacheck: no unused

---The module: require "umlbed.generation".
---@class umlbed.generation
local generation = {}

---The keys of a KEY VALUE file (uml-kernel/generations/README.md's format).
---@param path string the file
---@return table<string,string>|nil keys the values by key (a key alone has "")
---@return string|nil err why not
function generation.parse(path) end

---The keys of generation gen of the tree at root.
---@param root string the repository's top
---@param gen string the generation, e.g. "6.1"
---@return table<string,string>|nil keys the values by key
---@return string|nil err why not
function generation.read(root, gen) end

---The default generation of the tree at root.
---@param root string the repository's top
---@return string|nil gen the generation's name
---@return string|nil err why not
function generation.default(root) end

---The stack of a variant as uml-kernel/generation.sh composes it, read from its definition (uml-kernel/variants/NAME).
---@param root string the repository's top
---@param name string the variant, e.g. "full"
---@return {generation:string,patches:string[],configs:string[]}|nil v its generation, patches in order and config fragments
---@return string|nil err why not
function generation.variant(root, name) end

---Whether a variant's definition merges a config fragment (one of its "config" lines).
---@param root string the repository's top
---@param name string the variant, e.g. "full"
---@param frag string the fragment's file name in uml-kernel/config/, e.g. "leaks.config"
---@return boolean|nil merges whether it does
---@return string|nil err why it cannot tell
function generation.merges(root, name, frag) end

---The repository's top for a scenario file of its scenarios/ folder, as the runner loaded it (t.file).
---@param file string the scenario file's path
---@return string root the folder above the file's
function generation.root_of(file) end

---What build.sh wrote next to a built kernel (BUILD/kernel/VARIANT/obj/linux): variant.info.
---@param kernel string the kernel's path
---@return table<string,string>|nil info generation, base and export (the EXPORT_SYMBOL* the variant gives invalidate_mmap_range, or "none")
---@return string|nil err why not
function generation.info(kernel) end

return generation

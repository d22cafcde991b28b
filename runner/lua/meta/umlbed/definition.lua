---@meta
-- SPDX-License-Identifier: MIT
-- definition.lua: LuaLS definitions of umlbed.definition (runner/lua/lua/umlbed/definition.lua): uml-kernel/generation.sh's resolved definitions.
-- luacheck: no unused

---A variant as uml-kernel/generation.sh resolved it.
---@class umlbed.definition.variant
---@field name string the variant's name, e.g. "gpl-only-6.12"
---@field generation string its generation, e.g. "6.12"
---@field base string its name without the generation's suffix, e.g. "gpl-only"
---@field file string its variant file, e.g. "uml-kernel/variants/gpl-only"
---@field configs string[] its own config fragments (file names of uml-kernel/config/)
---@field export string the export its stack gives invalidate_mmap_range: EXPORT_SYMBOL, EXPORT_SYMBOL_GPL or none
---@field stack string[] the patches it is built from, in order (paths from the repository's top)

---generation.sh's document (build.sh writes it beside each kernel as variant.json).
---@class umlbed.definition.doc
---@field variant string the name the kernel was built as
---@field default string the default generation
---@field generations table<string,table<string,string>> each generation's keys (name: the generation)
---@field variants table<string,umlbed.definition.variant> every variant name of every generation

---The module: require "umlbed.definition".
---@class umlbed.definition
local definition = {}

---The value of a JSON text (null is nil); an error names the byte where it is malformed.
---@param text string the JSON text
---@return any value the value
function definition.decode(text) end

---The document in a file.
---@param path string the file
---@return umlbed.definition.doc|nil doc the document
---@return string|nil err why not
function definition.load(path) end

---The document beside a built kernel (BUILD/kernel/VARIANT/obj/linux): its variant.json.
---@param kernel string the kernel's path (vm.kernel)
---@return umlbed.definition.doc|nil doc the document
---@return string|nil err why not
function definition.of_kernel(kernel) end

---The kernel's own definition and its generation's keys.
---@param doc umlbed.definition.doc of_kernel's document
---@return umlbed.definition.variant def the definition
---@return table<string,string> gen the generation's keys
function definition.own(doc) end

---The definition of a variant name for doc's kernel: in its generation (as given or with its suffix), else the name's.
---@param doc umlbed.definition.doc of_kernel's document
---@param name string the variant, e.g. "full" (vm.variant)
---@return umlbed.definition.variant|nil def the definition
---@return string|nil err why not
function definition.variant(doc, name) end

---Whether a definition merges a config fragment (one of its "config" lines).
---@param def umlbed.definition.variant the definition
---@param frag string the fragment's file name in uml-kernel/config/, e.g. "leaks.config"
---@return boolean merges whether it does
function definition.merges(def, frag) end

return definition

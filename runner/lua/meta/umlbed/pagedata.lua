---@meta
-- SPDX-License-Identifier: MIT
-- pagedata.lua: LuaLS definitions of umlbed.pagedata (runner/lua/lua/umlbed/pagedata.lua): page contents and states.
-- luacheck: no unused

---The module: require "umlbed.pagedata" (page numbers are 0-based).
---@class umlbed.pagedata
local pagedata = {}

---The letter that fills file page i in generation gen.
---@param i integer the page (0-based)
---@param gen? integer the generation (default 0)
---@return string letter one lower-case letter
function pagedata.letter(i, gen) end

---The contents of npages pages, page i filled with letter(first + i, gen).
---@param ps integer the page size
---@param npages integer how many pages
---@param first? integer the first page's number (default 0)
---@param gen? integer the generation (default 0)
---@return string data npages * ps bytes
function pagedata.pages(ps, npages, first, gen) end

---Writes generation gen of every page of f from the host (another node's write).
---@param f umlbed.file the file
---@param ps integer the page size
---@param npages integer how many pages
---@param gen? integer the generation (default 0)
---@return integer|nil written bytes written
---@return string|nil err "ENAME: path" on failure
---@return string|nil ename the errno name
function pagedata.fill(f, ps, npages, gen) end

---A page-state string of n pages: c everywhere, inner on pages from..to (inclusive).
---@param n integer how many pages
---@param c string the state of the other pages
---@param from? integer the first inner page (nil: none)
---@param to? integer the last inner page
---@param inner? string the state of the inner pages
---@return string states one character per page
function pagedata.states(n, c, from, to, inner) end

---The first byte of every page of mapping m (reading, so faulting in, the whole mapping).
---@param m umlbed.mapping the mapping
---@param ps integer the page size
---@return string|nil letters one byte per page
---@return string|nil err "ENAME: message" on a guest error
function pagedata.firstbytes(m, ps) end

---The first byte of every page of a byte string.
---@param data string the bytes, e.g. read from a file
---@param ps integer the page size
---@return string letters one byte per whole page
function pagedata.firstbytes_of(data, ps) end

return pagedata

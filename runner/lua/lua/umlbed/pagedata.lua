-- SPDX-License-Identifier: MIT
-- pagedata.lua: helpers shared by the scenarios: per-page file contents and page-state strings.
--
-- A scenario loads it with
--   local pd = require "umlbed.pagedata"
-- (the runner puts the scenario's folder on package.path). Page numbers are 0-based.
local M = {}

-- The letter that fills file page i (0-based) in generation gen: up to 26 pages of one
-- generation all differ, and each page changes from one generation to the next, so a read
-- that lands on the wrong page or sees the wrong version shows.
function M.letter(i, gen)
  gen = gen or 0
  return string.char(("a"):byte() + (i + 7 * gen) % 26)
end

-- The contents of npages pages, page i filled with letter(first + i, gen).
function M.pages(ps, npages, first, gen)
  local parts = {}
  for i = 0, npages - 1 do parts[#parts + 1] = M.letter((first or 0) + i, gen):rep(ps) end
  return table.concat(parts)
end

-- Write generation gen of every page of f from the host (another node's write).
function M.fill(f, ps, npages, gen)
  return f:write(0, M.pages(ps, npages, 0, gen))
end

-- A page-state string of n pages: c everywhere, except pages [from, to] (0-based, inclusive)
-- which get inner.
function M.states(n, c, from, to, inner)
  local s = {}
  for i = 0, n - 1 do s[#s + 1] = (from and i >= from and i <= to) and inner or c end
  return table.concat(s)
end

-- The first byte of every page of mapping m, as one string (one letter per page). It reads
-- the whole mapping, so every page is faulted in.
function M.firstbytes(m, ps)
  local data, err = m:peek(0, m.length)
  if not data then return nil, err end
  local s = {}
  for i = 0, m.npages - 1 do s[#s + 1] = data:sub(i * ps + 1, i * ps + 1) end
  return table.concat(s)
end

-- The same for a byte string read from a file.
function M.firstbytes_of(data, ps)
  local s = {}
  for i = 0, #data // ps - 1 do s[#s + 1] = data:sub(i * ps + 1, i * ps + 1) end
  return table.concat(s)
end

return M

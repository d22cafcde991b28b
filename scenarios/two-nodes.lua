-- SPDX-License-Identifier: MIT
-- two-nodes.lua: two UML nodes on one shared folder pass a token 100 times; after each invalidation the reader sees the new token.
--
-- The cluster case end to end: two kernels, each with its own page cache over the same host
-- file (hostfs), are two nodes of a cluster filesystem that has no coherence of its own. In
-- each round one node writes the next token and fsyncs it; the other node, which has the
-- file mapped and still sees the previous token (checked: without invalidation there is no
-- coherence), invalidates the range with cache=drop and must read the new token through the
-- same mapping. A single stale read after an invalidation fails the scenario. The writer
-- also reads its own token through its own mapping (its page cache holds the write).
--
-- Fault counts are checked for the reader: each invalidation costs it exactly one refault of
-- the one-page mapping (a clean page, a read access).
local ROUNDS = 100

local function token(i, node)
  return ("token %03d written by node %d."):format(i, node)
end

return {
  name = "two nodes pass a token 100 times through invalidation",
  matrix = { impl = { "seed", "unmap" } },

  run = function(t, p)
    local nodes = {}
    for i = 1, 2 do
      local vm = assert(t:vm())
      local proc = assert(vm:spawn())
      nodes[i] = { vm = vm, proc = proc }
    end
    local ps = nodes[1].vm.pagesize
    local f1 = assert(nodes[1].vm:file("token", ps))
    assert(f1:write(0, token(0, 0)))
    for i, n in ipairs(nodes) do
      n.file = i == 1 and f1 or assert(n.vm:file("token"))
      n.map = assert(n.proc:mmap(n.file, { length = ps, mode = "shared", prot = "r" }))
      t:eq(token(0, 0), n.map:peek(0, #token(0, 0)), "node " .. i .. " reads the first token")
    end

    local early, wrong = 0, 0
    for round = 1, ROUNDS do
      local w = round % 2 + 1
      local r = 3 - w
      local writer, reader = nodes[w], nodes[r]
      local tok = token(round, w)
      local prev = token(round - 1, round == 1 and 0 or r)

      t:eq(#tok, writer.proc:pwrite(writer.file, 0, tok), "round " .. round .. ": node " .. w .. " writes")
      assert(writer.proc:fsync(writer.file))
      if writer.map:peek(0, #tok) ~= tok then
        t:fail("round " .. round .. ": the writer does not read its own token")
      end
      if reader.map:peek(0, #prev) ~= prev then
        early = early + 1 -- The reader saw the new token without invalidating.
      end
      assert(reader.vm:invalidate { file = reader.file, offset = 0, length = ps, impl = p.impl, cache = "drop" })
      t:pages("-", reader.map, "round " .. round .. ": the reader lost its PTE")
      local _, _, faults = assert(reader.map:faults("r"))
      t:eq(1, faults, "round " .. round .. ": the reader refaults once")
      local got = reader.map:peek(0, #tok)
      if got ~= tok then
        wrong = wrong + 1
        t:eq(tok, got, "round " .. round .. ": node " .. r .. " reads the new token after invalidation")
      end
    end
    t:eq(0, wrong, "no stale read after an invalidation in " .. ROUNDS .. " rounds")
    t:eq(0, early, "before each invalidation the reader still saw the previous token (no coherence without it)")
    t:eq(token(ROUNDS, ROUNDS % 2 + 1), f1:read(0, #token(ROUNDS, 1)), "the host file holds the last token")
  end,
}

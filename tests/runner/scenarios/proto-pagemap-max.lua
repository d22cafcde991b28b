-- SPDX-License-Identifier: MIT
-- proto-pagemap-max.lua: the largest legal pagemap reply (UMB_PAGEMAP_MAX entries) reaches Lua whole; one more is refused cleanly.
local MAX = 131072 -- UMB_PAGEMAP_MAX (protocol/umb_proto.h): the largest reply of any verb in fields
return {
  name = "the largest pagemap reply, every entry",
  run = function(t)
    local vm = assert(t:vm())
    local ps = vm.pagesize
    -- 512 MiB of untouched shared mapping: no page tables exist until a page is touched, so the default
    -- guest memory is plenty.
    local f = assert(vm:file("big", MAX * ps))
    local w = assert(vm:spawn())
    local m = assert(w:mmap(f, { mode = "shared", prot = "r" }))
    if not t:eq(MAX, m.npages, "the mapping has as many pages as the largest pagemap reply") then return end
    -- The first and the last page are present, every other one is not: a lost, doubled or shifted entry shows.
    assert(m:touch("r", 0, 1))
    assert(m:touch("r", MAX - 1, 1))
    local e = assert(m:pagemap(0, MAX))
    if not t:eq(MAX, #e, "every entry of the largest legal pagemap reply") then return end
    local present, first_bad = 0, nil
    for i = 1, MAX do
      local p = (e[i] >> 63) == 1
      if p then present = present + 1 end
      if p ~= (i == 1 or i == MAX) and not first_bad then first_bad = i end
    end
    t:eq(2, present, "two present pages")
    t:eq(nil, first_bad, "present exactly at the first and the last entry")

    -- One entry more is the agent's EINVAL, an error reply like any other: the vm goes on.
    local ok, err, ename = vm:request(w.pid, "pagemap", string.format("0x%x", m.addr), tostring(MAX + 1))
    t:eq(nil, ok, "one entry more is refused")
    t:eq("EINVAL", ename, "with EINVAL")
    t:expect(err and err:find("NPAGES", 1, true), "naming NPAGES: " .. tostring(err))

    -- The runner checks a request against the verb table before it sends it.
    err, ename = select(2, vm:request(1, "nosuchverb"))
    t:eq("EINVAL", ename, "a verb outside the table is refused before sending: " .. tostring(err))
    err, ename = select(2, vm:request(w.pid, "pagemap", string.format("0x%x", m.addr)))
    t:eq("EINVAL", ename, "a wrong argument count is refused before sending: " .. tostring(err))

    e = assert(m:pagemap(MAX - 1, 1))
    t:eq(1, (e[1] >> 63), "the vm still answers: the last page is present")
  end,
}

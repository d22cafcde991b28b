-- SPDX-License-Identifier: MIT
-- hostile-uml-boot.lua: a boot refused before spawning (too many command-line words, each allowed: E2BIG) leaves nothing behind: the next t:vm() works.
return {
  name = "hostile failed boot",
  run = function(t)
    local vm, err, ename = t:vm { cmdline = ("quiet "):rep(70) }
    t:eq(nil, vm, "a boot with 70 extra words is refused")
    t:expect(tostring(err):find("E2BIG", 1, true) or ename == "E2BIG", "with E2BIG (" .. tostring(err) .. ")")
    local vm2, err2 = t:vm()
    t:expect(vm2, "the next boot works (" .. tostring(err2) .. ")")
    t:expect(not tostring(err2):find("EEXIST", 1, true), "no EEXIST from the failed boot's leftovers")
    if vm2 then t:eq(0, vm2.index, "the failed boot took no index") end
  end,
}

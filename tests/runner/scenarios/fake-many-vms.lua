-- SPDX-License-Identifier: MIT
-- fake-many-vms.lua: a run boots far more instances than it may have at once, one after another, each killed before the next; at most eight at once.
--
-- An instance the run killed is released once its group is gone (its pipes, handles and CPU), so the twentieth boot
-- works where the ninth once failed with EMFILE; eight alive at once are allowed and a ninth is refused, EMFILE.
return {
  name = "fake many vms",
  timeout = 120,
  run = function(t)
    for i = 1, 20 do
      local vm, err = t:vm()
      t:assert_true(vm, ("boot %d of 20, each after the one before was killed: %s"):format(i, tostring(err)))
      t:eq(i - 1, vm.index, "the instance's index counts every boot")
      vm:kill()
    end
    local alive = {}
    for i = 1, 8 do alive[i] = assert(t:vm()) end
    local ninth, err = t:vm()
    t:eq(nil, ninth, "a ninth instance alive at once is refused")
    t:expect(tostring(err):find("EMFILE", 1, true), "with EMFILE: " .. tostring(err))
    for _, vm in ipairs(alive) do vm:kill() end
  end,
}

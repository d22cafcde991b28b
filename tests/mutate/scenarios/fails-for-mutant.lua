-- SPDX-License-Identifier: MIT
-- fails-for-mutant.lua: mutate.t's stand-in for a mutant that a scenario kills: ok, but FAILED when the runner judges the mutant whose number MUTATE_T_FAIL names (UMLBED_MUTANT, which the mutate tool sets).
return {
  name = "mutate.t: a failure for one mutant",
  run = function(t)
    local want, now = os.getenv("MUTATE_T_FAIL"), os.getenv("UMLBED_MUTANT")
    t:expect(want == nil or now ~= want, "not the mutant that fails (the unmutated kernel's run, or another mutant's)")
  end,
}

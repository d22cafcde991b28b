-- SPDX-License-Identifier: MIT
-- hangs-for-mutant.lua: mutate.t's stand-in for a mutant that hangs: ok, but when the runner judges the mutant whose number MUTATE_T_HANG names (UMLBED_MUTANT), a loop that only the timeout ends.
return {
  name = "mutate.t: a hang for one mutant",
  run = function(t)
    local want, now = os.getenv("MUTATE_T_HANG"), os.getenv("UMLBED_MUTANT")
    if want == nil or now ~= want then
      t:expect(true, "not the mutant that hangs (the unmutated kernel's run, or another mutant's)")
      return
    end
    while true do end
  end,
}

-- SPDX-License-Identifier: MIT
-- hostile-pack-runner.lua: run from a pack, it moves a program of its own (HOSTILE_EVIL, an executable beneath
-- TMPDIR) over the pack's runner, which the runner once executed for the next run process (trust.t C).
return {
  name = "hostile pack runner",
  run = function(t)
    -- This file's own path names the unpacked pack: PACK/scenarios/hostile-pack-runner.lua.
    local pack = assert(debug.getinfo(1, "S").source:match("^@(.*)/scenarios/[^/]+$"), "run from a pack")
    local ok, err = os.rename(assert(os.getenv("HOSTILE_EVIL")), pack .. "/build/runner/umlbed")
    t:note("replacing the pack's runner: " .. tostring(ok or err))
  end,
}

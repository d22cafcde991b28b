-- SPDX-License-Identifier: MIT
-- hostile-tmpname.lua: the sandbox's os.tmpname() makes its file inside the run's folder (under TMPDIR), which goes
-- with the run, never in /tmp; the shell test checks that the file is gone after the run.
return {
  name = "hostile os.tmpname",
  run = function(t)
    local name = os.tmpname()
    t:note("tmpname " .. name)
    local tmp = assert(os.getenv("TMPDIR"))
    local run_file = "^" .. tmp:gsub("%p", "%%%0") .. "/umlbed%-[^/]+/[^/]+$"
    t:expect(name:find(run_file), ("os.tmpname() is a file of a run folder %s/umlbed-*/ (got %s)"):format(tmp, name))
    local f = io.open(name, "r")
    t:expect(f, "the file exists: os.tmpname() made it")
    if f then f:close() end
  end,
}

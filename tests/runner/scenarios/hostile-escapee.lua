-- SPDX-License-Identifier: MIT
-- hostile-escapee.lua: with --unsafe-lua, a host process in a session of its own, working in the run's folder.
return {
  name = "hostile escapee",
  run = function(t)
    local pidfile = assert(os.getenv("ESCAPEE_PID"), "ESCAPEE_PID names the file for the escapee's pid")
    -- The run folder is TMPDIR/umlbed-RUNNER-*, the runner being this run process's parent; the shell's $! is the
    -- escapee (setsid execs sleep in the same process), written before os.execute returns.
    assert(os.execute([[
rp=$(awk '{ print $4 }' /proc/$PPID/stat)
cd "$(echo "${TMPDIR:-/tmp}/umlbed-$rp-"*)" || exit 1
setsid sleep 1000 </dev/null >/dev/null 2>&1 &
echo $! >"$ESCAPEE_PID"]]))
    local f = assert(io.open(pidfile))
    local pid = assert(tonumber(f:read("l")), "the escapee's pid")
    f:close()
    -- Alive in a session of its own (field 6 of its stat is its session, itself once setsid has run): the check
    -- that it is gone after the run has a probe that sees it.
    local function session()
      local s = io.open("/proc/" .. pid .. "/stat")
      local line = s and s:read("l")
      if s then s:close() end
      return line and tonumber(line:match("^%d+ %b() %a %d+ %d+ (%d+)"))
    end
    local sid = session()
    while sid ~= pid do
      -- setsid runs in the child after the fork: until then the session is the shell's.
      assert(sid, "the escapee is alive")
      sid = session()
    end
    t:eq(pid, sid, "the escapee leads a session of its own")
  end,
}

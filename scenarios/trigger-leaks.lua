-- SPDX-License-Identifier: MIT
-- trigger-leaks.lua: a trigger write leaves no kernel memory behind, on any way out, as kmemleak sees it.
--
-- trigger_store() copies each line (kmemdup_nul) and must free it whether the line is run, refused by the parser,
-- or names no file. kmemleak finds an object that nothing points to any more, once it is old enough (5 s of the
-- guest's clock) and a scan has run. The guest runs under time-travel, so those seconds cost the host nothing,
-- and no scan runs on a timer (uml-kernel/config/leaks.config): the scans are the scenario's events.
--
-- The probe first shows it can see a leak: the GPL test module, loaded with leak=N, allocates N bytes and forgets
-- them (umlbed_leak, which writes its name there), and the scan must report that one object. Then the report is cleared, a shell
-- writes the trigger lines and exits (its kernel stack, which held the pointers, goes with it), and the next scan
-- must report no object holding a trigger line, known by the path it starts with (kmemleak dumps each object's
-- first bytes). The variant's definition says whether the kernel has kmemleak (a "config leaks.config" line):
-- where it does, its absence is a failure; elsewhere a SKIP.
local bed = require "umlbed.bed"
local definition = require "umlbed.definition"

local KMEMLEAK = "/sys/kernel/debug/kmemleak"
local TRIGGER = "/sys/kernel/mm/invalidate_mmap_range/trigger"
local LEAK = 200   -- bytes the test module leaks, starting with the text "umlbed_leak"

-- The reported objects of a kmemleak report: { {head = "unreferenced object ...", trace = "..."} }.
local function objects(report)
  local starts, list = {}, {}
  for pos in report:gmatch("()unreferenced object") do starts[#starts + 1] = pos end
  for i, pos in ipairs(starts) do
    local block = report:sub(pos, (starts[i + 1] or #report + 1) - 1)
    list[#list + 1] = { head = block:match("^[^\n]*"), trace = block }
  end
  return list
end

-- The ASCII column of an object's hex dump (its first 32 bytes, "." for what is not printable).
local function dumped(o)
  local text = {}
  for ascii in o.trace:gmatch("[0-9a-f][0-9a-f]  +([^\n]+)") do text[#text + 1] = ascii end
  return table.concat(text)
end

-- The objects whose first bytes are one of the words, ended by a blank or a NUL (the trigger's parser cuts its
-- copy of a line into words in place). The report's backtraces are empty on UML (its stack_trace_save() gives
-- kmemleak nothing) and sizes are rounded up by the allocator, so an object is known by its contents.
local function matching(list, words)
  local found = {}
  for _, o in ipairs(list) do
    local text = dumped(o)
    for _, w in ipairs(words) do
      local after = text:sub(#w + 1, #w + 1)
      if text:sub(1, #w) == w and (after == "." or after == " ") then
        found[#found + 1] = o.head .. " " .. text
        break
      end
    end
  end
  return found
end

return {
  name = "a trigger write leaks no memory (kmemleak)",
  timeout = 60,
  run = function(t)
    local vm = assert(t:vm { time_travel = true, cmdline = "kmemleak=on" })
    if not vm.variant then t:skip("kernel " .. vm.kernel .. " is not a known variant: no definition to consult") end
    local doc, why = definition.of_kernel(vm.kernel)
    local def
    if doc then def, why = definition.variant(doc, vm.variant) end
    if not def then t:skip(why) end
    if not definition.merges(def, "leaks.config") then
      t:skip("variant " .. vm.variant .. " is not built with kmemleak (uml-kernel/config/leaks.config)")
    end
    local sh = assert(vm:shell())
    local function guest(cmd, what)
      local st, out = vm:run { path = sh, args = { "-c", cmd } }
      t:require(st == "exit:0", "%s (%s: %s)", what, tostring(st), tostring(out))
      return out
    end
    local function scan()
      -- Objects younger than kmemleak's minimum age (5 s) are not reported yet, and an object is reported only
      -- when a scan finds it unreferenced and unchanged since the scan before: two scans, the guest's clock past
      -- that age before each.
      for _ = 1, 2 do
        guest("sleep 6", "the guest's clock passes kmemleak's minimum age")
        assert(vm:writefile(KMEMLEAK, "scan"))
      end
      return assert(vm:readfile(KMEMLEAK, 1 << 20))
    end
    -- Task stacks are not scanned: an exited task's stack pages go to the next task whole, stale pointers and
    -- all, and a copy of a leaked pointer there would hide the leak. Every write checked here has returned.
    assert(vm:writefile(KMEMLEAK, "stack=off"))
    local head = assert(vm:readfile(KMEMLEAK, 1 << 20))
    t:note(("kmemleak is on; %d object(s) reported at boot"):format(#objects(head)))

    -- The probe sees a leak.
    local mods = assert(bed.test_modules(vm, (t.file:match("^(.*)/[^/]+$") or ".") .. "/.."))
    local ko = assert(bed.stage(vm, mods .. "/umlbed_gpl.ko"))
    assert(vm:writefile(KMEMLEAK, "clear"))
    -- From a shell that exits, as the trigger's lines below: a pointer left on a live task's stack hides a leak.
    guest(("insmod %s leak=%d"):format(ko, LEAK), "the GPL module loads with leak=" .. LEAK)
    local probe = matching(objects(scan()), { "umlbed_leak" })
    t:require(#probe == 1, "the probe sees the module's leak: one object holding \"umlbed_leak\" (seen %d)", #probe)
    t:note("the probe's leak: " .. probe[1])
    assert(vm:rmmod("umlbed_gpl"))
    assert(vm:writefile(KMEMLEAK, "clear"))

    -- Every way out of trigger_store() after the copy: run (seed, unmap, with a drop), refused by the parser,
    -- and a path that does not exist. The shell exits, so no stale pointer stays on its stack.
    local f = assert(vm:file("data", vm.pagesize))
    assert(f:write(0, ("x"):rep(vm.pagesize)))
    local lines = {
      ("%s 0 4096 seed keep"):format(f.path),
      ("%s 0 4096 unmap drop"):format(f.path),
      ("%s 0 4096 unmap-keep-cows"):format(f.path),
      ("%s 0 4096 bogus"):format(f.path),
      "/no/such/file 0 4096",
    }
    local script = {}
    for _, l in ipairs(lines) do script[#script + 1] = ("echo '%s' 2>/dev/null > %s; echo $?"):format(l, TRIGGER) end
    local out = guest(table.concat(script, "\n"), "the shell wrote the trigger lines")
    t:eq("0 0 0 1 1", tostring(out):gsub("%s+", " "):match("^%s*(.-)%s*$"),
         "three lines run, the bogus one and the missing file fail")
    local paths = {}
    for _, l in ipairs(lines) do paths[#paths + 1] = l:match("^%S+") end
    local leaks = matching(objects(scan()), paths)
    t:eq(0, #leaks, "no copy of a trigger line is unreferenced: " .. table.concat(leaks, "; "))
  end,
}

-- SPDX-License-Identifier: MIT
-- trigger-input.lua: every malformed or hostile write to the sysfs trigger gets its errno, is counted, and harms nothing.
--
-- The trigger is root's way into invalidate_mmap_range() from user space; a parser that acts
-- on half a line, accepts a sign, octal or a doubled 0x, or mistakes a directory for a file
-- would zap pages nobody asked for. Each write below is one write() of the bytes shown; its
-- errno is pinned, stats must count it (calls always, failures when refused), a mapping of
-- the target file must keep every PTE when the write is refused, and the kernel must still
-- take a good line at the end. An empty write never reaches the store at all, and a non-root
-- writer is stopped by the file's mode (0200) at open(), before the store runs: neither is
-- counted.
--
-- Every counter of stats is pinned for every write, from the trigger's specification (patch
-- 0002's ABI file and trigger_store()), never from a first run: calls counts each write that
-- reaches the store, failures each refused one; seed_calls, unmap_calls and
-- unmap_keep_cows_calls count calls of the function, so a write refused while parsing or at
-- the path (EINVAL, ENOENT, ENOTDIR, ENAMETOOLONG, not a regular file) moves none of them, nor
-- cache_drops, nor last_seed_vmas_*; an error of the called function (EBUSY from a drop of a
-- dirty page) comes after the call, so it moves the impl's counter and cache_drops as well as
-- failures. An accepted seed call sets last_seed_vmas_visited and _zapped to the VMAs its range
-- meets: here the one mapping when the range zaps a page of it, else none. EPERM comes from a
-- root writer without CAP_SYS_ADMIN (the agent's capdrop): it opens the file and the store refuses it.
--
-- No fault counts: nothing here faults.
local cases = {
  -- Missing fields.
  { "", "none", "an empty write (kernfs returns 0 without calling the store)" },
  { "\n", "EINVAL", "a lone newline" },
  { "/shared/f", "EINVAL", "no offset or length" },
  { "/shared/f 0", "EINVAL", "no length" },
  { "/shared/f 0 ", "EINVAL", "no length, trailing blank" },
  -- Unknown words and trailing garbage.
  { "/shared/f 0 4096 bogus", "EINVAL", "an unknown implementation" },
  { "/shared/f 0 4096 SEED", "EINVAL", "an implementation in capitals" },
  { "/shared/f 0 4096 keep", "EINVAL", "a cache word where the implementation goes" },
  { "/shared/f 0 4096 seed bogus", "EINVAL", "an unknown cache mode" },
  { "/shared/f 0 4096 seed keep extra", "EINVAL", "a sixth word" },
  { "/shared/f 0 4096 seed keep keep", "EINVAL", "a repeated cache word" },
  { "/shared/f 010000 1", "ok", "leading zeros: decimal 10000 (page 2), not octal 4096 (page 1)", "FF-F" },
  { "/shared/f 0 4096\0seed", "EINVAL", "a NUL byte inside the write" },
  -- Control characters other than blanks (space, tab) and the one trailing newline.
  { "/shared/f 0 4096\n\n", "EINVAL", "two trailing newlines: only one is allowed, the second is garbage" },
  { "/shared/f 0 4096\r\n", "EINVAL", "a CRLF line end" },
  { "/shared/f\v0\v4096", "EINVAL", "vertical tabs as separators" },
  { "/shared/f 0 4096\127", "EINVAL", "a DEL byte" },
  { "/shared/f\n0 4096", "EINVAL", "a newline inside the line" },
  -- Numbers: decimal or 0x hex only, 64 bits.
  { "/shared/f zero 4096", "EINVAL", "an offset that is a word" },
  { "/shared/f -1 4096", "EINVAL", "a negative offset" },
  { "/shared/f +1 4096", "EINVAL", "a signed offset" },
  { "/shared/f 1e3 4096", "EINVAL", "an exponent" },
  { "/shared/f 12abc 4096", "EINVAL", "digits then letters" },
  { "/shared/f 0 0x", "EINVAL", "a bare 0x" },
  { "/shared/f 0 0xg", "EINVAL", "a bad hex digit" },
  { "/shared/f 0 0x0x10", "EINVAL", "a doubled 0x" },
  { "/shared/f 0 18446744073709551616", "EINVAL", "2^64 in decimal" },
  { "/shared/f 0 0x10000000000000000", "EINVAL", "2^64 in hex" },
  -- Paths.
  { "shared/f 0 4096", "EINVAL", "a relative path" },
  { "/shared 0 4096", "EINVAL", "a directory" },
  { "/ 0 4096", "EINVAL", "the root directory" },
  { "/dev/null 0 4096", "EINVAL", "a character device" },
  { "/shared/missing 0 4096", "ENOENT", "a path that does not exist" },
  { "/shared/f/x 0 4096", "ENOTDIR", "a file used as a directory" },
  { "/shared/" .. ("x"):rep(300) .. " 0 4096", "ENAMETOOLONG", "a name longer than NAME_MAX" },
  -- A line split over two writes: each write is a call of its own, and neither half acts.
  { "/shared/f 0 40", "ok", "the first half of a split line is a complete, shorter line", "-FFF" },
  { "96", "EINVAL", "its second half" },
  { "/shared/f ", "EINVAL", "a line split after the path" },
  { "0 4096", "EINVAL", "its second half" },
  -- Accepted spellings: pinned so that a stricter parser is a visible change.
  { "/shared/f 0 4096", "ok", "the minimal line", "-FFF" },
  { "/shared/f 0 4096\n", "ok", "one trailing newline, as echo writes it", "-FFF" },
  { "  /shared/f\t0  4096  seed\tkeep  ", "ok", "blanks and tabs around words", "-FFF" },
  { "/shared/f 4106 0X1000", "ok", "0X is hex too", "F-FF" },
  { "/shared/f 0x1 0x1", "ok", "one hex digit each, the shortest hex (byte 1, one byte: page 0)", "-FFF" },
  { "/shared/f 0xFFFFFFFFFFFFFFFF 18446744073709551615", "ok", "2^64-1 both ways (zaps nothing)", "FFFF" },
  { "//shared//f 0x1000 0x1000 unmap drop", "ok", "a path with doubled slashes", "F-FF" },
  { "/shared/f " .. ("0"):rep(3895) .. "8192 4096", "ok", "a 3899-digit offset (a write just under a page)", "FF-F" },
}

local bed = require "umlbed.bed"

return {
  name = "bad trigger input gets its errno, is counted and zaps nothing",

  run = function(t)
    local b = bed.setup(t, { pages = 4, name = "f", fill = "t" })
    local vm, ps, f, m = b.vm, b.ps, b.file, b.map
    -- The stats file is part of what this scenario checks, so a read of it that fails is the kernel's failure
    -- (FAILED), not a broken test (ERROR, which assert would give).
    local before = t:require(vm:stats())
    local refused, accepted = 0, 0
    -- The stats file itself, byte for byte in form: one "name value" line per counter (the ABI's list, in its
    -- order) and nothing else, so a parser that skips stray bytes cannot hide them.
    local raw = t:require(vm:readfile("/sys/kernel/mm/invalidate_mmap_range/stats"))
    local names = {}
    for line in raw:gmatch("([^\n]*)\n") do
      names[#names + 1] = line:match("^([a-z_]+) %d+$") or ("bad line: " .. line)
    end
    local abi = { "calls", "failures", "seed_calls", "unmap_calls", "unmap_keep_cows_calls", "cache_drops",
      "last_seed_vmas_visited", "last_seed_vmas_zapped", "last_call_ns" }
    t:eq(abi, names, "stats: the ABI's lines, in order")
    t:eq("", (raw:gsub("[^\n]*\n", "")), "stats: nothing after the last line")
    -- The counters below are read through that format: a wrong one ends the run here, as a failure.
    if table.concat(names, " ") ~= table.concat(abi, " ") then return end

    -- The counters a write must move, from the specification: refused writes count in calls and failures
    -- only; an accepted one counts its impl's call, its drop, and for seed the VMAs of the one mapping it met.
    local COUNTERS = { "calls", "failures", "seed_calls", "unmap_calls", "unmap_keep_cows_calls", "cache_drops" }
    local function model(st0, text, want, states)
      local d = {}
      for _, k in ipairs(COUNTERS) do d[k] = st0[k] end
      d.last_seed_vmas_visited, d.last_seed_vmas_zapped = st0.last_seed_vmas_visited, st0.last_seed_vmas_zapped
      if want == "none" then return d end
      d.calls = d.calls + 1
      if want ~= "ok" then
        d.failures = d.failures + 1
        return d
      end
      -- No accepted case drops a zero-length range (seed counts no drop then: zero-length.lua pins it).
      local words = {}
      for w in text:gmatch("[^ \t\n]+") do words[#words + 1] = w end
      local impl, cache = words[4] or "seed", words[5] or "keep"
      local key = impl:gsub("-", "_") .. "_calls"
      d[key] = d[key] + 1
      if cache == "drop" then d.cache_drops = d.cache_drops + 1 end
      if impl == "seed" then
        local met = states:find("-", 1, true) and 1 or 0
        d.last_seed_vmas_visited, d.last_seed_vmas_zapped = met, met
      end
      return d
    end

    local function try(text, want, what, states)
      assert(m:touch("r"))
      local st0 = t:require(vm:stats())
      local n, err, ename = vm:trigger(text)
      local label = ("%s (%q)"):format(what, #text > 80 and text:sub(1, 60) .. "..." or text)
      if want == "none" then
        t:eq(0, n, label .. ": write() returns 0 (" .. tostring(err) .. ")")
      elseif want == "ok" then
        accepted = accepted + 1
        t:eq(#text, n, label .. ": accepted, returns its length (" .. tostring(err) .. ")")
        t:pages(states, m, label .. ": zaps what it says")
      else
        refused = refused + 1
        t:eq(want, ename, label .. ": got " .. tostring(n or err))
        t:pages("FFFF", m, label .. ": a refused write zaps nothing")
      end
      local st1 = t:require(vm:stats())
      local seen = {}
      for k in pairs(model(st0, text, want, states)) do seen[k] = st1[k] end
      t:eq(model(st0, text, want, states), seen, label .. ": exactly the counters the specification names move")
    end

    -- Give last_seed_vmas_* a value of 1 first, so that a refused write that reset them would show.
    assert(m:touch("r"))
    t:eq(#(f.path .. " 0 4096"), vm:trigger(f.path .. " 0 4096"), "a seed call that meets the mapping")
    local primed = t:require(vm:stats())
    t:eq(1, primed.last_seed_vmas_visited, "the seed call visited the one mapping")
    t:eq(1, primed.last_seed_vmas_zapped, "and zapped it")
    accepted = accepted + 1

    for _, c in ipairs(cases) do try(c[1], c[2], c[3], c[4]) end

    -- A write of a page or more is refused before it is parsed, however valid its start: kernfs
    -- hands the store at most one page, and the trigger refuses a full page (the line may have
    -- been cut). Both a page-long offset of zeros and a write of exactly one page.
    try("/shared/f " .. ("0"):rep(ps) .. " 4096", "EINVAL", "a write of more than a page")
    local line = "/shared/f 8192 4096"
    try(line .. (" "):rep(ps - #line), "EINVAL", "a write of exactly one page")

    local after = t:require(vm:stats())
    t:eq(refused + accepted, after.calls - before.calls, "every write is counted in calls")
    t:eq(refused, after.failures - before.failures, "every refused write is counted in failures")

    -- A non-root writer cannot even open the trigger (mode 0200): EACCES, not counted.
    assert(m:touch("r"))
    local nobody = assert(vm:spawn())
    assert(nobody:setuid(65534))
    local enc = require("umlbed").encode
    local r, err, ename = vm:request(nobody.pid, "writefile", enc("/sys/kernel/mm/invalidate_mmap_range/trigger"),
                                     enc("/shared/f 0 4096"))
    t:eq("EACCES", ename, "a non-root writer is refused at open (" .. tostring(r or err) .. ")")
    t:pages("FFFF", m, "the non-root write zapped nothing")
    local last = t:require(vm:stats())
    t:eq(0, last.calls - after.calls, "the refused open never reached the trigger")

    -- Root without CAP_SYS_ADMIN opens the file (root's, mode 0200) and reaches the store, which refuses it:
    -- EPERM, counted in calls and failures, and no call of the function.
    local nocap = assert(vm:spawn())
    assert(vm:request(nocap.pid, "capdrop"))
    local _, perr, pename = vm:request(nocap.pid, "writefile", enc("/sys/kernel/mm/invalidate_mmap_range/trigger"),
                                       enc("/shared/f 0 4096"))
    t:eq("EPERM", pename, "root without CAP_SYS_ADMIN is refused by the store (" .. tostring(perr) .. ")")
    t:pages("FFFF", m, "the write without CAP_SYS_ADMIN zapped nothing")
    local capped = t:require(vm:stats())
    local moved = {}
    for _, k in ipairs({ "calls", "failures", "seed_calls", "unmap_calls", "unmap_keep_cows_calls", "cache_drops" }) do
      moved[k] = capped[k] - last[k]
    end
    t:eq({ calls = 1, failures = 1, seed_calls = 0, unmap_calls = 0, unmap_keep_cows_calls = 0, cache_drops = 0 },
         moved, "EPERM: counted in calls and failures, no function called")

    -- An error of the called function: cache=drop of a dirty page fails EBUSY after the seed call and the
    -- drop were made, so seed_calls and cache_drops move with failures, and the seed call's VMAs are set.
    local g = assert(vm:file("g", 2 * ps))
    local mg = assert(b.proc:mmap(g, { mode = "shared", prot = "rw" }))
    assert(mg:poke(0, "dirty"))
    local st0 = t:require(vm:stats())
    local _, gerr, gename = vm:trigger(g.path .. " 0 4096 seed drop")
    t:eq("EBUSY", gename, "cache=drop of a dirty page fails after the call (" .. tostring(gerr) .. ")")
    local st1 = t:require(vm:stats())
    local seen = {}
    for _, k in ipairs({ "calls", "failures", "seed_calls", "unmap_calls", "unmap_keep_cows_calls", "cache_drops",
                         "last_seed_vmas_visited", "last_seed_vmas_zapped" }) do
      seen[k] = st1[k]
    end
    t:eq({ calls = st0.calls + 1, failures = st0.failures + 1, seed_calls = st0.seed_calls + 1,
           unmap_calls = st0.unmap_calls, unmap_keep_cows_calls = st0.unmap_keep_cows_calls,
           cache_drops = st0.cache_drops + 1, last_seed_vmas_visited = 1, last_seed_vmas_zapped = 1 }, seen,
         "EBUSY: the call and the drop were made and failed")
    assert(mg:msync())
    assert(mg:munmap())

    -- The kernel lives on: a good line still works.
    local good = f.path .. " 0 4096 seed keep\n"
    t:eq(#good, vm:trigger(good), "a well-formed line is accepted at the end")
    t:pages("-FFF", m, "and zaps page 0")
  end,
}

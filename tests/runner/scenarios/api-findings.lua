-- SPDX-License-Identifier: MIT
-- api-findings.lua: umlbed.findings(text) picks from a kernel log exactly the lines the console scanner counts, with the levels of vm:klog() or without.
local umlbed = require "umlbed"
return {
  name = "api: umlbed.findings",
  run = function(t)
    local log = table.concat({
      "<6>[    0.100000] Linux version 6.1.0 (umlbed)",
      "<4>[    1.000000] WARNING: CPU: 0 PID: 1 at mm/memory.c:1 zap+0x0/0x1",
      "[    2.000000] WARNING: possible circular locking dependency detected",
      "[    3.000000] BUG: Bad page map in process x",
      "[    4.000000] Kernel panic - not syncing: test",
      "WARNING: not a kernel line (no time stamp)",
      "<6>[    5.000000] all is well",
    }, "\n")
    local kinds = {}
    for _, f in ipairs(umlbed.findings(log)) do kinds[#kinds + 1] = f.kind end
    t:eq({ "kernel WARNING", "lockdep report", "kernel BUG", "kernel panic" }, kinds, "the four findings, in order")
    t:eq({}, umlbed.findings("<6>[    0.1] Linux version\n"), "a clean log has none")
    t:eq("[    3.000000] BUG: Bad page map in process x", umlbed.findings(log)[3].line, "each with its line")
  end,
}

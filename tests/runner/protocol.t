#!/usr/bin/env bash
# SPDX-License-Identifier: MIT
# protocol.t: the shared protocol end to end on UML: the largest legal pagemap reply reaches Lua whole, one more is an error.
. "$(dirname "$0")/common.sh"
need_uml
need_jq

# A runner that hangs is bounded by a generous timeout of its own: the verdict is what counts, not the time.
run run "${K[@]}" --timeout "$(scaled 120)" "$SCEN/proto-pagemap-max.lua"
check "the largest pagemap reply (UMB_PAGEMAP_MAX entries) reaches Lua with every entry: ok" \
  verdict_is "the largest pagemap reply, every entry" ok
check "exit status 0" [ "$rc" = 0 ]
check "no protocol error" jtrue '[.results[].diag // "" | contains("protocol error")] | any | not'
[ "$rc" = 0 ] || { diag "$T/out"; diag "$T/err"; }
check "no run folder left" [ "$(leftover_dirs)" = 0 ]
echo "1..$n"

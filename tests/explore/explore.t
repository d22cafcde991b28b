#!/usr/bin/env bash
# SPDX-License-Identifier: MIT
# explore.t: the explorer's Lua parts on the host (units.lua: the oracle's rule, the contract, the generator, the schedules), and its guest program's build.
set -uo pipefail
top=$(cd "$(dirname "$0")/../.." && pwd)
. "$top/tests/lib/strict.sh"
. "$top/tests/lib/tap.sh"
command -v lua5.4 >/dev/null || prereq_skip_all "no lua5.4 (Debian package lua5.4)"
LUA_PATH="$top/runner/lua/lua/?.lua;;" exec lua5.4 "$top/tests/explore/units.lua"

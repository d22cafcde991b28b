#!/bin/sh
# layers.t: the runner's layers call one way only (core, then the Lua host, then the CLI), read from the built archives.
. "$(dirname "$0")/common.sh"
CORE=$RDIR/libumlbed-core.a
HOST=$RDIR/libumlbed-host.a
check "the core archive exists" test -s "$CORE"
check "the host archive exists" test -s "$HOST"
# Defined or referenced: nm lists both; U marks a reference.
nm "$CORE" >"$T/core.nm" 2>/dev/null
# The "no such symbol" checks below say something only if nm listed the core's own symbols.
check "core: nm lists the core's symbols (umb_vm_spawn)" grep -qE ' T umb_vm_spawn$' "$T/core.nm"
check "core: no Lua symbol, defined or referenced" not grep -qE ' (lua|luaL)_' "$T/core.nm"
check "core: no reference to the bindings (umb_lua_)" not grep -qE ' umb_lua_' "$T/core.nm"
check "core: no reference to the host (umb_scen_, umb_task_)" not grep -qE ' U (umb_scen_|umb_task_)' "$T/core.nm"
grep -E '^ +U ' "$T/core.nm" | awk '{ print $2 }' | sort -u >"$T/core.undef"
# Every reference of the core resolves in the core itself, libuv or libc: a call upward would be left over here.
nm --defined-only "$CORE" | awk 'NF == 3 { print $3 }' | sort -u >"$T/core.def"
comm -23 "$T/core.undef" "$T/core.def" | grep -E '^umb_' >"$T/core.up"
check "core: every umb_ reference is defined in the core" not test -s "$T/core.up"
diag "$T/core.up"
# The core linked alone (every object of it, without the host or Lua) is a program: the Makefile's core-alone.
check "core: links alone without the host and without Lua" test -x "$RDIR/core-alone"
check "core-alone: runs" "$RDIR/core-alone"
if ! command -v ldd >/dev/null; then
  prereq_skip "core-alone: no Lua library: no ldd (Debian package libc-bin)"
elif [ -x "$RDIR/core-alone" ]; then
  # ldd's list must name the C library, or "no liblua" in it says nothing.
  ldd "$RDIR/core-alone" >"$T/ldd" 2>&1
  check "core-alone: no Lua library" eval 'grep -q "libc\.so" "$T/ldd" && not grep -q liblua "$T/ldd"'
  grep -q 'libc\.so' "$T/ldd" || diag "$T/ldd"
fi
# The core's sources cannot even include a Lua header: they are built without Lua's include path.
check "core sources: no Lua or host header included" not grep -nE '#include [<"](lua|lauxlib|lualib|scenario|lumlbed)' \
  "$SRC"/runner/core/*.[ch]
# The host does not reach into the CLI.
nm "$HOST" >"$T/host.nm" 2>/dev/null
check "host: nm lists the host's references to the core (U umb_run_finish)" grep -qE ' U umb_run_finish$' "$T/host.nm"
check "host: no reference to the CLI (umb_out_)" not grep -qE ' U umb_out_' "$T/host.nm"
echo "1..$n"

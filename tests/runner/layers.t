#!/usr/bin/env bash
# SPDX-License-Identifier: MIT
# layers.t: the runner's layers call one way only (cli, lua, host, core, protocol), and no files of the bindings or the agent call each other in a circle, read with nm.
. "$(dirname "$0")/common.sh"
# Top layer first.
LAYERS="cli lua host core"
for l in $LAYERS; do
  a=("$RDIR/libumlbed-$l.a")
  check "the $l archive exists" test -s "${a[0]}"
  # The CLI's main() is linked beside its archive.
  [ "$l" = cli ] && a+=("$RDIR/obj/runner/cli/main.o")
  # Defined symbols (text, data, read-only data, bss) and references, one name a line.
  nm --defined-only "${a[@]}" 2>/dev/null | awk 'NF == 3 && $2 ~ /^[TDRB]$/ { print $3 }' | sort -u >"$T/$l.def"
  nm "${a[@]}" 2>/dev/null | awk '$1 == "U" { print $2 }' | sort -u >"$T/$l.ref"
done
# The checks that nothing is referenced upward say something only if nm listed each layer's own symbols and its
# references downward: probes of one name each.
check "cli: nm lists its definitions (umb_runproc_start)" grep -qx umb_runproc_start "$T/cli.def"
check "cli: ... and its references to the bindings (umb_lua_module)" grep -qx umb_lua_module "$T/cli.ref"
check "lua: nm lists its definitions (luaopen_umlbed)" grep -qx luaopen_umlbed "$T/lua.def"
check "lua: ... and its references to the host (umb_task_wake)" grep -qx umb_task_wake "$T/lua.ref"
check "host: nm lists its definitions (umb_scen_new)" grep -qx umb_scen_new "$T/host.def"
check "host: ... and its references to the core (umb_run_finish)" grep -qx umb_run_finish "$T/host.ref"
check "core: nm lists its definitions (umb_vm_spawn)" grep -qx umb_vm_spawn "$T/core.def"
# No layer references a symbol that a layer above it defines.
upper=
for l in $LAYERS; do
  for u in $upper; do
    comm -12 "$T/$l.ref" "$T/$u.def" >"$T/$l-$u.up"
    check "$l: no reference to a symbol the $u layer defines" not test -s "$T/$l-$u.up"
    diag "$T/$l-$u.up"
  done
  upper="$upper $l"
done
# The host opens the bindings only through the registration (umb_host_register), never by name.
check "host: no reference to luaopen_umlbed or umb_lua_push_t" not grep -qxE 'luaopen_umlbed|umb_lua_push_t' "$T/host.ref"
# No Lua in the core, defined or referenced.
check "core: no Lua symbol, defined or referenced" not grep -qE '^(lua|luaL)_' "$T/core.def" "$T/core.ref"
# Every reference of the core resolves in the core itself, libuv or libc: a call upward would be left over here.
grep -E '^umb_' "$T/core.ref" | comm -23 - "$T/core.def" >"$T/core.up"
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
# Headers: each layer's sources are built without the include paths of the layers above (runner/Makefile), and
# none names an upper layer's header; the CLI is built without Lua's headers.
check "core sources: no Lua, host, bindings or CLI header" \
  not grep -nE '#include [<"](lua|lauxlib|lualib|scenario|hostlua|host|lumlbed|luamod|output|runproc)' "$SRC"/runner/core/*.[ch]
check "host sources: no bindings or CLI header" \
  not grep -nE '#include "(lumlbed|luamod|output|runproc|runchild|describe)' "$SRC"/runner/host/*.[ch]
check "cli sources: no Lua header, and no host internals (hostlua.h, host.h)" \
  not grep -nE '#include [<"](lua|lauxlib|lualib|hostlua|host|lumlbed)\.h' "$SRC"/runner/cli/*.[ch]
# The protocol, under the core in the same archive, calls nothing of the runner's.
nm "$RDIR"/obj/protocol/*.o 2>/dev/null | awk '$1 == "U" && $2 ~ /^umb_/ { print $2 }' | sort -u >"$T/proto.ref"
nm --defined-only "$RDIR"/obj/protocol/*.o 2>/dev/null | awk 'NF == 3 { print $3 }' | sort -u >"$T/proto.def"
check "protocol: nm lists its definitions (umb_pct_encode)" grep -qx umb_pct_encode "$T/proto.def"
comm -23 "$T/proto.ref" "$T/proto.def" >"$T/proto.up"
check "protocol: every umb_ reference is defined in the protocol" not test -s "$T/proto.up"
diag "$T/proto.up"

# ---- Inside the bindings and inside the agent, the files call one way: what several of them use is in a file that
# calls none of them, so that a reader can take the files in order. ----
# calls OBJ...: "A B" for each object A that references a symbol that another object B defines.
calls() {
  local o
  for o in "$@"; do
    nm --defined-only "$o" | awk -v f="${o##*/}" 'NF == 3 && $2 ~ /^[TDRBC]$/ { print $3, f }'
  done | LC_ALL=C sort -k1,1 >"$T/defs"
  for o in "$@"; do nm "$o" | awk -v f="${o##*/}" '$1 == "U" { print $2, f }'; done | LC_ALL=C sort -k1,1 >"$T/refs"
  LC_ALL=C join "$T/refs" "$T/defs" | awk '$2 != $3 { print $2, $3 }' | sort -u
}
# acyclic EDGES: tsort, which fails on a loop and names its files ($T/loop), finds none in the graph EDGES.
acyclic() { tsort "$1" >/dev/null 2>"$T/loop"; }
# The probe: tsort does fail on a circle.
printf 'a.o b.o\nb.o c.o\nc.o a.o\n' >"$T/planted"
check "tsort fails on a planted circle (a.o, b.o, c.o)" not acyclic "$T/planted"
calls "$RDIR"/obj/runner/lua/*.o >"$T/lua.calls"
check "lua: nm sees the calls between its files (vm.o calls proc.o)" grep -qx 'vm.o proc.o' "$T/lua.calls"
check "lua: no files that call each other in a circle" acyclic "$T/lua.calls"
diag "$T/loop"
GUEST=$BUILD/guest/static
if ! [ -f "$GUEST/main.o" ]; then
  prereq_skip "guest: no agent objects in $GUEST (make -C guest)"
else
  calls "$GUEST"/*.o >"$T/guest.calls"
  check "guest: nm sees the calls between its files (main.o calls children.o)" \
    grep -qx 'main.o children.o' "$T/guest.calls"
  check "guest: no files that call each other in a circle" acyclic "$T/guest.calls"
  diag "$T/loop"
fi
echo "1..$n"

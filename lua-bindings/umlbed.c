/* umlbed.c: the umlbed Lua module's opener: its functions, and every object type's metatable. */
#include <errno.h>
#include <stdlib.h>
#include <string.h>

#include "lumlbed.h"
#include "luamod.h"

static int l_boot(lua_State *L) { return umb_lua_boot(L, 1); }

static int l_encode(lua_State *L) {
  size_t n;
  const char *s = luaL_checklstring(L, 1, &n);
  umb_buf b = {0};
  if (umb_pct_encode(&b, s, n)) return luaL_error(L, "out of memory");
  lua_pushlstring(L, b.data, b.len);
  umb_buf_free(&b);
  return 1;
}

static int l_decode(lua_State *L) {
  size_t n;
  const char *s = luaL_checklstring(L, 1, &n);
  char *tmp = malloc(n + 1);
  if (tmp == NULL) return luaL_error(L, "out of memory");
  memcpy(tmp, s, n + 1);
  int rc = umb_pct_decode(tmp, &n);
  if (rc == 0) lua_pushlstring(L, tmp, n);
  free(tmp);
  return rc ? umb_lua_fail(L, rc, "malformed percent-encoding") : 1;
}

int luaopen_umlbed(lua_State *L) {
  static const luaL_Reg funcs[] = {{"boot", l_boot}, {"encode", l_encode}, {"decode", l_decode}, {NULL, NULL}};
  umb_lua_open_vm(L);
  umb_lua_open_proc(L);
  umb_lua_open_map(L);
  umb_lua_open_file(L);
  umb_lua_open_t(L);
  umb_lua_open_task(L);
  umb_lua_open_loopctl(L);
  luaL_newlib(L, funcs);
  lua_pushinteger(L, UMB_PROTOCOL_VERSION);
  lua_setfield(L, -2, "protocol");
  return 1;
}

const umb_host_module umb_lua_module = {.open = luaopen_umlbed, .push_t = umb_lua_push_t};

// SPDX-License-Identifier: MIT
/* util.c: the bindings' shared helpers: argument builders, failure results, reply converters, class creation. */
#include <errno.h>
#include <stdlib.h>
#include <string.h>

#include "lumlbed.h"

/* A failed addition leaves b->err set (umb_buf's sticky error), which umb_lua_call reports as out of memory. */
void umb_args_num(umb_buf *b, uint64_t v) { umb_buf_printf(b, " %llu", (unsigned long long)v); }
void umb_args_word(umb_buf *b, const char *w) { umb_buf_printf(b, " %s", w); }
void umb_args_str(umb_buf *b, const char *s, size_t n) {
  if (umb_buf_append(b, " ", 1) == 0) umb_pct_encode(b, s, n);
}

int umb_lua_fail(lua_State *L, int err, const char *msg) {
  const char *name = umb_errname(err);
  lua_pushnil(L);
  if (msg && *msg)
    lua_pushfstring(L, "%s: %s", name, msg);
  else
    lua_pushstring(L, name);
  lua_pushstring(L, name);
  return 3;
}

void umb_lua_pushdecoded(lua_State *L, int idx) {
  size_t n;
  const char *s = luaL_checklstring(L, idx, &n);
  char *tmp = malloc(n + 1);
  if (tmp == NULL) luaL_error(L, "out of memory");
  memcpy(tmp, s, n + 1);
  if (umb_pct_decode(tmp, &n)) {
    free(tmp);
    luaL_error(L, "malformed percent-encoding from the agent");
  }
  lua_pushlstring(L, tmp, n);
  free(tmp);
}

void umb_lua_pushstates(lua_State *L, int idx) {
  const char *s = lua_tostring(L, idx);
  if (s && strcmp(s, "%2D") == 0)
    lua_pushstring(L, "-");
  else
    lua_pushvalue(L, idx);
}

int umb_conv_true(lua_State *L, int base, int n, lua_Integer arg) {
  (void)base, (void)n, (void)arg;
  lua_pushboolean(L, 1);
  return 1;
}

int umb_conv_num(lua_State *L, int base, int n, lua_Integer arg) {
  uint64_t v;
  (void)arg;
  if (n < 1 || umb_num_parse(lua_tostring(L, base), &v)) return umb_lua_fail(L, -EPROTO, "bad number in reply");
  lua_pushinteger(L, (lua_Integer)v);
  return 1;
}

int umb_conv_str(lua_State *L, int base, int n, lua_Integer arg) {
  (void)arg;
  if (n < 1) return umb_lua_fail(L, -EPROTO, "missing field in reply");
  umb_lua_pushdecoded(L, base);
  return 1;
}

int umb_conv_states(lua_State *L, int base, int n, lua_Integer arg) {
  (void)arg;
  if (n < 1) return umb_lua_fail(L, -EPROTO, "missing field in reply");
  umb_lua_pushstates(L, base);
  return 1;
}

static int index_closure(lua_State *L) {
  lua_pushvalue(L, 2);
  lua_rawget(L, lua_upvalueindex(1));
  if (!lua_isnil(L, -1)) return 1;
  lua_pop(L, 1);
  lua_pushvalue(L, lua_upvalueindex(2));
  lua_pushvalue(L, 1);
  lua_pushvalue(L, 2);
  lua_call(L, 2, 1);
  return 1;
}

void umb_lua_newclass(lua_State *L, const char *name, const luaL_Reg *methods, const luaL_Reg *meta,
                      lua_CFunction getter) {
  luaL_newmetatable(L, name);
  luaL_setfuncs(L, meta, 0);
  lua_newtable(L);
  luaL_setfuncs(L, methods, 0);
  lua_pushcfunction(L, getter);
  lua_pushcclosure(L, index_closure, 2);
  lua_setfield(L, -2, "__index");
  lua_pop(L, 1);
}

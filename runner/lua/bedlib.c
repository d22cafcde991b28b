// SPDX-License-Identifier: MIT
/* bedlib.c: preloads the bed library (umlbed.bed, umlbed.points, ...) into package.preload from the runner itself. */
#include "bedlib.h"
#include "lumlbed.h"

/* package.preload's loader: the file's text, compiled as text only like any other scenario code, run once by
 * require with the module's name. */
static int load_embedded(lua_State *L) {
  const umb_lua_embedded *e = lua_touserdata(L, lua_upvalueindex(1));
  if (luaL_loadbufferx(L, e->text, e->len, e->chunkname, "t") != LUA_OK) return lua_error(L);
  lua_pushstring(L, luaL_checkstring(L, 1));
  lua_pushstring(L, e->chunkname + 1);
  lua_call(L, 2, 1);
  return 1;
}

/* The preload searcher runs before the path: a user's own lib/ cannot shadow umlbed.NAME by accident, while any
 * other name is still looked up in the scenario's folder. */
void umb_lua_preload_bedlib(lua_State *L) {
  luaL_getsubtable(L, LUA_REGISTRYINDEX, LUA_PRELOAD_TABLE);
  for (const umb_lua_embedded *e = umb_lua_embedded_files; e->name; e++) {
    lua_pushlightuserdata(L, (void *)e);
    lua_pushcclosure(L, load_embedded, 1);
    lua_setfield(L, -2, e->name);
  }
  lua_pop(L, 1);
}

// SPDX-License-Identifier: MIT
/* task.c: t:go() and the umlbed.task object: concurrent coroutines of one scenario, resumed by the loop. */
#include <string.h>

#include "lumlbed.h"

typedef struct umb_ltask {
  umb_task *task; /* Owned by the scenario, which outlives the Lua state. */
} umb_ltask;

static umb_task *checktask(lua_State *L, int idx) {
  umb_ltask *lt = luaL_checkudata(L, idx, UMB_TASK_MT);
  return lt->task;
}

/* t:go(fn, ...) -> task: fn(...) runs as a new task from the next turn of the loop. */
int umb_lua_t_go(lua_State *L) {
  luaL_checkudata(L, 1, UMB_T_MT);
  luaL_checktype(L, 2, LUA_TFUNCTION);
  umb_scen *sc = umb_scen_from_lua(L);
  if (sc == NULL || sc->run.finishing) return luaL_error(L, "t:go(): no scenario is running");
  int n = lua_gettop(L) - 1; /* fn and its arguments */
  luaL_where(L, 1);
  size_t wl;
  const char *w = lua_tolstring(L, -1, &wl);
  char where[200];
  /* luaL_where gives "file:line: "; the task names "file:line". */
  snprintf(where, sizeof where, "%.*s", (int)(wl >= 2 ? wl - 2 : wl), w);
  lua_pop(L, 1);
  lua_State *co = lua_newthread(L);
  int coref = luaL_ref(L, LUA_REGISTRYINDEX);
  luaL_checkstack(co, n + LUA_MINSTACK, "too many arguments to t:go()");
  lua_xmove(L, co, n);
  umb_task *task = umb_task_new(sc, co, coref, n - 1, where);
  if (task == NULL) {
    luaL_unref(L, LUA_REGISTRYINDEX, coref);
    return luaL_error(L, "out of memory");
  }
  umb_ltask *lt = lua_newuserdatauv(L, sizeof *lt, 0);
  lt->task = task;
  luaL_setmetatable(L, UMB_TASK_MT);
  return 1;
}

/* Push a finished task's results, or raise its error (with the task's traceback). */
static int push_end(lua_State *L, umb_task *t) {
  t->waited = 1;
  lua_rawgeti(L, LUA_REGISTRYINDEX, t->resref);
  if (t->state == UMB_TASK_FAILED) return lua_error(L);
  lua_getfield(L, -1, "n");
  int n = (int)lua_tointeger(L, -1);
  lua_pop(L, 1);
  luaL_checkstack(L, n, "too many results");
  int tab = lua_gettop(L);
  for (int i = 1; i <= n; i++) lua_rawgeti(L, tab, i);
  return n;
}

static int wait_cont(lua_State *L, int status, lua_KContext k) {
  (void)status;
  return push_end(L, (umb_task *)k);
}

/* task:wait() -> the task's results; re-raises its error. */
static int task_wait(lua_State *L) {
  umb_task *t = checktask(L, 1);
  if (t->state == UMB_TASK_DONE || t->state == UMB_TASK_FAILED) return push_end(L, t);
  umb_task *self = umb_lua_check_task_ctx(L);
  if (self->sc != t->sc) return luaL_error(L, "task:wait(): the task belongs to another scenario");
  /* Waiting for a task that (through others) waits for this one would never end. */
  for (umb_task *x = t; x; x = x->waiting_for)
    if (x == self) return luaL_error(L, "task:wait(): deadlock, %s would wait for itself", self->where);
  self->waiting_for = t;
  self->pending_what = t->where;
  return lua_yieldk(L, 0, (lua_KContext)t, wait_cont);
}

static int task_tostring(lua_State *L) {
  umb_task *t = checktask(L, 1);
  lua_pushfstring(L, "umlbed.%s", t->where);
  return 1;
}

static int task_get(lua_State *L) {
  umb_task *t = checktask(L, 1);
  const char *k = luaL_checkstring(L, 2);
  if (!strcmp(k, "done"))
    lua_pushboolean(L, t->state == UMB_TASK_DONE || t->state == UMB_TASK_FAILED);
  else if (!strcmp(k, "index"))
    lua_pushinteger(L, t->index);
  else
    lua_pushnil(L);
  return 1;
}

void umb_lua_open_task(lua_State *L) {
  static const luaL_Reg methods[] = {{"wait", task_wait}, {NULL, NULL}};
  static const luaL_Reg meta[] = {{"__tostring", task_tostring}, {NULL, NULL}};
  umb_lua_newclass(L, UMB_TASK_MT, methods, meta, task_get);
}

// SPDX-License-Identifier: MIT
/* loopctl.c: the umlbed.loopctl object: starts and stops m:loop() passes on an event, not an iteration count. */
#include <errno.h>
#include <stdio.h>
#include <string.h>

#include "lumlbed.h"

/* A guest tmpfs file whose first page every loop on it maps shared (docs/protocol.md, loop CTL). */
typedef struct umb_lloopctl {
  umb_run_vm *svm;
  char gpath[64];
} umb_lloopctl; /* User value 1: the vm userdata. */

/* Unique per runner, hence per guest: two controls never share a file. */
static unsigned long next_ctl;

static umb_lloopctl *checkctl(lua_State *L, int idx) { return luaL_checkudata(L, idx, UMB_LOOPCTL_MT); }

const char *umb_lua_test_loopctl(lua_State *L, int idx, umb_run_vm **svm) {
  umb_lloopctl *c = luaL_testudata(L, idx, UMB_LOOPCTL_MT);
  if (c == NULL) return NULL;
  *svm = c->svm;
  return c->gpath;
}

/* The guest path of control number id. */
static void ctl_path(char *buf, size_t size, unsigned long id) { snprintf(buf, size, "/tmp/umlbed-loopctl-%lu", id); }

static int conv_ctl(lua_State *L, int base, int n, lua_Integer id) {
  (void)base, (void)n;
  umb_run_vm *svm = umb_lua_check_vm(L, 1);
  umb_lloopctl *c = lua_newuserdatauv(L, sizeof *c, 1);
  c->svm = svm;
  ctl_path(c->gpath, sizeof c->gpath, (unsigned long)id);
  luaL_setmetatable(L, UMB_LOOPCTL_MT);
  lua_pushvalue(L, 1);
  lua_setiuservalue(L, -2, 1);
  return 1;
}

/* vm:loopctl() -> a new loop control (a one-page file in the guest's /tmp). */
int umb_lua_vm_loopctl(lua_State *L) {
  umb_run_vm *svm = umb_lua_check_vm(L, 1);
  lua_settop(L, 1);
  unsigned long id = ++next_ctl;
  char gpath[64];
  ctl_path(gpath, sizeof gpath, id);
  umb_buf b = {0};
  umb_args_str(&b, gpath, strlen(gpath));
  umb_args_num(&b, (uint64_t)(svm->vm ? umb_vm_pagesize(svm->vm) : 4096));
  return umb_lua_call(L, svm, 1, "create", &b, conv_ctl, (lua_Integer)id);
}

/* "STARTED FAILED" -> started, failed. */
static int conv_counts(lua_State *L, int base, int n, lua_Integer arg) {
  uint64_t s, f;
  (void)arg;
  if (n < 2 || umb_num_parse(lua_tostring(L, base), &s) || umb_num_parse(lua_tostring(L, base + 1), &f))
    return umb_lua_fail(L, -EPROTO, "bad counts in reply");
  lua_pushinteger(L, (lua_Integer)s);
  lua_pushinteger(L, (lua_Integer)f);
  return 2;
}

/* ctl:wait(n) -> started, failed: returns once n loops on ctl have made their first pass (or ended before it). */
static int ctl_wait(lua_State *L) {
  umb_lloopctl *c = checkctl(L, 1);
  lua_Integer n = luaL_checkinteger(L, 2);
  luaL_argcheck(L, n >= 1 && n <= 65536, 2, "between 1 and 65536 loops");
  umb_buf b = {0};
  umb_args_str(&b, c->gpath, strlen(c->gpath));
  umb_args_num(&b, (uint64_t)n);
  return umb_lua_call(L, c->svm, 1, "loopwait", &b, conv_counts, 0);
}

/* ctl:stop() -> started, failed: every loop on ctl returns after its current pass. */
static int ctl_stop(lua_State *L) {
  umb_lloopctl *c = checkctl(L, 1);
  umb_buf b = {0};
  umb_args_str(&b, c->gpath, strlen(c->gpath));
  return umb_lua_call(L, c->svm, 1, "loopstop", &b, conv_counts, 0);
}

static int ctl_tostring(lua_State *L) {
  umb_lloopctl *c = checkctl(L, 1);
  lua_pushfstring(L, "umlbed.loopctl %s", c->gpath);
  return 1;
}

static int ctl_get(lua_State *L) {
  umb_lloopctl *c = checkctl(L, 1);
  const char *k = luaL_checkstring(L, 2);
  if (!strcmp(k, "path"))
    lua_pushstring(L, c->gpath);
  else if (!strcmp(k, "vm"))
    lua_getiuservalue(L, 1, 1);
  else
    lua_pushnil(L);
  return 1;
}

void umb_lua_open_loopctl(lua_State *L) {
  static const luaL_Reg methods[] = {{"wait", ctl_wait}, {"stop", ctl_stop}, {NULL, NULL}};
  static const luaL_Reg meta[] = {{"__tostring", ctl_tostring}, {NULL, NULL}};
  umb_lua_newclass(L, UMB_LOOPCTL_MT, methods, meta, ctl_get);
}

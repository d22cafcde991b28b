// SPDX-License-Identifier: MIT
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

/* umlbed.findings(text) -> a list of {kind = ..., line = ...}: the kernel log lines (the console's, or vm:klog()'s
 * with its "<N>" levels) that the runner's console scanner counts as findings, so that a scenario checks a log with
 * the runner's one list of patterns. */
static int l_findings(lua_State *L) {
  size_t len;
  const char *s = luaL_checklstring(L, 1, &len), *end = s + len;
  lua_newtable(L);
  int n = 0;
  char line[1024];
  while (s < end) {
    const char *nl = memchr(s, '\n', (size_t)(end - s));
    size_t ll = nl ? (size_t)(nl - s) : (size_t)(end - s);
    const char *p = s;
    /* klogctl's lines start with the level, "<4>", before printk's time stamp. */
    if (ll > 2 && *p == '<') {
      const char *q = memchr(p, '>', ll < 6 ? ll : 6);
      if (q) p = q + 1;
    }
    size_t keep = ll - (size_t)(p - s) < sizeof line - 1 ? ll - (size_t)(p - s) : sizeof line - 1;
    memcpy(line, p, keep);
    line[keep] = '\0';
    umb_finding f = umb_scanner_classify(line);
    if (f != UMB_FIND_NONE) {
      lua_createtable(L, 0, 2);
      lua_pushstring(L, umb_finding_name(f));
      lua_setfield(L, -2, "kind");
      lua_pushstring(L, line);
      lua_setfield(L, -2, "line");
      lua_rawseti(L, -2, ++n);
    }
    s = nl ? nl + 1 : end;
  }
  return 1;
}

int luaopen_umlbed(lua_State *L) {
  static const luaL_Reg funcs[] = {
      {"boot", l_boot}, {"encode", l_encode}, {"decode", l_decode}, {"findings", l_findings}, {NULL, NULL}};
  umb_lua_open_vm(L);
  umb_lua_open_proc(L);
  umb_lua_open_map(L);
  umb_lua_open_file(L);
  umb_lua_open_t(L);
  umb_lua_open_task(L);
  umb_lua_open_loopctl(L);
  umb_lua_preload_bedlib(L);
  luaL_newlib(L, funcs);
  lua_pushinteger(L, UMB_PROTOCOL_VERSION);
  lua_setfield(L, -2, "protocol");
  return 1;
}

const umb_host_module umb_lua_module = {.open = luaopen_umlbed, .push_t = umb_lua_push_t};

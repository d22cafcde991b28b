// SPDX-License-Identifier: MIT
/* mapping.c: the umlbed.mapping object: an mmap of a shared-folder file in one guest process. */
#include <errno.h>
#include <stdlib.h>
#include <string.h>

#include "lumlbed.h"

umb_lmap *umb_lua_push_map(lua_State *L, int procidx, int fileidx) {
  procidx = lua_absindex(L, procidx);
  if (fileidx) fileidx = lua_absindex(L, fileidx);
  umb_lproc *p = umb_lua_check_proc(L, procidx);
  umb_lmap *m = lua_newuserdatauv(L, sizeof *m, 2);
  memset(m, 0, sizeof *m);
  m->svm = p->svm;
  m->pid = p->pid;
  luaL_setmetatable(L, UMB_MAP_MT);
  lua_pushvalue(L, procidx);
  lua_setiuservalue(L, -2, 1);
  if (fileidx) {
    lua_pushvalue(L, fileidx);
    lua_setiuservalue(L, -2, 2);
  }
  return m;
}

umb_lmap *umb_lua_check_map(lua_State *L, int idx) { return luaL_checkudata(L, idx, UMB_MAP_MT); }

static long pagesize(umb_lmap *m) {
  long ps = m->svm->vm ? umb_vm_pagesize(m->svm->vm) : 4096;
  return ps > 0 ? ps : 4096;
}

static uint64_t npages(umb_lmap *m) { return (m->len + (uint64_t)pagesize(m) - 1) / (uint64_t)pagesize(m); }

/* Optional page range arguments (first page, 0-based; count) → address and byte length. */
static void page_range(lua_State *L, umb_lmap *m, int idx, uint64_t *addr, uint64_t *len, uint64_t *count) {
  uint64_t total = npages(m);
  lua_Integer first = luaL_optinteger(L, idx, 0);
  luaL_argcheck(L, first >= 0 && (uint64_t)first < total, idx, "page index out of the mapping");
  /* Checked before any sum: first + n of two Lua integers can overflow (undefined in C). */
  lua_Integer n = luaL_optinteger(L, idx + 1, (lua_Integer)(total - (uint64_t)first));
  luaL_argcheck(L, n > 0 && (uint64_t)n <= total - (uint64_t)first, idx + 1, "page count out of the mapping");
  *addr = m->addr + (uint64_t)first * (uint64_t)pagesize(m);
  *count = (uint64_t)n;
  *len = (uint64_t)n * (uint64_t)pagesize(m);
  if (*addr + *len > m->addr + m->len) *len = m->addr + m->len - *addr;
}

static const char *access_arg(lua_State *L, int idx) {
  const char *a = luaL_optstring(L, idx, "r");
  luaL_argcheck(L, !strcmp(a, "r") || !strcmp(a, "w"), idx, "access must be \"r\" or \"w\"");
  return a;
}

/* m:touch(access [, first, count]) -> true: one access per page. */
static int map_touch(lua_State *L) {
  umb_lmap *m = umb_lua_check_map(L, 1);
  const char *a = access_arg(L, 2);
  uint64_t addr, len, n;
  page_range(L, m, 3, &addr, &len, &n);
  umb_buf b = {0};
  umb_args_num(&b, addr);
  umb_args_num(&b, len);
  umb_args_word(&b, a);
  return umb_lua_call(L, m->svm, m->pid, "touch", &b, umb_conv_true, 0);
}

/* m:faults(access [, first, count]) -> minor, major, total, ns: total = minor + major, the count a scenario usually
 * checks (a retried fault of a cached page counts as major, so the split is rarely exact); ns is the guest's
 * CLOCK_MONOTONIC time of the access itself, for benchmarks (never for a verdict). */
static int conv_faults(lua_State *L, int base, int n, lua_Integer arg) {
  uint64_t minor, major, ns;
  (void)arg;
  if (n < 3 || umb_num_parse(lua_tostring(L, base), &minor) || umb_num_parse(lua_tostring(L, base + 1), &major) ||
      umb_num_parse(lua_tostring(L, base + 2), &ns) || minor > (uint64_t)LUA_MAXINTEGER ||
      major > (uint64_t)LUA_MAXINTEGER - minor || ns > (uint64_t)LUA_MAXINTEGER)
    return umb_lua_fail(L, -EPROTO, "bad faults reply");
  lua_pushinteger(L, (lua_Integer)minor);
  lua_pushinteger(L, (lua_Integer)major);
  lua_pushinteger(L, (lua_Integer)(minor + major));
  lua_pushinteger(L, (lua_Integer)ns);
  return 4;
}

static int map_faults(lua_State *L) {
  umb_lmap *m = umb_lua_check_map(L, 1);
  const char *a = access_arg(L, 2);
  uint64_t addr, len, n;
  page_range(L, m, 3, &addr, &len, &n);
  umb_buf b = {0};
  umb_args_num(&b, addr);
  umb_args_num(&b, len);
  umb_args_word(&b, a);
  return umb_lua_call(L, m->svm, m->pid, "faults", &b, conv_faults, 0);
}

/* m:pages([first, count]) -> "F-A-": one state per page from pagemap. */
static int map_pages(lua_State *L) {
  umb_lmap *m = umb_lua_check_map(L, 1);
  uint64_t addr, len, n;
  page_range(L, m, 2, &addr, &len, &n);
  umb_buf b = {0};
  umb_args_num(&b, addr);
  umb_args_num(&b, n);
  return umb_lua_call(L, m->svm, m->pid, "pages", &b, umb_conv_states, 0);
}

/* m:pagemap([first, count]) -> {entry, ...}: raw 64-bit pagemap entries, a list in page order (entry 1 is page first),
 * like the characters of a state string. */
static int conv_pagemap(lua_State *L, int base, int n, lua_Integer arg) {
  (void)arg;
  lua_createtable(L, n, 0);
  for (int i = 0; i < n; i++) {
    uint64_t v;
    if (umb_num_parse(lua_tostring(L, base + i), &v)) return umb_lua_fail(L, -EPROTO, "bad pagemap reply");
    lua_pushinteger(L, (lua_Integer)v);
    lua_rawseti(L, -2, i + 1);
  }
  return 1;
}

static int map_pagemap(lua_State *L) {
  umb_lmap *m = umb_lua_check_map(L, 1);
  uint64_t addr, len, n;
  page_range(L, m, 2, &addr, &len, &n);
  luaL_argcheck(L, n <= UMB_PAGEMAP_MAX, 3, "at most 131072 pages per pagemap call (the protocol's UMB_PAGEMAP_MAX)");
  umb_buf b = {0};
  umb_args_num(&b, addr);
  umb_args_num(&b, n);
  return umb_lua_call(L, m->svm, m->pid, "pagemap", &b, conv_pagemap, 0);
}

/* m:mincore() -> "1101". */
static int map_mincore(lua_State *L) {
  umb_lmap *m = umb_lua_check_map(L, 1);
  uint64_t addr, len, n;
  page_range(L, m, 2, &addr, &len, &n);
  umb_buf b = {0};
  umb_args_num(&b, addr);
  umb_args_num(&b, len);
  return umb_lua_call(L, m->svm, m->pid, "mincore", &b, umb_conv_states, 0);
}

/* m:peek(offset, length) -> bytes; m:poke(offset, bytes) -> true. Offsets are in the mapping. */
static int map_peek(lua_State *L) {
  umb_lmap *m = umb_lua_check_map(L, 1);
  lua_Integer off = luaL_checkinteger(L, 2), len = luaL_checkinteger(L, 3);
  luaL_argcheck(L, off >= 0 && (uint64_t)off < m->len, 2, "offset out of the mapping");
  luaL_argcheck(L, len >= 0 && (uint64_t)len <= m->len - (uint64_t)off, 3, "length out of the mapping");
  umb_buf b = {0};
  umb_args_num(&b, m->addr + (uint64_t)off);
  umb_args_num(&b, (uint64_t)len);
  return umb_lua_call(L, m->svm, m->pid, "peek", &b, umb_conv_str, 0);
}

static int map_poke(lua_State *L) {
  umb_lmap *m = umb_lua_check_map(L, 1);
  size_t n;
  lua_Integer off = luaL_checkinteger(L, 2);
  const char *d = luaL_checklstring(L, 3, &n);
  luaL_argcheck(L, off >= 0 && (uint64_t)off <= m->len && n <= m->len - (uint64_t)off, 2, "offset out of the mapping");
  umb_buf b = {0};
  umb_args_num(&b, m->addr + (uint64_t)off);
  umb_args_str(&b, d, n);
  return umb_lua_call(L, m->svm, m->pid, "poke", &b, umb_conv_true, 0);
}

static int map_addrverb(lua_State *L, const char *verb) {
  umb_lmap *m = umb_lua_check_map(L, 1);
  umb_buf b = {0};
  umb_args_num(&b, m->addr);
  umb_args_num(&b, m->len);
  return umb_lua_call(L, m->svm, m->pid, verb, &b, umb_conv_true, 0);
}

static int map_munmap(lua_State *L) { return map_addrverb(L, "munmap"); }
static int map_msync(lua_State *L) { return map_addrverb(L, "msync"); }

/* m:loop(access, count) -> iterations: touch the whole mapping count times.
 * m:loop(access, ctl) -> iterations: touch it until ctl:stop(); ctl:wait() sees it start. */
static int map_loop(lua_State *L) {
  umb_lmap *m = umb_lua_check_map(L, 1);
  const char *a = access_arg(L, 2);
  umb_run_vm *csvm = NULL;
  const char *ctl = umb_lua_test_loopctl(L, 3, &csvm);
  lua_Integer count = 0;
  if (ctl) {
    luaL_argcheck(L, csvm == m->svm, 3, "the loop control must be on the mapping's vm");
  } else {
    count = luaL_checkinteger(L, 3);
    luaL_argcheck(L, count > 0, 3, "count must be positive");
  }
  umb_buf b = {0};
  umb_args_num(&b, m->addr);
  umb_args_num(&b, m->len);
  umb_args_word(&b, a);
  umb_args_num(&b, (uint64_t)count);
  if (ctl) umb_args_str(&b, ctl, strlen(ctl));
  return umb_lua_call(L, m->svm, m->pid, "loop", &b, umb_conv_num, 0);
}

/* m:on(proc) -> the same mapping as seen by another process (a forked sharer). */
static int map_on(lua_State *L) {
  umb_lmap *m = umb_lua_check_map(L, 1);
  umb_lproc *p = umb_lua_check_proc(L, 2);
  luaL_argcheck(L, p->svm == m->svm, 2, "the process must be on the mapping's vm");
  lua_getiuservalue(L, 1, 2);
  int fidx = lua_isnil(L, -1) ? 0 : lua_gettop(L);
  umb_lmap *n = umb_lua_push_map(L, 2, fidx);
  umb_lmap copy = *m;
  copy.pid = p->pid;
  *n = copy;
  return 1;
}

static int map_tostring(lua_State *L) {
  umb_lmap *m = umb_lua_check_map(L, 1);
  lua_pushfstring(L, "umlbed.mapping %p+%d in pid %d (%s)", (void *)(uintptr_t)m->addr, (int)m->len, (int)m->pid,
                  m->shared ? "shared" : "private");
  return 1;
}

static int map_get(lua_State *L) {
  umb_lmap *m = umb_lua_check_map(L, 1);
  const char *k = luaL_checkstring(L, 2);
  if (!strcmp(k, "addr"))
    lua_pushinteger(L, (lua_Integer)m->addr);
  else if (!strcmp(k, "length"))
    lua_pushinteger(L, (lua_Integer)m->len);
  else if (!strcmp(k, "offset"))
    lua_pushinteger(L, (lua_Integer)m->offset);
  else if (!strcmp(k, "npages"))
    lua_pushinteger(L, (lua_Integer)npages(m));
  else if (!strcmp(k, "mode"))
    lua_pushstring(L, m->shared ? "shared" : "private");
  else if (!strcmp(k, "prot"))
    lua_pushstring(L, m->writable ? "rw" : "r");
  else if (!strcmp(k, "proc"))
    lua_getiuservalue(L, 1, 1);
  else if (!strcmp(k, "file"))
    lua_getiuservalue(L, 1, 2);
  else
    lua_pushnil(L);
  return 1;
}

void umb_lua_open_map(lua_State *L) {
  static const luaL_Reg methods[] = {{"touch", map_touch},     {"faults", map_faults},   {"pages", map_pages},
                                     {"pagemap", map_pagemap}, {"mincore", map_mincore}, {"peek", map_peek},
                                     {"poke", map_poke},       {"munmap", map_munmap},   {"msync", map_msync},
                                     {"loop", map_loop},       {"on", map_on},           {NULL, NULL}};
  static const luaL_Reg meta[] = {{"__tostring", map_tostring}, {NULL, NULL}};
  umb_lua_newclass(L, UMB_MAP_MT, methods, meta, map_get);
}

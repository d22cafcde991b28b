// SPDX-License-Identifier: MIT
/* exec.c: the requests that a vm and a proc make alike: exec, run, and the trigger line of an invalidation. */
#include <errno.h>
#include <stdio.h>
#include <string.h>

#include "lumlbed.h"

/* Apart from vm.c so that proc.c, which vm.c calls to make procs, never calls back into vm.c for these. */

/* The guest path of a file argument: a file object or a string. */
static const char *guest_path(lua_State *L, int idx, uint64_t *size) {
  umb_lfile *f = umb_lua_test_file(L, idx);
  if (f) {
    if (size) *size = f->size;
    return f->gpath;
  }
  if (size) *size = 0;
  return luaL_checkstring(L, idx);
}

/* The trigger line of an invalidation table at idx ({file=, offset=, length=, impl=, cache=}), appended to b as
 * one protocol field; raises for misuse. */
void umb_lua_invalidate_args(lua_State *L, int idx, umb_buf *b) {
  idx = lua_absindex(L, idx);
  luaL_checktype(L, idx, LUA_TTABLE);
  int top = lua_gettop(L);
  lua_getfield(L, idx, "file");
  if (lua_isnil(L, -1)) luaL_argerror(L, idx, "file= is required");
  uint64_t size;
  const char *path = guest_path(L, -1, &size);
  int fidx = lua_gettop(L);
  lua_getfield(L, idx, "offset");
  lua_Integer off = luaL_optinteger(L, -1, 0);
  lua_getfield(L, idx, "length");
  /* Only a file object knows its size: for a path, "the rest of the file" would silently be a zero length, the
   * one case where seed and mainline differ. */
  luaL_argcheck(L, !lua_isnil(L, -1) || umb_lua_test_file(L, fidx), idx, "length= is required when file= is a path");
  lua_Integer len = luaL_optinteger(L, -1, (lua_Integer)size - off);
  lua_getfield(L, idx, "impl");
  const char *impl = luaL_optstring(L, -1, NULL);
  lua_getfield(L, idx, "cache");
  const char *cache = luaL_optstring(L, -1, NULL);
  luaL_argcheck(L, off >= 0 && len >= 0, idx, "offset and length must not be negative");
  luaL_argcheck(L, !impl || !strcmp(impl, "seed") || !strcmp(impl, "unmap") || !strcmp(impl, "unmap-keep-cows"), idx,
                "impl must be seed, unmap or unmap-keep-cows");
  luaL_argcheck(L, !cache || !strcmp(cache, "keep") || !strcmp(cache, "drop"), idx, "cache must be keep or drop");
  luaL_argcheck(L, !cache || impl, idx, "cache= needs impl=");
  umb_buf text = {0};
  umb_buf_printf(&text, "%s %lld %lld", path, (long long)off, (long long)len);
  if (impl) umb_buf_printf(&text, " %s", impl);
  if (cache) umb_buf_printf(&text, " %s", cache);
  umb_args_str(b, text.data, text.len);
  umb_buf_free(&text);
  lua_settop(L, top);
}

/* vm:exec and proc:exec(path, arg...) -> status, output. */
static int conv_exec(lua_State *L, int base, int n, lua_Integer arg) {
  (void)arg;
  if (n < 2) return umb_lua_fail(L, -EPROTO, "bad exec reply");
  lua_pushvalue(L, base);
  umb_lua_pushdecoded(L, base + 1);
  return 2;
}

int umb_lua_exec(lua_State *L, umb_run_vm *svm, uint64_t pid) {
  int top = lua_gettop(L);
  umb_buf b = {0};
  for (int i = 2; i <= top; i++) {
    size_t n;
    const char *s = luaL_checklstring(L, i, &n);
    umb_args_str(&b, s, n);
  }
  return umb_lua_call(L, svm, pid, "exec", &b, conv_exec, 0);
}

/* A string field of the options table at idx, or NULL; luaL_argerror names it when it is not a string. */
static const char *opt_str(lua_State *L, int idx, const char *key, size_t *len) {
  lua_getfield(L, idx, key);
  const char *s = NULL;
  if (!lua_isnil(L, -1)) {
    if (lua_type(L, -1) != LUA_TSTRING) luaL_argerror(L, idx, lua_pushfstring(L, "%s must be a string", key));
    s = lua_tolstring(L, -1, len);
  }
  lua_pop(L, 1); /* The table still holds the string. */
  return s;
}

/* run's uid option (slot idx holds the table): -1 when absent; raises when it is not a user. */
static lua_Integer run_uid(lua_State *L, int idx) {
  lua_Integer uid = -1;
  lua_getfield(L, idx, "uid");
  if (!lua_isnil(L, -1)) {
    int ok;
    uid = lua_tointegerx(L, -1, &ok);
    if (!ok || uid < 0 || uid >= 0xffffffffLL) return luaL_argerror(L, idx, "uid must be an integer 0..4294967294");
  }
  lua_pop(L, 1);
  return uid;
}

/* run's timeout option in milliseconds: 0 when absent; raises unless it is seconds in (0, 86400]. */
static lua_Integer run_timeout_ms(lua_State *L, int idx) {
  lua_Integer ms = 0;
  lua_getfield(L, idx, "timeout");
  if (!lua_isnil(L, -1)) {
    int ok;
    lua_Number sec = lua_tonumberx(L, -1, &ok);
    if (!ok || !(sec > 0) || sec > 86400) return luaL_argerror(L, idx, "timeout must be seconds in (0, 86400]");
    ms = (lua_Integer)(sec * 1000);
    if (ms < 1) ms = 1;
  }
  lua_pop(L, 1);
  return ms;
}

/* Checks the env table at slot 3 (names without '=', no newline or NUL, at most UMB_RUN_ENV_MAX) and pushes its
 * entries as NAME=VALUE lines in name order, so that a request is the same from run to run. Returns the count. */
static int run_env(lua_State *L) {
  luaL_Buffer env;
  luaL_buffinit(L, &env);
  int nenv = 0;
  if (lua_istable(L, 3)) {
    lua_pushnil(L);
    while (lua_next(L, 3)) {
      size_t kl, vl;
      if (lua_type(L, -2) != LUA_TSTRING || lua_type(L, -1) != LUA_TSTRING)
        return luaL_argerror(L, 2, "env must map names to strings");
      const char *k = lua_tolstring(L, -2, &kl), *v = lua_tolstring(L, -1, &vl);
      if (kl == 0 || memchr(k, '=', kl) || memchr(k, '\n', kl) || memchr(v, '\n', vl) || memchr(k, 0, kl) ||
          memchr(v, 0, vl))
        return luaL_argerror(L, 2, "env names need no '=', and names and values no newline or NUL");
      if (++nenv > UMB_RUN_ENV_MAX)
        return luaL_argerror(L, 2, lua_pushfstring(L, "at most %d env entries", UMB_RUN_ENV_MAX));
      lua_pop(L, 1);
    }
    /* The entries, sorted by name, without touching the buffer's stack slots in between. */
    const char *names[UMB_RUN_ENV_MAX];
    int n = 0;
    lua_pushnil(L);
    while (lua_next(L, 3)) {
      lua_pop(L, 1);
      names[n++] = lua_tostring(L, -1);
    }
    for (int i = 1; i < n; i++)
      for (int j = i; j > 0 && strcmp(names[j - 1], names[j]) > 0; j--) {
        const char *t = names[j];
        names[j] = names[j - 1];
        names[j - 1] = t;
      }
    for (int i = 0; i < n; i++) {
      lua_getfield(L, 3, names[i]);
      size_t vl;
      const char *v = lua_tolstring(L, -1, &vl);
      char line[4096];
      int len = snprintf(line, sizeof line, "%s%s=%.*s", i ? "\n" : "", names[i], (int)vl, v);
      lua_pop(L, 1);
      if (len < 0 || (size_t)len >= sizeof line) return luaL_argerror(L, 2, "an env entry is longer than 4 KiB");
      luaL_addlstring(&env, line, (size_t)len);
    }
  }
  luaL_pushresult(&env);
  return nenv;
}

/* proc:run{path=, args={...}, cwd=, env={NAME=VALUE}, uid=, timeout=} (and vm:run, in PID 1): exec with a working
 * directory, environment entries, a user and a timeout in seconds. Returns status ("exit:N", "signal:N" or
 * "timeout", with "+escaped" when writers outside the program's group held its output), output. Everything is
 * checked before anything is sent. */
int umb_lua_run(lua_State *L, umb_run_vm *svm, uint64_t pid) {
  luaL_checktype(L, 2, LUA_TTABLE);
  lua_settop(L, 2);
  size_t plen = 0, clen = 0;
  const char *path = opt_str(L, 2, "path", &plen);
  if (path == NULL || plen == 0) return luaL_argerror(L, 2, "path (a string) is required");
  const char *cwd = opt_str(L, 2, "cwd", &clen);
  lua_Integer uid = run_uid(L, 2), ms = run_timeout_ms(L, 2);
  lua_getfield(L, 2, "env"); /* Slot 3. */
  if (!lua_isnil(L, 3) && !lua_istable(L, 3)) return luaL_argerror(L, 2, "env must be a table of NAME = VALUE");
  lua_getfield(L, 2, "args"); /* Slot 4. */
  if (!lua_isnil(L, 4) && !lua_istable(L, 4)) return luaL_argerror(L, 2, "args must be a list of strings");
  lua_Integer nargs = lua_isnil(L, 4) ? 0 : luaL_len(L, 4);
  if (nargs > 1000) return luaL_argerror(L, 2, "at most 1000 args");
  for (lua_Integer i = 1; i <= nargs; i++) {
    if (lua_geti(L, 4, i) != LUA_TSTRING) return luaL_argerror(L, 2, "args must be a list of strings");
    lua_pop(L, 1);
  }
  int nenv = run_env(L); /* Slot 5. */
  size_t elen;
  const char *envs = lua_tolstring(L, 5, &elen);
  umb_buf b = {0};
  umb_args_num(&b, (uint64_t)ms);
  if (uid >= 0)
    umb_args_num(&b, (uint64_t)uid);
  else
    umb_args_word(&b, "-");
  if (cwd)
    umb_args_str(&b, cwd, clen);
  else
    umb_args_word(&b, "-");
  if (nenv)
    umb_args_str(&b, envs, elen);
  else
    umb_args_word(&b, "-");
  umb_args_str(&b, path, plen);
  for (lua_Integer i = 1; i <= nargs; i++) {
    size_t n;
    lua_geti(L, 4, i);
    const char *a = lua_tolstring(L, -1, &n);
    umb_args_str(&b, a, n);
    lua_pop(L, 1);
  }
  return umb_lua_call(L, svm, pid, "run", &b, conv_exec, 0);
}

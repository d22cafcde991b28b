// SPDX-License-Identifier: MIT
/* load.c: scenario files: the sandboxed Lua state, loading a file, its matrix, listing its runs. */
#include "host.h"

#include <errno.h>
#include <lauxlib.h>
#include <limits.h>
#include <lualib.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "path.h"

/* load() of text chunks only: a binary chunk is unchecked bytecode that can crash the runner. */
static int safe_load(lua_State *L) {
  int n = lua_gettop(L);
  luaL_checkany(L, 1);
  if (n < 2) lua_pushnil(L); /* chunkname */
  lua_settop(L, 4);
  lua_pushliteral(L, "t");
  lua_replace(L, 3);
  lua_pushvalue(L, lua_upvalueindex(1));
  lua_insert(L, 1);
  lua_call(L, 4, LUA_MULTRET);
  return lua_gettop(L);
}

static int safe_loadfile(lua_State *L) {
  const char *file = luaL_optstring(L, 1, NULL);
  if (luaL_loadfilex(L, file, "t") != LUA_OK) {
    lua_pushnil(L);
    lua_insert(L, -2);
    return 2;
  }
  return 1;
}

static int safe_dofile(lua_State *L) {
  const char *file = luaL_optstring(L, 1, NULL);
  lua_settop(L, 1);
  if (luaL_loadfilex(L, file, "t") != LUA_OK) return lua_error(L);
  lua_call(L, 0, LUA_MULTRET);
  return lua_gettop(L) - 1;
}

/* print() from a scenario goes to its diagnostics as "print: ..." lines, never into the TAP stream. */
static int scen_print(lua_State *L) {
  umb_scen *sc = umb_scen_from_lua(L);
  int n = lua_gettop(L);
  luaL_Buffer b;
  luaL_buffinit(L, &b);
  for (int i = 1; i <= n; i++) {
    if (i > 1) luaL_addchar(&b, '\t');
    luaL_tolstring(L, i, NULL);
    luaL_addvalue(&b);
  }
  luaL_addchar(&b, '\n');
  luaL_pushresult(&b);
  size_t len;
  const char *s = lua_tolstring(L, -1, &len);
  if (sc) umb_scen_print(sc, s, len);
  return 0;
}

/* setmetatable() without __gc: finalizers run with hooks off, where no deadline could stop one that loops. */
static int safe_setmetatable(lua_State *L) {
  if (lua_type(L, 2) == LUA_TTABLE && lua_getfield(L, 2, "__gc") != LUA_TNIL)
    return luaL_argerror(L, 2, "__gc metamethods are not available to scenarios (--unsafe-lua allows them)");
  lua_settop(L, 2);
  lua_pushvalue(L, lua_upvalueindex(1));
  lua_insert(L, 1);
  lua_call(L, 2, 1);
  return 1;
}

/* io.write() from a scenario: to its diagnostics, like print(), never into the TAP stream. */
static int scen_iowrite(lua_State *L) {
  umb_scen *sc = umb_scen_from_lua(L);
  int n = lua_gettop(L);
  for (int i = 1; i <= n; i++) {
    size_t len;
    const char *s = luaL_checklstring(L, i, &len);
    if (sc) umb_scen_print(sc, s, len);
  }
  lua_getglobal(L, "io");
  return 1;
}

/* os.tmpname() makes its file in the run's folder, which goes with the run: Lua's own makes /tmp/lua_XXXXXX,
 * outside anything the runner removes or a wall around the run allows. */
static int scen_tmpname(lua_State *L) {
  umb_scen *sc = umb_scen_from_lua(L);
  if (sc == NULL || !sc->run.dir[0]) return luaL_error(L, "os.tmpname: only while a run has its folder");
  char path[PATH_MAX];
  if (umb_path(path, sizeof path, "%s/lua_XXXXXX", sc->run.dir))
    return luaL_error(L, "os.tmpname: %s", strerror(ENAMETOOLONG));
  int fd = mkstemp(path);
  if (fd < 0) return luaL_error(L, "os.tmpname: %s: %s", sc->run.dir, strerror(errno));
  close(fd);
  lua_pushstring(L, path);
  return 1;
}

static void set_nil(lua_State *L, const char *lib, const char *const *names) {
  lua_getglobal(L, lib);
  if (lua_istable(L, -1))
    for (; *names; names++) {
      lua_pushnil(L);
      lua_setfield(L, -2, *names);
    }
  lua_pop(L, 1);
}

/* Scenarios are code with the runner's rights; the sandbox takes away what ends, hangs or outlives the runner
 * (os.exit, os.execute, io.popen), loads native code or bytecode, or removes the deadline hook (debug). */
static void sandbox(lua_State *L) {
  static const char *const os_[] = {"exit", "execute", NULL};
  static const char *const io_[] = {"popen", NULL};
  static const char *const package_[] = {"loadlib", NULL};
  static const char *const debug_[] = {"debug",       "sethook",     "gethook",        "setlocal",
                                       "setupvalue",  "upvaluejoin", "setmetatable",   "setuservalue",
                                       "setregistry", "getregistry", "setcstacklimit", "getlocal",
                                       "getupvalue",  "upvalueid",   "getuservalue",   NULL};
  set_nil(L, "os", os_);
  set_nil(L, "io", io_);
  set_nil(L, "package", package_);
  set_nil(L, "debug", debug_);
  /* Only Lua searchers: no C modules. */
  lua_getglobal(L, "package");
  lua_getfield(L, -1, "searchers");
  if (lua_istable(L, -1)) {
    lua_pushnil(L);
    lua_rawseti(L, -2, 3);
    lua_pushnil(L);
    lua_rawseti(L, -2, 4);
  }
  lua_pop(L, 1);
  lua_pushliteral(L, "");
  lua_setfield(L, -2, "cpath");
  lua_pop(L, 1);
  lua_getglobal(L, "load");
  lua_pushcclosure(L, safe_load, 1);
  lua_setglobal(L, "load");
  lua_getglobal(L, "setmetatable");
  lua_pushcclosure(L, safe_setmetatable, 1);
  lua_setglobal(L, "setmetatable");
  /* Standard output is the TAP stream: io.write goes to the diagnostics, io.stdout and io.output() to stderr. */
  lua_getglobal(L, "io");
  lua_pushcfunction(L, scen_iowrite);
  lua_setfield(L, -2, "write");
  lua_getfield(L, -1, "stderr");
  lua_setfield(L, -2, "stdout");
  lua_getfield(L, -1, "output");
  lua_getfield(L, -2, "stderr");
  lua_call(L, 1, 0);
  lua_pop(L, 1);
  lua_register(L, "loadfile", safe_loadfile);
  lua_register(L, "dofile", safe_dofile);
  lua_getglobal(L, "os");
  lua_pushcfunction(L, scen_tmpname);
  lua_setfield(L, -2, "tmpname");
  lua_pop(L, 1);
}

/* package.searchers[2] for text only: Lua's own searcher would load precompiled bytecode too. */
static int search_text(lua_State *L) {
  const char *name = luaL_checkstring(L, 1);
  lua_getglobal(L, "package");
  lua_getfield(L, -1, "searchpath");
  lua_pushstring(L, name);
  lua_getfield(L, -3, "path");
  lua_call(L, 2, 2);
  if (lua_isnil(L, -2)) return 1; /* The message of the paths tried. */
  const char *path = lua_tostring(L, -2);
  if (luaL_loadfilex(L, path, "t") != LUA_OK)
    return luaL_error(L, "error loading module '%s' from file '%s':\n\t%s", name, path, lua_tostring(L, -1));
  lua_pushstring(L, path);
  return 2;
}

/* require "lib.x" finds FOLDER/lib/x.lua, FOLDER being the scenario file's: a scenario and its helpers travel
 * together, whatever the current directory. */
static void set_path(lua_State *L, const char *file, int unsafe) {
  const char *slash = strrchr(file, '/');
  lua_getglobal(L, "package");
  if (slash)
    lua_pushlstring(L, file, (size_t)(slash - file));
  else
    lua_pushliteral(L, ".");
  lua_pushfstring(L, "%s/?.lua;%s/?/init.lua", lua_tostring(L, -1), lua_tostring(L, -1));
  lua_remove(L, -2);
  if (unsafe) {
    lua_getfield(L, -2, "path");
    lua_pushfstring(L, "%s;%s", lua_tostring(L, -2), lua_tostring(L, -1));
    lua_replace(L, -3);
    lua_pop(L, 1);
  }
  lua_setfield(L, -2, "path");
  if (!unsafe) {
    lua_getfield(L, -1, "searchers");
    lua_pushcfunction(L, search_text);
    lua_rawseti(L, -2, 2);
    lua_pop(L, 1);
  }
  lua_pop(L, 1);
}

/* Lua's allocator with a count: a scenario that allocates without end gets Lua's memory error at its cap, a clean
 * ERROR, instead of taking the host's memory (and the OOM killer's choice of victim). */
static void *capped_alloc(void *ud, void *ptr, size_t osize, size_t nsize) {
  umb_lua_mem *m = ud;
  size_t old = ptr ? osize : 0; /* Without ptr, osize is a type tag, not a size. */
  if (nsize == 0) {
    free(ptr);
    m->used -= old;
    return NULL;
  }
  if (m->cap && nsize > old && nsize - old > m->cap - (m->used < m->cap ? m->used : m->cap)) {
    if (!m->hit) m->cap += UMB_LUA_MEM_RESERVE;
    m->hit = 1;
    return NULL;
  }
  void *p = realloc(ptr, nsize);
  if (p) m->used = m->used - old + nsize;
  return p;
}

/* As luaL_newstate's: an error outside any protected call ends the process with its message. */
static int state_panic(lua_State *L) {
  const char *msg = lua_tostring(L, -1);
  fprintf(stderr, "umlbed: unprotected error in a scenario's Lua state: %s\n", msg ? msg : "(not a string)");
  return 0;
}

lua_State *umb_host_new_state(int unsafe, const char *file, umb_lua_mem *mem) {
  lua_State *L = lua_newstate(capped_alloc, mem);
  if (L == NULL) return NULL;
  lua_atpanic(L, state_panic);
  /* Warnings off, as luaL_newstate leaves them. */
  lua_setwarnf(L, NULL, NULL);
  /* Every coroutine copies the main thread's extra space: NULL there means "not a task". */
  *(umb_task **)lua_getextraspace(L) = NULL;
  luaL_openlibs(L);
  if (!unsafe) sandbox(L);
  set_path(L, file, unsafe);
  lua_register(L, "print", scen_print);
  /* The bindings are a layer above the host: they reach it only through what was registered. */
  const umb_host_module *m = umb_host_module_get();
  if (m && m->open) {
    luaL_requiref(L, "umlbed", m->open, 0);
    lua_pop(L, 1);
  }
  return L;
}

static const umb_host_module *module;

void umb_host_register(const umb_host_module *m) { module = m; }

const umb_host_module *umb_host_module_get(void) { return module; }

int umb_param_check(const char *param) {
  const char *eq = strchr(param, '=');
  if (eq == NULL || eq == param) return -EINVAL;
  for (const char *p = param; p < eq; p++)
    if (!(*p == '_' || (*p >= 'a' && *p <= 'z') || (*p >= 'A' && *p <= 'Z') || (p > param && *p >= '0' && *p <= '9')))
      return -EINVAL;
  return 0;
}

const char *umb_kernel_variant(const char *kernel, char *buf, size_t size) {
  static const char tail[] = "/obj/linux", dir[] = "/kernel/";
  size_t n = strlen(kernel), tl = sizeof tail - 1, dl = sizeof dir - 1;
  if (n <= tl || strcmp(kernel + n - tl, tail)) return NULL;
  const char *end = kernel + n - tl, *p = end;
  while (p > kernel && p[-1] != '/') p--;
  if (p == end || (size_t)(p - kernel) < dl || strncmp(p - dl, dir, dl)) return NULL;
  snprintf(buf, size, "%.*s", (int)(end - p), p);
  return buf;
}

/* --param KEY=VALUE: KEY's list in the matrix of the table at tidx becomes the VALUEs given for
 * it (numbers converted), added if the matrix has no KEY. A bad matrix is left for matrix_combo. */
static void apply_params(lua_State *L, int tidx, const char *const *params) {
  if (params == NULL || *params == NULL) return;
  tidx = lua_absindex(L, tidx);
  lua_getfield(L, tidx, "matrix");
  if (lua_isnil(L, -1)) {
    lua_pop(L, 1);
    lua_newtable(L);
    lua_pushvalue(L, -1);
    lua_setfield(L, tidx, "matrix");
  }
  if (!lua_istable(L, -1)) {
    lua_pop(L, 1);
    return;
  }
  int m = lua_gettop(L);
  for (const char *const *p = params; *p; p++) {
    const char *eq = strchr(*p, '=');
    if (eq == NULL) continue;
    lua_pushlstring(L, *p, (size_t)(eq - *p));
    lua_newtable(L);
    lua_rawset(L, m);
  }
  for (const char *const *p = params; *p; p++) {
    const char *eq = strchr(*p, '=');
    if (eq == NULL) continue;
    lua_pushlstring(L, *p, (size_t)(eq - *p));
    lua_rawget(L, m);
    if (lua_stringtonumber(L, eq + 1) == 0) lua_pushstring(L, eq + 1);
    lua_rawseti(L, -2, (lua_Integer)lua_rawlen(L, -2) + 1);
    lua_pop(L, 1);
  }
  lua_pop(L, 1);
}

/* Loads a scenario file and leaves its table on the stack, --param overrides applied; returns 0
 * or -EINVAL (message pushed). */
int umb_host_load_table(lua_State *L, const char *file, const char *const *params) {
  /* Text only: a precompiled chunk is unchecked bytecode. */
  if (luaL_loadfilex(L, file, "t") != LUA_OK) return -EINVAL;
  if (lua_pcall(L, 0, 1, 0) != LUA_OK) return -EINVAL;
  if (!lua_istable(L, -1)) {
    lua_pop(L, 1);
    lua_pushfstring(L, "%s: a scenario file must return a table { name = ..., run = function(t, p) ... end }", file);
    return -EINVAL;
  }
  lua_getfield(L, -1, "run");
  int ok = lua_isfunction(L, -1);
  lua_pop(L, 1);
  if (!ok) {
    lua_pop(L, 1);
    lua_pushfstring(L, "%s: the scenario table has no run function", file);
    return -EINVAL;
  }
  apply_params(L, -1, params);
  return 0;
}

static int cmp_str(const void *a, const void *b) { return strcmp(*(char *const *)a, *(char *const *)b); }

/* Expands matrix combination `combo` of the table at tidx: pushes the parameter table and writes
 * "k=v, ..." to label. Returns the number of combinations (1 without a matrix), or -EINVAL with
 * a message pushed instead. Keys are taken in sorted order; the last key varies fastest. */
int umb_host_matrix_combo(lua_State *L, int tidx, int combo, umb_buf *label) {
  char *keys[32];
  int nkeys = 0, total = 1;
  tidx = lua_absindex(L, tidx);
  lua_getfield(L, tidx, "matrix");
  int midx = lua_gettop(L);
  if (!lua_isnil(L, midx)) {
    if (!lua_istable(L, midx)) {
      lua_pop(L, 1);
      lua_pushstring(L, "matrix must be a table of lists");
      return -EINVAL;
    }
    lua_pushnil(L);
    while (lua_next(L, midx)) {
      lua_pop(L, 1);
      if (lua_type(L, -1) != LUA_TSTRING || nkeys == 32) {
        lua_pop(L, 2);
        lua_pushstring(L, "matrix keys must be strings (at most 32)");
        return -EINVAL;
      }
      keys[nkeys++] = (char *)lua_tostring(L, -1);
    }
  }
  qsort(keys, (size_t)nkeys, sizeof keys[0], cmp_str);
  int sizes[32];
  for (int i = 0; i < nkeys; i++) {
    lua_getfield(L, midx, keys[i]);
    sizes[i] = lua_istable(L, -1) ? (int)lua_rawlen(L, -1) : 0;
    lua_pop(L, 1);
    if (sizes[i] == 0) {
      lua_pop(L, 1);
      lua_pushfstring(L, "matrix.%s must be a non-empty list", keys[i]);
      return -EINVAL;
    }
    if (sizes[i] > UMB_MATRIX_MAX / total) {
      lua_pop(L, 1);
      lua_pushfstring(L, "the matrix has more than %d combinations", UMB_MATRIX_MAX);
      return -EINVAL;
    }
    total *= sizes[i];
  }
  lua_newtable(L);
  int pidx = lua_gettop(L);
  int rest = combo < 0 ? 0 : combo;
  for (int i = nkeys - 1; i >= 0; i--) {
    int which = rest % sizes[i];
    rest /= sizes[i];
    lua_getfield(L, midx, keys[i]);
    lua_rawgeti(L, -1, which + 1);
    lua_setfield(L, pidx, keys[i]);
    lua_pop(L, 1);
  }
  if (label) {
    for (int i = 0; i < nkeys; i++) {
      lua_getfield(L, pidx, keys[i]);
      umb_buf_printf(label, "%s%s=%s", i ? ", " : "", keys[i], luaL_tolstring(L, -1, NULL));
      lua_pop(L, 2);
    }
  }
  lua_remove(L, midx);
  return total;
}

static char *display_name(lua_State *L, int tidx, const char *file, const char *label) {
  umb_buf b = {0};
  lua_getfield(L, tidx, "name");
  const char *name = lua_tostring(L, -1);
  if (name == NULL) {
    const char *slash = strrchr(file, '/');
    name = slash ? slash + 1 : file;
  }
  umb_buf_append(&b, name, strlen(name));
  lua_pop(L, 1);
  if (label && *label) umb_buf_printf(&b, " [%s]", label);
  return b.data ? b.data : strdup("");
}

typedef struct describe_ctx {
  uint64_t deadline; /* uv_hrtime() past which loading the file is stopped (0: never). */
  const char *file;
  const char *const *params;
  char *name;
  char **combos;
  int n;
} describe_ctx;

static const char REG_DESCRIBE = 'D';

/* Loading a file to list its runs executes its top level, which may loop: the same count hook, no yield. */
static void describe_hook(lua_State *L, lua_Debug *ar) {
  (void)ar;
  lua_rawgetp(L, LUA_REGISTRYINDEX, &REG_DESCRIBE);
  const describe_ctx *d = lua_touserdata(L, -1);
  lua_pop(L, 1);
  if ((d && d->deadline && uv_hrtime() > d->deadline) || umb_stop_signal)
    luaL_error(L, "%s: loading the scenario file did not finish within the timeout", d ? d->file : "?");
}

/* "FILE:LINE: " of the line that sets `matrix` in a scenario file (data has no line of its own in Lua's
 * messages), or "FILE: " when no line does. */
static void matrix_where(lua_State *L, const char *file) {
  FILE *f = fopen(file, "re");
  char line[4096];
  int n = 0, found = 0;
  while (f && fgets(line, sizeof line, f)) {
    n++;
    char *m = strstr(line, "matrix");
    if (m && strchr(m, '=') && !strstr(line, "--")) {
      found = n;
      break;
    }
  }
  if (f) fclose(f);
  if (found)
    lua_pushfstring(L, "%s:%d: ", file, found);
  else
    lua_pushfstring(L, "%s: ", file);
}

/* A matrix error (message on top) as an error naming the file and the matrix's line. */
int umb_host_matrix_error(lua_State *L, const char *file) {
  matrix_where(L, file);
  lua_insert(L, -2);
  lua_concat(L, 2);
  return lua_error(L);
}

/* The Lua side of umb_scen_describe, run under lua_pcall: scenario files are user code. */
static int describe_protected(lua_State *L) {
  describe_ctx *d = lua_touserdata(L, 1);
  if (umb_host_load_table(L, d->file, d->params)) return lua_error(L);
  int t = lua_gettop(L);
  int n = umb_host_matrix_combo(L, t, 0, NULL);
  if (n < 0) return umb_host_matrix_error(L, d->file);
  lua_pop(L, 1);
  d->name = display_name(L, t, d->file, NULL);
  d->combos = calloc((size_t)n, sizeof(char *));
  if (d->combos == NULL) return luaL_error(L, "out of memory");
  umb_buf label = {0};
  for (int i = 0; i < n; i++) {
    umb_buf_reset(&label);
    umb_host_matrix_combo(L, t, i, &label);
    lua_pop(L, 1);
    d->combos[i] = display_name(L, t, d->file, label.data);
    d->n = i + 1;
  }
  umb_buf_free(&label);
  return 0;
}

int umb_scen_describe(const char *file, const umb_host_config *cfg, char **name, char ***combos, int *ncombos,
                      char **err) {
  const char *const *params = cfg->params;
  int unsafe = cfg->unsafe_lua;
  size_t mem_cap = cfg->lua_memory;
  double timeout_s = cfg->core->timeout_s;
  describe_ctx d = {.file = file, .params = params};
  if (timeout_s > 0) d.deadline = uv_hrtime() + (uint64_t)(timeout_s * 1e9);
  umb_lua_mem mem = {.cap = mem_cap};
  lua_State *L = umb_host_new_state(unsafe, file, &mem);
  *combos = NULL;
  *ncombos = 0;
  *name = NULL;
  *err = NULL;
  if (L == NULL) return -ENOMEM;
  lua_pushlightuserdata(L, &d);
  lua_rawsetp(L, LUA_REGISTRYINDEX, &REG_DESCRIBE);
  lua_sethook(L, describe_hook, LUA_MASKCOUNT, HOOK_COUNT);
  lua_pushcfunction(L, describe_protected);
  lua_pushlightuserdata(L, &d);
  int rc = lua_pcall(L, 1, 0, 0) == LUA_OK ? 0 : -EINVAL;
  if (rc) {
    const char *msg = lua_tostring(L, -1);
    if (mem.hit) {
      size_t n = strlen(file) + 96;
      if ((*err = malloc(n)) != NULL)
        snprintf(*err, n, "%s: its Lua state reached the memory cap of %zu MiB (--lua-memory)", file, mem_cap >> 20);
    } else {
      *err = strdup(msg ? msg : "error");
    }
    for (int i = 0; i < d.n; i++) free(d.combos[i]);
    free(d.combos);
    free(d.name);
  } else {
    *name = d.name;
    *combos = d.combos;
    *ncombos = d.n;
  }
  lua_close(L);
  return rc;
}

/* scenario.c: runs one scenario: its folder, Lua state and coroutine, its vms, timeout and verdict. */
#include "scenario.h"
#include "reaper.h"

#include <errno.h>
#include <fcntl.h>
#include <lauxlib.h>
#include <lualib.h>
#include <sched.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

static const char REG_SCEN = 'S'; /* Registry key (its address) for the owning scenario. */

umb_scen *umb_scen_from_lua(lua_State *L) {
  lua_rawgetp(L, LUA_REGISTRYINDEX, &REG_SCEN);
  umb_scen *sc = lua_touserdata(L, -1);
  lua_pop(L, 1);
  return sc;
}

volatile sig_atomic_t umb_stop_signal;

/* Lua instructions between two looks at the deadline and at a stop signal. */
#define HOOK_COUNT 100000
/* How long finalizers (__gc) may run when the scenario's Lua state closes, before the hook raises in them. */
#define CLOSE_GRACE_S 2.0

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
  luaL_pushresult(&b);
  if (sc) umb_buf_printf(&sc->prints, "%s\n", lua_tostring(L, -1));
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
    if (sc) umb_buf_append(&sc->prints, s, len);
  }
  lua_getglobal(L, "io");
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
  static const char *const debug_[] = {"debug", "sethook", "gethook", "setlocal", "setupvalue", "upvaluejoin",
                                       "setmetatable", "setuservalue", "setregistry", "getregistry", "setcstacklimit",
                                       "getlocal", "getupvalue", "upvalueid", "getuservalue", NULL};
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
  if (slash) lua_pushlstring(L, file, (size_t)(slash - file));
  else lua_pushliteral(L, ".");
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

static lua_State *new_state(int unsafe, const char *file) {
  lua_State *L = luaL_newstate();
  if (L == NULL) return NULL;
  /* Every coroutine copies the main thread's extra space: NULL there means "not a task". */
  *(umb_task **)lua_getextraspace(L) = NULL;
  luaL_openlibs(L);
  if (!unsafe) sandbox(L);
  set_path(L, file, unsafe);
  lua_register(L, "print", scen_print);
  luaL_requiref(L, "umlbed", luaopen_umlbed, 0);
  lua_pop(L, 1);
  return L;
}

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
static int load_table(lua_State *L, const char *file, const char *const *params) {
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
static int matrix_combo(lua_State *L, int tidx, int combo, umb_buf *label) {
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
  if (found) lua_pushfstring(L, "%s:%d: ", file, found);
  else lua_pushfstring(L, "%s: ", file);
}

/* A matrix error (message on top) as an error naming the file and the matrix's line. */
static int matrix_error(lua_State *L, const char *file) {
  matrix_where(L, file);
  lua_insert(L, -2);
  lua_concat(L, 2);
  return lua_error(L);
}

/* The Lua side of umb_scen_describe, run under lua_pcall: scenario files are user code. */
static int describe_protected(lua_State *L) {
  describe_ctx *d = lua_touserdata(L, 1);
  if (load_table(L, d->file, d->params)) return lua_error(L);
  int t = lua_gettop(L);
  int n = matrix_combo(L, t, 0, NULL);
  if (n < 0) return matrix_error(L, d->file);
  lua_pop(L, 1);
  d->name = display_name(L, t, d->file, NULL);
  d->combos = calloc((size_t)n, sizeof(char *));
  if (d->combos == NULL) return luaL_error(L, "out of memory");
  umb_buf label = {0};
  for (int i = 0; i < n; i++) {
    umb_buf_reset(&label);
    matrix_combo(L, t, i, &label);
    lua_pop(L, 1);
    d->combos[i] = display_name(L, t, d->file, label.data);
    d->n = i + 1;
  }
  umb_buf_free(&label);
  return 0;
}

int umb_scen_describe(const char *file, const char *const *params, int unsafe, double timeout_s, char **name,
                      char ***combos, int *ncombos, char **err) {
  describe_ctx d = {.file = file, .params = params};
  if (timeout_s > 0) d.deadline = uv_hrtime() + (uint64_t)(timeout_s * 1e9);
  lua_State *L = new_state(unsafe, file);
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
    *err = strdup(msg ? msg : "error");
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

/* The verdict of a scenario whose run function returned and whose tasks all ended. */
static void finish_returned(umb_scen *sc) {
  if (umb_run_check_kernels(&sc->run)) return;
  /* An error in a task that nobody waited for would otherwise go unseen. */
  int unwaited = 0;
  for (umb_task *t = sc->tasks; t; t = t->next) {
    if (t->state != UMB_TASK_FAILED || t->waited) continue;
    lua_rawgeti(sc->L, LUA_REGISTRYINDEX, t->resref);
    umb_buf_printf(&sc->run.diag, "error in a task nobody waited for: %s\n", lua_tostring(sc->L, -1));
    lua_pop(sc->L, 1);
    unwaited++;
  }
  umb_run_finish(&sc->run, unwaited ? UMB_ERROR : sc->run.nfails ? UMB_FAILED : UMB_OK, NULL);
}

/* Lua code that never yields would block the loop, its timers and its signal handling; a count hook
 * enforces the deadline and a stop signal from inside Lua. In a task it yields, which no pcall in the
 * scenario can intercept: the task is parked for good and the loop decides. Where Lua cannot yield (the
 * scenario file's top level, a timeout function, a __gc) it raises an error, again at every count. */
static void deadline_hook(lua_State *L, lua_Debug *ar) {
  (void)ar;
  umb_scen *sc = umb_scen_from_lua(L);
  if (sc == NULL) return;
  int late = sc->deadline && uv_hrtime() > sc->deadline;
  if (!late && !umb_stop_signal) return;
  if (late) sc->busy_timeout = 1;
  if (umb_task_from_lua(L) && lua_isyieldable(L)) {
    sc->hook_stopped = 1;
    lua_yield(L, 0);
    return;
  }
  luaL_error(L, late ? "the scenario's Lua code ran past the timeout without waiting for the guest"
                     : "stopped by a signal");
}



/* The hook for a new Lua thread of the scenario: always on, since a signal must stop even --timeout 0 runs. */
static void set_hook(lua_State *co) { lua_sethook(co, deadline_hook, LUA_MASKCOUNT, HOOK_COUNT); }

static int tostring_protected(lua_State *L) {
  luaL_tolstring(L, 1, NULL);
  return 1;
}

/* The error object on top of the dead coroutine co as text, pushed on the scenario's main state: its __tostring
 * is scenario code and may raise too, so it runs protected, on a live thread. */
static const char *error_text(umb_scen *sc, lua_State *co) {
  lua_State *L = sc->L;
  lua_xmove(co, L, 1);
  if (lua_type(L, -1) == LUA_TSTRING) return lua_tostring(L, -1);
  lua_pushcfunction(L, tostring_protected);
  lua_pushvalue(L, -2);
  if (lua_pcall(L, 1, 1, 0) == LUA_OK && lua_type(L, -1) == LUA_TSTRING) {
    lua_remove(L, -2);
    return lua_tostring(L, -1);
  }
  const char *why = lua_type(L, -1) == LUA_TSTRING ? lua_tostring(L, -1) : "?";
  lua_pushfstring(L, "(an error object of type %s whose __tostring raised: %s)", luaL_typename(L, -2), why);
  lua_replace(L, -3);
  lua_pop(L, 1);
  return lua_tostring(L, -1);
}

void umb_scen_fail(umb_scen *sc, const char *text) { umb_run_fail(&sc->run, text); }
void umb_scen_note(umb_scen *sc, const char *text) { umb_run_note(&sc->run, text); }

static const char SKIP_MARK = 'K';
void *umb_scen_skip_mark(void) { return (void *)&SKIP_MARK; }
static const char ABORT_MARK = 'A';
void *umb_scen_abort_mark(void) { return (void *)&ABORT_MARK; }

/* Whether the error on top of co is a t:require()/t:assert_*() stop (its failure is already recorded). */
static int is_abort(lua_State *co) {
  if (!lua_istable(co, -1)) return 0;
  int r = lua_rawgetp(co, -1, umb_scen_abort_mark()) != LUA_TNIL;
  lua_pop(co, 1);
  return r;
}

umb_task *umb_task_from_lua(lua_State *L) { return *(umb_task **)lua_getextraspace(L); }

static void on_runq(uv_idle_t *h);

static void task_queue(umb_task *t) {
  umb_scen *sc = t->sc;
  t->state = UMB_TASK_RUNNABLE;
  t->qnext = NULL;
  if (sc->qtail) sc->qtail->qnext = t;
  else sc->qhead = t;
  sc->qtail = t;
  if (!sc->run.finishing) uv_idle_start(&sc->runq, on_runq);
}

umb_task *umb_task_new(umb_scen *sc, lua_State *co, int coref, int nargs, const char *where) {
  umb_task *t = calloc(1, sizeof *t);
  if (t == NULL) return NULL;
  t->sc = sc;
  t->co = co;
  t->coref = coref;
  t->resref = LUA_NOREF;
  t->index = sc->ntasks++;
  t->nargs = nargs;
  if (t->index == 0) snprintf(t->where, sizeof t->where, "the run function");
  else snprintf(t->where, sizeof t->where, "task %d (t:go at %s)", t->index, where);
  *(umb_task **)lua_getextraspace(co) = t;
  set_hook(co);
  umb_task **pp = &sc->tasks;
  while (*pp) pp = &(*pp)->next;
  *pp = t;
  task_queue(t);
  return t;
}

void umb_task_wake(umb_task *t, int nargs) {
  /* A task is queued at most once; it was parked with nothing pushed yet. */
  if (t->state != UMB_TASK_PARKED) return;
  t->nargs = nargs;
  task_queue(t);
}

/* The run function has returned and no task is left: the scenario's verdict. */
static void check_done(umb_scen *sc) {
  for (umb_task *t = sc->tasks; t; t = t->next)
    if (t->state == UMB_TASK_RUNNABLE || t->state == UMB_TASK_PARKED) return;
  finish_returned(sc);
}

static void wake_waiters(umb_task *done) {
  for (umb_task *t = done->sc->tasks; t; t = t->next)
    if (t->waiting_for == done) {
      t->waiting_for = NULL;
      umb_task_wake(t, 0);
    }
}

/* Keeps a task's end in the registry: a table of its results, or its error with a traceback. */
static void task_end(umb_task *t, int st, int nres) {
  lua_State *co = t->co;
  if (st == LUA_OK) {
    int base = lua_gettop(co) - nres + 1;
    lua_createtable(co, nres, 1);
    for (int i = 0; i < nres; i++) {
      lua_pushvalue(co, base + i);
      lua_rawseti(co, -2, i + 1);
    }
    lua_pushinteger(co, nres);
    lua_setfield(co, -2, "n");
    t->state = UMB_TASK_DONE;
  } else {
    const char *msg = NULL;
    if (lua_istable(co, -1)) {
      lua_rawgetp(co, -1, umb_scen_skip_mark());
      if (!lua_isnil(co, -1)) msg = "t:skip() called in a task (only the run function can skip)";
      lua_pop(co, 1);
    }
    umb_scen *sc = t->sc;
    if (msg == NULL) {
      msg = error_text(sc, co); /* Pushed on sc->L, popped below. */
      luaL_traceback(co, co, msg, 0);
      lua_pop(sc->L, 1);
    } else {
      luaL_traceback(co, co, msg, 0);
    }
    lua_pushfstring(co, "%s: %s", t->where, lua_tostring(co, -1));
    t->state = UMB_TASK_FAILED;
  }
  t->resref = luaL_ref(co, LUA_REGISTRYINDEX);
  lua_settop(co, 0);
  /* The coroutine is no longer needed; its results live on in the registry. */
  luaL_unref(co, LUA_REGISTRYINDEX, t->coref);
  t->coref = LUA_NOREF;
}

static void task_run(umb_task *t) {
  umb_scen *sc = t->sc;
  if (sc->run.finishing || sc->L == NULL) return;
  int nres = 0, nargs = t->nargs;
  t->nargs = 0;
  t->state = UMB_TASK_PARKED;
  t->pending_what = NULL;
  int st = lua_resume(t->co, sc->L, nargs, &nres);
  if (sc->run.finishing) return;
  if (st == LUA_YIELD && sc->hook_stopped) {
    /* The hook parked the task for good; nothing resumes it. */
    lua_pop(t->co, nres);
    sc->hook_stopped = 0;
    t->pending_what = "nothing: it was stopped in busy Lua code";
    if (sc->busy_timeout) {
      luaL_traceback(sc->L, t->co, "the scenario's Lua code ran past the timeout without waiting for the guest", 0);
      /* Finishing may close the Lua state at once: the text must not live on its stack. */
      char *msg = strdup(lua_tostring(sc->L, -1));
      lua_pop(sc->L, 1);
      umb_run_finish(&sc->run, UMB_TIMEOUT, "%s: %s", t->where, msg ? msg : "");
      free(msg);
    }
    /* Else a signal stopped it: the loop's signal handling interrupts the scenario next. */
    return;
  }
  if (st == LUA_YIELD) {
    lua_pop(t->co, nres);
    /* Guest calls, boots and task:wait() say what they wait for; a bare yield would park the
     * task forever. */
    if (t->pending_what) return;
    lua_pushstring(t->co, "coroutine.yield() outside a coroutine of the scenario's own: only guest calls and "
                          "task:wait() may suspend the run function or a task");
    st = LUA_ERRRUN;
  }
  if (st != LUA_OK && is_abort(t->co)) {
    /* Like kselftest's ASSERT_*: the failed requirement ends the whole scenario, from any task. */
    t->state = UMB_TASK_FAILED;
    umb_run_finish(&sc->run, UMB_FAILED, NULL);
    return;
  }
  if (t->index > 0) {
    task_end(t, st, nres);
    if (st != LUA_OK && sc->busy_timeout) {
      lua_rawgeti(sc->L, LUA_REGISTRYINDEX, t->resref);
      umb_run_finish(&sc->run, UMB_TIMEOUT, "%s", lua_tostring(sc->L, -1));
      return;
    }
    wake_waiters(t);
    if (sc->tasks->state == UMB_TASK_DONE) check_done(sc);
    return;
  }
  if (st == LUA_OK) {
    lua_settop(t->co, 0);
    t->state = UMB_TASK_DONE;
    /* Tasks still running are waited for; the timeout still applies. */
    check_done(sc);
    return;
  }
  t->state = UMB_TASK_FAILED;
  /* t:skip() raises a table {skip = reason}; anything else is an error in the scenario. */
  if (lua_istable(t->co, -1)) {
    lua_rawgetp(t->co, -1, umb_scen_skip_mark());
    if (!lua_isnil(t->co, -1)) {
      umb_run_finish(&sc->run, UMB_SKIP, "%s", lua_tostring(t->co, -1) ? lua_tostring(t->co, -1) : "");
      return;
    }
    lua_pop(t->co, 1);
  }
  const char *msg = error_text(sc, t->co);
  luaL_traceback(t->co, t->co, msg, 0);
  lua_pop(sc->L, 1);
  umb_run_finish(&sc->run, sc->busy_timeout ? UMB_TIMEOUT : UMB_ERROR, "%s", lua_tostring(t->co, -1));
}

/* Runs the tasks queued so far; tasks woken meanwhile wait for the next turn of the loop. */
static void on_runq(uv_idle_t *h) {
  umb_scen *sc = h->data;
  umb_task *last = sc->qtail;
  while (sc->qhead && !sc->run.finishing) {
    umb_task *t = sc->qhead;
    sc->qhead = t->qnext;
    if (sc->qhead == NULL) sc->qtail = NULL;
    t->qnext = NULL;
    task_run(t);
    if (t == last) break;
  }
  if (sc->qhead == NULL || sc->run.finishing) uv_idle_stop(h);
}

/* Loads the scenario and prepares its coroutine, under lua_pcall: scenario files are user code. */
static int prepare_protected(lua_State *L) {
  umb_scen *sc = lua_touserdata(L, 1);
  if (load_table(L, sc->file, sc->cfg->params)) return lua_error(L);
  int t = lua_gettop(L);
  lua_getfield(L, t, "allow_warnings");
  sc->run.allow_warnings = lua_toboolean(L, -1);
  lua_getfield(L, t, "timeout");
  /* timeout may depend on the parameters (e.g. a fuzzer's step count): function(p) -> seconds. */
  if (lua_isfunction(L, -1)) {
    if (matrix_combo(L, t, sc->combo, NULL) < 0) return matrix_error(L, sc->file);
    lua_call(L, 1, 1);
  }
  if (!lua_isnil(L, -1)) {
    /* Anything but a positive finite number would silently turn the hang guard off. */
    double v = lua_type(L, -1) == LUA_TNUMBER ? lua_tonumber(L, -1) : -1;
    if (!(v > 0) || v > 1e9)
      return luaL_error(L, "%s: timeout must be a positive number of seconds (or a function returning one)",
                        sc->file);
    if (!sc->cfg->timeout_given && !sc->cfg->gdb_interactive)
      sc->timeout_s = v * (sc->cfg->timeout_scale > 0 ? sc->cfg->timeout_scale : 1);
  }
  lua_getfield(L, t, "skip");
  if (lua_type(L, -1) == LUA_TSTRING) {
    sc->skip = strdup(lua_tostring(L, -1));
    return 0;
  }
  if (!lua_isnil(L, -1)) return luaL_error(L, "%s: skip must be a string (the reason) or nil", sc->file);
  lua_settop(L, t);
  lua_State *co = lua_newthread(L);
  int coref = luaL_ref(L, LUA_REGISTRYINDEX);
  lua_getfield(L, t, "run");
  umb_lua_push_t(L);
  if (matrix_combo(L, t, sc->combo, NULL) < 0) return matrix_error(L, sc->file);
  /* The t object carries the parameters too, for helpers that only get t. */
  lua_pushvalue(L, -1);
  lua_setfield(L, -3, "params");
  lua_xmove(L, co, 3);
  if (umb_task_new(sc, co, coref, 2, NULL) == NULL) return luaL_error(L, "out of memory");
  return 0;
}


/* The core's calls upward. */
static void on_finishing(umb_run *r) {
  umb_scen *sc = r->user;
  uv_idle_stop(&sc->runq);
}

static void on_runq_closed(uv_handle_t *h) {
  umb_scen *sc = h->data;
  umb_run_release(&sc->run);
}

static void on_closed(umb_run *r) {
  umb_scen *sc = r->user;
  if (sc->L) {
    /* Finalizers are scenario code: a __gc that loops gets the hook's errors after this grace. */
    sc->deadline = uv_hrtime() + (uint64_t)(CLOSE_GRACE_S * (sc->cfg->timeout_scale > 0 ? sc->cfg->timeout_scale : 1) * 1e9);
    lua_close(sc->L);
    sc->L = NULL;
  }
  umb_run_hold(r);
  uv_close((uv_handle_t *)&sc->runq, on_runq_closed);
}

/* Names what every unfinished task was waiting for. */
static void on_timeout(umb_run *r, umb_buf *what) {
  umb_scen *sc = r->user;
  for (umb_task *k = sc->tasks; k; k = k->next)
    if (k->state == UMB_TASK_PARKED && k->pending_what)
      umb_buf_printf(what, "%s%s (%s)", what->len ? ", " : "; waiting for ", k->pending_what, k->where);
}

static void on_done(umb_run *r) {
  umb_scen *sc = r->user;
  sc->result.run = umb_run_result(r);
  sc->result.prints = sc->prints.len ? sc->prints.data : NULL;
  if (sc->done_cb) sc->done_cb(sc, sc->data);
}

static const umb_run_ops run_ops = {
    .finishing = on_finishing, .closed = on_closed, .timeout = on_timeout, .done = on_done};

static int start_lua(umb_scen *sc) {
  lua_State *L = sc->L = new_state(sc->cfg->unsafe_lua, sc->file);
  if (L == NULL) return -ENOMEM;
  lua_pushlightuserdata(L, sc);
  lua_rawsetp(L, LUA_REGISTRYINDEX, &REG_SCEN);
  sc->timeout_s = sc->cfg->timeout_s;
  /* The file's top level and a timeout function are scenario code too: bounded by the default timeout. */
  if (sc->timeout_s > 0) sc->deadline = uv_hrtime() + (uint64_t)(sc->timeout_s * 1e9);
  set_hook(L);
  lua_pushcfunction(L, prepare_protected);
  lua_pushlightuserdata(L, sc);
  if (lua_pcall(L, 1, 0, 0) != LUA_OK) return -EINVAL;
  if (sc->skip) {
    umb_run_finish(&sc->run, UMB_SKIP, "%s", sc->skip);
    return 0;
  }
  lua_settop(L, 0);
  umb_run_set_timeout(&sc->run, sc->timeout_s);
  sc->deadline = sc->timeout_s > 0 ? uv_hrtime() + (uint64_t)(sc->timeout_s * 1e9) : 0;
  return 0;
}

umb_scen *umb_scen_new(uv_loop_t *loop, const umb_config *cfg, const char *file, const char *name, int combo,
                       void (*done_cb)(umb_scen *sc, void *data), void *data) {
  umb_scen *sc = calloc(1, sizeof *sc);
  if (sc == NULL) return NULL;
  sc->loop = loop;
  sc->cfg = cfg;
  sc->file = strdup(file);
  sc->name = strdup(name);
  sc->combo = combo;
  sc->done_cb = done_cb;
  sc->data = data;
  if (sc->file == NULL || sc->name == NULL) {
    umb_scen_free(sc);
    return NULL;
  }
  return sc;
}

int umb_scen_start(umb_scen *sc) {
  uv_idle_init(sc->loop, &sc->runq);
  sc->runq.data = sc;
  int rc = umb_run_start(&sc->run, sc->loop, sc->cfg, &run_ops, sc);
  if (rc) return rc;
  rc = start_lua(sc);
  if (rc) {
    const char *msg = sc->L ? lua_tostring(sc->L, -1) : NULL;
    umb_run_finish(&sc->run, sc->busy_timeout ? UMB_TIMEOUT : UMB_ERROR, "%s", msg ? msg : strerror(-rc));
  }
  return rc;
}

void umb_scen_interrupt(umb_scen *sc) { umb_run_interrupt(&sc->run); }

const umb_scen_result *umb_scen_get_result(const umb_scen *sc) { return &sc->result; }

void umb_scen_free(umb_scen *sc) {
  while (sc->tasks) {
    umb_task *t = sc->tasks;
    sc->tasks = t->next;
    free(t);
  }
  umb_run_free(&sc->run);
  umb_buf_free(&sc->prints);
  free(sc->skip);
  free(sc->file);
  free(sc->name);
  free(sc);
}

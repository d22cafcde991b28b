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

/* After a fatal console finding, wait this long for the kernel to die before killing it. */
#define GRACE_MS 1000
#define EXCERPT_LINES 40

static const char REG_SCEN = 'S'; /* Registry key (its address) for the owning scenario. */

/* Live vms per host CPU, so a new instance goes to the least loaded CPU. */
static int cpu_load[CPU_SETSIZE];

const char *umb_verdict_name(umb_verdict v) {
  switch (v) {
    case UMB_OK: return "ok";
    case UMB_SKIP: return "SKIP";
    case UMB_FAILED: return "FAILED";
    case UMB_CRASHED: return "CRASHED";
    case UMB_TIMEOUT: return "TIMEOUT";
    case UMB_ERROR: return "ERROR";
  }
  return "?";
}

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

static lua_State *new_state(int unsafe) {
  lua_State *L = luaL_newstate();
  if (L == NULL) return NULL;
  /* Every coroutine copies the main thread's extra space: NULL there means "not a task". */
  *(umb_task **)lua_getextraspace(L) = NULL;
  luaL_openlibs(L);
  if (!unsafe) sandbox(L);
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
  lua_State *L = new_state(unsafe);
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

/* A copy, never a hard link: the guest's root owns its /umlbed-agent and may change it (chmod, write), and that
 * must not reach the build tree or the next run. */
static int copy_file(const char *from, const char *to) {
  int in = open(from, O_RDONLY | O_CLOEXEC), out = -1, rc = 0;
  if (in < 0) return -errno;
  out = open(to, O_WRONLY | O_CREAT | O_EXCL | O_TRUNC | O_CLOEXEC, 0555);
  if (out < 0) {
    rc = -errno;
    close(in);
    return rc;
  }
  char buf[65536];
  ssize_t n;
  while ((n = read(in, buf, sizeof buf)) > 0)
    if (write(out, buf, (size_t)n) != n) {
      rc = -EIO;
      break;
    }
  if (n < 0) rc = -errno;
  close(in);
  close(out);
  return rc;
}

static int make_dirs(umb_scen *sc) {
  char path[4200];
  snprintf(sc->dir, sizeof sc->dir, "%s/umlbed-%d-XXXXXX", sc->cfg->tmpbase, (int)getpid());
  if (mkdtemp(sc->dir) == NULL) {
    sc->dir[0] = '\0';
    return -errno;
  }
  /* From here on, a runner that dies any death leaves the folder to the reaper. */
  umb_reaper_add_dir(sc->dir);
  snprintf(sc->root, sizeof sc->root, "%s/root", sc->dir);
  static const char *sub[] = {"", "/shared", "/proc", "/sys", "/dev", "/tmp"};
  for (size_t i = 0; i < sizeof sub / sizeof sub[0]; i++) {
    snprintf(path, sizeof path, "%s%s", sc->root, sub[i]);
    if (mkdir(path, 0755)) return -errno;
  }
  /* The guest's root is the agent's owner, so the shared folder must be writable by workers
   * that dropped root (setuid scenarios). */
  snprintf(path, sizeof path, "%s/shared", sc->root);
  chmod(path, 01777);
  snprintf(path, sizeof path, "%s/umlbed-agent", sc->root);
  return copy_file(sc->cfg->agent, path);
}

static void rm_work(uv_work_t *w) {
  umb_scen *sc = w->data;
  if (!sc->dir[0]) return;
  if (!sc->kept) {
    umb_rm_tree(sc->dir);
    return;
  }
  /* Kept on purpose: a later runner's clean-up of dead runners' folders must leave it. */
  char mark[sizeof sc->dir + 32];
  snprintf(mark, sizeof mark, "%s/%s", sc->dir, UMB_KEPT_MARK);
  int fd = open(mark, O_WRONLY | O_CREAT | O_CLOEXEC, 0644);
  if (fd >= 0) close(fd);
}

static void on_timer_closed(uv_handle_t *h) {
  umb_scen *sc = h->data;
  if (--sc->nclosing == 0 && sc->done_cb) sc->done_cb(sc);
}

static void rm_done(umb_scen *sc) {
  if (sc->dir[0]) umb_reaper_del_dir(sc->dir);
  sc->nclosing = 3;
  uv_close((uv_handle_t *)&sc->timer, on_timer_closed);
  uv_close((uv_handle_t *)&sc->grace, on_timer_closed);
  uv_close((uv_handle_t *)&sc->runq, on_timer_closed);
}

static void after_rm(uv_work_t *w, int status) {
  umb_scen *sc = w->data;
  (void)status;
  free(w);
  rm_done(sc);
}

static void after_vms(umb_scen *sc) {
  if (sc->L) {
    /* Finalizers are scenario code: a __gc that loops gets the hook's errors after this grace. */
    sc->deadline = uv_hrtime() + (uint64_t)(CLOSE_GRACE_S * (sc->cfg->timeout_scale > 0 ? sc->cfg->timeout_scale : 1) * 1e9);
    lua_close(sc->L);
    sc->L = NULL;
  }
  for (int i = 0; i < sc->nvms; i++) {
    if (sc->vms[i]->cpu >= 0) cpu_load[sc->vms[i]->cpu]--;
    free(sc->vms[i]->pending_verb);
    free(sc->vms[i]->waiter);
    free(sc->vms[i]);
    sc->vms[i] = NULL;
  }
  sc->nvms = 0;
  sc->t_end = uv_hrtime();
  sc->kept = sc->dir[0] && (sc->cfg->keep || (!sc->interrupted && sc->verdict >= UMB_FAILED));
  uv_work_t *w = calloc(1, sizeof *w);
  if (w == NULL) {
    /* No memory for a work request: remove the folder on the loop thread instead. */
    uv_work_t now = {.data = sc};
    rm_work(&now);
    rm_done(sc);
    return;
  }
  w->data = sc;
  if (uv_queue_work(sc->loop, w, rm_work, after_rm)) {
    rm_work(w);
    after_rm(w, 0);
  }
}

static void on_vm_closed(void *data) {
  umb_svm *svm = data;
  umb_scen *sc = svm->sc;
  svm->vm = NULL;
  if (--sc->nclosing == 0) after_vms(sc);
}

static void append_excerpt(umb_scen *sc, umb_svm *svm, const char *why) {
  umb_vm_drain_console(svm->vm);
  const umb_scanner *s = umb_vm_scanner(svm->vm);
  umb_buf_printf(&sc->diag, "vm%d: %s", svm->index, why);
  if (s->first != UMB_FIND_NONE)
    umb_buf_printf(&sc->diag, " (%s at console line %zu)", umb_finding_name(s->first), s->first_lineno);
  umb_buf_printf(&sc->diag, "\nconsole excerpt (%s/console.log):\n", svm->dir);
  umb_scanner_excerpt(s, &sc->diag, EXCERPT_LINES);
}

void umb_scen_finish(umb_scen *sc, umb_verdict v, const char *fmt, ...) {
  if (sc->finishing) return;
  sc->finishing = 1;
  sc->verdict = v;
  if (fmt) {
    char msg[4096];
    va_list ap;
    va_start(ap, fmt);
    vsnprintf(msg, sizeof msg, fmt, ap);
    va_end(ap);
    if (sc->diag.len && sc->diag.data[sc->diag.len - 1] != '\n') umb_buf_append(&sc->diag, "\n", 1);
    umb_buf_printf(&sc->diag, "%s\n", msg);
  }
  uv_timer_stop(&sc->timer);
  uv_timer_stop(&sc->grace);
  uv_idle_stop(&sc->runq);
  sc->nclosing = 1; /* Held until every vm close has been started. */
  for (int i = 0; i < sc->nvms; i++) {
    if (sc->vms[i]->vm == NULL) continue;
    sc->nclosing++;
    umb_vm_close(sc->vms[i]->vm, on_vm_closed, sc->vms[i]);
  }
  if (--sc->nclosing == 0) after_vms(sc);
}

void umb_scen_fail(umb_scen *sc, const char *text) {
  sc->nfails++;
  umb_buf_printf(&sc->diag, "%s\n", text);
}

/* The verdict of a scenario whose run function returned. */
static void finish_returned(umb_scen *sc) {
  for (int i = 0; i < sc->nvms; i++) {
    umb_svm *svm = sc->vms[i];
    if (svm->vm == NULL) continue;
    /* A warning printed during the last request may still sit in the console pipe. */
    umb_vm_drain_console(svm->vm);
    const umb_scanner *s = umb_vm_scanner(svm->vm);
    if (UMB_FINDING_FATAL(s->worst) || (s->worst != UMB_FIND_NONE && !sc->allow_warnings)) {
      append_excerpt(sc, svm, "the kernel reported a problem");
      umb_scen_finish(sc, UMB_CRASHED, NULL);
      return;
    }
  }
  /* An error in a task that nobody waited for would otherwise go unseen. */
  int unwaited = 0;
  for (umb_task *t = sc->tasks; t; t = t->next) {
    if (t->state != UMB_TASK_FAILED || t->waited) continue;
    lua_rawgeti(sc->L, LUA_REGISTRYINDEX, t->resref);
    umb_buf_printf(&sc->diag, "error in a task nobody waited for: %s\n", lua_tostring(sc->L, -1));
    lua_pop(sc->L, 1);
    unwaited++;
  }
  if (unwaited) {
    umb_scen_finish(sc, UMB_ERROR, NULL);
    return;
  }
  umb_scen_finish(sc, sc->nfails ? UMB_FAILED : UMB_OK, NULL);
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
  if (!sc->finishing) uv_idle_start(&sc->runq, on_runq);
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
  if (sc->finishing || sc->L == NULL) return;
  int nres = 0, nargs = t->nargs;
  t->nargs = 0;
  t->state = UMB_TASK_PARKED;
  t->pending_what = NULL;
  int st = lua_resume(t->co, sc->L, nargs, &nres);
  if (sc->finishing) return;
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
      umb_scen_finish(sc, UMB_TIMEOUT, "%s: %s", t->where, msg ? msg : "");
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
    umb_scen_finish(sc, UMB_FAILED, NULL);
    return;
  }
  if (t->index > 0) {
    task_end(t, st, nres);
    if (st != LUA_OK && sc->busy_timeout) {
      lua_rawgeti(sc->L, LUA_REGISTRYINDEX, t->resref);
      umb_scen_finish(sc, UMB_TIMEOUT, "%s", lua_tostring(sc->L, -1));
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
      umb_scen_finish(sc, UMB_SKIP, "%s", lua_tostring(t->co, -1) ? lua_tostring(t->co, -1) : "");
      return;
    }
    lua_pop(t->co, 1);
  }
  const char *msg = error_text(sc, t->co);
  luaL_traceback(t->co, t->co, msg, 0);
  lua_pop(sc->L, 1);
  umb_scen_finish(sc, sc->busy_timeout ? UMB_TIMEOUT : UMB_ERROR, "%s", lua_tostring(t->co, -1));
}

/* Runs the tasks queued so far; tasks woken meanwhile wait for the next turn of the loop. */
static void on_runq(uv_idle_t *h) {
  umb_scen *sc = h->data;
  umb_task *last = sc->qtail;
  while (sc->qhead && !sc->finishing) {
    umb_task *t = sc->qhead;
    sc->qhead = t->qnext;
    if (sc->qhead == NULL) sc->qtail = NULL;
    t->qnext = NULL;
    task_run(t);
    if (t == last) break;
  }
  if (sc->qhead == NULL || sc->finishing) uv_idle_stop(h);
}

static void on_timeout(uv_timer_t *t) {
  umb_scen *sc = t->data;
  for (int i = 0; i < sc->nvms; i++)
    if (sc->vms[i]->vm) append_excerpt(sc, sc->vms[i], "console at the timeout");
  /* Name what every unfinished task was waiting for. */
  umb_buf what = {0};
  for (umb_task *k = sc->tasks; k; k = k->next)
    if (k->state == UMB_TASK_PARKED && k->pending_what)
      umb_buf_printf(&what, "%s%s (%s)", what.len ? ", " : "; waiting for ", k->pending_what, k->where);
  umb_scen_finish(sc, UMB_TIMEOUT, "no verdict after %.1f s%s", sc->timeout_s, what.data ? what.data : "");
  umb_buf_free(&what);
}

static void on_grace(uv_timer_t *t) {
  umb_scen *sc = t->data;
  if (sc->crashed && sc->crashed->vm) append_excerpt(sc, sc->crashed, "the kernel crashed");
  umb_scen_finish(sc, UMB_CRASHED, NULL);
}

static void on_vm_event(umb_vm *vm, umb_vm_event ev, void *data) {
  umb_svm *svm = data;
  umb_scen *sc = svm->sc;
  switch (ev) {
    case UMB_VM_READY:
      if (svm->index < UMB_SCEN_VMS_MAX) sc->boot_ms[sc->nboot++] = umb_vm_boot_ms(vm);
      umb_lua_vm_event(svm, ev);
      break;
    case UMB_VM_FINDING:
      if (UMB_FINDING_FATAL(umb_vm_scanner(vm)->worst) && sc->crashed == NULL && !sc->finishing) {
        /* Let the kernel finish printing and die; the DEAD event usually comes first. */
        sc->crashed = svm;
        uv_timer_start(&sc->grace, on_grace, GRACE_MS, 0);
      }
      break;
    case UMB_VM_EXITED:
      if (!sc->finishing) {
        uint64_t pid;
        const char *st = umb_vm_exited(vm, &pid);
        umb_lua_vm_exited(svm, pid, st);
      }
      break;
    case UMB_VM_DEAD:
      if (sc->finishing) break;
      if (svm->expect_exit && umb_vm_scanner(vm)->worst < UMB_FIND_BUG) {
        umb_lua_vm_event(svm, ev);
        umb_lua_vm_exited(svm, 0, NULL);
        break;
      }
      {
        /* A broken agent is an error of the test setup; a dying kernel is a crash. */
        const char *why = umb_vm_death(vm) ? umb_vm_death(vm) : "died";
        append_excerpt(sc, svm, why);
        umb_scen_finish(sc, strncmp(why, "protocol error", 14) ? UMB_CRASHED : UMB_ERROR, NULL);
      }
      break;
    case UMB_VM_GONE:
      svm->gone = 1;
      /* After vm:kill(): no "exited" event will come any more. */
      if (!sc->finishing) umb_lua_vm_exited(svm, 0, NULL);
      break;
  }
}

int umb_scen_vm_spawn(umb_scen *sc, const char *mem, const char *cmdline, int time_travel,
                      umb_svm **out) {
  if (sc->nvms == UMB_SCEN_VMS_MAX) return -EMFILE;
  umb_svm *svm = calloc(1, sizeof *svm);
  if (svm == NULL) return -ENOMEM;
  svm->sc = sc;
  svm->index = sc->nvms;
  snprintf(svm->dir, sizeof svm->dir, "%s/vm%d", sc->dir, svm->index);
  snprintf(svm->root, sizeof svm->root, "%s", sc->root);
  snprintf(svm->shared, sizeof svm->shared, "%s/shared", sc->root);
  if (mkdir(svm->dir, 0755)) {
    int rc = -errno;
    free(svm);
    return rc;
  }
  /* Pin to the least loaded allowed CPU: one instance per CPU makes faults much faster. */
  cpu_set_t allowed;
  svm->cpu = -1;
  if (sched_getaffinity(0, sizeof allowed, &allowed) == 0) {
    for (int c = 0; c < CPU_SETSIZE; c++)
      if (CPU_ISSET(c, &allowed) && (svm->cpu < 0 || cpu_load[c] < cpu_load[svm->cpu])) svm->cpu = c;
  }
  char umid[128];
  snprintf(umid, sizeof umid, "umlbed-%d-%p-%d", (int)getpid(), (void *)sc, svm->index);
  char extra[4096];
  snprintf(extra, sizeof extra, "%s%s%s", sc->cfg->cmdline ? sc->cfg->cmdline : "",
           cmdline && sc->cfg->cmdline ? " " : "", cmdline ? cmdline : "");
  umb_vm_options o = {
      .kernel = sc->cfg->kernel,
      .root = sc->root,
      .dir = svm->dir,
      .umid = umid,
      .mem = mem ? mem : sc->cfg->mem,
      .cmdline = extra[0] ? extra : NULL,
      .time_travel = time_travel || sc->cfg->time_travel,
      .cpu = svm->cpu,
      .gdb = sc->cfg->gdb_script,
      .gdb_interactive = sc->cfg->gdb_interactive,
      .ignore = sc->cfg->ignore,
  };
  int rc = umb_vm_spawn(sc->loop, &o, on_vm_event, svm, &svm->vm);
  if (rc) {
    /* Nothing started: the folder goes, so that the next t:vm() can take the same index. */
    umb_rm_tree(svm->dir);
    free(svm);
    return rc;
  }
  if (svm->cpu >= 0) cpu_load[svm->cpu]++;
  sc->vms[sc->nvms++] = svm;
  *out = svm;
  return 0;
}

/* Loads the scenario and prepares its coroutine, under lua_pcall: scenario files are user code. */
static int prepare_protected(lua_State *L) {
  umb_scen *sc = lua_touserdata(L, 1);
  if (load_table(L, sc->file, sc->cfg->params)) return lua_error(L);
  int t = lua_gettop(L);
  lua_getfield(L, t, "allow_warnings");
  sc->allow_warnings = lua_toboolean(L, -1);
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

static int start_lua(umb_scen *sc) {
  lua_State *L = sc->L = new_state(sc->cfg->unsafe_lua);
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
    umb_scen_finish(sc, UMB_SKIP, "%s", sc->skip);
    return 0;
  }
  lua_settop(L, 0);
  if (sc->timeout_s > 0) {
    uv_timer_start(&sc->timer, on_timeout, (uint64_t)(sc->timeout_s * 1000), 0);
    sc->deadline = uv_hrtime() + (uint64_t)(sc->timeout_s * 1e9);
  } else {
    sc->deadline = 0;
  }
  return 0;
}

int umb_scen_start(umb_scen *sc) {
  sc->t_start = uv_hrtime();
  uv_timer_init(sc->loop, &sc->timer);
  uv_timer_init(sc->loop, &sc->grace);
  uv_idle_init(sc->loop, &sc->runq);
  sc->timer.data = sc->grace.data = sc->runq.data = sc;
  int rc = make_dirs(sc);
  if (rc) {
    umb_scen_finish(sc, UMB_ERROR, "cannot prepare the run folder under %s: %s (agent %s)", sc->cfg->tmpbase,
                    strerror(-rc), sc->cfg->agent);
    return rc;
  }
  rc = start_lua(sc);
  if (rc) {
    const char *msg = sc->L ? lua_tostring(sc->L, -1) : NULL;
    umb_scen_finish(sc, sc->busy_timeout ? UMB_TIMEOUT : UMB_ERROR, "%s", msg ? msg : strerror(-rc));
  }
  return rc;
}

void umb_scen_interrupt(umb_scen *sc) {
  if (sc->finishing) return;
  sc->interrupted = 1;
  umb_scen_finish(sc, UMB_ERROR, "interrupted by a signal");
}

void umb_scen_free(umb_scen *sc) {
  while (sc->tasks) {
    umb_task *t = sc->tasks;
    sc->tasks = t->next;
    free(t);
  }
  umb_buf_free(&sc->diag);
  umb_buf_free(&sc->prints);
  free(sc->skip);
  free(sc->file);
  free(sc->name);
  free(sc);
}

// SPDX-License-Identifier: MIT
/* scenario.c: one scenario on one run of the core: prepares its Lua state and run function, answers the core's calls. */
#include "host.h"

#include <errno.h>
#include <lauxlib.h>
#include <stdlib.h>
#include <string.h>

static const char REG_SCEN = 'S'; /* Registry key (its address) for the owning scenario. */

umb_scen *umb_scen_from_lua(lua_State *L) {
  lua_rawgetp(L, LUA_REGISTRYINDEX, &REG_SCEN);
  umb_scen *sc = lua_touserdata(L, -1);
  lua_pop(L, 1);
  return sc;
}

volatile sig_atomic_t umb_stop_signal;

/* How long finalizers (__gc) may run when the scenario's Lua state closes, before the hook raises in them. */
#define CLOSE_GRACE_S 2.0

/* Loads the scenario and prepares its coroutine, under lua_pcall: scenario files are user code. */
static int prepare_protected(lua_State *L) {
  umb_scen *sc = lua_touserdata(L, 1);
  if (umb_host_load_table(L, sc->file, sc->cfg->params)) return lua_error(L);
  int t = lua_gettop(L);
  lua_getfield(L, t, "allow_warnings");
  sc->run.allow_warnings = lua_toboolean(L, -1);
  lua_getfield(L, t, "timeout");
  /* timeout may depend on the parameters (e.g. a fuzzer's step count): function(p) -> seconds. */
  if (lua_isfunction(L, -1)) {
    if (umb_host_matrix_combo(L, t, sc->combo, NULL) < 0) return umb_host_matrix_error(L, sc->file);
    lua_call(L, 1, 1);
  }
  if (!lua_isnil(L, -1)) {
    /* Anything but a positive finite number would silently turn the hang guard off. */
    double v = lua_type(L, -1) == LUA_TNUMBER ? lua_tonumber(L, -1) : -1;
    if (!(v > 0) || v > 1e9)
      return luaL_error(L, "%s: timeout must be a positive number of seconds (or a function returning one)", sc->file);
    if (!sc->cfg->core->timeout_given && !sc->cfg->core->gdb_interactive)
      sc->timeout_s = v * (sc->cfg->core->timeout_scale > 0 ? sc->cfg->core->timeout_scale : 1);
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
  const umb_host_module *m = umb_host_module_get();
  if (m == NULL || m->push_t == NULL) return luaL_error(L, "no umlbed module was registered with the host");
  m->push_t(L);
  if (umb_host_matrix_combo(L, t, sc->combo, NULL) < 0) return umb_host_matrix_error(L, sc->file);
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
    sc->deadline =
        uv_hrtime() +
        (uint64_t)(CLOSE_GRACE_S * (sc->cfg->core->timeout_scale > 0 ? sc->cfg->core->timeout_scale : 1) * 1e9);
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
  if (sc->prints_dropped)
    umb_buf_printf(&sc->prints, "[... %zu more bytes of print output dropped: the cap is %u KiB per run]\n",
                   sc->prints_dropped, UMB_RUN_TEXT_MAX >> 10);
  sc->result.prints = sc->prints.len ? sc->prints.data : NULL;
  sc->result.metrics = sc->metrics.len ? sc->metrics.data : NULL;
  if (sc->done_cb) sc->done_cb(sc, sc->data);
}

static const umb_run_ops run_ops = {
    .finishing = on_finishing, .closed = on_closed, .timeout = on_timeout, .done = on_done};

void umb_scen_lua_failed(umb_scen *sc, const char *msg) {
  if (sc->busy_timeout)
    umb_run_finish(&sc->run, UMB_TIMEOUT, "%s", msg);
  else if (sc->mem.hit)
    umb_run_finish(&sc->run, UMB_ERROR, "the scenario's Lua state reached its memory cap of %zu MiB (--lua-memory)\n%s",
                   sc->cfg->lua_memory >> 20, msg);
  else
    umb_run_finish(&sc->run, UMB_ERROR, "%s", msg);
}

static int start_lua(umb_scen *sc) {
  sc->mem.cap = sc->cfg->lua_memory;
  lua_State *L = sc->L = umb_host_new_state(sc->cfg->unsafe_lua, sc->file, &sc->mem);
  if (L == NULL) return -ENOMEM;
  lua_pushlightuserdata(L, sc);
  lua_rawsetp(L, LUA_REGISTRYINDEX, &REG_SCEN);
  sc->timeout_s = sc->cfg->core->timeout_s;
  /* The file's top level and a timeout function are scenario code too: bounded by the default timeout. */
  if (sc->timeout_s > 0) sc->deadline = uv_hrtime() + (uint64_t)(sc->timeout_s * 1e9);
  umb_host_set_hook(L);
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

umb_scen *umb_scen_new(uv_loop_t *loop, const umb_host_config *cfg, const char *file, const char *name, int combo,
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
  sc->run.label = sc->name;
  int rc = umb_run_start(&sc->run, sc->loop, sc->cfg->core, &run_ops, sc);
  if (rc) return rc;
  rc = start_lua(sc);
  if (rc) {
    const char *msg = sc->L ? lua_tostring(sc->L, -1) : NULL;
    umb_scen_lua_failed(sc, msg ? msg : strerror(-rc));
  }
  return rc;
}

void umb_scen_interrupt(umb_scen *sc) { umb_run_interrupt(&sc->run); }

const umb_scen_result *umb_scen_get_result(const umb_scen *sc) { return &sc->result; }

void umb_scen_free(umb_scen *sc) {
  while (sc->tasks) {
    umb_task *t = sc->tasks;
    sc->tasks = t->next;
    if (t->answered && t->answered_free) t->answered_free(t->answered);
    free(t);
  }
  umb_run_free(&sc->run);
  umb_buf_free(&sc->prints);
  umb_buf_free(&sc->metrics);
  free(sc->skip);
  free(sc->file);
  free(sc->name);
  free(sc);
}

// SPDX-License-Identifier: MIT
/* sched.c: the coroutine scheduler: the run function and t:go() tasks resumed from the loop, the deadline hook. */
#include "host.h"

#include <errno.h>
#include <lauxlib.h>
#include <lualib.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

/* The verdict of a scenario whose run function returned and whose tasks all ended. */
void umb_host_finish_returned(umb_scen *sc) {
  if (umb_run_check_kernels(&sc->run)) return;
  /* A C call that Lua could not interrupt (a long string match, blocking I/O) may return after the deadline but
   * before its timer had a turn of the loop: the run overran, whatever it found. */
  if (sc->deadline && uv_hrtime() > sc->deadline) {
    umb_run_finish(&sc->run, UMB_TIMEOUT,
                   "the scenario's code returned only after its timeout of %.1f s (in a call that Lua cannot "
                   "interrupt)",
                   sc->timeout_s);
    return;
  }
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
  luaL_error(
      L, late ? "the scenario's Lua code ran past the timeout without waiting for the guest" : "stopped by a signal");
}

/* The hook for a new Lua thread of the scenario: always on, since a signal must stop even --timeout 0 runs. */
void umb_host_set_hook(lua_State *co) { lua_sethook(co, deadline_hook, LUA_MASKCOUNT, HOOK_COUNT); }

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

void umb_scen_print(umb_scen *sc, const char *s, size_t len) {
  size_t room = sc->prints.len < UMB_RUN_TEXT_MAX ? UMB_RUN_TEXT_MAX - sc->prints.len : 0;
  if (sc->prints_dropped || len > room) {
    /* What fits of the output that reaches the cap is kept, ended by a newline; nothing after it. */
    if (!sc->prints_dropped && room > 1) {
      umb_buf_append(&sc->prints, s, room - 1);
      umb_buf_append(&sc->prints, "\n", 1);
      len -= room - 1;
    }
    sc->prints_dropped += len;
    return;
  }
  umb_buf_append(&sc->prints, s, len);
}

int umb_scen_metric(umb_scen *sc, const char *line) {
  size_t n = strlen(line);
  if (sc->metrics.len + n + 1 > UMB_METRICS_MAX) return -E2BIG;
  return umb_buf_printf(&sc->metrics, "%s\n", line);
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
  if (sc->qtail)
    sc->qtail->qnext = t;
  else
    sc->qhead = t;
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
  if (t->index == 0)
    snprintf(t->where, sizeof t->where, "the run function");
  else
    snprintf(t->where, sizeof t->where, "task %d (t:go at %s)", t->index, where);
  *(umb_task **)lua_getextraspace(co) = t;
  umb_host_set_hook(co);
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
  umb_host_finish_returned(sc);
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

/* Scenario code that reached its memory cap may have spent the first reserve already (Lua retries a refused
 * allocation after an emergency collection, which the reserve then lets through): the runner's own report of the
 * error (its text, a traceback) gets room of its own. A few times per run at most, so that failing tasks cannot
 * buy memory for the others. */
#define REPORT_ROOMS 4
static void report_room(umb_scen *sc) {
  if (!sc->mem.hit || !sc->mem.cap || sc->mem.report_rooms >= REPORT_ROOMS) return;
  sc->mem.report_rooms++;
  sc->mem.cap = sc->mem.used + UMB_LUA_MEM_RESERVE;
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
  if (st != LUA_OK && st != LUA_YIELD) report_room(sc);
  if (st == LUA_YIELD && sc->hook_stopped) {
    /* The hook parked the task for good; nothing resumes it. */
    lua_pop(t->co, nres);
    sc->hook_stopped = 0;
    t->pending_what = "nothing: it was stopped in busy Lua code";
    if (sc->busy_timeout) {
      luaL_traceback(sc->L, t->co, "the scenario's Lua code ran past the timeout without waiting for the guest", 0);
      /* The tasks it kept from running (a guest call answered, a task they waited for ended) are part of why. */
      for (umb_task *o = sc->qhead; o; o = o->qnext) {
        lua_pushfstring(sc->L, "%s%s", o == sc->qhead ? "\nready to run but starved by it: " : ", ", o->where);
        lua_concat(sc->L, 2);
      }
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
    lua_pushstring(t->co,
                   "coroutine.yield() outside a coroutine of the scenario's own: only guest calls and "
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
  umb_scen_lua_failed(sc, lua_tostring(t->co, -1) ? lua_tostring(t->co, -1) : "(an error that is not a string)");
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

// SPDX-License-Identifier: MIT
/* lreq.c: the guest call path: a request sent for a task, the task parked, resumed with the reply or the error. */
#include <errno.h>
#include <stdlib.h>
#include <string.h>

#include "lumlbed.h"

/* One guest call in flight. */
typedef struct lcall {
  umb_req req;
  umb_scen *sc;
  umb_task *task; /* The task to resume. */
  umb_run_vm *svm;
  umb_conv conv;
  lua_Integer arg;
  int status;
  int ok;
  int nfields; /* Reply fields pushed on the task's coroutine, on top of its stack when it resumes. */
} lcall;

static void lcall_free(lcall *c) { free(c); }
static void lcall_free_v(void *c) { lcall_free(c); }

static int call_cont(lua_State *L, int status, lua_KContext k) {
  lcall *c = (lcall *)k;
  (void)status;
  c->task->answered = NULL;
  /* The record is freed before anything here can raise (a converter, a malformed error text). */
  int st = c->status, ok = c->ok, n = c->nfields;
  umb_conv conv = c->conv;
  lua_Integer arg = c->arg;
  lcall_free(c);
  if (st < 0)
    return umb_lua_fail(L, st, st == -EPIPE ? "the vm died" : st == -ENOMEM ? "out of memory" : "the vm was closed");
  int base = lua_gettop(L) - n + 1;
  if (!ok) {
    /* An error reply: ENAME MESSAGE. */
    const char *name = n > 0 ? lua_tostring(L, base) : "EPROTO";
    lua_pushnil(L);
    lua_pushstring(L, n > 1 ? lua_tostring(L, base + 1) : "-");
    umb_lua_pushdecoded(L, -1);
    lua_remove(L, -2);
    lua_pushfstring(L, "%s: %s", name, lua_tostring(L, -1));
    lua_remove(L, -2);
    lua_pushstring(L, name);
    return 3;
  }
  return conv ? conv(L, base, n, arg) : umb_conv_true(L, base, n, arg);
}

/* Pushes the reply's fields on the parked task's coroutine, under lua_pcall on the main state: a memory error
 * there is then an error of this call, not a panic. */
static int push_reply(lua_State *L) {
  lcall *c = lua_touserdata(L, 1);
  const umb_msg *m = lua_touserdata(L, 2);
  lua_State *co = c->task->co;
  if (!lua_checkstack(co, m->nfields + 8)) return luaL_error(L, "a reply of %d fields is too large", m->nfields);
  for (int i = 0; i < m->nfields; i++) {
    lua_pushstring(co, m->fields[i]);
    c->nfields = i + 1;
  }
  return 0;
}

static void on_reply(umb_req *req, int status, umb_msg *m) {
  lcall *c = req->data;
  umb_scen *sc = c->sc;
  c->status = status;
  /* A dying vm means CRASHED; the scenario must not see the broken call first and fail with
   * a Lua error, so every task with a call on it stays parked until the DEAD event finishes the
   * scenario. A call cancelled by vm:kill() in another task returns an error to its task. */
  if (sc->run.finishing || (status == -EPIPE && !umb_run_vm_ending(c->svm))) {
    lcall_free(c);
    return;
  }
  if (m) {
    /* Straight from the line buffer onto the waiting coroutine: no copy in between. */
    c->ok = m->ok;
    lua_pushcfunction(sc->L, push_reply);
    lua_pushlightuserdata(sc->L, c);
    lua_pushlightuserdata(sc->L, m);
    if (lua_pcall(sc->L, 2, 0, 0) != LUA_OK) {
      lua_pop(c->task->co, c->nfields);
      c->nfields = 0;
      c->status = -ENOMEM;
      lua_pop(sc->L, 1);
    }
  }
  /* Queued, not resumed here: a vm:kill() in one task cancels calls of others synchronously. Until it runs, the
   * task owns the record (a scenario that ends first frees it with the task). */
  c->task->answered = c;
  c->task->answered_free = lcall_free_v;
  umb_task_wake(c->task, c->nfields);
}

/* The task running L, or NULL with *why set. */
static umb_task *task_ctx(lua_State *L, const char **why) {
  umb_scen *sc = umb_scen_from_lua(L);
  umb_task *t = umb_task_from_lua(L);
  *why = "umlbed: no scenario is running in this Lua state";
  if (sc == NULL) return NULL;
  *why =
      "umlbed: guest calls must be made from the scenario's run function or a t:go() task, not another "
      "coroutine";
  return t && t->sc == sc ? t : NULL;
}

umb_task *umb_lua_check_task_ctx(lua_State *L) {
  const char *why;
  umb_task *t = task_ctx(L, &why);
  if (t == NULL) luaL_error(L, "%s", why);
  return t;
}

int umb_lua_call(lua_State *L, umb_run_vm *svm, uint64_t pid, const char *verb, umb_buf *args, umb_conv conv,
                 lua_Integer arg) {
  const char *why;
  umb_task *task = task_ctx(L, &why);
  if (task == NULL) {
    /* Raising skips the cleanup below: args are ours to free. */
    if (args) umb_buf_free(args);
    return luaL_error(L, "%s", why);
  }
  umb_scen *sc = task->sc;
  lcall *c = calloc(1, sizeof *c);
  int rc = c ? 0 : -ENOMEM;
  /* An argument builder that ran out of memory left its sticky error: the line is incomplete. */
  if (rc == 0 && args && args->err) rc = args->err;
  if (rc == 0 && svm->vm == NULL) rc = -ESHUTDOWN;
  if (rc == 0) {
    c->sc = sc;
    c->task = task;
    c->svm = svm;
    c->conv = conv;
    c->arg = arg;
    c->req.data = c;
    rc = umb_vm_request(svm->vm, &c->req, pid, verb, args && args->data ? args->data + 1 : NULL, on_reply);
  }
  if (args) umb_buf_free(args);
  if (rc) {
    free(c);
    return umb_lua_fail(L, rc,
                        rc == -ESHUTDOWN || rc == -EPIPE ? "the vm is not running"
                        : rc == -EINVAL ? "not a request of the protocol: unknown verb, argument count or field"
                        : rc == -ENOMEM ? "out of memory"
                                        : "cannot send the request");
  }
  task->pending_what = verb;
  return lua_yieldk(L, 0, (lua_KContext)c, call_cont);
}

/* module.c: the umlbed Lua module: luaopen, the yield/resume path for guest calls, shared helpers. */
#include <errno.h>
#include <stdlib.h>
#include <string.h>

#include "lumlbed.h"

/* One guest call in flight (or a boot waiting for the agent's ready event). */
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
  int vmref;   /* Boot: registry reference of the vm userdata. */
} lcall;

static void lcall_free(lcall *c) { free(c); }

void umb_args_num(umb_buf *b, uint64_t v) { umb_buf_printf(b, " %llu", (unsigned long long)v); }
void umb_args_word(umb_buf *b, const char *w) { umb_buf_printf(b, " %s", w); }
void umb_args_str(umb_buf *b, const char *s, size_t n) {
  umb_buf_append(b, " ", 1);
  umb_pct_encode(b, s, n);
}

int umb_lua_fail(lua_State *L, int err, const char *msg) {
  const char *name = umb_errname(err);
  lua_pushnil(L);
  if (msg && *msg)
    lua_pushfstring(L, "%s: %s", name, msg);
  else
    lua_pushstring(L, name);
  lua_pushstring(L, name);
  return 3;
}

void umb_lua_pushdecoded(lua_State *L, int idx) {
  size_t n;
  const char *s = luaL_checklstring(L, idx, &n);
  char *tmp = malloc(n + 1);
  if (tmp == NULL) luaL_error(L, "out of memory");
  memcpy(tmp, s, n + 1);
  if (umb_pct_decode(tmp, &n)) {
    free(tmp);
    luaL_error(L, "malformed percent-encoding from the agent");
  }
  lua_pushlstring(L, tmp, n);
  free(tmp);
}

void umb_lua_pushstates(lua_State *L, int idx) {
  const char *s = lua_tostring(L, idx);
  if (s && strcmp(s, "%2D") == 0)
    lua_pushstring(L, "-");
  else
    lua_pushvalue(L, idx);
}

int umb_conv_true(lua_State *L, int base, int n, lua_Integer arg) {
  (void)base, (void)n, (void)arg;
  lua_pushboolean(L, 1);
  return 1;
}

int umb_conv_num(lua_State *L, int base, int n, lua_Integer arg) {
  uint64_t v;
  (void)arg;
  if (n < 1 || umb_num_parse(lua_tostring(L, base), &v)) return umb_lua_fail(L, -EPROTO, "bad number in reply");
  lua_pushinteger(L, (lua_Integer)v);
  return 1;
}

int umb_conv_str(lua_State *L, int base, int n, lua_Integer arg) {
  (void)arg;
  if (n < 1) return umb_lua_fail(L, -EPROTO, "missing field in reply");
  umb_lua_pushdecoded(L, base);
  return 1;
}

int umb_conv_states(lua_State *L, int base, int n, lua_Integer arg) {
  (void)arg;
  if (n < 1) return umb_lua_fail(L, -EPROTO, "missing field in reply");
  umb_lua_pushstates(L, base);
  return 1;
}

static int call_cont(lua_State *L, int status, lua_KContext k) {
  lcall *c = (lcall *)k;
  (void)status;
  if (c->status < 0) {
    int st = c->status;
    lcall_free(c);
    return umb_lua_fail(L, st, st == -EPIPE ? "the vm died" : st == -ENOMEM ? "out of memory" : "the vm was closed");
  }
  int n = c->nfields, base = lua_gettop(L) - n + 1;
  if (!c->ok) {
    /* An error reply: ENAME MESSAGE. */
    const char *name = n > 0 ? lua_tostring(L, base) : "EPROTO";
    lua_pushnil(L);
    lua_pushstring(L, n > 1 ? lua_tostring(L, base + 1) : "-");
    umb_lua_pushdecoded(L, -1);
    lua_remove(L, -2);
    lua_pushfstring(L, "%s: %s", name, lua_tostring(L, -1));
    lua_remove(L, -2);
    lua_pushstring(L, name);
    lcall_free(c);
    return 3;
  }
  umb_conv conv = c->conv;
  lua_Integer arg = c->arg;
  lcall_free(c);
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
  if (sc->run.finishing || (status == -EPIPE && !c->svm->expect_exit)) {
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
  /* Queued, not resumed here: a vm:kill() in one task cancels calls of others synchronously. */
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
                                        : "cannot send the request");
  }
  task->pending_what = verb;
  return lua_yieldk(L, 0, (lua_KContext)c, call_cont);
}

static int boot_cont(lua_State *L, int status, lua_KContext k) {
  lcall *c = (lcall *)k;
  (void)status;
  lua_rawgeti(L, LUA_REGISTRYINDEX, c->vmref);
  luaL_unref(L, LUA_REGISTRYINDEX, c->vmref);
  umb_lua_vmstate(c->svm)->waiter = NULL;
  lcall_free(c);
  return 1;
}

/* The instance is ready, or powered off as asked: the boot or poweroff call waiting for it goes on. */
static void lvm_wake(umb_run_vm *svm) {
  lcall *c = umb_lua_vmstate(svm)->waiter;
  if (c) umb_task_wake(c->task, 0);
}

static void lvm_free(void *user) {
  umb_lvmstate *st = user;
  free(st->waiter);
  free(st);
}

static const umb_run_vm_ops lvm_ops = {
    .ready = lvm_wake, .exited = umb_lua_vm_exited, .powered_off = lvm_wake, .free_user = lvm_free};

int umb_lua_boot(lua_State *L, int optidx) {
  umb_task *task = umb_lua_check_task_ctx(L);
  umb_scen *sc = task->sc;
  const char *mem = NULL, *cmdline = NULL;
  int tt = 0;
  if (!lua_isnoneornil(L, optidx)) {
    luaL_checktype(L, optidx, LUA_TTABLE);
    lua_getfield(L, optidx, "mem");
    mem = luaL_optstring(L, -1, NULL);
    if (mem && umb_mem_check(mem)) return umb_lua_fail(L, -EINVAL, "mem wants a size from 32M to 64G, such as 64M");
    lua_getfield(L, optidx, "cmdline");
    cmdline = luaL_optstring(L, -1, NULL);
    lua_getfield(L, optidx, "time_travel");
    tt = lua_toboolean(L, -1);
    lua_pop(L, 1);
    /* mem and cmdline stay on the stack so their strings live until the spawn. */
  }
  umb_run_vm *svm;
  umb_lvmstate *st = calloc(1, sizeof *st);
  if (st == NULL) return luaL_error(L, "out of memory");
  int rc = umb_run_vm_spawn(&sc->run, mem, cmdline, tt, &lvm_ops, st, &svm);
  if (rc) {
    free(st);
    return umb_lua_fail(L, rc, "cannot start UML");
  }
  lcall *c = calloc(1, sizeof *c);
  if (c == NULL) return luaL_error(L, "out of memory");
  c->sc = sc;
  c->task = task;
  c->svm = svm;
  umb_lua_push_vm(L, svm);
  c->vmref = luaL_ref(L, LUA_REGISTRYINDEX);
  umb_lua_vmstate(svm)->waiter = c;
  task->pending_what = "the agent's ready event";
  return lua_yieldk(L, 0, (lua_KContext)c, boot_cont);
}

static int index_closure(lua_State *L) {
  lua_pushvalue(L, 2);
  lua_rawget(L, lua_upvalueindex(1));
  if (!lua_isnil(L, -1)) return 1;
  lua_pop(L, 1);
  lua_pushvalue(L, lua_upvalueindex(2));
  lua_pushvalue(L, 1);
  lua_pushvalue(L, 2);
  lua_call(L, 2, 1);
  return 1;
}

void umb_lua_newclass(lua_State *L, const char *name, const luaL_Reg *methods, const luaL_Reg *meta,
                      lua_CFunction getter) {
  luaL_newmetatable(L, name);
  luaL_setfuncs(L, meta, 0);
  lua_newtable(L);
  luaL_setfuncs(L, methods, 0);
  lua_pushcfunction(L, getter);
  lua_pushcclosure(L, index_closure, 2);
  lua_setfield(L, -2, "__index");
  lua_pop(L, 1);
}

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

int luaopen_umlbed(lua_State *L) {
  static const luaL_Reg funcs[] = {{"boot", l_boot}, {"encode", l_encode}, {"decode", l_decode}, {NULL, NULL}};
  umb_lua_open_vm(L);
  umb_lua_open_proc(L);
  umb_lua_open_map(L);
  umb_lua_open_file(L);
  umb_lua_open_t(L);
  umb_lua_open_task(L);
  umb_lua_open_loopctl(L);
  luaL_newlib(L, funcs);
  lua_pushinteger(L, UMB_PROTOCOL_VERSION);
  lua_setfield(L, -2, "protocol");
  return 1;
}

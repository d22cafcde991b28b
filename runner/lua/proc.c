// SPDX-License-Identifier: MIT
/* proc.c: the umlbed.proc object: one guest worker process with its own mm (spawned or forked). */
#include <errno.h>
#include <string.h>

#include "lumlbed.h"

void umb_lua_push_proc(lua_State *L, int vmidx, umb_run_vm *svm, uint64_t pid) {
  vmidx = lua_absindex(L, vmidx);
  umb_lproc *p = lua_newuserdatauv(L, sizeof *p, 1);
  p->svm = svm;
  p->pid = pid;
  luaL_setmetatable(L, UMB_PROC_MT);
  lua_pushvalue(L, vmidx);
  lua_setiuservalue(L, -2, 1);
}

/* proc:fork(n) -> {proc, ...}: n children that inherit this worker's mappings. */
static int conv_fork(lua_State *L, int base, int n, lua_Integer arg) {
  umb_lproc *p = umb_lua_check_proc(L, 1);
  (void)arg;
  lua_getiuservalue(L, 1, 1);
  int vmidx = lua_gettop(L);
  lua_createtable(L, n, 0);
  for (int i = 0; i < n; i++) {
    uint64_t pid;
    if (umb_num_parse(lua_tostring(L, base + i), &pid)) return umb_lua_fail(L, -EPROTO, "bad fork reply");
    umb_lua_push_proc(L, vmidx, p->svm, pid);
    lua_rawseti(L, -2, i + 1);
  }
  return 1;
}

static int proc_fork(lua_State *L) {
  umb_lproc *p = umb_lua_check_proc(L, 1);
  lua_Integer n = luaL_optinteger(L, 2, 1);
  luaL_argcheck(L, n >= 1 && n <= 256, 2, "between 1 and 256 children");
  umb_buf b = {0};
  umb_args_num(&b, (uint64_t)n);
  lua_settop(L, 1);
  return umb_lua_call(L, p->svm, p->pid, "fork", &b, conv_fork, 0);
}

/* A proc:exit{wait=true} call parked until the agent reports the worker reaped. A Lua userdata
 * on the waiting task's stack, so the Lua state owns it; linked in the vm's exit_waiters. */
typedef struct exit_wait {
  umb_task *task;
  uint64_t pid;
  int gone; /* The vm went away first. */
  char status[32];
  struct exit_wait *next;
} exit_wait;

void umb_lua_vm_exited(umb_run_vm *svm, uint64_t pid, const char *status) {
  umb_lvmstate *st = umb_lua_vmstate(svm);
  exit_wait **pp = (exit_wait **)&st->exit_waiters;
  int taken = 0;
  while (*pp) {
    exit_wait *w = *pp;
    if (pid != 0 && w->pid != pid) {
      pp = &w->next;
      continue;
    }
    *pp = w->next;
    w->next = NULL;
    if (pid == 0)
      w->gone = 1;
    else
      snprintf(w->status, sizeof w->status, "%s", status);
    umb_task_wake(w->task, 0);
    taken = 1;
  }
  /* The exit reply may still be queued for its task: keep the event until that task looks. */
  if (pid != 0 && !taken) {
    st->exits[st->exit_next].pid = pid;
    snprintf(st->exits[st->exit_next].status, sizeof st->exits[0].status, "%s", status);
    st->exit_next = (st->exit_next + 1) % UMB_LVM_EXITS;
  }
}

/* The slot of a kept "exited" event for pid, or -1. */
static int exit_find(umb_run_vm *svm, uint64_t pid) {
  for (int i = 0; i < UMB_LVM_EXITS; i++)
    if (umb_lua_vmstate(svm)->exits[i].pid == pid) return i;
  return -1;
}

static int exit_wait_cont(lua_State *L, int status, lua_KContext k) {
  exit_wait *w = (exit_wait *)k;
  (void)status;
  if (w->gone) return umb_lua_fail(L, -EPIPE, "the vm went away before the worker's exited event");
  lua_pushboolean(L, 1);
  lua_pushstring(L, w->status);
  return 2;
}

/* After the exit reply: the kept event, or park the task until it comes. */
static int conv_exit_wait(lua_State *L, int base, int n, lua_Integer arg) {
  umb_lproc *p = umb_lua_check_proc(L, 1);
  (void)base, (void)n, (void)arg;
  int i = exit_find(p->svm, p->pid);
  if (i >= 0) {
    umb_lua_vmstate(p->svm)->exits[i].pid = 0;
    lua_pushboolean(L, 1);
    lua_pushstring(L, umb_lua_vmstate(p->svm)->exits[i].status);
    return 2;
  }
  umb_task *task = umb_lua_check_task_ctx(L);
  exit_wait *w = lua_newuserdatauv(L, sizeof *w, 0);
  memset(w, 0, sizeof *w);
  w->task = task;
  w->pid = p->pid;
  w->next = umb_lua_vmstate(p->svm)->exit_waiters;
  umb_lua_vmstate(p->svm)->exit_waiters = w;
  task->pending_what = "the worker's exited event";
  return lua_yieldk(L, 0, (lua_KContext)w, exit_wait_cont);
}

/* proc:exit([code] [, {wait = true}]) -> true; with wait, true and the STATUS ("exit:N",
 * "signal:N") of the agent's "exited" event, which comes once the worker is reaped (its mm gone). */
static int proc_exit(lua_State *L) {
  umb_lproc *p = umb_lua_check_proc(L, 1);
  int optidx = lua_istable(L, 2) ? 2 : 3, wait = 0;
  if (!lua_isnoneornil(L, optidx)) {
    luaL_checktype(L, optidx, LUA_TTABLE);
    lua_getfield(L, optidx, "wait");
    wait = lua_toboolean(L, -1);
    lua_pop(L, 1);
  }
  int has_code = optidx == 3 && !lua_isnoneornil(L, 2);
  lua_Integer code = has_code ? luaL_checkinteger(L, 2) : 0;
  umb_buf b = {0};
  if (has_code) umb_args_num(&b, (uint64_t)code);
  if (!wait) return umb_lua_call(L, p->svm, p->pid, "exit", &b, umb_conv_true, 0);
  /* The worker is alive now, so a kept event for its PID is from an earlier process (PID reuse). */
  int i;
  while ((i = exit_find(p->svm, p->pid)) >= 0) umb_lua_vmstate(p->svm)->exits[i].pid = 0;
  lua_settop(L, 1);
  return umb_lua_call(L, p->svm, p->pid, "exit", &b, conv_exit_wait, 0);
}

/* proc:mmap(file, {offset=0, length=file size, mode="shared", prot="rw", addr=nil}) -> mapping. */
static int conv_mmap(lua_State *L, int base, int n, lua_Integer arg) {
  (void)arg;
  uint64_t addr;
  if (n < 1 || umb_num_parse(lua_tostring(L, base), &addr)) return umb_lua_fail(L, -EPROTO, "bad mmap reply");
  /* Stack: 1 proc, 2 file or path, 3 offset, 4 length, 5 shared, 6 writable. */
  umb_lmap *m = umb_lua_push_map(L, 1, umb_lua_test_file(L, 2) ? 2 : 0);
  m->addr = addr;
  m->offset = (uint64_t)lua_tointeger(L, 3);
  m->len = (uint64_t)lua_tointeger(L, 4);
  m->shared = lua_toboolean(L, 5);
  m->writable = lua_toboolean(L, 6);
  return 1;
}

static int proc_mmap(lua_State *L) {
  umb_lproc *p = umb_lua_check_proc(L, 1);
  umb_lfile *f = umb_lua_test_file(L, 2);
  const char *path = f ? f->gpath : luaL_checkstring(L, 2);
  if (!lua_isnoneornil(L, 3))
    luaL_checktype(L, 3, LUA_TTABLE);
  else {
    lua_settop(L, 2);
    lua_newtable(L);
  }
  lua_getfield(L, 3, "offset");
  lua_Integer off = luaL_optinteger(L, -1, 0);
  lua_getfield(L, 3, "length");
  lua_Integer len = luaL_optinteger(L, -1, f ? (lua_Integer)f->size - off : 0);
  lua_getfield(L, 3, "mode");
  const char *mode = luaL_optstring(L, -1, "shared");
  lua_getfield(L, 3, "prot");
  const char *prot = luaL_optstring(L, -1, "rw");
  lua_getfield(L, 3, "addr");
  lua_Integer addr = luaL_optinteger(L, -1, 0);
  luaL_argcheck(L, off >= 0, 3, "offset must not be negative");
  luaL_argcheck(L, len > 0, 3, "length must be positive (give length= for a path)");
  luaL_argcheck(L, !strcmp(mode, "shared") || !strcmp(mode, "private"), 3, "mode must be shared or private");
  luaL_argcheck(L, !strcmp(prot, "r") || !strcmp(prot, "rw"), 3, "prot must be r or rw");
  int shared = !strcmp(mode, "shared"), writable = !strcmp(prot, "rw");
  umb_buf b = {0};
  umb_args_str(&b, path, strlen(path));
  umb_args_num(&b, (uint64_t)off);
  umb_args_num(&b, (uint64_t)len);
  umb_args_word(&b, mode);
  umb_args_word(&b, prot);
  if (addr) umb_args_num(&b, (uint64_t)addr);
  lua_settop(L, 2);
  lua_pushinteger(L, off);
  lua_pushinteger(L, len);
  lua_pushboolean(L, shared);
  lua_pushboolean(L, writable);
  return umb_lua_call(L, p->svm, p->pid, "mmap", &b, conv_mmap, 0);
}

static int proc_setuid(lua_State *L) {
  umb_lproc *p = umb_lua_check_proc(L, 1);
  umb_buf b = {0};
  umb_args_num(&b, (uint64_t)luaL_checkinteger(L, 2));
  return umb_lua_call(L, p->svm, p->pid, "setuid", &b, umb_conv_true, 0);
}

static int proc_run(lua_State *L) {
  umb_lproc *p = umb_lua_check_proc(L, 1);
  return umb_lua_run(L, p->svm, p->pid);
}

static int proc_exec(lua_State *L) {
  umb_lproc *p = umb_lua_check_proc(L, 1);
  luaL_checkstring(L, 2);
  return umb_lua_exec(L, p->svm, p->pid);
}

/* File verbs in this process: pread(path, off, len), pwrite(path, off, data), create(path, size),
 * unlink(path), fsync(path). Paths may be file objects. */
static const char *path_arg(lua_State *L, int idx) {
  umb_lfile *f = umb_lua_test_file(L, idx);
  return f ? f->gpath : luaL_checkstring(L, idx);
}

static int proc_pread(lua_State *L) {
  umb_lproc *p = umb_lua_check_proc(L, 1);
  const char *path = path_arg(L, 2);
  umb_buf b = {0};
  umb_args_str(&b, path, strlen(path));
  umb_args_num(&b, (uint64_t)luaL_checkinteger(L, 3));
  umb_args_num(&b, (uint64_t)luaL_checkinteger(L, 4));
  return umb_lua_call(L, p->svm, p->pid, "pread", &b, umb_conv_str, 0);
}

static int proc_pwrite(lua_State *L) {
  umb_lproc *p = umb_lua_check_proc(L, 1);
  const char *path = path_arg(L, 2);
  size_t n;
  lua_Integer off = luaL_checkinteger(L, 3);
  const char *d = luaL_checklstring(L, 4, &n);
  umb_buf b = {0};
  umb_args_str(&b, path, strlen(path));
  umb_args_num(&b, (uint64_t)off);
  umb_args_str(&b, d, n);
  return umb_lua_call(L, p->svm, p->pid, "pwrite", &b, umb_conv_num, 0);
}

static int proc_pathverb(lua_State *L, const char *verb) {
  umb_lproc *p = umb_lua_check_proc(L, 1);
  const char *path = path_arg(L, 2);
  umb_buf b = {0};
  umb_args_str(&b, path, strlen(path));
  return umb_lua_call(L, p->svm, p->pid, verb, &b, umb_conv_true, 0);
}

static int proc_unlink(lua_State *L) { return proc_pathverb(L, "unlink"); }
static int proc_fsync(lua_State *L) { return proc_pathverb(L, "fsync"); }

/* p:punch(path, offset, length) -> true: a hole punched in a guest file (tmpfs: its pages leave the page cache). */
static int proc_punch(lua_State *L) {
  umb_lproc *p = umb_lua_check_proc(L, 1);
  const char *path = path_arg(L, 2);
  lua_Integer off = luaL_checkinteger(L, 3), len = luaL_checkinteger(L, 4);
  luaL_argcheck(L, off >= 0, 3, "offset must not be negative");
  luaL_argcheck(L, len > 0, 4, "length must be positive");
  umb_buf b = {0};
  umb_args_str(&b, path, strlen(path));
  umb_args_num(&b, (uint64_t)off);
  umb_args_num(&b, (uint64_t)len);
  return umb_lua_call(L, p->svm, p->pid, "punch", &b, umb_conv_true, 0);
}

/* p:mremap(addr, length, newaddr) -> newaddr: moves a range of this process's mappings to a free address, where
 * the kernel may merge it with its neighbours (a mapping object keeps its own address and length). */
static int proc_mremap(lua_State *L) {
  umb_lproc *p = umb_lua_check_proc(L, 1);
  lua_Integer a = luaL_checkinteger(L, 2), len = luaL_checkinteger(L, 3), to = luaL_checkinteger(L, 4);
  luaL_argcheck(L, a > 0, 2, "address must be positive");
  luaL_argcheck(L, len > 0, 3, "length must be positive");
  luaL_argcheck(L, to > 0, 4, "new address must be positive");
  umb_buf b = {0};
  umb_args_num(&b, (uint64_t)a);
  umb_args_num(&b, (uint64_t)len);
  umb_args_num(&b, (uint64_t)to);
  return umb_lua_call(L, p->svm, p->pid, "mremap", &b, umb_conv_num, 0);
}

static int proc_tostring(lua_State *L) {
  umb_lproc *p = umb_lua_check_proc(L, 1);
  lua_pushfstring(L, "umlbed.proc %d on vm%d", (int)p->pid, p->svm->index);
  return 1;
}

static int proc_eq(lua_State *L) {
  umb_lproc *a = umb_lua_check_proc(L, 1), *b = umb_lua_check_proc(L, 2);
  lua_pushboolean(L, a->svm == b->svm && a->pid == b->pid);
  return 1;
}

static int proc_get(lua_State *L) {
  umb_lproc *p = umb_lua_check_proc(L, 1);
  const char *k = luaL_checkstring(L, 2);
  if (!strcmp(k, "pid"))
    lua_pushinteger(L, (lua_Integer)p->pid);
  else if (!strcmp(k, "vm"))
    lua_getiuservalue(L, 1, 1);
  else
    lua_pushnil(L);
  return 1;
}

/* proc:invalidate{file=, offset=, length=, impl=, cache=}: this worker writes the sysfs trigger itself, so several
 * processes can invalidate at once (vm:invalidate goes through PID 1's helper, one call at a time). */
static int proc_invalidate(lua_State *L) {
  umb_lproc *p = umb_lua_check_proc(L, 1);
  umb_buf b = {0};
  umb_lua_invalidate_args(L, 2, &b);
  lua_settop(L, 1);
  return umb_lua_call(L, p->svm, p->pid, "trigger", &b, umb_conv_true, 0);
}

/* The failwrite reply "RESULT INJECTED": a count, the errno name of a write() that returned -1, or another negative
 * value; 1 if the fault was injected.
 * Stack: 1 proc, 2 n, 3 path. */
static int conv_failwrite(lua_State *L, int base, int n, lua_Integer arg) {
  uint64_t v, injected;
  (void)arg;
  const char *res = n == 2 ? lua_tostring(L, base) : NULL;
  if (!res || umb_num_parse(lua_tostring(L, base + 1), &injected) || injected > 1)
    return umb_lua_fail(L, -EPROTO, "bad failwrite reply");
  if (res[0] == 'E') {
    int err = umb_errno_from_name(res);
    if (!err) return umb_lua_fail(L, -EPROTO, "bad errno name in failwrite reply");
    lua_pushfstring(L, "write %s", path_arg(L, 3));
    umb_lua_fail(L, -err, lua_tostring(L, -1));
    lua_pushboolean(L, injected == 1);
    return 4;
  }
  /* A negative value other than -1 (no errno) comes as it is, a signed decimal. */
  int neg = res[0] == '-';
  if (umb_num_parse(res + neg, &v) || v > (uint64_t)INT64_MAX)
    return umb_lua_fail(L, -EPROTO, "bad count in failwrite reply");
  lua_pushinteger(L, neg ? -(lua_Integer)v : (lua_Integer)v);
  lua_pushboolean(L, injected == 1);
  return 2;
}

/* proc:failwrite(n, path, data) -> written, injected | nil, "ENAME: write PATH", "ENAME", injected: one write() of
 * data to path with this process's n-th fault armed (fail-nth); written is negative if write() returned a negative
 * value other than -1. A failure of the verb itself (no fail-nth in this kernel, a path that does not open) is nil,
 * err, ename without the fourth value. */
static int proc_failwrite(lua_State *L) {
  umb_lproc *p = umb_lua_check_proc(L, 1);
  lua_Integer nth = luaL_checkinteger(L, 2);
  luaL_argcheck(L, nth >= 1 && nth <= (lua_Integer)UINT32_MAX, 2, "between 1 and 2^32-1");
  const char *path = path_arg(L, 3);
  size_t len;
  const char *d = luaL_checklstring(L, 4, &len);
  umb_buf b = {0};
  umb_args_num(&b, (uint64_t)nth);
  umb_args_str(&b, path, strlen(path));
  umb_args_str(&b, d, len);
  lua_settop(L, 3);
  return umb_lua_call(L, p->svm, p->pid, "failwrite", &b, conv_failwrite, 0);
}

void umb_lua_open_proc(lua_State *L) {
  static const luaL_Reg methods[] = {{"fork", proc_fork},
                                     {"exit", proc_exit},
                                     {"mmap", proc_mmap},
                                     {"setuid", proc_setuid},
                                     {"exec", proc_exec},
                                     {"run", proc_run},
                                     {"pread", proc_pread},
                                     {"pwrite", proc_pwrite},
                                     {"unlink", proc_unlink},
                                     {"fsync", proc_fsync},
                                     {"punch", proc_punch},
                                     {"mremap", proc_mremap},
                                     {"invalidate", proc_invalidate},
                                     {"failwrite", proc_failwrite},
                                     {NULL, NULL}};
  static const luaL_Reg meta[] = {{"__tostring", proc_tostring}, {"__eq", proc_eq}, {NULL, NULL}};
  umb_lua_newclass(L, UMB_PROC_MT, methods, meta, proc_get);
}

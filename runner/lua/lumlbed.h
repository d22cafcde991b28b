/* SPDX-License-Identifier: MIT */
/* lumlbed.h: private header of the umlbed Lua module: object layouts, helpers and the guest call path. */
#ifndef LUMLBED_H
#define LUMLBED_H

#include <lauxlib.h>
#include <limits.h>
#include <lua.h>
#include <stdint.h>
#include <sys/types.h>

#include "hostlua.h"

#define UMB_VM_MT "umlbed.vm"
#define UMB_PROC_MT "umlbed.proc"
#define UMB_MAP_MT "umlbed.mapping"
#define UMB_FILE_MT "umlbed.file"
#define UMB_T_MT "umlbed.t"
#define UMB_TASK_MT "umlbed.task"
#define UMB_LOOPCTL_MT "umlbed.loopctl"

/* What the bindings keep per instance (umb_run_vm's user pointer): the boot or poweroff call that waits for it,
 * and "exited" events for proc:exit{wait=true} calls. */
#define UMB_LVM_EXITS 256 /* "exited" events kept for a waiting proc:exit() that has not run yet. */
typedef struct umb_lvmstate {
  void *waiter;       /* A boot waiting for the agent's ready event (vm.c). */
  void *exit_waiters; /* proc:exit{wait=true} calls parked until their "exited" event. */
  struct {
    uint64_t pid; /* 0: free slot. */
    char status[32];
  } exits[UMB_LVM_EXITS]; /* Recent "exited" events no call waited for yet (a ring). */
  int exit_next;
} umb_lvmstate;

static inline umb_lvmstate *umb_lua_vmstate(umb_run_vm *v) { return v->user; }
/* The agent's "exited" event for pid (status), or pid 0 and status NULL once the vm is gone (proc.c). */
void umb_lua_vm_exited(umb_run_vm *svm, uint64_t pid, const char *status);

/* Userdata layouts. The svm they point to is owned by the scenario and outlives the Lua state,
 * so a userdata never dangles; a closed vm has svm->vm == NULL. */
typedef struct umb_lvm {
  umb_run_vm *svm;
} umb_lvm;

typedef struct umb_lproc {
  umb_run_vm *svm;
  uint64_t pid;
} umb_lproc; /* User value 1: the vm userdata. */

typedef struct umb_lmap {
  umb_run_vm *svm;
  uint64_t pid;
  uint64_t addr;
  uint64_t len;
  uint64_t offset;
  int shared;
  int writable;
} umb_lmap; /* User values: 1 the proc, 2 the file (or nil). */

typedef struct umb_lfile {
  umb_run_vm *svm;
  uint64_t size;
  char name[256];
  char gpath[300];      /* Path in the guest: /shared/NAME. */
  char hpath[PATH_MAX]; /* Path on the host. */
} umb_lfile;            /* User value 1: the vm userdata. */

/* Turns the reply fields at stack [base, base + n) into results; returns how many. The
 * original arguments of the yielding function are still at stack indices 1, 2, ... */
typedef int (*umb_conv)(lua_State *L, int base, int n, lua_Integer arg);

/* Send a request and yield until the reply; use as `return umb_lua_call(...)`. Takes
 * ownership of args (may be NULL). Runtime failures return nil, "ENAME: msg", "ENAME". */
int umb_lua_call(lua_State *L, umb_run_vm *svm, uint64_t pid, const char *verb, umb_buf *args, umb_conv conv,
                 lua_Integer arg);
/* Push nil, "ENAME: msg", "ENAME"; returns 3. err is a negative errno. */
int umb_lua_fail(lua_State *L, int err, const char *msg);
/* Push the percent-decoded string of the (encoded) string at idx. */
void umb_lua_pushdecoded(lua_State *L, int idx);
/* The task running L (the run function or a t:go() task); raises for any other coroutine. */
umb_task *umb_lua_check_task_ctx(lua_State *L);
/* t:go(fn, ...) -> task (runner/lua/task.c). */
int umb_lua_t_go(lua_State *L);
/* Push a page-state field (raw, except that %2D stands for a lone "-"). */
void umb_lua_pushstates(lua_State *L, int idx);

/* Argument builders: each appends one space-separated field; running out of memory leaves b->err set, which
 * umb_lua_call reports. */
void umb_args_num(umb_buf *b, uint64_t v);
void umb_args_word(umb_buf *b, const char *w);
void umb_args_str(umb_buf *b, const char *s, size_t n);

/* Reply converters shared by the object files. */
int umb_conv_true(lua_State *L, int base, int n, lua_Integer arg);
int umb_conv_num(lua_State *L, int base, int n, lua_Integer arg);
int umb_conv_str(lua_State *L, int base, int n, lua_Integer arg);
int umb_conv_states(lua_State *L, int base, int n, lua_Integer arg);

/* Object constructors, and checks (the vm's and the proc's are in check.c). */
void umb_lua_push_vm(lua_State *L, umb_run_vm *svm);
umb_run_vm *umb_lua_check_vm(lua_State *L, int idx); /* Raises if the vm was closed. */
/* How many differing keys or pages a failed expectation lists before "...". */
#define UMB_LUA_SHOW_LINES 16
/* Deep equality of two values (show.c): tables are equal when every key has equal values in both. */
int umb_lua_deep_equal(lua_State *L, int a, int b, int depth);
/* Pushes "what: expected X, seen Y" for two values that differ, with a per-key diff for tables (show.c). */
void umb_lua_push_mismatch(lua_State *L, int e, int s, const char *what);
void umb_lua_push_proc(lua_State *L, int vmidx, umb_run_vm *svm, uint64_t pid);
umb_lproc *umb_lua_check_proc(lua_State *L, int idx);
umb_lmap *umb_lua_push_map(lua_State *L, int procidx, int fileidx);
umb_lmap *umb_lua_check_map(lua_State *L, int idx);
umb_lfile *umb_lua_push_file(lua_State *L, int vmidx, umb_run_vm *svm, const char *name, uint64_t size);
umb_lfile *umb_lua_test_file(lua_State *L, int idx);
/* The guest path of a loop control at idx (and its vm in *svm), or NULL if idx is none. */
const char *umb_lua_test_loopctl(lua_State *L, int idx, umb_run_vm **svm);
/* Appends the trigger line of the invalidation table at idx to b as one field; raises for misuse (exec.c). */
void umb_lua_invalidate_args(lua_State *L, int idx, umb_buf *b);
/* The exec and run requests to pid, from the arguments at 2, ... (vm:exec and proc:exec, vm:run and proc:run). */
int umb_lua_exec(lua_State *L, umb_run_vm *svm, uint64_t pid);
int umb_lua_run(lua_State *L, umb_run_vm *svm, uint64_t pid);
/* vm:loopctl() (runner/lua/loopctl.c). */
int umb_lua_vm_loopctl(lua_State *L);
/* Opens NAME in svm's shared folder from the host, following no symbolic link (file.c); fd or -errno. */
int umb_shared_open(umb_run_vm *svm, const char *name, int flags, mode_t mode);
/* Boot a vm for the running scenario and yield until the agent is ready. */
int umb_lua_boot(lua_State *L, int optidx);

/* The module's opener (umlbed.c), and a new expectations object for the scenario that owns L (t.c). */
int luaopen_umlbed(lua_State *L);
void umb_lua_push_t(lua_State *L);

/* Register each object type's metatable. */
void umb_lua_open_vm(lua_State *L);
void umb_lua_open_proc(lua_State *L);
void umb_lua_open_map(lua_State *L);
void umb_lua_open_file(lua_State *L);
void umb_lua_open_t(lua_State *L);
void umb_lua_open_task(lua_State *L);
void umb_lua_open_loopctl(lua_State *L);
/* package.preload gets the bed library compiled into the runner (bedlib.c). */
void umb_lua_preload_bedlib(lua_State *L);

/* Create a metatable with methods, metamethods and an __index that falls back to getter(L)
 * for fields (getter gets the object at 1 and the key at 2, returns 0 for "no such field"). */
void umb_lua_newclass(lua_State *L, const char *name, const luaL_Reg *methods, const luaL_Reg *meta,
                      lua_CFunction getter);

#endif

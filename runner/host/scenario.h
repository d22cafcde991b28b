/* scenario.h: one scenario run (a Lua coroutine on the loop, its UML instances and folder) and its verdict. */
#ifndef UMLBED_SCENARIO_H
#define UMLBED_SCENARIO_H

#include <lua.h>
#include <signal.h>

#include "umlbed.h"

#define UMB_SCEN_VMS_MAX 8
#define UMB_SVM_EXITS 256 /* "exited" events kept for a waiting proc:exit() that has not run yet. */

typedef enum umb_verdict {
  UMB_OK = 0,
  UMB_SKIP,
  UMB_FAILED,   /* An expectation failed. */
  UMB_CRASHED,  /* Panic, oops, BUG, warning, or the guest went away. */
  UMB_TIMEOUT,
  UMB_ERROR,    /* Lua error, runner error, or interrupted. */
} umb_verdict;

const char *umb_verdict_name(umb_verdict v);

/* Settings shared by every scenario of one runner invocation. */
typedef struct umb_config {
  const char *kernel;       /* UML binary. */
  const char *agent;        /* Guest agent binary, placed in each hostfs root. */
  const char *tmpbase;      /* Where run folders are made ($TMPDIR or /tmp). */
  const char *mem;          /* Default guest memory. */
  const char *cmdline;      /* Extra kernel command line for every vm. */
  int time_travel;
  int keep;                 /* Keep every run folder. */
  double timeout_s;         /* Per scenario; 0 means none. */
  int timeout_given;        /* --timeout was given: it overrides the scenario's own timeout. */
  double timeout_scale;     /* $UMLBED_TIMEOUT_SCALE: multiplies the default and each scenario's own timeout. */
  const char *gdb_script;   /* Run kernels under gdb with this script. */
  int gdb_interactive;
  const char *const *ignore; /* --ignore-warning texts, NULL-terminated (or NULL). */
  const char *const *params; /* --param KEY=VALUE overrides of the matrix, NULL-terminated (or NULL). */
  const char *variant;      /* NAME when kernel is .../kernel/NAME/obj/linux, else NULL. */
  int unsafe_lua;           /* --unsafe-lua: no sandbox. */
} umb_config;

typedef struct umb_scen umb_scen;

typedef enum umb_task_state {
  UMB_TASK_RUNNABLE = 0, /* Queued to be resumed (new, or woken). */
  UMB_TASK_PARKED,       /* Yielded in a guest call, a boot or task:wait(). */
  UMB_TASK_DONE,         /* Returned; results in resref. */
  UMB_TASK_FAILED,       /* Raised; the message (with traceback) in resref. */
} umb_task_state;

/* A coroutine of a scenario that the loop resumes: task 0 is the run function, the others come
 * from t:go(). Owned by the scenario (freed with it), so Lua objects may point to it. */
typedef struct umb_task {
  umb_scen *sc;
  lua_State *co;
  int index;                    /* 0 for the run function; 1, 2, ... in t:go() order. */
  int coref;                    /* Registry reference that anchors co while the task runs. */
  int resref;                   /* Registry reference of the results table or error string. */
  umb_task_state state;
  int nargs;                    /* Values on co to resume it with when it runs next. */
  int waited;                   /* task:wait() has seen its end (an error is then not reported). */
  const char *pending_what;     /* What the task waits for (timeout reports). */
  struct umb_task *waiting_for; /* The task it waits for in task:wait(). */
  struct umb_task *next;        /* Every task of the scenario, in creation order. */
  struct umb_task *qnext;       /* Run queue. */
  char where[256];              /* file:line of the t:go() call. */
} umb_task;

/* A vm as the scenario sees it; owned by the scenario until it is freed. */
typedef struct umb_svm {
  umb_scen *sc;
  umb_vm *vm;        /* NULL once closed. */
  int index;
  int cpu;
  int expect_exit;   /* poweroff() was asked for: death is not a crash. */
  int gone;
  void *waiter;      /* A pending boot or poweroff call to resume (lumlbed call context). */
  char dir[4096];
  char root[4096];   /* Hostfs root (shared by the scenario's vms). */
  char shared[4096]; /* Host path of /shared. */
  char *pending_verb;
  void *exit_waiters; /* lumlbed: proc:exit{wait=true} calls parked until their "exited" event. */
  struct {
    uint64_t pid;     /* 0: free slot. */
    char status[32];
  } exits[UMB_SVM_EXITS]; /* Recent "exited" events no call waited for yet (a ring). */
  int exit_next;
} umb_svm;

struct umb_scen {
  uv_loop_t *loop;
  const umb_config *cfg;
  char *file;
  char *name;          /* Display name, with parameters. */
  int combo;           /* Index in the matrix (0 without a matrix). */
  lua_State *L;
  umb_task *tasks;     /* Task 0 (the run function) first, then t:go() tasks. */
  umb_task *qhead, *qtail;
  int ntasks;
  uv_idle_t runq;      /* Active while tasks are queued: resumes them outside any Lua call. */
  char dir[3000];
  char root[3100];
  umb_svm *vms[UMB_SCEN_VMS_MAX];
  int nvms;
  uv_timer_t timer;
  uv_timer_t grace;
  int finishing;
  int interrupted;
  int nclosing;
  umb_verdict verdict;
  umb_buf diag;        /* Failure text: expectations, traceback, console excerpt. */
  int nchecks;
  int nfails;
  int allow_warnings;
  umb_svm *crashed;    /* The vm that showed a fatal finding. */
  uint64_t t_start, t_end;
  int kept;            /* The folder was kept. */
  double boot_ms[UMB_SCEN_VMS_MAX];
  int nboot;
  void (*done_cb)(umb_scen *sc);
  void *data;
  double timeout_s;         /* This run's timeout. */
  char *skip;               /* The scenario's skip reason, if any. */
  uint64_t deadline;        /* uv_hrtime() after which the run is over (0: none). */
  int busy_timeout;         /* Lua code ran past the deadline without yielding. */
  int hook_stopped;         /* The deadline hook has just parked the running task for good. */
  umb_buf prints;           /* What the scenario print()ed, one line per call. */
};

/* Describe a scenario file: pushes nothing; fills *name and the display names of every
 * matrix combination (malloc'd). Returns 0, or -EINVAL with *err set (malloc'd). */
int umb_scen_describe(const char *file, const char *const *params, int unsafe, double timeout_s, char **name,
                      char ***combos, int *ncombos, char **err);
/* Combinations one matrix may have. */
#define UMB_MATRIX_MAX 65536
/* Set (to the signal number) by the runner's SIGINT/SIGTERM/SIGHUP handler, before the event loop hears of it:
 * the deadline hook stops busy Lua code with it. */
extern volatile sig_atomic_t umb_stop_signal;
/* Check one --param argument: returns 0 for KEY=VALUE with KEY a Lua identifier, else -EINVAL. */
int umb_param_check(const char *param);
/* The variant NAME of a kernel path .../kernel/NAME/obj/linux, copied to buf; NULL otherwise. */
const char *umb_kernel_variant(const char *kernel, char *buf, size_t size);

/* Start a scenario run; done_cb runs exactly once when its verdict is final and everything it
 * started is gone (processes, folder unless kept). Returns 0 or a negative errno (then the
 * verdict is ERROR in sc->diag and done_cb is still called, from the loop). */
int umb_scen_start(umb_scen *sc);
/* Stop a running scenario early (signal): verdict ERROR, folders removed. */
void umb_scen_interrupt(umb_scen *sc);
void umb_scen_free(umb_scen *sc);

/* For the bindings: the scenario that owns a Lua state. */
umb_scen *umb_scen_from_lua(lua_State *L);
/* Boot a vm for the scenario; resumes the coroutine through the lumlbed call path. */
int umb_scen_vm_spawn(umb_scen *sc, const char *mem, const char *cmdline, int time_travel,
                      umb_svm **out);
/* The task whose coroutine L is, or NULL (the main state, or a coroutine the scenario made). */
umb_task *umb_task_from_lua(lua_State *L);
/* Register a new task for coroutine co (anchored by coref) and queue it to run with nargs values
 * already on co (the function and its arguments). */
umb_task *umb_task_new(umb_scen *sc, lua_State *co, int coref, int nargs, const char *where);
/* Queue a parked task to be resumed with nargs values already pushed on its coroutine. */
void umb_task_wake(umb_task *t, int nargs);
/* Record an expectation failure (already formatted with file:line). */
void umb_scen_fail(umb_scen *sc, const char *text);
/* Finish the scenario with a verdict and an explanation (formatted). Idempotent. */
void umb_scen_finish(umb_scen *sc, umb_verdict v, const char *fmt, ...)
    __attribute__((format(printf, 3, 4)));

/* The Lua module, implemented in lua-bindings/. */
int luaopen_umlbed(lua_State *L);
/* Called by the scenario when a vm it waits on becomes ready or dies (lumlbed). */
void umb_lua_vm_event(umb_svm *svm, umb_vm_event ev);
/* Called by the scenario for the agent's "exited" event (pid, status), or with pid 0 and status
 * NULL when the vm is gone: wakes the proc:exit{wait=true} calls that wait for it (lumlbed). */
void umb_lua_vm_exited(umb_svm *svm, uint64_t pid, const char *status);
/* Push a new expectations object ("umlbed.t") for the scenario that owns L. */
void umb_lua_push_t(lua_State *L);
/* The registry-free key that marks a t:skip() error table. */
void *umb_scen_skip_mark(void);
/* The key that marks a t:require()/t:assert_*() error table: the failure is recorded, the verdict is FAILED. */
void *umb_scen_abort_mark(void);

#endif

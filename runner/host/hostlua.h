/* SPDX-License-Identifier: MIT */
/* hostlua.h: the Lua host as the bindings see it: a scenario's layout, its tasks, and the calls they make on it. */
#ifndef UMLBED_HOSTLUA_H
#define UMLBED_HOSTLUA_H

#include <lua.h>

#include "scenario.h"

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
  int index;  /* 0 for the run function; 1, 2, ... in t:go() order. */
  int coref;  /* Registry reference that anchors co while the task runs. */
  int resref; /* Registry reference of the results table or error string. */
  umb_task_state state;
  int nargs;                /* Values on co to resume it with when it runs next. */
  int waited;               /* task:wait() has seen its end (an error is then not reported). */
  const char *pending_what; /* What the task waits for (timeout reports). */
  /* A call answered while the task waited to run again: if the scenario ends first (a timeout while another task
   * was busy), the task is never resumed, and the call's record is freed with the task. */
  void *answered;
  void (*answered_free)(void *);
  struct umb_task *waiting_for; /* The task it waits for in task:wait(). */
  struct umb_task *next;        /* Every task of the scenario, in creation order. */
  struct umb_task *qnext;       /* Run queue. */
  char where[256];              /* file:line of the t:go() call. */
} umb_task;

/* What one Lua state holds, and its cap: an allocation past cap fails (Lua's "not enough memory") and sets hit.
 * After the first refusal the cap grows by UMB_LUA_MEM_RESERVE once, so the error can still be reported. */
typedef struct umb_lua_mem {
  size_t used, cap;
  int hit;
  int report_rooms; /* Times the runner gave its error report room past the cap (sched.c). */
} umb_lua_mem;
#define UMB_LUA_MEM_RESERVE (1u << 20)

struct umb_scen {
  umb_run run; /* The core's part: folder, vms, deadline, verdict. */
  uv_loop_t *loop;
  const umb_host_config *cfg;
  char *file;
  char *name; /* Display name, with parameters. */
  int combo;  /* Index in the matrix (0 without a matrix). */
  lua_State *L;
  umb_lua_mem mem; /* The Lua state's allocations and their cap (--lua-memory). */
  umb_task *tasks; /* Task 0 (the run function) first, then t:go() tasks. */
  umb_task *qhead, *qtail;
  int ntasks;
  uv_idle_t runq;        /* Active while tasks are queued: resumes them outside any Lua call. */
  double timeout_s;      /* This run's timeout. */
  char *skip;            /* The scenario's skip reason, if any. */
  uint64_t deadline;     /* uv_hrtime() after which the run is over (0: none). */
  int busy_timeout;      /* Lua code ran past the deadline without yielding. */
  int hook_stopped;      /* The deadline hook has just parked the running task for good. */
  umb_buf prints;        /* What the scenario print()ed, one line per call, up to UMB_RUN_TEXT_MAX. */
  size_t prints_dropped; /* Bytes of print output past the cap, dropped. */
  umb_buf metrics;       /* Its t:metric() samples (umb_scen_result). */
  void (*done_cb)(umb_scen *sc, void *data);
  void *data;
  umb_scen_result result;
};

/* The scenario that owns a Lua state. */
umb_scen *umb_scen_from_lua(lua_State *L);
/* The task whose coroutine L is, or NULL (the main state, or a coroutine the scenario made). */
umb_task *umb_task_from_lua(lua_State *L);
/* Register a new task for coroutine co (anchored by coref) and queue it to run with nargs values
 * already on co (the function and its arguments). */
umb_task *umb_task_new(umb_scen *sc, lua_State *co, int coref, int nargs, const char *where);
/* Queue a parked task to be resumed with nargs values already pushed on its coroutine. */
void umb_task_wake(umb_task *t, int nargs);
/* Record an expectation failure (already formatted with file:line). */
void umb_scen_fail(umb_scen *sc, const char *text);
/* Add a line to the scenario's diagnostics (t:note). */
void umb_scen_note(umb_scen *sc, const char *text);
/* Adds print()/io.write() output, within the run's text cap (UMB_RUN_TEXT_MAX). */
void umb_scen_print(umb_scen *sc, const char *s, size_t len);
/* Add one t:metric() sample line (see umb_scen_result); 0, or -E2BIG past UMB_METRICS_MAX bytes, or -ENOMEM. */
int umb_scen_metric(umb_scen *sc, const char *line);
#define UMB_METRICS_MAX (16u << 20)
/* The key that marks a t:skip() error table. */
void *umb_scen_skip_mark(void);
/* The key that marks a t:require()/t:assert_*() error table: the failure is recorded, the verdict is FAILED. */
void *umb_scen_abort_mark(void);

#endif

/* scenario.h: one scenario run (a Lua coroutine on the loop, its UML instances and folder) and its verdict. */
#ifndef UMLBED_SCENARIO_H
#define UMLBED_SCENARIO_H

#include <lua.h>

#include "umlbed.h"

#define UMB_SCEN_VMS_MAX 8

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
  const char *gdb_script;   /* Run kernels under gdb with this script. */
  int gdb_interactive;
  const char *const *ignore; /* --ignore-warning texts, NULL-terminated (or NULL). */
} umb_config;

typedef struct umb_scen umb_scen;

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
} umb_svm;

struct umb_scen {
  uv_loop_t *loop;
  const umb_config *cfg;
  char *file;
  char *name;          /* Display name, with parameters. */
  int combo;           /* Index in the matrix (0 without a matrix). */
  lua_State *L;
  lua_State *co;
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
  const char *pending_what; /* What the coroutine waits for (for timeout reports). */
  double timeout_s;         /* This run's timeout. */
  char *skip;               /* The scenario's skip reason, if any. */
  uint64_t deadline;        /* uv_hrtime() after which the run is over (0: none). */
  int busy_timeout;         /* Lua code ran past the deadline without yielding. */
};

/* Describe a scenario file: pushes nothing; fills *name and the display names of every
 * matrix combination (malloc'd). Returns 0, or -EINVAL with *err set (malloc'd). */
int umb_scen_describe(const char *file, char **name, char ***combos, int *ncombos, char **err);

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
/* Resume the scenario coroutine with nargs values already pushed on sc->co. */
void umb_scen_resume(umb_scen *sc, int nargs);
/* Record an expectation failure (already formatted with file:line). */
void umb_scen_fail(umb_scen *sc, const char *text);
/* Finish the scenario with a verdict and an explanation (formatted). Idempotent. */
void umb_scen_finish(umb_scen *sc, umb_verdict v, const char *fmt, ...)
    __attribute__((format(printf, 3, 4)));

/* The Lua module, implemented in lua-bindings/. */
int luaopen_umlbed(lua_State *L);
/* Called by the scenario when a vm it waits on becomes ready or dies (lumlbed). */
void umb_lua_vm_event(umb_svm *svm, umb_vm_event ev);
/* Push a new expectations object ("umlbed.t") for the scenario that owns L. */
void umb_lua_push_t(lua_State *L);
/* The registry-free key that marks a t:skip() error table. */
void *umb_scen_skip_mark(void);

#endif

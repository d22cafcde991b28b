/* SPDX-License-Identifier: MIT */
/* run.h: one run of the engine core: its folder, its UML instances, its deadline and its verdict, without Lua. */
#ifndef UMLBED_RUN_H
#define UMLBED_RUN_H

#include <limits.h>

#include "lpj.h"
#include "umlbed.h"

/* Instances a run may have at once (and the boot times its result keeps); one it killed and that is gone with a clean
 * console is released, so a run may boot many one after another. */
#define UMB_RUN_VMS_MAX 8

typedef enum umb_verdict {
  UMB_OK = 0,
  UMB_SKIP,
  UMB_FAILED,  /* An expectation failed. */
  UMB_CRASHED, /* Panic, oops, BUG, warning, or the guest went away. */
  UMB_TIMEOUT,
  UMB_ERROR, /* Lua error, runner error, or interrupted. */
} umb_verdict;

const char *umb_verdict_name(umb_verdict v);

/* Settings shared by every run of one runner invocation. */
typedef struct umb_config {
  const char *kernel; /* UML binary. */
  /* The UML binary an instance booted with umb_run_vm_spawn's probe flag runs (a campaign's base kernel, whose
   * points it reads): the kernel itself unless --probe-variant names another; NULL is the kernel too. */
  const char *probe_kernel;
  const char *agent;   /* Guest agent binary, placed in each hostfs root. */
  const char *tmpbase; /* Where run folders are made ($TMPDIR or /tmp). */
  /* The run folder its supervisor made, locked and will remove or keep (runproc.c), or NULL: the run makes,
   * locks and removes its own under tmpbase. */
  const char *rundir;
  const char *mem;     /* Default guest memory. */
  const char *cmdline; /* Extra kernel command line for every vm. */
  int time_travel;
  int keep;               /* Keep every run folder. */
  double timeout_s;       /* Per scenario; 0 means none. */
  int timeout_given;      /* --timeout was given: it overrides the scenario's own timeout. */
  double timeout_scale;   /* $UMLBED_TIMEOUT_SCALE: multiplies the default and each scenario's own timeout. */
  const char *gdb_script; /* Run kernels under gdb with this script. */
  int gdb_interactive;
  const char *const *ignore; /* --ignore-warning texts, NULL-terminated (or NULL). */
  const char *variant;       /* NAME when kernel is .../kernel/NAME/obj/linux, else NULL. */
  const char *release;       /* What the kernel's --version printed (6.1.192). */
  const char *generation;    /* Its major.minor (6.1, 6.12). */
  umb_lpj *lpj;              /* The kernel's calibration on this host: passed as lpj= once known (NULL: never). */
  /* --coverage: each run's instances write their gcov data under this folder (absolute), each run in a folder of
   * its own, and end with an orderly power-off so that they do (NULL: no coverage, instances are killed). */
  const char *coverage;
  int gcov_strip; /* Components of the kernel's build folder that libgcov drops from each .gcda path. */
  int runner_pid; /* The runner whose run this is: it names run folders and instances (0: this process). */
  int fake_uml;   /* --fake-uml: the kernel is the runner's tests' fake UML (umb_vm_options.fake_uml). */
} umb_config;

/* cfg->runner_pid, or this process's PID. */
int umb_runner_pid(const umb_config *cfg);

typedef struct umb_run umb_run;
typedef struct umb_run_vm umb_run_vm;

/* What a run's instance reports to the layer that started it (all optional). */
typedef struct umb_run_vm_ops {
  void (*ready)(umb_run_vm *v); /* The agent is ready. */
  /* A worker ended (pid, "exit:N" or "signal:N"); pid 0 and status NULL: no more will come (the vm is gone). */
  void (*exited)(umb_run_vm *v, uint64_t pid, const char *status);
  void (*powered_off)(umb_run_vm *v); /* Died after expect_exit was set: not a crash. */
  void (*free_user)(void *user);      /* The run frees the instance: release what user points to. */
} umb_run_vm_ops;

/* An instance as its run sees it; owned by the run until the run ends, so pointers to it never dangle. */
struct umb_run_vm {
  umb_run *run;
  umb_vm *vm; /* NULL once closed. */
  int index;
  int cpu;
  int expect_exit; /* poweroff() or kill() was asked for: death is not a crash. */
  int learn_lpj;   /* It calibrates its delay loop: its console tells this host's lpj. */
  int gone;
  int flushing; /* --coverage: asked to power off at the end, so that its kernel writes its gcov data. */
  int released; /* Killed, gone with nothing on its console: its handles and CPU went back before the run's end. */
  const char *kernel; /* The UML binary it runs: cfg->kernel, or cfg->probe_kernel for a probe instance. */
  umb_req flush_req;
  char dir[PATH_MAX];
  char root[PATH_MAX];   /* Hostfs root (shared by the run's vms). */
  char shared[PATH_MAX]; /* Host path of /shared. */
  const umb_run_vm_ops *ops;
  void *user; /* For the layer that spawned it. */
};

/* What the layer above learns of its run. */
typedef struct umb_run_ops {
  void (*finishing)(umb_run *r); /* The verdict is final: stop running code that belongs to the run. */
  /* Every instance is closed; the folder goes next. Work that must end first may umb_run_hold() the run. */
  void (*closed)(umb_run *r);
  void (*timeout)(umb_run *r, umb_buf *what); /* The deadline passed: append "; waiting for ..." to what. */
  void (*done)(umb_run *r);                   /* Exactly once: everything the run started is gone. */
} umb_run_ops;

/* The result of a finished run. */
typedef struct umb_result {
  umb_verdict verdict;
  double seconds;
  const char *diag;   /* Failure text and notes (NULL if none). */
  const char *reason; /* The explanation the verdict was given with (a SKIP's reason), or NULL. */
  const char *dir;    /* The run folder, when it was kept; else NULL. */
  int nboot;
  double boot_ms[UMB_RUN_VMS_MAX];
  /* --coverage: the run's own coverage folder, how many instances wrote gcov data, how many lost it. */
  const char *coverage;
  int cov_written, cov_lost;
} umb_result;

struct umb_run {
  uv_loop_t *loop;
  const umb_config *cfg;
  const umb_run_ops *ops;
  void *user;
  char dir[PATH_MAX];
  int dir_lock; /* Holds the folder's flock while it lives (umb_live_dir_make); -1 when none. */
  char root[PATH_MAX];
  umb_run_vm **vms; /* Every instance the run booted, in order; a killed one's handles are closed once it is gone. */
  int nvms, vms_cap;
  int nlive; /* Instances not closed yet: at most UMB_RUN_VMS_MAX at once. */
  uv_timer_t timer;
  uv_timer_t grace;
  uv_timer_t flush; /* --coverage: how long the power-offs at the end may take. */
  int nflushing;
  const char *label;     /* The run's name, set before umb_run_start (the coverage folder is named after it). */
  char covdir[PATH_MAX]; /* --coverage: this run's folder under cfg->coverage. */
  double timeout_s;      /* 0: none. */
  int finishing;
  int interrupted;
  int nclosing; /* Instances still closing. */
  int nholds;   /* What must end before ops->done: folder removal, timers, umb_run_hold(). */
  int nfails;
  int allow_warnings;
  umb_verdict verdict;
  umb_buf diag;        /* Failure text: expectations, traceback, console excerpt. */
  size_t diag_dropped; /* Bytes of t:note/t:fail text past UMB_RUN_TEXT_MAX, dropped. */
  char *reason;        /* The text umb_run_finish() was given. */
  umb_run_vm *crashed; /* The vm that showed a fatal finding. */
  uint64_t t_start, t_end;
  int kept;
  umb_result result;
};

/* --coverage: how long the instances may take to power off and write their gcov data at the run's end, in seconds
 * (times UMLBED_TIMEOUT_SCALE). */
#define UMB_RUN_FLUSH_LIMIT_S 60

/* What one run's notes and failures (and, in the host, its print output) may add to its report: past it the text is
 * dropped and a mark says how much, so a scenario cannot fill the runner's memory or the reports. */
#define UMB_RUN_TEXT_MAX (1u << 20)

/* Prepares r and its folder (with a copy of the agent). On failure (negative errno) the run is already finishing
 * with ERROR and ops->done still comes, from the loop. */
int umb_run_start(umb_run *r, uv_loop_t *loop, const umb_config *cfg, const umb_run_ops *ops, void *user);
/* Arms the deadline (seconds; 0: none): when it passes the run ends with TIMEOUT. In a run process the supervisor
 * is told, and kills the process if the verdict does not come soon after (runlink.h). */
void umb_run_set_timeout(umb_run *r, double seconds);
/* Boots an instance for the run, of cfg->probe_kernel when probe is set; its events go to ops. Returns 0 or a
 * negative errno (nothing started). */
int umb_run_vm_spawn(umb_run *r, const char *mem, const char *cmdline, int time_travel, int probe,
                     const umb_run_vm_ops *ops, void *user, umb_run_vm **out);
/* Kills an instance on purpose (a scenario's vm:kill(), or a vm it dropped): its death is then not a crash. Does
 * nothing once the instance is closed or while the run closes its instances itself. */
void umb_run_vm_kill(umb_run_vm *v);
/* An instance is about to be told to power off: its exit is then not a crash. */
void umb_run_vm_powering_off(umb_run_vm *v);
/* Whether an instance's death would be on purpose (after one of the two above): a call that its death cancels
 * then ends with an error for its caller, instead of waiting for the CRASHED verdict. */
int umb_run_vm_ending(const umb_run_vm *v);
/* Records an expectation failure (already formatted with file:line). */
void umb_run_fail(umb_run *r, const char *text);
/* Appends a line to the diagnostics without failing. */
void umb_run_note(umb_run *r, const char *text);
/* The run's code has returned: CRASHED if a kernel reported a problem (returns 1), else 0 and nothing happens. */
int umb_run_check_kernels(umb_run *r);
/* Ends the run with a verdict and an explanation (formatted, may be NULL). Idempotent. */
void umb_run_finish(umb_run *r, umb_verdict v, const char *fmt, ...) __attribute__((format(printf, 3, 4)));
/* Ends the run early for a signal: ERROR, folder removed. */
void umb_run_interrupt(umb_run *r);
/* Delays ops->done until as many umb_run_release() calls have come. */
void umb_run_hold(umb_run *r);
void umb_run_release(umb_run *r);
/* Valid in and after ops->done. */
const umb_result *umb_run_result(const umb_run *r);
/* Frees what the run still holds, after ops->done. */
void umb_run_free(umb_run *r);

#endif

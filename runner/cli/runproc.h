/* SPDX-License-Identifier: MIT */
/* runproc.h: the runner's side of a run process: start one scenario run in a process of its own, bound it, end it. */
#ifndef UMLBED_RUNPROC_H
#define UMLBED_RUNPROC_H

#include "output.h"

/*
 * Each scenario run is a process of its own (umlbed __run, runchild.c) that holds the run's Lua state, its engine
 * run and its UML instances. The runner watches it from its loop, which no scenario code ever runs on:
 * - the deadline: a run's process that has no verdict a little after its timeout (UMB_RUNPROC_MARGIN_S, scaled) is
 *   killed, whatever its code is doing (a C call, a loop that Lua cannot interrupt), and the run is TIMEOUT;
 * - the end: one that has its verdict but does not end within UMB_RUNPROC_FINISH_S (a finalizer that never
 *   returns) is killed too, and the run is TIMEOUT;
 * - a stop signal: passed on; one that has not ended UMB_RUNPROC_STOP_S later is killed, and the run is ERROR;
 * - whatever way the process ended, the process groups and run folders it registered and did not release (runlink.h)
 *   are killed and removed (a timed-out run's folder is kept, as the run process itself keeps a failed run's).
 */
#define UMB_RUNPROC_MARGIN_S 1.0
#define UMB_RUNPROC_FINISH_S 5.0
#define UMB_RUNPROC_STOP_S 1.0

typedef struct umb_runproc umb_runproc;

/* Starts job j's run with configuration cfg (cfg->lpj, if set, learns from the run); done_cb runs exactly once,
 * from the loop, when j holds the result and everything the run started is gone. Returns NULL only when out of
 * memory; a process that cannot be started is a run with verdict ERROR (done_cb still comes). */
umb_runproc *umb_runproc_start(uv_loop_t *loop, const umb_host_config *hcfg, job *j,
                               void (*done_cb)(umb_runproc *p, void *data), void *data);
/* The configuration record (protocol/run-link.h's cfg) a run process (or, without name and dir, a describing
 * process) starts from: hcfg, the file, the run's name and combination, its folder. 0 or -ENOMEM. */
int umb_runproc_config(umb_buf *b, const umb_host_config *hcfg, const char *file, const char *name, int combo,
                       const char *dir);
/* Passes a stop signal (SIGINT, SIGTERM, SIGHUP) on to the run's process; the first one counts. */
void umb_runproc_signal(umb_runproc *p, int sig);
/* After done_cb. */
void umb_runproc_free(umb_runproc *p);

#endif

/* SPDX-License-Identifier: MIT */
/* output.h: the CLI's reports of a set of runs: TAP lines, JUnit XML and JSON. */
#ifndef UMLBED_OUTPUT_H
#define UMLBED_OUTPUT_H

#include <stdio.h>

#include "jobs.h"
#include "scenario.h"

/* One scenario run of the command line, and its results (kept after the scenario is freed). */
typedef struct job {
  char *file;
  char *name;
  int combo;
  struct umb_runproc *proc; /* Its run process, while it runs. */
  /* Results, kept after the scenario is freed. */
  umb_verdict verdict;
  double seconds;
  char *diag;
  char *prints;  /* What the scenario print()ed. */
  char *metrics; /* Its t:metric() samples (umb_scen_result's format). */
  char *dir;
  char *reason; /* The verdict's own explanation (a SKIP's reason). */
  double boot_ms[UMB_RUN_VMS_MAX];
  int nboot;
  int done;
  int cmin, cmax; /* Fewest and most scenarios running at once while it ran (-j auto samples). */
  char *broken;   /* The file did not load: this message, verdict ERROR, nothing started. */
  char *coverage; /* --coverage: the run's gcov folder; how many instances wrote their data, how many lost it. */
  int cov_written, cov_lost;
} job;

/* Prints job j's TAP line (number n) and its diagnostic lines. */
void umb_out_tap(FILE *f, const job *j, int n);
/* The same, each line after indent: "" at the top level, four spaces in a subtest (KTAP's nested tests). */
void umb_out_tap_indent(FILE *f, const job *j, int n, const char *indent);
/* Writes a JUnit XML report of jobs[0..njobs); returns 0 or a negative errno. */
int umb_out_junit(const char *path, const job *jobs, int njobs, const umb_config *cfg);
/* What a sharded run adds to its JSON report: which shard it was, and the full list of runs that every shard of
 * the same command shares (each run as umb_shard_key()), so that umlbed merge can check the union. */
typedef struct umb_out_shard {
  int k, n;
  const char *source, *balance;
  char *const *all;
  int nall;
  const char *pack; /* The id of the pack the runner ran from (make pack), or NULL. */
} umb_out_shard;

/* Writes the JSON report (shard NULL or n 0: not sharded); returns 0 or a negative errno. Its planned is njobs:
 * results lists every run planned, one that never ended with the verdict "NOT RUN". */
int umb_out_json(const char *path, const job *jobs, int njobs, const umb_config *cfg, const umb_jobs *ctl,
                 const umb_out_shard *shard);

#endif

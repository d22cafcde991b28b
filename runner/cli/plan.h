/* SPDX-License-Identifier: MIT */
/* plan.h: the runs a command line asks for: scenario files found, described, filtered and dealt to a shard. */
#ifndef UMLBED_PLAN_H
#define UMLBED_PLAN_H

#include "output.h"
#include "shard.h"

typedef struct umb_plan {
  job *jobs; /* The runs to do, in order. */
  int njobs;
  char **all; /* With a shard: umb_shard_key() of every run of the full list (for the report). */
  int nall;
} umb_plan;

/* The FILE arguments and the *.lua files of DIR arguments (sorted, not recursive) into *files (malloc'd). Returns
 * 0, or -1 after a message naming what could not be read. */
int umb_plan_collect(char **args, int nargs, char ***files, int *nfiles);
/* Describes each file in a process of its own (describe.h) and adds a job per matrix combination that filter (a
 * glob on the combination's name, the file or the scenario's name; NULL: all) selects; a file that does not load
 * is one job that is an ERROR with its message (printed too). Returns 0, 1 if some file did not load, -EINTR after
 * a stop signal, or -ENOMEM. */
int umb_plan_describe(umb_plan *p, char **files, int nfiles, const char *filter, const umb_host_config *cfg);
/* Keeps only shard s's runs (durations: a --json report to deal by, or NULL) and the keys of the full list.
 * Returns 0 or a negative errno after a message. */
int umb_plan_shard(umb_plan *p, umb_shard *s, const char *durations);
void umb_plan_free(umb_plan *p);

#endif

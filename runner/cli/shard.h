/* SPDX-License-Identifier: MIT */
/* shard.h: umlbed run --shard K/N: which runs of the full list this job runs, by count or by recorded durations. */
#ifndef UMLBED_SHARD_H
#define UMLBED_SHARD_H

#include "output.h"

#include <stddef.h>

#define UMB_SHARDS_MAX 4096

/* The shard this process runs: k in 1..n, where the numbers came from and how runs were dealt. */
typedef struct umb_shard {
  int k, n;
  char source[128];  /* "--shard", "GitLab CI_NODE_INDEX/CI_NODE_TOTAL", ... */
  char balance[160]; /* "count", or "durations from FILE (M of R runs known)". */
} umb_shard;

/* "K/N" with 1 <= K <= N <= UMB_SHARDS_MAX: 0, or -EINVAL. */
int umb_shard_parse(const char *s, int *k, int *n);
/* The shard from a CI engine's variables (GitLab, Kubernetes Indexed Jobs with UMLBED_SHARD_TOTAL, Slurm job
 * arrays): 1 found, 0 none, -EINVAL malformed (err says which variable). */
int umb_shard_from_env(umb_shard *s, char *err, size_t size);
/* The key that names a run in every shard's report: the file's base name, a tab, the run's name. Malloc'd. */
char *umb_shard_key(const char *file, const char *name);
/* Deals jobs[0..njobs) to n shards and sets mine[i] to 1 for the runs of shard k: the longest first to the least
 * loaded shard, with durations (seconds) from a JSON report (--json) when durations_path is set, else one unit
 * each. Deterministic: the same list gives the same shards on every machine. 0 or a negative errno (err set). */
int umb_shard_deal(const job *jobs, int njobs, umb_shard *s, const char *durations_path, char *mine, char *err,
                   size_t size);

#endif

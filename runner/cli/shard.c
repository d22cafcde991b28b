// SPDX-License-Identifier: MIT
/* shard.c: dealing the runs of one full list to N shards, the same way on every machine, by count or by duration. */
#include "shard.h"
#include "path.h"

#include <errno.h>
#include <jansson.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

int umb_shard_parse(const char *s, int *k, int *n) {
  char *end;
  long a = strtol(s, &end, 10);
  if (end == s || *end != '/' || a < 1) return -EINVAL;
  const char *t = end + 1;
  long b = strtol(t, &end, 10);
  if (end == t || *end || b < a || b > UMB_SHARDS_MAX) return -EINVAL;
  *k = (int)a;
  *n = (int)b;
  return 0;
}

/* A decimal from the environment: 0 and *v set, 1 when unset, -EINVAL otherwise. */
static int env_num(const char *name, long *v) {
  const char *s = getenv(name);
  if (s == NULL || !*s) return 1;
  char *end;
  errno = 0;
  *v = strtol(s, &end, 10);
  return *end || errno ? -EINVAL : 0;
}

/*
 * One engine's pair of variables: 0 when neither is set, 1 when both are decimals, and -EINVAL with err naming
 * the variable when one is malformed or set without the other: garbage must not run the whole list.
 */
static int env_pair(const char *iname, long *idx, const char *tname, long *tot, char *err, size_t size) {
  int a = env_num(iname, idx), b = env_num(tname, tot);
  if (a < 0 || b < 0) {
    snprintf(err, size, "%s=%s is not a decimal number", a < 0 ? iname : tname, getenv(a < 0 ? iname : tname));
    return -EINVAL;
  }
  if (a == 1 && b == 1) return 0;
  if (a == 1 || b == 1) {
    snprintf(err, size, "%s is set without %s", a == 1 ? tname : iname, a == 1 ? iname : tname);
    return -EINVAL;
  }
  return 1;
}

int umb_shard_from_env(umb_shard *s, char *err, size_t size) {
  long idx = 0, tot = 0, min = 0;
  int r;
  /* GitLab's parallel: jobs: CI_NODE_INDEX counts from 1. */
  if ((r = env_pair("CI_NODE_INDEX", &idx, "CI_NODE_TOTAL", &tot, err, size)) < 0) return r;
  if (r) {
    snprintf(s->source, sizeof s->source, "GitLab CI_NODE_INDEX/CI_NODE_TOTAL");
  } else if ((r = env_pair("JOB_COMPLETION_INDEX", &idx, "UMLBED_SHARD_TOTAL", &tot, err, size)) != 0) {
    /* A Kubernetes Indexed Job counts from 0 and does not say how many: the user does. */
    if (r < 0 && getenv("JOB_COMPLETION_INDEX") && !getenv("UMLBED_SHARD_TOTAL"))
      snprintf(err, size, "JOB_COMPLETION_INDEX is set: give the number of shards as UMLBED_SHARD_TOTAL");
    if (r < 0) return r;
    idx++;
    snprintf(s->source, sizeof s->source, "Kubernetes JOB_COMPLETION_INDEX/UMLBED_SHARD_TOTAL");
  } else if ((r = env_pair("SLURM_ARRAY_TASK_ID", &idx, "SLURM_ARRAY_TASK_COUNT", &tot, err, size)) != 0) {
    if (r < 0) return r;
    /* A Slurm array runs task IDs MIN..MAX; COUNT of them. */
    if (env_num("SLURM_ARRAY_TASK_MIN", &min) < 0) {
      snprintf(err, size, "SLURM_ARRAY_TASK_MIN=%s is not a decimal number", getenv("SLURM_ARRAY_TASK_MIN"));
      return -EINVAL;
    }
    idx = idx - min + 1;
    snprintf(s->source, sizeof s->source, "Slurm SLURM_ARRAY_TASK_ID/SLURM_ARRAY_TASK_COUNT");
  } else {
    return 0;
  }
  if (idx < 1 || tot < 1 || idx > tot || tot > UMB_SHARDS_MAX) {
    snprintf(err, size, "%s gives shard %ld of %ld", s->source, idx, tot);
    return -EINVAL;
  }
  s->k = (int)idx;
  s->n = (int)tot;
  return 1;
}

char *umb_shard_key(const char *file, const char *name) {
  const char *base = strrchr(file, '/');
  base = base ? base + 1 : file;
  size_t len = strlen(base) + strlen(name) + 2;
  char *k = malloc(len);
  if (k) snprintf(k, len, "%s\t%s", base, name);
  return k;
}

typedef struct {
  int index;
  double cost;
} deal_item;

static int by_cost(const void *a, const void *b) {
  const deal_item *x = a, *y = b;
  if (x->cost != y->cost) return x->cost > y->cost ? -1 : 1;
  return x->index - y->index;
}

int umb_shard_deal(const job *jobs, int njobs, umb_shard *s, const char *durations_path, char *mine, char *err,
                   size_t size) {
  deal_item *items = calloc((size_t)njobs + 1, sizeof *items);
  double *load = calloc((size_t)s->n, sizeof *load);
  char **keys = NULL; /* Each job's key, made once for the report's lookups. */
  int rc = 0, known = 0;
  if (items == NULL || load == NULL) {
    rc = -ENOMEM;
    goto out;
  }
  for (int i = 0; i < njobs; i++) items[i] = (deal_item){i, -1};
  if (durations_path) {
    keys = calloc((size_t)njobs + 1, sizeof *keys);
    if (keys == NULL) {
      rc = -ENOMEM;
      goto out;
    }
    for (int i = 0; i < njobs; i++) keys[i] = umb_shard_key(jobs[i].file, jobs[i].name);
    json_error_t je;
    char *text;
    size_t len;
    int rrc = umb_input_read(durations_path, UMB_INPUT_MAX, &text, &len);
    if (rrc) {
      snprintf(err, size, "--durations %s: %s", durations_path, umb_input_strerror(rrc));
      rc = -EINVAL;
      goto out;
    }
    json_t *root = json_loadb(text, len, 0, &je);
    free(text);
    json_t *results = root ? json_object_get(root, "results") : NULL;
    if (!json_is_array(results)) {
      snprintf(err, size, "--durations %s: not a umlbed JSON report (%s)", durations_path,
               root ? "no results" : je.text);
      json_decref(root);
      rc = -EINVAL;
      goto out;
    }
    size_t r;
    json_t *res;
    json_array_foreach(results, r, res) {
      const char *file = json_string_value(json_object_get(res, "file"));
      const char *name = json_string_value(json_object_get(res, "name"));
      json_t *sec = json_object_get(res, "seconds");
      if (!file || !name || !json_is_number(sec)) continue;
      char *key = umb_shard_key(file, name);
      for (int i = 0; key && i < njobs; i++) {
        if (keys[i] && !strcmp(keys[i], key) && items[i].cost < 0) {
          items[i].cost = json_number_value(sec);
          known++;
        }
      }
      free(key);
    }
    json_decref(root);
    /* A run the report does not know costs what a known one costs in the middle. */
    double *c = calloc((size_t)known + 1, sizeof *c);
    int nc = 0;
    for (int i = 0; c && i < njobs; i++)
      if (items[i].cost >= 0) c[nc++] = items[i].cost;
    double med = 1;
    if (nc) {
      for (int i = 1; i < nc; i++)
        for (int j = i; j > 0 && c[j - 1] > c[j]; j--) {
          double t = c[j];
          c[j] = c[j - 1];
          c[j - 1] = t;
        }
      med = nc % 2 ? c[nc / 2] : (c[nc / 2 - 1] + c[nc / 2]) / 2;
    }
    free(c);
    for (int i = 0; i < njobs; i++)
      if (items[i].cost < 0) items[i].cost = med;
    snprintf(s->balance, sizeof s->balance, "durations from %s (%d of %d runs known)", durations_path, known, njobs);
  } else {
    for (int i = 0; i < njobs; i++) items[i].cost = 1;
    snprintf(s->balance, sizeof s->balance, "count");
  }
  /* Longest first, each to the least loaded shard (the lowest on a tie): the classic greedy, deterministic. */
  qsort(items, (size_t)njobs, sizeof *items, by_cost);
  for (int i = 0; i < njobs; i++) {
    int best = 0;
    for (int k = 1; k < s->n; k++)
      if (load[k] < load[best]) best = k;
    load[best] += items[i].cost;
    mine[items[i].index] = best == s->k - 1;
  }
out:
  for (int i = 0; keys && i < njobs; i++) free(keys[i]);
  free(keys);
  free(items);
  free(load);
  return rc;
}

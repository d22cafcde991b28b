// SPDX-License-Identifier: MIT
/* merge.c: umlbed merge: shard reports joined in full-list order, every run checked to have run exactly once; one whole run's report printed again. */
#include "merge.h"
#include "output.h"
#include "path.h"
#include "report.h"
#include "shard.h"

#include <jansson.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

static const char *merge_usage =
    "usage: umlbed merge [--json FILE] [--junit FILE] [--subtest NAME] SHARD.json... | REPORT.json\n";

static char *dup_or_null(json_t *v) { return json_is_string(v) ? strdup(json_string_value(v)) : NULL; }

static int verdict_of(const char *s, umb_verdict *v) {
  for (int i = UMB_OK; i <= UMB_ERROR; i++)
    if (s && !strcmp(s, umb_verdict_name((umb_verdict)i))) {
      *v = (umb_verdict)i;
      return 1;
    }
  return 0;
}

/* A report's pack id for a message: a malformed one is said to be so, never printed as "(null)". */
static const char *pack_name(json_t *p) {
  if (p == NULL) return "none";
  return json_is_string(p) ? json_string_value(p) : "not a string";
}

/* A failed fuzz run names its seed: say how to replay it alone. */
static void replay_hint(const job *j, const char *in) {
  const char *s = strstr(j->name, "seed=");
  if (s == NULL) return;
  unsigned long long seed = strtoull(s + 5, NULL, 10);
  const char *st = strstr(j->name, "steps=");
  printf("%s# replay: umlbed run --timeout 0 --param seed=%llu", in, seed);
  if (st) printf(" --param steps=%llu", strtoull(st + 6, NULL, 10));
  printf(" %s\n", j->file);
}

/* One merge: the shard reports, the full list they share, and the runs placed in it. */
typedef struct merge {
  char **paths; /* The report files. */
  int nrep;
  json_t **reps;
  json_t *all; /* The full list (every report's all_runs, equal; a whole run's own results). */
  int own_all; /* all was made here, from a whole run's results. */
  int nall;
  const char *indent, *subtest; /* --subtest NAME: the TAP as a subtest of an outer stream, indented. */
  char **keys;                  /* Borrowed from all. */
  job *jobs;                    /* Placed in full-list order. */
  int *seen;
} merge;

/* The list of a whole run's report: the key of each of its results, in its order; 0, or 2 after a message. */
static int whole_run_list(merge *m, int r) {
  json_t *list = json_array();
  size_t x;
  json_t *res;
  m->all = list;
  m->own_all = 1;
  if (list == NULL) return 2;
  json_array_foreach(json_object_get(m->reps[r], "results"), x, res) {
    const char *file = json_string_value(json_object_get(res, "file"));
    const char *name = json_string_value(json_object_get(res, "name"));
    char *key = file && name ? umb_shard_key(file, name) : NULL;
    if (key == NULL || json_array_append_new(list, json_string(key))) {
      fprintf(stderr, "umlbed merge: %s: result %zu has no file or name\n", m->paths[r], x + 1);
      free(key);
      return 2;
    }
    free(key);
  }
  return 0;
}

/* Loads every report and checks they are shards of one list from one build, each shard once: 0, 1 when a shard
 * is given twice (its runs are then named as doubled), or 2 when the reports cannot be merged at all. */
static int load_reports(merge *m) {
  int status = 0, *shard_seen = NULL;
  json_int_t n0 = 0;
  for (int r = 0; r < m->nrep && status != 2; r++) {
    json_error_t je;
    char *text;
    size_t len;
    /* A FIFO would hang the merge and a device such as /dev/zero fill memory: regular files, bounded. */
    int rrc = umb_input_read(m->paths[r], UMB_INPUT_MAX, &text, &len);
    if (rrc) {
      fprintf(stderr, "umlbed merge: %s: %s\n", m->paths[r], umb_input_strerror(rrc));
      status = 2;
      break;
    }
    m->reps[r] = json_loadb(text, len, 0, &je);
    free(text);
    json_t *a = m->reps[r] ? json_object_get(m->reps[r], "all_runs") : NULL;
    json_t *sh = m->reps[r] ? json_object_get(m->reps[r], "shard") : NULL;
    json_int_t k = json_integer_value(json_object_get(sh, "k")), n = json_integer_value(json_object_get(sh, "n"));
    if (m->reps[r] && a == NULL && sh == NULL && m->nrep == 1 &&
        json_is_array(json_object_get(m->reps[r], "results"))) {
      /* One whole run's report: its own results are the list, each run in it once. */
      status = whole_run_list(m, r);
      break;
    }
    if (!json_is_array(a) || !json_is_object(sh) || !json_is_array(json_object_get(m->reps[r], "results"))) {
      fprintf(stderr, "umlbed merge: %s: %s\n", m->paths[r],
              m->reps[r] ? "not the JSON report of a sharded run (umlbed run --shard K/N --json FILE)" : je.text);
      status = 2;
    } else if (m->all == NULL) {
      m->all = a;
      n0 = n;
      if (n < 0 || n > UMB_SHARDS_MAX || (shard_seen = calloc((size_t)n + 1, sizeof *shard_seen)) == NULL) {
        fprintf(stderr, "umlbed merge: %s: a shard count out of range\n", m->paths[r]);
        status = 2;
      }
    } else if (!json_equal(m->all, a) || n != n0) {
      fprintf(stderr, "umlbed merge: %s and %s are shards of different run lists (other files, parameters or N)\n",
              m->paths[0], m->paths[r]);
      status = 2;
    }
    if (status == 2) break;
    /* Shards from different builds would merge verdicts about different kernels. */
    json_t *p0 = json_object_get(m->reps[0], "pack"), *pr = json_object_get(m->reps[r], "pack");
    if (!json_equal(p0 ? p0 : json_null(), pr ? pr : json_null()) && !(p0 == NULL && pr == NULL)) {
      fprintf(stderr, "umlbed merge: %s and %s ran from different packs (%s, %s)\n", m->paths[0], m->paths[r],
              pack_name(p0), pack_name(pr));
      status = 2;
    } else if (shard_seen && k >= 1 && k <= n && shard_seen[k]++) {
      fprintf(stderr, "umlbed merge: shard %lld/%lld is given twice (%s)\n", (long long)k, (long long)n, m->paths[r]);
      status = 1;
    }
  }
  free(shard_seen);
  return status;
}

/* One result of report r into its place in the full list; 0, or 2 after a message. */
static int place_result(merge *m, int r, json_t *res) {
  const char *file = json_string_value(json_object_get(res, "file"));
  const char *name = json_string_value(json_object_get(res, "name"));
  char *key = file && name ? umb_shard_key(file, name) : NULL;
  int at = -1, status = 0;
  for (int i = 0; key && i < m->nall; i++)
    if (m->keys[i] && !strcmp(m->keys[i], key)) at = i;
  if (at < 0) {
    fprintf(stderr, "umlbed merge: %s has a run that is not in the list: %s\n", m->paths[r],
            key ? key : "(no file or name)");
    status = 2;
  } else if (m->seen[at]++) {
    fprintf(stderr, "umlbed merge: run doubled (in more than one shard): %s\n", key);
    status = 2;
  } else if (!verdict_of(json_string_value(json_object_get(res, "verdict")), &m->jobs[at].verdict)) {
    /* A verdict this runner does not know is no pass: the run's outcome is unknown. */
    fprintf(stderr, "umlbed merge: %s: run %s has %s verdict\n", m->paths[r], key,
            json_object_get(res, "verdict") ? "an unknown" : "no");
    status = 2;
  } else {
    job *j = &m->jobs[at];
    j->file = strdup(file);
    j->name = strdup(name);
    j->done = 1;
    j->seconds = json_number_value(json_object_get(res, "seconds"));
    j->diag = dup_or_null(json_object_get(res, "diag"));
    /* A SKIP's reason is the first line of its diagnostics, as the run printed it. */
    if (j->verdict == UMB_SKIP && j->diag) j->reason = strdup(j->diag);
    j->prints = dup_or_null(json_object_get(res, "print"));
    j->dir = dup_or_null(json_object_get(res, "kept"));
    json_t *b;
    size_t bi;
    json_array_foreach(json_object_get(res, "boot_ms"), bi, b) {
      if (j->nboot < UMB_RUN_VMS_MAX) j->boot_ms[j->nboot++] = json_number_value(b);
    }
    if (j->file == NULL || j->name == NULL) {
      fprintf(stderr, "umlbed merge: out of memory\n");
      status = 2;
    }
  }
  free(key);
  return status;
}

/* Every result in its place, every run of the list seen exactly once; 0 or 2. */
static int place_results(merge *m) {
  int status = 0;
  m->nall = (int)json_array_size(m->all);
  m->keys = calloc((size_t)m->nall + 1, sizeof *m->keys);
  m->seen = calloc((size_t)m->nall + 1, sizeof *m->seen);
  m->jobs = calloc((size_t)m->nall + 1, sizeof *m->jobs);
  if (m->keys == NULL || m->seen == NULL || m->jobs == NULL) {
    fprintf(stderr, "umlbed merge: out of memory\n");
    return 2;
  }
  for (int i = 0; i < m->nall; i++) m->keys[i] = (char *)json_string_value(json_array_get(m->all, (size_t)i));
  for (int r = 0; r < m->nrep; r++) {
    size_t x;
    json_t *res;
    json_array_foreach(json_object_get(m->reps[r], "results"), x, res) status |= place_result(m, r, res);
  }
  for (int i = 0; i < m->nall; i++)
    if (!m->seen[i]) {
      fprintf(stderr, "umlbed merge: run missing (in no shard): %s\n", m->keys[i]);
      status = 2;
    }
  return status;
}

/* The merged report: TAP in full-list order, and JSON and JUnit as one unsharded run writes them; 0, 1 or 2. */
static int write_merged(merge *m, const char *json_out, const char *junit_out) {
  int status = 0;
  const char *in = m->indent;
  printf("%sTAP version 13\n", in);
  if (m->subtest) {
    printf("%s# Subtest: ", in);
    umb_tap_escape(stdout, m->subtest);
    printf("\n");
  }
  printf("%s1..%d\n", in, m->nall);
  umb_config cfg = {0};
  cfg.kernel = json_string_value(json_object_get(m->reps[0], "kernel"));
  cfg.variant = json_string_value(json_object_get(m->reps[0], "variant"));
  cfg.release = json_string_value(json_object_get(m->reps[0], "release"));
  cfg.generation = json_string_value(json_object_get(m->reps[0], "generation"));
  printf("%s# kernel %s (generation %s, variant %s)\n", in, cfg.release ? cfg.release : "?",
         cfg.generation ? cfg.generation : "?", cfg.variant ? cfg.variant : "-");
  if (m->own_all)
    printf("%s# printed again from %s: %d runs\n", in, m->paths[0], m->nall);
  else
    printf("%s# merged %d shard report(s): every one of %d runs ran exactly once\n", in, m->nrep, m->nall);
  for (int i = 0; i < m->nall; i++) {
    umb_out_tap_indent(stdout, &m->jobs[i], i + 1, in);
    if (m->jobs[i].done && m->jobs[i].verdict != UMB_OK && m->jobs[i].verdict != UMB_SKIP) {
      replay_hint(&m->jobs[i], in);
      status = 1;
    }
  }
  umb_jobs none;
  memset(&none, 0, sizeof none);
  if (json_out && umb_out_json(json_out, m->jobs, m->nall, &cfg, &none, NULL)) {
    fprintf(stderr, "umlbed merge: cannot write %s\n", json_out);
    status = 2;
  }
  if (junit_out && umb_out_junit(junit_out, m->jobs, m->nall, &cfg)) {
    fprintf(stderr, "umlbed merge: cannot write %s\n", junit_out);
    status = 2;
  }
  return status;
}

static void merge_free(merge *m) {
  for (int i = 0; m->jobs && i < m->nall; i++) {
    free(m->jobs[i].file);
    free(m->jobs[i].name);
    free(m->jobs[i].diag);
    free(m->jobs[i].reason);
    free(m->jobs[i].prints);
    free(m->jobs[i].dir);
  }
  free(m->jobs);
  free(m->keys);
  free(m->seen);
  if (m->own_all) json_decref(m->all);
  for (int r = 0; m->reps && r < m->nrep; r++) json_decref(m->reps[r]);
  free(m->reps);
}

int umb_merge_main(int argc, char **argv) {
  const char *json_out = NULL, *junit_out = NULL, *subtest = NULL;
  int first = 2;
  for (; first < argc && argv[first][0] == '-'; first++) {
    if (!strcmp(argv[first], "--json") && first + 1 < argc) {
      json_out = argv[++first];
    } else if (!strcmp(argv[first], "--junit") && first + 1 < argc) {
      junit_out = argv[++first];
    } else if (!strcmp(argv[first], "--subtest") && first + 1 < argc) {
      subtest = argv[++first];
    } else {
      int help = !strcmp(argv[first], "-h") || !strcmp(argv[first], "--help");
      fputs(merge_usage, help ? stdout : stderr);
      return help ? 0 : 2;
    }
  }
  if (first >= argc) {
    fputs(merge_usage, stderr);
    return 2;
  }
  merge m = {.paths = argv + first, .nrep = argc - first, .indent = subtest ? "    " : "", .subtest = subtest};
  m.reps = m.nrep > 0 ? calloc((size_t)m.nrep, sizeof *m.reps) : NULL;
  int status = m.reps ? load_reports(&m) : 2;
  if (status < 2) status = place_results(&m) || status ? 2 : 0;
  if (status == 0) status = write_merged(&m, json_out, junit_out);
  merge_free(&m);
  return status;
}

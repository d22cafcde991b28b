/* merge.c: umlbed merge: shard reports joined in full-list order, every run checked to have run exactly once. */
#include "merge.h"
#include "output.h"
#include "shard.h"

#include <jansson.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

static const char *merge_usage = "usage: umlbed merge [--json FILE] [--junit FILE] SHARD.json...\n";

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
static void replay_hint(const job *j) {
  const char *s = strstr(j->name, "seed=");
  if (s == NULL) return;
  unsigned long long seed = strtoull(s + 5, NULL, 10);
  const char *st = strstr(j->name, "steps=");
  printf("# replay: umlbed run --timeout 0 --param seed=%llu", seed);
  if (st) printf(" --param steps=%llu", strtoull(st + 6, NULL, 10));
  printf(" %s\n", j->file);
}

int umb_merge_main(int argc, char **argv) {
  const char *json_out = NULL, *junit_out = NULL;
  int first = 2;
  for (; first < argc && argv[first][0] == '-'; first++) {
    if (!strcmp(argv[first], "--json") && first + 1 < argc) {
      json_out = argv[++first];
    } else if (!strcmp(argv[first], "--junit") && first + 1 < argc) {
      junit_out = argv[++first];
    } else {
      fputs(merge_usage, !strcmp(argv[first], "-h") || !strcmp(argv[first], "--help") ? stdout : stderr);
      return strcmp(argv[first], "-h") && strcmp(argv[first], "--help") ? 2 : 0;
    }
  }
  if (first == argc) {
    fputs(merge_usage, stderr);
    return 2;
  }
  int nrep = argc - first, status = 0, nall = 0;
  json_t **reps = calloc((size_t)nrep, sizeof *reps), *all = NULL;
  char **keys = NULL;
  job *jobs = NULL;
  int *seen = NULL, *shard_seen = NULL;
  for (int r = 0; r < nrep; r++) {
    json_error_t je;
    reps[r] = json_load_file(argv[first + r], 0, &je);
    json_t *a = reps[r] ? json_object_get(reps[r], "all_runs") : NULL;
    json_t *sh = reps[r] ? json_object_get(reps[r], "shard") : NULL;
    if (!json_is_array(a) || !json_is_object(sh) || !json_is_array(json_object_get(reps[r], "results"))) {
      fprintf(stderr, "umlbed merge: %s: %s\n", argv[first + r],
              reps[r] ? "not the JSON report of a sharded run (umlbed run --shard K/N --json FILE)" : je.text);
      status = 2;
      goto out;
    }
    if (all == NULL) {
      all = a;
      shard_seen = calloc((size_t)json_integer_value(json_object_get(sh, "n")) + 1, sizeof *shard_seen);
    } else if (!json_equal(all, a) || json_integer_value(json_object_get(sh, "n")) !=
                                          json_integer_value(json_object_get(json_object_get(reps[0], "shard"), "n"))) {
      fprintf(stderr, "umlbed merge: %s and %s are shards of different run lists (other files, parameters or N)\n",
              argv[first], argv[first + r]);
      status = 2;
      goto out;
    }
    /* Shards from different builds would merge verdicts about different kernels. */
    json_t *p0 = json_object_get(reps[0], "pack"), *pr = json_object_get(reps[r], "pack");
    if (!json_equal(p0 ? p0 : json_null(), pr ? pr : json_null()) && !(p0 == NULL && pr == NULL)) {
      fprintf(stderr, "umlbed merge: %s and %s ran from different packs (%s, %s)\n", argv[first], argv[first + r],
              pack_name(p0), pack_name(pr));
      status = 2;
      goto out;
    }
    json_int_t k = json_integer_value(json_object_get(sh, "k"));
    json_int_t nn = json_integer_value(json_object_get(sh, "n"));
    if (shard_seen && k >= 1 && k <= nn && shard_seen[k]++) {
      fprintf(stderr, "umlbed merge: shard %lld/%lld is given twice (%s)\n", (long long)k, (long long)nn,
              argv[first + r]);
      status = 2;
    }
  }
  nall = (int)json_array_size(all);
  keys = calloc((size_t)nall + 1, sizeof *keys);
  seen = calloc((size_t)nall + 1, sizeof *seen);
  jobs = calloc((size_t)nall + 1, sizeof *jobs);
  for (int i = 0; i < nall; i++) keys[i] = (char *)json_string_value(json_array_get(all, (size_t)i));
  /* Each result goes to its place in the full list; a run no list has, or one seen twice, is an error. */
  for (int r = 0; r < nrep; r++) {
    size_t x;
    json_t *res;
    json_array_foreach(json_object_get(reps[r], "results"), x, res) {
      const char *file = json_string_value(json_object_get(res, "file"));
      const char *name = json_string_value(json_object_get(res, "name"));
      char *key = file && name ? umb_shard_key(file, name) : NULL;
      int at = -1;
      for (int i = 0; key && i < nall; i++)
        if (keys[i] && !strcmp(keys[i], key)) at = i;
      if (at < 0) {
        fprintf(stderr, "umlbed merge: %s has a run that is not in the list: %s\n", argv[first + r],
                key ? key : "(no file or name)");
        status = 2;
      } else if (seen[at]++) {
        fprintf(stderr, "umlbed merge: run doubled (in more than one shard): %s\n", key);
        status = 2;
      } else if (!verdict_of(json_string_value(json_object_get(res, "verdict")), &jobs[at].verdict)) {
        /* A verdict this runner does not know is no pass: the run's outcome is unknown. */
        fprintf(stderr, "umlbed merge: %s: run %s has %s verdict\n", argv[first + r], key,
                json_object_get(res, "verdict") ? "an unknown" : "no");
        status = 2;
      } else {
        job *j = &jobs[at];
        j->file = strdup(file);
        j->name = strdup(name);
        j->done = 1;
        j->seconds = json_number_value(json_object_get(res, "seconds"));
        j->diag = dup_or_null(json_object_get(res, "diag"));
        j->prints = dup_or_null(json_object_get(res, "print"));
        j->dir = dup_or_null(json_object_get(res, "kept"));
        json_t *b;
        size_t bi;
        json_array_foreach(json_object_get(res, "boot_ms"), bi, b) {
          if (j->nboot < UMB_RUN_VMS_MAX) j->boot_ms[j->nboot++] = json_number_value(b);
        }
      }
      free(key);
    }
  }
  int missing = 0;
  for (int i = 0; i < nall; i++)
    if (!seen[i]) {
      fprintf(stderr, "umlbed merge: run missing (in no shard): %s\n", keys[i]);
      missing++;
    }
  if (missing) status = 2;
  if (status) goto out;
  /* The merged report: TAP in full-list order, and JSON and JUnit as one unsharded run writes them. */
  printf("TAP version 13\n1..%d\n", nall);
  umb_config cfg = {0};
  cfg.kernel = json_string_value(json_object_get(reps[0], "kernel"));
  cfg.variant = json_string_value(json_object_get(reps[0], "variant"));
  cfg.release = json_string_value(json_object_get(reps[0], "release"));
  cfg.generation = json_string_value(json_object_get(reps[0], "generation"));
  printf("# kernel %s (generation %s, variant %s)\n", cfg.release ? cfg.release : "?",
         cfg.generation ? cfg.generation : "?", cfg.variant ? cfg.variant : "-");
  printf("# merged %d shard report(s): every one of %d runs ran exactly once\n", nrep, nall);
  for (int i = 0; i < nall; i++) {
    umb_out_tap(stdout, &jobs[i], i + 1);
    if (jobs[i].done && jobs[i].verdict != UMB_OK && jobs[i].verdict != UMB_SKIP) {
      replay_hint(&jobs[i]);
      status = 1;
    }
  }
  umb_jobs none;
  memset(&none, 0, sizeof none);
  if (json_out && umb_out_json(json_out, jobs, nall, &cfg, &none, NULL)) {
    fprintf(stderr, "umlbed merge: cannot write %s\n", json_out);
    status = 2;
  }
  if (junit_out && umb_out_junit(junit_out, jobs, nall, &cfg)) {
    fprintf(stderr, "umlbed merge: cannot write %s\n", junit_out);
    status = 2;
  }
out:
  for (int i = 0; jobs && i < nall; i++) {
    free(jobs[i].file);
    free(jobs[i].name);
    free(jobs[i].diag);
    free(jobs[i].prints);
    free(jobs[i].dir);
  }
  free(jobs);
  free(keys);
  free(seen);
  free(shard_seen);
  for (int r = 0; r < nrep; r++) json_decref(reps[r]);
  free(reps);
  return status;
}

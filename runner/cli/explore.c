// SPDX-License-Identifier: MIT
/* explore.c: umlbed explore: the explorer's options become parameters of scenarios/explore.lua, run by umlbed run. */
#include "explore.h"
#include "child.h"
#include "path.h"
#include "paths.h"

#include <errno.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#define EXPLORE_USAGE                                                                                               \
  "usage: umlbed explore [--seed S] [--cases N | --seconds S] [--first N] [--depth D] [--schedules N]\n"            \
  "                      [--shard K/N] [--pairs A+B,...] [--toward FUNC,...] [run options]\n"                       \
  "       umlbed explore --seed S --case N --schedule SCHEDULE [--runs R] [run options]\n"                          \
  "\n"                                                                                                              \
  "Runs the explorer (%s/scenarios/explore.lua, docs/explore.md): generated cases of two or three mm\n"             \
  "operations on one file, each under schedules of the kernel's automatic points (every initial order, one\n"       \
  "preemption at every step while that is few, then PCT of depth D, default 2), every end state checked against\n"  \
  "the case's sequential orders. A campaign takes the cases of seed S (default 1) from case --first (0): --cases\n" \
  "of them, or as many as --seconds allow; --shard K/N takes every N-th case from the K-th; --pairs only the\n"     \
  "pairs of operations named; --toward directs it at a change: every other case it runs is one whose tasks pass\n"  \
  "a point in (or at the edge of) the kernel functions named, found by running the cases ahead briefly on\n"        \
  "the base kernel --probe-variant names (default: the kernel under test; uml-kernel/changed-functions.sh\n"        \
  "names a variant's changed functions). A finding fails the run and prints\n"                                      \
  "its case, schedule, replay command and the interleaving. The second form replays case N of seed S under\n"       \
  "SCHEDULE (\"-\": its sequential orders only), R times (default 1), each of which must find it again.\n"          \
  "Run options (--variant, --generation, --kernel, --json, -j, ...) are those of umlbed run; without --timeout,\n"  \
  "the run has none (the campaign bounds itself).\n"

/* The explorer's options: each becomes --param NAME=VALUE. */
static const char *param_of(const char *opt) {
  static const char *const map[][2] = {
      {"--seed", "seed"},   {"--cases", "cases"},         {"--seconds", "seconds"}, {"--first", "first"},
      {"--depth", "depth"}, {"--schedules", "schedules"}, {"--shard", "shard"},     {"--pairs", "pairs"},
      {"--case", "case"},   {"--schedule", "schedule"},   {"--runs", "runs"},       {"--toward", "toward"},
      {NULL, NULL}};
  for (int i = 0; map[i][0]; i++)
    if (!strcmp(opt, map[i][0])) return map[i][1];
  return NULL;
}

int umb_explore_main(int argc, char **argv) {
  char data[PATH_MAX], file[PATH_MAX], self[PATH_MAX];
  char *build = umb_build_dir();
  int drc = build ? umb_data_dir(data, sizeof data, build) : -ENOMEM;
  free(build);
  if (drc || umb_path(file, sizeof file, "%s/scenarios/explore.lua", data)) {
    fprintf(stderr, "umlbed explore: %s\n", strerror(drc ? -drc : ENAMETOOLONG));
    return 2;
  }
  /* Each option at most doubles: --seed S becomes --param seed=S; then the file, the timeout, NULL. */
  char **rargv = calloc((size_t)argc * 2 + 8, sizeof *rargv);
  char **owned = calloc((size_t)argc + 1, sizeof *owned);
  int k = 0, nowned = 0, status = 2, timeout = 0;
  if (!rargv || !owned) goto out;
  ssize_t n = readlink("/proc/self/exe", self, sizeof self - 1);
  self[n > 0 ? n : 0] = '\0';
  rargv[k++] = n > 0 ? self : "umlbed";
  rargv[k++] = "run";
  for (int i = 2; i < argc; i++) {
    const char *p = param_of(argv[i]);
    if (!strcmp(argv[i], "-h") || !strcmp(argv[i], "--help")) {
      printf(EXPLORE_USAGE, data);
      status = 0;
      goto out;
    }
    if (p) {
      if (i + 1 == argc || argv[i + 1][0] == '\0') {
        fprintf(stderr, "umlbed explore: %s needs a value\n" EXPLORE_USAGE, argv[i], data);
        goto out;
      }
      size_t len = strlen(p) + strlen(argv[i + 1]) + 2;
      char *kv = malloc(len);
      if (!kv) goto out;
      snprintf(kv, len, "%s=%s", p, argv[++i]);
      owned[nowned++] = kv;
      rargv[k++] = "--param";
      rargv[k++] = kv;
      continue;
    }
    if (argv[i][0] != '-') {
      fprintf(stderr, "umlbed explore: no FILE: the explorer runs %s\n", file);
      goto out;
    }
    if (!strcmp(argv[i], "--timeout")) timeout = 1;
    rargv[k++] = argv[i];
    /* The value of a run option goes with it; umlbed run checks both. */
    if (i + 1 < argc && argv[i + 1][0] != '-' && strcmp(argv[i], "--keep") && strcmp(argv[i], "--time-travel") &&
        strcmp(argv[i], "--unsafe-lua"))
      rargv[k++] = argv[++i];
  }
  if (!timeout) {
    rargv[k++] = "--timeout";
    rargv[k++] = "0";
  }
  rargv[k++] = file;
  rargv[k] = NULL;
  status = umb_child_run(rargv);
out:
  for (int i = 0; i < nowned; i++) free(owned[i]);
  free(owned);
  free(rargv);
  return status;
}

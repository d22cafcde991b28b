// SPDX-License-Identifier: MIT
/* bench.c: umlbed bench: the benchmark scenarios run one at a time, then their samples become results.json and plots. */
#include "bench.h"
#include "child.h"
#include "path.h"
#include "paths.h"

#include <errno.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

/* The usage text: a format whose %s is the folder holding bench/ (umb_data_dir). */
#define BENCH_USAGE                                                                                                \
  "usage: umlbed bench [--out DIR] [run options] [FILE|DIR]...\n"                                                  \
  "       umlbed bench --compare OLD.json NEW.json\n"                                                              \
  "\n"                                                                                                             \
  "Runs the benchmark scenarios (default: %s/bench/scenarios) one at a time (-j 1: concurrent\n"                   \
  "instances would time each other), never with --time-travel (its guest clock is simulated), and writes\n"        \
  "DIR/results.json (every t:metric sample, per-point median/min/max, kernel, host CPU, commit) and one SVG and\n" \
  "one PNG per sweep with gnuplot (default DIR: ./umlbed-bench). Run options (--kernel, --variant, --param,\n"     \
  "--filter, --timeout, ...) are those of umlbed run.\n"                                                           \
  "--compare prints each point's medians, NEW/OLD and whether it changed beyond the noise (bench/report.pl).\n"

/* Options of umlbed run that take a value: their value is not a file. */
static int takes_value(const char *a) {
  static const char *const with[] = {"--kernel",  "--variant", "--generation", "--agent", "--filter",
                                     "--timeout", "--mem",     "--cmdline",    "--param", "--ignore-warning",
                                     "--json",    "--junit",   "-j",           "--jobs",  NULL};
  for (int i = 0; with[i]; i++)
    if (!strcmp(a, with[i])) return 1;
  return 0;
}

int umb_bench_main(int argc, char **argv) {
  const char *out = "umlbed-bench";
  char report[PATH_MAX], data[PATH_MAX];
  /* The scenarios and the report script are the checkout's, or the installed copies (never a path built in). */
  char *build = umb_build_dir();
  int drc = build ? umb_data_dir(data, sizeof data, build) : -ENOMEM;
  free(build);
  if (drc || umb_path(report, sizeof report, "%s/bench/report.pl", data)) {
    fprintf(stderr, "umlbed bench: %s\n", strerror(drc ? -drc : ENAMETOOLONG));
    return 2;
  }
  if (argc >= 3 && !strcmp(argv[2], "--compare")) {
    if (argc != 5) {
      fprintf(stderr, BENCH_USAGE, data);
      return 2;
    }
    /* A FIFO would hang the report and /dev/zero fill memory: regular files of a bounded size, checked here. */
    for (int i = 3; i < 5; i++) {
      int fd, rc = umb_input_open(argv[i], UMB_INPUT_MAX, &fd);
      if (rc) {
        fprintf(stderr, "umlbed bench: --compare %s: %s\n", argv[i], umb_input_strerror(rc));
        return 2;
      }
      close(fd);
    }
    char *cmp[] = {"perl", report, "--compare", argv[3], argv[4], NULL};
    return umb_child_run(cmp);
  }
  char **rargv = calloc((size_t)argc + 12, sizeof *rargv);
  if (rargv == NULL) return 2;
  char self[4096];
  ssize_t n = readlink("/proc/self/exe", self, sizeof self - 1);
  self[n > 0 ? n : 0] = '\0';
  int k = 0, files = 0, status = 2;
  rargv[k++] = n > 0 ? self : "umlbed";
  rargv[k++] = "run";
  for (int i = 2; i < argc; i++) {
    if (!strcmp(argv[i], "-h") || !strcmp(argv[i], "--help")) {
      printf(BENCH_USAGE, data);
      free(rargv);
      return 0;
    }
    if (!strcmp(argv[i], "--out")) {
      if (i + 1 == argc) {
        fprintf(stderr, BENCH_USAGE, data);
        goto out;
      }
      out = argv[++i];
      continue;
    }
    if (!strcmp(argv[i], "--time-travel") || !strcmp(argv[i], "--json") || !strcmp(argv[i], "--gdb")) {
      fprintf(stderr, "umlbed bench: %s is not for benchmarks (see umlbed bench --help)\n", argv[i]);
      goto out;
    }
    rargv[k++] = argv[i];
    if (takes_value(argv[i]) && i + 1 < argc)
      rargv[k++] = argv[++i];
    else if (argv[i][0] != '-')
      files++;
  }
  if (mkdir(out, 0755) && errno != EEXIST) {
    fprintf(stderr, "umlbed bench: --out %s: %s\n", out, strerror(errno));
    goto out;
  }
  char json[PATH_MAX], bdir[PATH_MAX];
  if (umb_path(json, sizeof json, "%s/runs.json", out) || umb_path(bdir, sizeof bdir, "%s/bench/scenarios", data)) {
    fprintf(stderr, "umlbed bench: --out %s: %s\n", out, strerror(ENAMETOOLONG));
    goto out;
  }
  /* Last, so that they win over the caller's: one instance at a time, and the report. */
  rargv[k++] = "-j";
  rargv[k++] = "1";
  rargv[k++] = "--json";
  rargv[k++] = json;
  if (!files) rargv[k++] = bdir;
  rargv[k] = NULL;
  int run = umb_child_run(rargv);
  if (run >= 2) {
    /* A usage error, a set-up error or a signal: no results to report. */
    status = run;
    goto out;
  }
  char *rep[] = {"perl", report, json, (char *)out, "--src", data, NULL};
  int rc = umb_child_run(rep);
  status = run ? run : rc;
out:
  free(rargv);
  return status;
}

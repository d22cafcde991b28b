/* SPDX-License-Identifier: MIT */
/* args.h: the options of umlbed run, list and fuzz: read from argv, then checked into the run configuration. */
#ifndef UMLBED_ARGS_H
#define UMLBED_ARGS_H

#include <limits.h>
#include <stddef.h>

#include "jobs.h"
#include "scenario.h"
#include "shard.h"

/* The most --break and --ignore-warning options one command takes. */
#define UMB_BREAKS_MAX 64
#define UMB_IGNORE_MAX 63

/* What the command line says, before it is checked; then what the checks found (paths, files, release). */
typedef struct umb_cli_args {
  const char *cmd;
  int fuzz, list;
  const char *kernel, *variant, *agent, *generation, *filter, *coverage, *durations, *jobs;
  const char *timeout, *lua_memory, *mem, *shard, *seed, *steps, *runs;
  const char *cmdline, *junit, *json, *subtest, *probe_variant;
  int gdb, batch, time_travel, keep, unsafe_lua, fake_uml;
  char *breaks[UMB_BREAKS_MAX];
  int nbreaks;
  const char *ignore[UMB_IGNORE_MAX + 1]; /* NULL-terminated. */
  int nignore;
  char **params; /* --param values, then the ones umlbed fuzz adds; NULL-terminated. */
  int nparams;
  char **args; /* FILE|DIR arguments. */
  int nargs;
  char *bdir;
  char **files;
  int nfiles;
  char kpath[PATH_MAX], ppath[PATH_MAX], preal[PATH_MAX], apath[PATH_MAX], kreal[PATH_MAX], areal[PATH_MAX],
      covreal[PATH_MAX];
  char release[128], vbuf[256];
} umb_cli_args;

/* Reads argv (from argv[2]) into a, whose params must already hold an empty NULL-terminated list: 0, 1 after
 * --help (printed), -1 after a message. */
int umb_cli_parse(int argc, char **argv, umb_cli_args *a);
/* Whether arg is an option of run, list or fuzz whose value is the next argument (--kernel PATH, say). */
int umb_cli_takes_value(const char *arg);
/* Timeouts, memory, the extra command line, jobs and shard from the options and the environment, into cfg, hcfg,
 * shard and jobs: 0, or -1 after a message. */
int umb_cli_limits(umb_cli_args *a, umb_config *cfg, umb_host_config *hcfg, umb_shard *shard, umb_jobs *jobs);
/* The fuzz options (their seeds into a's params, the replay command into note), and the file arguments (default
 * scenarios/, or the fuzzer's scenario) into a->files: 0, or -1 after a message. */
int umb_cli_files(umb_cli_args *a, umb_config *cfg, umb_host_config *hcfg, char *note, size_t size);
/* What a holds that was allocated. */
void umb_cli_free(umb_cli_args *a);

#endif

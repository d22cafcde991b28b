// SPDX-License-Identifier: MIT
/* args.c: the options of umlbed run, list and fuzz: one table of long options, and the checks of their values. */
#include "args.h"
#include "commands.h"
#include "plan.h"

#include <errno.h>
#include <getopt.h>
#include <sched.h>
#include <stdarg.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

/* Appends a formatted --param to the NULL-terminated list: 0, or -ENOMEM after a message. */
static int add_param(char ***params, int *n, const char *fmt, ...) __attribute__((format(printf, 3, 4)));
static int add_param(char ***params, int *n, const char *fmt, ...) {
  char buf[4096];
  va_list ap;
  va_start(ap, fmt);
  int len = vsnprintf(buf, sizeof buf, fmt, ap);
  va_end(ap);
  char **p = len >= 0 && (size_t)len < sizeof buf ? realloc(*params, sizeof(char *) * (size_t)(*n + 2)) : NULL;
  if (p) *params = p;
  if (p == NULL || (p[*n] = strdup(buf)) == NULL) {
    fprintf(stderr, "umlbed: --param %.40s...: %s\n", buf, p ? strerror(ENOMEM) : "too long");
    return -ENOMEM;
  }
  p[++*n] = NULL;
  return 0;
}

/* ---- Reading argv. ---- */

/* One long option: where its value goes (a string or a flag of umb_cli_args), or what checks and keeps it. */
typedef struct opt_def {
  const char *name;
  int has_arg;
  size_t field; /* offsetof(umb_cli_args, ...) of a const char * (with an argument) or an int flag (without). */
  int (*take)(umb_cli_args *a, const char *arg); /* Instead of field: 0, or -1 after a message. */
} opt_def;

static int take_break(umb_cli_args *a, const char *arg) {
  if (a->nbreaks == UMB_BREAKS_MAX) {
    fprintf(stderr, "umlbed: --break: at most %d breakpoints\n", UMB_BREAKS_MAX);
    return -1;
  }
  a->breaks[a->nbreaks++] = (char *)arg;
  return 0;
}

static int take_ignore(umb_cli_args *a, const char *arg) {
  if (a->nignore == UMB_IGNORE_MAX) {
    fprintf(stderr, "umlbed: --ignore-warning: at most %d texts\n", UMB_IGNORE_MAX);
    return -1;
  }
  a->ignore[a->nignore++] = arg;
  return 0;
}

static int take_param(umb_cli_args *a, const char *arg) {
  if (umb_param_check(arg)) {
    fprintf(stderr, "umlbed: --param wants KEY=VALUE with KEY a Lua name (got '%s')\n", arg);
    return -1;
  }
  return add_param(&a->params, &a->nparams, "%s", arg) ? -1 : 0;
}

static int take_coverage(umb_cli_args *a, const char *arg) {
  a->coverage = arg ? arg : "umlbed-coverage";
  if (!*a->coverage || strchr(a->coverage, '\n')) {
    fprintf(stderr, "umlbed: --coverage wants a folder (got '%s')\n", a->coverage);
    return -1;
  }
  return 0;
}

#define STR(n, f) \
  { n, 1, offsetof(umb_cli_args, f), NULL }
#define FLAG(n, f) \
  { n, 0, offsetof(umb_cli_args, f), NULL }
static const opt_def opt_defs[] = {
    STR("kernel", kernel),
    STR("variant", variant),
    STR("probe-variant", probe_variant),
    STR("generation", generation),
    STR("agent", agent),
    STR("jobs", jobs),
    STR("filter", filter),
    STR("timeout", timeout),
    STR("mem", mem),
    STR("seed", seed),
    STR("steps", steps),
    STR("runs", runs),
    STR("shard", shard),
    STR("durations", durations),
    STR("lua-memory", lua_memory),
    FLAG("gdb", gdb),
    FLAG("batch", batch),
    FLAG("time-travel", time_travel),
    FLAG("keep", keep),
    FLAG("unsafe-lua", unsafe_lua),
    FLAG("fake-uml", fake_uml),
    STR("cmdline", cmdline),
    STR("junit", junit),
    STR("json", json),
    STR("subtest", subtest),
    {"break", 1, 0, take_break},
    {"ignore-warning", 1, 0, take_ignore},
    {"param", 1, 0, take_param},
    {"coverage", 2, 0, take_coverage},
};
#undef STR
#undef FLAG
#define NOPTS (sizeof opt_defs / sizeof opt_defs[0])

int umb_cli_takes_value(const char *arg) {
  if (strncmp(arg, "--", 2) || strchr(arg, '=')) return 0;
  for (size_t i = 0; i < NOPTS; i++)
    if (!strcmp(arg + 2, opt_defs[i].name)) return opt_defs[i].has_arg == 1;
  return 0;
}

int umb_cli_parse(int argc, char **argv, umb_cli_args *a) {
  struct option lo[NOPTS + 2];
  for (size_t i = 0; i < NOPTS; i++) lo[i] = (struct option){opt_defs[i].name, opt_defs[i].has_arg, 0, 256 + (int)i};
  lo[NOPTS] = (struct option){"help", 0, 0, 'h'};
  lo[NOPTS + 1] = (struct option){0, 0, 0, 0};
  optind = 2;
  for (int c; (c = getopt_long(argc, argv, "j:h", lo, NULL)) != -1;) {
    if (c == 'h') {
      umb_usage(stdout);
      return 1;
    }
    if (c == 'j') a->jobs = optarg;
    if (c == 'j') continue;
    if (c < 256 || c >= 256 + (int)NOPTS) {
      umb_usage(stderr);
      return -1;
    }
    const opt_def *d = &opt_defs[c - 256];
    if (d->take) {
      if (d->take(a, optarg)) return -1;
    } else if (d->has_arg) {
      *(const char **)((char *)a + d->field) = optarg;
    } else {
      *(int *)((char *)a + d->field) = 1;
    }
  }
  a->args = argv + optind;
  a->nargs = argc - optind;
  return 0;
}

void umb_cli_free(umb_cli_args *a) {
  for (int i = 0; i < a->nfiles; i++) free(a->files[i]);
  free(a->files);
  for (int i = 0; i < a->nparams; i++) free(a->params[i]);
  free(a->params);
  free(a->bdir);
}

/* ---- Checking it: the run configuration. ---- */

/* A number of seconds, MiB or the like from an option: 0, or -1 after a message. */
static int option_number(const char *opt, const char *s, double max, const char *want, double *v) {
  char *end;
  errno = 0;
  *v = strtod(s, &end);
  if (end == s || *end || errno || !(*v >= 0) || *v > max || *s == '-') {
    fprintf(stderr, "umlbed: %s wants %s (got '%s')\n", opt, want, s);
    return -1;
  }
  return 0;
}

/* -j N, -j auto or -j auto:N into jobs; auto's default cap is the CPUs this process may run on. */
static int parse_jobs(const char *s, umb_jobs *jobs) {
  int automatic = strncmp(s, "auto", 4) == 0, cap = 0;
  const char *num = automatic ? (s[4] == ':' ? s + 5 : s + 4) : s;
  if (*num) {
    char *end;
    long v = strtol(num, &end, 10);
    if (*end || v < 1 || v > UMB_JOBS_MAX || (automatic && s[4] != ':')) return -EINVAL;
    cap = (int)v;
  } else if (!automatic || s[4]) {
    return -EINVAL;
  } else {
    cpu_set_t set;
    cap = sched_getaffinity(0, sizeof set, &set) == 0 ? CPU_COUNT(&set) : 1;
  }
  umb_jobs_init(jobs, automatic, cap);
  jobs->verbose = getenv("UMLBED_JOBS_VERBOSE") != NULL;
  return 0;
}

int umb_cli_limits(umb_cli_args *a, umb_config *cfg, umb_host_config *hcfg, umb_shard *shard, umb_jobs *jobs) {
  double v;
  cfg->timeout_s = 60;
  if (a->timeout) {
    /* Only a finite number of seconds, 0 for none: anything else must not turn the guard off unseen. */
    if (option_number("--timeout", a->timeout, 1e9, "seconds, 0 for none", &cfg->timeout_s)) return -1;
    cfg->timeout_given = 1;
  }
  hcfg->lua_memory = (size_t)UMB_LUA_MEMORY_DEFAULT_MIB << 20;
  if (a->lua_memory) {
    /* A whole number of MiB that fits: a typo must not lift the cap unseen. */
    if (option_number("--lua-memory", a->lua_memory, (double)(SIZE_MAX >> 21), "a whole number of MiB, 0 for no cap",
                      &v))
      return -1;
    if (v != (double)(size_t)v || strpbrk(a->lua_memory, ".eExX")) {
      fprintf(stderr, "umlbed: --lua-memory wants a whole number of MiB, 0 for no cap (got '%s')\n", a->lua_memory);
      return -1;
    }
    hcfg->lua_memory = (size_t)v << 20;
  }
  cfg->mem = a->mem ? a->mem : "64M";
  if (umb_mem_check(cfg->mem)) {
    fprintf(stderr, "umlbed: --mem wants a size from 32M to 64G, such as 64M or 1G (got '%s')\n", cfg->mem);
    return -1;
  }
  char why[512];
  if (umb_cmdline_check(cfg->cmdline, why, sizeof why)) {
    fprintf(stderr, "umlbed: --cmdline: %s\n", why);
    return -1;
  }
  if (a->shard) {
    if (umb_shard_parse(a->shard, &shard->k, &shard->n)) {
      fprintf(stderr, "umlbed: --shard wants K/N with 1 <= K <= N <= %d (got '%s')\n", UMB_SHARDS_MAX, a->shard);
      return -1;
    }
    snprintf(shard->source, sizeof shard->source, "--shard");
  }
  /* A slower host or a heavier kernel gets longer hang guards, never different verdicts. */
  const char *scale = getenv("UMLBED_TIMEOUT_SCALE");
  cfg->timeout_scale = 1;
  if (scale && *scale &&
      option_number("UMLBED_TIMEOUT_SCALE", scale, 1000, "a number in (0, 1000]", &cfg->timeout_scale))
    return -1;
  if (!(cfg->timeout_scale > 0)) {
    fprintf(stderr, "umlbed: UMLBED_TIMEOUT_SCALE wants a number in (0, 1000] (got '%s')\n", scale);
    return -1;
  }
  if (!cfg->timeout_given) cfg->timeout_s *= cfg->timeout_scale;
  const char *jobs_arg = a->jobs ? a->jobs : getenv("UMLBED_JOBS");
  if (parse_jobs(jobs_arg ? jobs_arg : "auto", jobs)) {
    fprintf(stderr, "umlbed: -j wants 1..256, auto or auto:1..256 (got '%s')\n", jobs_arg);
    return -1;
  }
  return 0;
}

/* ---- umlbed fuzz, and the files. ---- */

static int parse_count(const char *what, const char *s, unsigned long long min, unsigned long long *v) {
  char *end;
  errno = 0;
  *v = s ? strtoull(s, &end, 10) : 0;
  if (s && (errno || end == s || *end || *s == '-' || *v < min || *v > (1ull << 53))) {
    fprintf(stderr, "umlbed: %s wants a whole number >= %llu (got '%s')\n", what, min, s);
    return -1;
  }
  return 0;
}

/* umlbed fuzz: one seed=... parameter per run and steps=N, the timeout off unless given. */
static int fuzz_params(umb_cli_args *a, umb_config *cfg, char *note, size_t size) {
  unsigned long long seed, steps, runs;
  if (parse_count("--seed", a->seed, 0, &seed) || parse_count("--steps", a->steps, 1, &steps) ||
      parse_count("--runs", a->runs, 1, &runs))
    return -1;
  if (a->runs == NULL) runs = 1;
  if (runs > 10000) {
    fprintf(stderr, "umlbed: --runs wants at most 10000\n");
    return -1;
  }
  if (a->seed == NULL) seed = (unsigned long long)time(NULL) % 1000000000ull;
  for (unsigned long long i = 0; i < runs; i++)
    if (add_param(&a->params, &a->nparams, "seed=%llu", seed + i)) return -1;
  if (a->steps && add_param(&a->params, &a->nparams, "steps=%llu", steps)) return -1;
  if (!cfg->timeout_given) cfg->timeout_s = 0;
  char st[64] = "";
  if (a->steps) snprintf(st, sizeof st, " --steps %llu", steps);
  if (runs > 1)
    snprintf(note, size, "umlbed fuzz: seeds %llu..%llu; replay one with: umlbed fuzz --seed SEED%s", seed,
             seed + runs - 1, st);
  else
    snprintf(note, size, "umlbed fuzz: seed %llu; replay with: umlbed fuzz --seed %llu%s", seed, seed, st);
  return 0;
}

int umb_cli_files(umb_cli_args *a, umb_config *cfg, umb_host_config *hcfg, char *note, size_t size) {
  if (!a->fuzz && (a->seed || a->steps || a->runs)) {
    fprintf(stderr, "umlbed: --seed, --steps and --runs are options of umlbed fuzz\n");
    return -1;
  }
  if (a->fuzz && fuzz_params(a, cfg, note, size)) return -1;
  hcfg->params = (const char *const *)a->params;
  static char *defargs[1];
  if (a->nargs == 0) {
    defargs[0] = a->fuzz ? "scenarios/model-fuzz.lua" : "scenarios";
    a->args = defargs;
    a->nargs = 1;
  } else if (note[0]) {
    /* The replay command names the files too when they are not the default. */
    for (int i = 0; i < a->nargs; i++) {
      size_t len = strlen(note);
      snprintf(note + len, size - len, " %s", a->args[i]);
    }
  }
  return umb_plan_collect(a->args, a->nargs, &a->files, &a->nfiles);
}

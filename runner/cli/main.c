/* main.c: the umlbed command line: find scenarios, run them N at a time on one loop, report TAP/JUnit/JSON. */
#include <dirent.h>
#include <errno.h>
#include <fnmatch.h>
#include <getopt.h>
#include <libgen.h>
#include <limits.h>
#include <fcntl.h>
#include <sched.h>
#include <spawn.h>
#include <sys/wait.h>
#include <signal.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/prctl.h>
#include <sys/stat.h>
#include <time.h>
#include <unistd.h>

#include "jobs.h"
#include "lpj.h"
#include "reaper.h"
#include "report.h"
#include "bench.h"
#include "merge.h"
#include "output.h"
#include "pack.h"
#include "describe.h"
#include "runchild.h"
#include "runproc.h"
#include "shard.h"
#include "scenario.h"

static struct {
  uv_loop_t *loop;
  umb_config cfg;
  char generation[32]; /* The kernel's major.minor. */
  job *jobs;
  int njobs;
  int next;
  int running;
  int finished;
  umb_jobs jobs_ctl; /* How many scenarios run at once (-j). */
  umb_shard shard;   /* --shard K/N or a CI engine's variables; n == 0: the whole list. */
  char **all;        /* With a shard: umb_shard_key() of every run of the full list. */
  int nall;
  int interrupted;
  int tty;
  const char *junit;
  const char *json;
  uv_signal_t sigint, sigterm, sighup;
  char gdbdir[PATH_MAX];
  char fuzz_note[1024]; /* umlbed fuzz: the seeds, printed after the plan so a failure can be replayed. */
} g;

static const char *usage =
    "usage: umlbed run [options] [FILE|DIR]...\n"
    "       umlbed list [--filter GLOB] [--param KEY=VALUE]... [FILE|DIR]...\n"
    "       umlbed run --gdb [--break SYMBOL]... FILE\n"
    "       umlbed fuzz [--seed S] [--steps N] [--runs K] [options] [FILE]\n"
    "       umlbed bench [--out DIR] [options] [FILE|DIR]...   (umlbed bench --help)\n"
    "       umlbed merge [--json FILE] [--junit FILE] SHARD.json...\n"
    "\n"
    "Runs Lua scenarios, each in its own User-Mode Linux instance, and prints TAP.\n"
    "Without FILE or DIR, runs ./scenarios.\n"
    "\n"
    "options:\n"
    "  --kernel PATH     UML kernel binary (default: $UMLBED_KERNEL, else\n"
    "                    BUILD/kernel/full/obj/linux, BUILD being the folder above\n"
    "                    the one holding this umlbed binary)\n"
    "  --variant NAME    use BUILD/kernel/NAME/obj/linux (full, gpl-only, broken-...)\n"
    "  --generation GEN  the kernel generation: 6.1 (default) or 6.12; with 6.12 the\n"
    "                    variant NAME is built as NAME-6.12 (full-6.12, ...)\n"
    "  --agent PATH      guest agent (default: $UMLBED_AGENT, else BUILD/guest/umlbed-agent)\n"
    "  -j, --jobs N|auto run N scenarios at once; auto (the default) starts with one\n"
    "                    and adds more only while measured throughput rises by 10%,\n"
    "                    up to the CPUs umlbed may run on (auto:N: up to N)\n"
    "  --filter GLOB     only scenarios whose name or file matches GLOB\n"
    "  --timeout S       per-scenario timeout in seconds (default 60; 0 = none)\n"
    "  --mem SIZE        guest memory (default 64M)\n"
    "  --cmdline STR     extra kernel command line for every instance\n"
    "  --time-travel     boot with time-travel=inf-cpu (deterministic time)\n"
    "  --junit FILE      write a JUnit XML report\n"
    "  --json FILE       write a JSON report\n"
    "  --keep            keep every run folder (failed runs are always kept)\n"
    "  --ignore-warning TEXT  console warnings (WARNING:, lockdep) on lines containing\n"
    "                    TEXT are not findings; repeatable\n"
    "  --param KEY=VALUE set the scenario parameter p.KEY to VALUE (a number if it\n"
    "                    reads as one): replaces KEY's list in the matrix, or adds KEY;\n"
    "                    repeat KEY for several values (one run each)\n"
    "  --shard K/N       run shard K of N: the full list (the same on every machine) is\n"
    "                    dealt longest run first to the least loaded shard; without\n"
    "                    it, GitLab's CI_NODE_INDEX/CI_NODE_TOTAL, Kubernetes'\n"
    "                    JOB_COMPLETION_INDEX with UMLBED_SHARD_TOTAL, or Slurm's\n"
    "                    SLURM_ARRAY_TASK_ID/_COUNT choose it (umlbed merge joins them)\n"
    "  --durations FILE  deal shards by the runs' seconds in FILE (a --json report)\n"
    "                    instead of by count\n"
    "  --pack FILE|DIR   run from a pack (make pack): its runner, kernels, agent and\n"
    "                    scenarios; this machine needs only libuv1, liblua5.4-0 and\n"
    "                    libjansson4\n"
    "  --coverage[=DIR]  for a gcov kernel (variant coverage): each run's instances\n"
    "                    power off at the end and write their gcov data to a folder of\n"
    "                    their own under DIR (default ./umlbed-coverage); runs add up,\n"
    "                    so remove DIR to start afresh (make coverage reports on it)\n"
    "  --unsafe-lua      give scenarios all of Lua's libraries (os.exit, os.execute,\n"
    "                    io.popen, debug, binary chunks): off by default, see SECURITY\n"
    "  --lua-memory MIB  the memory one scenario's Lua state may hold (default 512; 0: no\n"
    "                    cap): past it the run is an ERROR naming the cap\n"
    "  --gdb             run the kernel under gdb (one FILE; batch mode unless stdin is a terminal)\n"
    "  --break SYMBOL    with --gdb: break at SYMBOL (in batch mode: print a backtrace and go on)\n"
    "  --batch           with --gdb: batch mode even on a terminal\n"
    "  -h, --help        this text\n"
    "\n"
    "umlbed fuzz runs FILE (default scenarios/model-fuzz.lua) once per seed, as\n"
    "  umlbed run --timeout 0 --param seed=S ... --param seed=S+K-1 --param steps=N FILE\n"
    "  --seed S          first seed (default: from the clock; printed as a TAP comment)\n"
    "  --steps N         steps per run (default: the scenario's)\n"
    "  --runs K          seeds S, S+1, ..., S+K-1 (default 1)\n"
    "  --timeout, -j and the other run options apply (the timeout is off unless given)\n"
    "\n"
    "environment: UMLBED_KERNEL, UMLBED_AGENT (see above); UMLBED_JOBS (-j's default);\n"
    "UMLBED_TIMEOUT_SCALE (multiplies the default and each scenario's own timeout, not --timeout);\n"
    "UMLBED_JOBS_VERBOSE (-j auto prints its decisions); UMLBED_JOBS_CACHE (where -j auto\n"
    "keeps what it measured, default BUILD/jobs-auto.cache; empty: nowhere); UMLBED_LPJ_CACHE\n"
    "(the kernel's delay-loop calibration on this host, passed to later boots as lpj=;\n"
    "default BUILD/lpj.cache; empty: this run only)\n"
    "\n"
    "exit status: 0 all scenarios ok or skipped, 1 some failed, 2 usage or setup error,\n"
    "128 + the signal when stopped by one (130 SIGINT, 143 SIGTERM, 129 SIGHUP).\n";

static char *build_dir(void) {
  char exe[PATH_MAX];
  ssize_t n = readlink("/proc/self/exe", exe, sizeof exe - 1);
  if (n <= 0) return strdup(".");
  exe[n] = '\0';
  /* BUILD/runner/umlbed (or BUILD/runner-san/umlbed): BUILD is two levels up. */
  return strdup(dirname(dirname(exe)));
}

static int add_file(char ***files, int *n, const char *path) {
  char **f = realloc(*files, sizeof(char *) * (size_t)(*n + 1));
  if (f == NULL) return -ENOMEM;
  *files = f;
  f[(*n)++] = strdup(path);
  return 0;
}

static int cmp_str(const void *a, const void *b) { return strcmp(*(char *const *)a, *(char *const *)b); }

/* Collects FILE arguments and the *.lua files of DIR arguments (sorted, not recursive). */
static int collect(char **args, int nargs, char ***files, int *nfiles) {
  for (int i = 0; i < nargs; i++) {
    struct stat st;
    if (stat(args[i], &st)) {
      fprintf(stderr, "umlbed: %s: %s\n", args[i], strerror(errno));
      return -1;
    }
    if (!S_ISDIR(st.st_mode)) {
      add_file(files, nfiles, args[i]);
      continue;
    }
    DIR *d = opendir(args[i]);
    if (d == NULL) return -1;
    int first = *nfiles;
    for (struct dirent *e; (e = readdir(d));) {
      size_t len = strlen(e->d_name);
      if (len < 5 || strcmp(e->d_name + len - 4, ".lua") || e->d_name[0] == '.') continue;
      char path[PATH_MAX];
      snprintf(path, sizeof path, "%s%s%s", args[i], args[i][strlen(args[i]) - 1] == '/' ? "" : "/", e->d_name);
      add_file(files, nfiles, path);
    }
    closedir(d);
    if (*nfiles > first) qsort(*files + first, (size_t)(*nfiles - first), sizeof(char *), cmp_str);
  }
  return 0;
}

/* Expands files into jobs, one per matrix combination, applying the filter. */
static int plan(char **files, int nfiles, const char *filter) {
  int bad = 0;
  for (int i = 0; i < nfiles; i++) {
    char *name, *err, **combos;
    int n;
    int rc = umb_describe_isolated(files[i], &g.cfg, &name, &combos, &n, &err);
    if (rc == -EINTR) return -EINTR;
    if (rc) {
      fprintf(stderr, "umlbed: %s\n", err ? err : files[i]);
      bad = 1;
      if (filter && fnmatch(filter, files[i], 0)) {
        free(err);
        continue;
      }
      g.jobs = realloc(g.jobs, sizeof(job) * (size_t)(g.njobs + 1));
      job *j = &g.jobs[g.njobs++];
      memset(j, 0, sizeof *j);
      j->file = strdup(files[i]);
      j->name = strdup(files[i]);
      j->broken = err ? err : strdup("cannot load the scenario");
      continue;
    }
    for (int c = 0; c < n; c++) {
      if (filter && fnmatch(filter, combos[c], 0) && fnmatch(filter, files[i], 0) && fnmatch(filter, name, 0)) {
        free(combos[c]);
        continue;
      }
      g.jobs = realloc(g.jobs, sizeof(job) * (size_t)(g.njobs + 1));
      job *j = &g.jobs[g.njobs++];
      memset(j, 0, sizeof *j);
      j->file = strdup(files[i]);
      j->name = combos[c];
      j->combo = c;
    }
    free(combos);
    free(name);
  }
  return bad ? -1 : 0;
}

/* Keeps only this shard's runs of the planned list, and the keys of the full list for the report. */
static int shard_select(const char *durations) {
  char *mine = calloc((size_t)g.njobs + 1, 1), err[512] = "";
  g.all = calloc((size_t)g.njobs + 1, sizeof *g.all);
  if (mine == NULL || g.all == NULL) {
    free(mine);
    return -ENOMEM;
  }
  int rc = umb_shard_deal(g.jobs, g.njobs, &g.shard, durations, mine, err, sizeof err);
  if (rc) {
    fprintf(stderr, "umlbed: %s\n", err[0] ? err : strerror(-rc));
    free(mine);
    return rc;
  }
  int kept = 0;
  for (int i = 0; i < g.njobs; i++) {
    g.all[g.nall++] = umb_shard_key(g.jobs[i].file, g.jobs[i].name);
    if (mine[i]) {
      g.jobs[kept++] = g.jobs[i];
    } else {
      free(g.jobs[i].file);
      free(g.jobs[i].name);
      free(g.jobs[i].broken);
    }
  }
  g.njobs = kept;
  free(mine);
  return 0;
}

/* Appends a formatted --param to the NULL-terminated list. */
static void add_param(char ***params, int *n, const char *fmt, ...) __attribute__((format(printf, 3, 4)));
static void add_param(char ***params, int *n, const char *fmt, ...) {
  char buf[4096];
  va_list ap;
  va_start(ap, fmt);
  vsnprintf(buf, sizeof buf, fmt, ap);
  va_end(ap);
  char **p = realloc(*params, sizeof(char *) * (size_t)(*n + 2));
  if (p == NULL || (p[*n] = strdup(buf)) == NULL) abort();
  p[++*n] = NULL;
  *params = p;
}

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
static int fuzz_params(const char *seed_arg, const char *steps_arg, const char *runs_arg, char ***params,
                       int *nparams) {
  unsigned long long seed, steps, runs;
  if (parse_count("--seed", seed_arg, 0, &seed) || parse_count("--steps", steps_arg, 1, &steps) ||
      parse_count("--runs", runs_arg, 1, &runs))
    return -1;
  if (runs_arg == NULL) runs = 1;
  if (runs > 10000) {
    fprintf(stderr, "umlbed: --runs wants at most 10000\n");
    return -1;
  }
  if (seed_arg == NULL) seed = (unsigned long long)time(NULL) % 1000000000ull;
  for (unsigned long long i = 0; i < runs; i++) add_param(params, nparams, "seed=%llu", seed + i);
  if (steps_arg) add_param(params, nparams, "steps=%llu", steps);
  if (!g.cfg.timeout_given) g.cfg.timeout_s = 0;
  char st[64] = "";
  if (steps_arg) snprintf(st, sizeof st, " --steps %llu", steps);
  if (runs > 1)
    snprintf(g.fuzz_note, sizeof g.fuzz_note,
             "umlbed fuzz: seeds %llu..%llu; replay one with: umlbed fuzz --seed SEED%s", seed, seed + runs - 1, st);
  else
    snprintf(g.fuzz_note, sizeof g.fuzz_note, "umlbed fuzz: seed %llu; replay with: umlbed fuzz --seed %llu%s", seed,
             seed, st);
  return 0;
}

static void start_next(void);
static void report(job *j);

/* A UML kernel answers --version with its release alone ("6.1.192") and exits 0, in a few milliseconds; anything
 * else is no kernel to boot, and saying so once beats a CRASHED verdict per run. */
static int kernel_release(const char *kernel, char *out, size_t size) {
  int p[2];
  if (pipe2(p, O_CLOEXEC)) return -errno;
  posix_spawn_file_actions_t fa;
  posix_spawn_file_actions_init(&fa);
  posix_spawn_file_actions_addopen(&fa, 0, "/dev/null", O_RDONLY, 0);
  posix_spawn_file_actions_adddup2(&fa, p[1], 1);
  posix_spawn_file_actions_addopen(&fa, 2, "/dev/null", O_WRONLY, 0);
  char *argv[] = {(char *)kernel, "--version", NULL};
  extern char **environ;
  pid_t pid;
  int rc = posix_spawn(&pid, kernel, &fa, NULL, argv, environ);
  posix_spawn_file_actions_destroy(&fa);
  close(p[1]);
  if (rc) {
    close(p[0]);
    return -rc;
  }
  size_t n = 0;
  ssize_t r;
  while (n < size - 1 && ((r = read(p[0], out + n, size - 1 - n)) > 0 || (r < 0 && errno == EINTR)))
    if (r > 0) n += (size_t)r;
  close(p[0]);
  int st;
  while (waitpid(pid, &st, 0) < 0 && errno == EINTR) {
  }
  out[n] = '\0';
  size_t digits = strspn(out, "0123456789");
  if (!WIFEXITED(st) || WEXITSTATUS(st) || digits == 0 || out[digits] != '.' || n == 0 || out[n - 1] != '\n' ||
      strchr(out, '\n') != out + n - 1 || strchr(out, ' '))
    return -EINVAL;
  out[n - 1] = '\0';
  return 0;
}

/* Where -j auto keeps what it learnt about this host between runs: $UMLBED_JOBS_CACHE ("" turns it off), else
 * BUILD/jobs-auto.cache. */
static char jobs_cache[PATH_MAX];

static void jobs_cache_path(const char *bdir) {
  const char *env = getenv("UMLBED_JOBS_CACHE");
  snprintf(jobs_cache, sizeof jobs_cache, "%s%s", env ? env : bdir, env ? "" : "/jobs-auto.cache");
}

/* Where the kernel's delay-loop calibration on this host is kept: $UMLBED_LPJ_CACHE ("" keeps it for this run
 * only), else BUILD/lpj.cache (core/lpj.h). */
static char lpj_cache[PATH_MAX];
static umb_lpj lpj;

static void jobs_cache_load(void) {
  char line[8192];
  FILE *f = jobs_cache[0] && g.jobs_ctl.automatic ? fopen(jobs_cache, "re") : NULL;
  if (f == NULL) return;
  if (fgets(line, sizeof line, f) && umb_jobs_load(&g.jobs_ctl, line) == 0 && g.jobs_ctl.verbose)
    fprintf(stderr, "umlbed: -j auto: starts at %d from %s\n", umb_jobs_level(&g.jobs_ctl), jobs_cache);
  fclose(f);
}

/* Written whole to a temporary name and renamed, so a concurrent runner reads the old state or the new. */
static void jobs_cache_save(void) {
  const umb_jobs *j = &g.jobs_ctl;
  char line[8192], tmp[PATH_MAX + 32];
  if (!jobs_cache[0] || !j->automatic || !(umb_jobs_median(j, 1) > 0) || !(umb_jobs_median(j, j->base) > 0)) return;
  if (umb_jobs_save(j, line, sizeof line) < 0) return;
  snprintf(tmp, sizeof tmp, "%s.%d", jobs_cache, (int)getpid());
  FILE *f = fopen(tmp, "we");
  if (f == NULL) return;
  int bad = fputs(line, f) < 0;
  bad |= fclose(f) != 0;
  if (bad || rename(tmp, jobs_cache)) unlink(tmp);
}

/* -j N, -j auto or -j auto:N into g.jobs_ctl; auto's default cap is the CPUs this process may run on. */
static int parse_jobs(const char *s) {
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
  umb_jobs_init(&g.jobs_ctl, automatic, cap);
  g.jobs_ctl.verbose = getenv("UMLBED_JOBS_VERBOSE") != NULL;
  return 0;
}

static void on_run_done(umb_runproc *p, void *data) {
  job *j = data;
  j->done = 1;
  j->proc = NULL;
  umb_runproc_free(p);
  /* Only a run that had the same company from start to end tells what that level costs, and only a lone boot:
   * the vms of a two-node scenario boot side by side and would count their own contention. */
  if (j->cmin == j->cmax && j->verdict == UMB_OK && j->nboot == 1) umb_jobs_sample(&g.jobs_ctl, j->cmin, j->boot_ms[0]);
  umb_jobs_run_done(&g.jobs_ctl);
  g.running--;
  report(j);
  start_next();
}

/* Prints one job's TAP line and diagnostics (output.c), and terminal progress. */
static void report(job *j) {
  g.finished++;
  umb_out_tap(stdout, j, g.finished);
  if (g.tty)
    fprintf(stderr, "umlbed: [%d/%d] %-7s %s (%.2f s)%s%s\n", g.finished, g.njobs, umb_verdict_name(j->verdict),
            j->name, j->seconds, j->dir ? " kept in " : "", j->dir ? j->dir : "");
}

/* Every running job has now seen g.running scenarios at once. */
static void note_concurrency(void) {
  for (int i = 0; i < g.njobs; i++) {
    job *j = &g.jobs[i];
    if (j->proc == NULL) continue;
    if (j->cmin == 0 || g.running < j->cmin) j->cmin = g.running;
    if (g.running > j->cmax) j->cmax = g.running;
  }
}

static void start_next(void) {
  while (!g.interrupted && g.running < umb_jobs_level(&g.jobs_ctl) && g.next < g.njobs) {
    job *j = &g.jobs[g.next++];
    if (j->broken) {
      j->verdict = UMB_ERROR;
      j->diag = strdup(j->broken);
      j->done = 1;
      report(j);
      continue;
    }
    j->proc = umb_runproc_start(g.loop, &g.cfg, j, on_run_done, j);
    if (j->proc == NULL) abort();
    g.running++;
    umb_jobs_started(&g.jobs_ctl);
  }
  /* Counted once the replacements have started: the instant between a run's end and the next start is no dip. */
  note_concurrency();
  if (g.running == 0 && (g.next == g.njobs || g.interrupted)) {
    uv_close((uv_handle_t *)&g.sigint, NULL);
    uv_close((uv_handle_t *)&g.sigterm, NULL);
    uv_close((uv_handle_t *)&g.sighup, NULL);
  }
}

static void on_signal(uv_signal_t *s, int signum) {
  (void)s;
  if (g.interrupted) return;
  g.interrupted = signum;
  fprintf(stderr, "umlbed: %s: stopping %d running scenario(s)\n", strsignal(signum), g.running);
  /* Each run's process stops its scenario and cleans up; one that cannot is killed (runproc.h). */
  for (int i = 0; i < g.njobs; i++)
    if (g.jobs[i].proc) umb_runproc_signal(g.jobs[i].proc, signum);
  /* With nothing running, nothing else would close the signal handles. */
  if (g.running == 0) start_next();
}

/* Writes the gdb script for --gdb into a private folder (removed at exit). */
static const char *write_gdb_script(char **breaks, int nbreaks, int interactive) {
  snprintf(g.gdbdir, sizeof g.gdbdir, "%s/umlbed-gdb-XXXXXX", g.cfg.tmpbase);
  if (mkdtemp(g.gdbdir) == NULL) return NULL;
  umb_reaper_add_dir(g.gdbdir);
  static char path[PATH_MAX + 16];
  snprintf(path, sizeof path, "%s/script.gdb", g.gdbdir);
  FILE *f = fopen(path, "w");
  if (f == NULL) return NULL;
  /* UML uses these signals for its own work (page faults, timers, IO, IPIs). */
  fprintf(f,
          "set pagination off\nset confirm off\nset breakpoint pending on\n"
          "handle SIGSEGV nostop noprint pass\nhandle SIGUSR1 nostop noprint pass\n"
          "handle SIGIO nostop noprint pass\nhandle SIGALRM nostop noprint pass\n"
          "handle SIGVTALRM nostop noprint pass\nhandle SIGWINCH nostop noprint pass\n"
          "handle SIGCHLD nostop noprint pass\nhandle SIGTERM nostop noprint pass\n"
          "handle SIGUSR2 nostop noprint pass\nhandle SIGPIPE nostop noprint pass\n"
          /* UML forks helpers it ptraces itself; gdb stays with the kernel process. */
          "set follow-fork-mode parent\nset detach-on-fork on\n");
  for (int i = 0; i < nbreaks; i++) {
    fprintf(f, "break %s\n", breaks[i]);
    if (!interactive) fprintf(f, "commands\nbt 12\ncontinue\nend\n");
  }
  fprintf(f, "run\n");
  fclose(f);
  return path;
}

static void remove_gdb_dir(void) {
  if (!g.gdbdir[0]) return;
  char path[PATH_MAX + 16];
  snprintf(path, sizeof path, "%s/script.gdb", g.gdbdir);
  unlink(path);
  rmdir(g.gdbdir);
  umb_reaper_del_dir(g.gdbdir);
}

int main(int argc, char **argv) {
  enum {
    O_KERNEL = 256,
    O_VARIANT,
    O_GENERATION,
    O_AGENT,
    O_FILTER,
    O_TIMEOUT,
    O_MEM,
    O_CMDLINE,
    O_TT,
    O_JUNIT,
    O_JSON,
    O_KEEP,
    O_GDB,
    O_BREAK,
    O_BATCH,
    O_IGNORE,
    O_PARAM,
    O_SEED,
    O_STEPS,
    O_RUNS,
    O_UNSAFE,
    O_LUA_MEMORY,
    O_COVERAGE,
    O_SHARD,
    O_DURATIONS
  };
  static const struct option opts[] = {{"kernel", 1, 0, O_KERNEL},
                                       {"variant", 1, 0, O_VARIANT},
                                       {"generation", 1, 0, O_GENERATION},
                                       {"agent", 1, 0, O_AGENT},
                                       {"jobs", 1, 0, 'j'},
                                       {"filter", 1, 0, O_FILTER},
                                       {"timeout", 1, 0, O_TIMEOUT},
                                       {"mem", 1, 0, O_MEM},
                                       {"cmdline", 1, 0, O_CMDLINE},
                                       {"time-travel", 0, 0, O_TT},
                                       {"junit", 1, 0, O_JUNIT},
                                       {"json", 1, 0, O_JSON},
                                       {"keep", 0, 0, O_KEEP},
                                       {"gdb", 0, 0, O_GDB},
                                       {"break", 1, 0, O_BREAK},
                                       {"batch", 0, 0, O_BATCH},
                                       {"ignore-warning", 1, 0, O_IGNORE},
                                       {"param", 1, 0, O_PARAM},
                                       {"seed", 1, 0, O_SEED},
                                       {"steps", 1, 0, O_STEPS},
                                       {"runs", 1, 0, O_RUNS},
                                       {"help", 0, 0, 'h'},
                                       {"unsafe-lua", 0, 0, O_UNSAFE},
                                       {"lua-memory", 1, 0, O_LUA_MEMORY},
                                       {"coverage", 2, 0, O_COVERAGE},
                                       {"shard", 1, 0, O_SHARD},
                                       {"durations", 1, 0, O_DURATIONS},
                                       {0, 0, 0, 0}};
  if (argc < 2 || !strcmp(argv[1], "--help") || !strcmp(argv[1], "-h")) {
    fputs(usage, argc < 2 ? stderr : stdout);
    return argc < 2 ? 2 : 0;
  }
  const char *cmd = argv[1];
  if (!strcmp(cmd, "__run")) return umb_runchild_main(argc, argv);
  if (!strcmp(cmd, "bench")) return umb_bench_main(argc, argv);
  if (!strcmp(cmd, "merge")) return umb_merge_main(argc, argv);
  for (int i = 2; i < argc; i++)
    if (!strcmp(argv[i], "--pack") || !strncmp(argv[i], "--pack=", 7)) return umb_pack_main(argc, argv);
  int fuzz = !strcmp(cmd, "fuzz");
  if (strcmp(cmd, "run") && strcmp(cmd, "list") && !fuzz) {
    fprintf(stderr, "umlbed: unknown command '%s'\n%s", cmd, usage);
    return 2;
  }
  char *bdir = build_dir();
  char **files = NULL;
  int nfiles = 0, status = 2;
  const char *kernel = getenv("UMLBED_KERNEL"), *variant = NULL, *agent = getenv("UMLBED_AGENT"), *generation = NULL;
  const char *filter = NULL, *coverage = NULL, *durations = NULL;
  char covreal[PATH_MAX];
  char *breaks[64];
  int nbreaks = 0, gdb = 0, batch = 0, nignore = 0;
  const char *ignore[64] = {NULL};
  /* --param values, then the ones umlbed fuzz adds; NULL-terminated. */
  char **params = calloc(1, sizeof(char *));
  int nparams = 0;
  const char *seed_arg = NULL, *steps_arg = NULL, *runs_arg = NULL;
  const char *jobs_arg = getenv("UMLBED_JOBS");
  g.cfg.timeout_s = 60;
  g.cfg.runner_pid = (int)getpid();
  g.cfg.lua_memory = (size_t)UMB_LUA_MEMORY_DEFAULT_MIB << 20;
  g.cfg.mem = "64M";
  optind = 2;
  for (int c; (c = getopt_long(argc, argv, "j:h", opts, NULL)) != -1;) {
    switch (c) {
      case O_KERNEL:
        kernel = optarg;
        break;
      case O_VARIANT:
        variant = optarg;
        break;
      case O_GENERATION:
        generation = optarg;
        break;
      case O_AGENT:
        agent = optarg;
        break;
      case 'j':
        jobs_arg = optarg;
        break;
      case O_FILTER:
        filter = optarg;
        break;
      case O_TIMEOUT: {
        char *end;
        g.cfg.timeout_s = strtod(optarg, &end);
        /* Only a finite number of seconds, 0 for none: anything else must not turn the guard off unseen. */
        if (end == optarg || *end || !(g.cfg.timeout_s >= 0) || g.cfg.timeout_s > 1e9) {
          fprintf(stderr, "umlbed: --timeout wants seconds, 0 for none (got '%s')\n", optarg);
          status = 2;
          goto out;
        }
        g.cfg.timeout_given = 1;
        break;
      }
      case O_UNSAFE:
        g.cfg.unsafe_lua = 1;
        break;
      case O_LUA_MEMORY: {
        char *end;
        errno = 0;
        unsigned long long mib = strtoull(optarg, &end, 10);
        /* A whole number of MiB that fits: a typo must not lift the cap unseen. */
        if (end == optarg || *end || errno || optarg[0] == '-' || mib > (SIZE_MAX >> 21)) {
          fprintf(stderr, "umlbed: --lua-memory wants a whole number of MiB, 0 for no cap (got '%s')\n", optarg);
          status = 2;
          goto out;
        }
        g.cfg.lua_memory = (size_t)mib << 20;
        break;
      }
      case O_SHARD:
        if (umb_shard_parse(optarg, &g.shard.k, &g.shard.n)) {
          fprintf(stderr, "umlbed: --shard wants K/N with 1 <= K <= N <= %d (got '%s')\n", UMB_SHARDS_MAX, optarg);
          status = 2;
          goto out;
        }
        snprintf(g.shard.source, sizeof g.shard.source, "--shard");
        break;
      case O_DURATIONS:
        durations = optarg;
        break;
      case O_COVERAGE:
        coverage = optarg ? optarg : "umlbed-coverage";
        if (!*coverage || strchr(coverage, '\n')) {
          fprintf(stderr, "umlbed: --coverage wants a folder (got '%s')\n", coverage);
          status = 2;
          goto out;
        }
        break;
      case O_MEM:
        if (umb_mem_check(optarg)) {
          fprintf(stderr, "umlbed: --mem wants a size from 32M to 64G, such as 64M or 1G (got '%s')\n", optarg);
          status = 2;
          goto out;
        }
        g.cfg.mem = optarg;
        break;
      case O_CMDLINE:
        g.cfg.cmdline = optarg;
        break;
      case O_TT:
        g.cfg.time_travel = 1;
        break;
      case O_JUNIT:
        g.junit = optarg;
        break;
      case O_JSON:
        g.json = optarg;
        break;
      case O_KEEP:
        g.cfg.keep = 1;
        break;
      case O_GDB:
        gdb = 1;
        break;
      case O_BREAK:
        if (nbreaks < 64) breaks[nbreaks++] = optarg;
        break;
      case O_BATCH:
        batch = 1;
        break;
      case O_IGNORE:
        if (nignore < 63) ignore[nignore++] = optarg;
        break;
      case O_PARAM:
        if (umb_param_check(optarg)) {
          fprintf(stderr, "umlbed: --param wants KEY=VALUE with KEY a Lua name (got '%s')\n", optarg);
          status = 2;
          goto out;
        }
        add_param(&params, &nparams, "%s", optarg);
        break;
      case O_SEED:
        seed_arg = optarg;
        break;
      case O_STEPS:
        steps_arg = optarg;
        break;
      case O_RUNS:
        runs_arg = optarg;
        break;
      case 'h':
        fputs(usage, stdout);
        status = 0;
        goto out;
      default:
        fputs(usage, stderr);
        status = 2;
        goto out;
    }
  }
  /* A slower host or a heavier kernel gets longer hang guards, never different verdicts. */
  const char *scale = getenv("UMLBED_TIMEOUT_SCALE");
  g.cfg.timeout_scale = 1;
  if (scale && *scale) {
    char *end;
    g.cfg.timeout_scale = strtod(scale, &end);
    if (*end || !(g.cfg.timeout_scale > 0) || g.cfg.timeout_scale > 1000) {
      fprintf(stderr, "umlbed: UMLBED_TIMEOUT_SCALE wants a number in (0, 1000] (got '%s')\n", scale);
      status = 2;
      goto out;
    }
  }
  if (!g.cfg.timeout_given) g.cfg.timeout_s *= g.cfg.timeout_scale;
  if (parse_jobs(jobs_arg ? jobs_arg : "auto")) {
    fprintf(stderr, "umlbed: -j wants 1..256, auto or auto:1..256 (got '%s')\n", jobs_arg);
    status = 2;
    goto out;
  }
  jobs_cache_path(bdir);
  if (variant &&
      (!*variant || *variant == '.' ||
       strspn(variant, "abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ0123456789_.-") != strlen(variant))) {
    fprintf(stderr, "umlbed: --variant wants a name such as full or gpl-only\n");
    status = 2;
    goto out;
  }
  if (!fuzz && (seed_arg || steps_arg || runs_arg)) {
    fprintf(stderr, "umlbed: --seed, --steps and --runs are options of umlbed fuzz\n");
    status = 2;
    goto out;
  }
  if (fuzz && fuzz_params(seed_arg, steps_arg, runs_arg, &params, &nparams)) {
    status = 2;
    goto out;
  }
  g.cfg.params = (const char *const *)params;
  char kpath[PATH_MAX], apath[PATH_MAX], vgen[256];
  if (generation && strcmp(generation, "6.1") && strcmp(generation, "6.12")) {
    fprintf(stderr, "umlbed: --generation wants 6.1 or 6.12\n");
    status = 2;
    goto out;
  }
  if (generation && !variant && getenv("UMLBED_KERNEL") == kernel && kernel) {
    /* $UMLBED_KERNEL names one binary; --generation asks for the build's own. */
    kernel = NULL;
  }
  if (generation && !strcmp(generation, "6.12")) {
    /* The 6.12 twin of a variant is NAME-6.12 (uml-kernel/variants/). */
    const char *base = variant ? variant : "full";
    size_t bl = strlen(base);
    if (bl > 5 && !strcmp(base + bl - 5, "-6.12"))
      snprintf(vgen, sizeof vgen, "%s", base);
    else
      snprintf(vgen, sizeof vgen, "%s-6.12", base);
    variant = vgen;
  }
  if (generation && kernel && !variant) {
    fprintf(stderr, "umlbed: --generation chooses a built variant; it does not go with --kernel\n");
    status = 2;
    goto out;
  }
  if (variant || kernel == NULL) {
    snprintf(kpath, sizeof kpath, "%s/kernel/%s/obj/linux", bdir, variant ? variant : "full");
    kernel = kpath;
  }
  if (agent == NULL) {
    snprintf(apath, sizeof apath, "%s/guest/umlbed-agent", bdir);
    agent = apath;
  }
  char *defargs[] = {fuzz ? "scenarios/model-fuzz.lua" : "scenarios"};
  char **args = argv + optind;
  int nargs = argc - optind;
  if (nargs == 0) {
    args = defargs;
    nargs = 1;
  } else if (g.fuzz_note[0]) {
    /* The replay command names the files too when they are not the default. */
    for (int i = 0; i < nargs; i++) {
      size_t len = strlen(g.fuzz_note);
      snprintf(g.fuzz_note + len, sizeof g.fuzz_note - len, " %s", args[i]);
    }
  }
  if (collect(args, nargs, &files, &nfiles)) {
    status = 2;
    goto out;
  }
  /* A stop signal while the files load ends the runner at once (the loop's handlers come later). */
  struct sigaction stop = {.sa_handler = umb_describe_stop_handler};
  sigemptyset(&stop.sa_mask);
  sigaction(SIGINT, &stop, NULL);
  sigaction(SIGTERM, &stop, NULL);
  sigaction(SIGHUP, &stop, NULL);
  int planned = plan(files, nfiles, filter);
  if (planned == -EINTR || umb_describe_stopped) {
    fprintf(stderr, "umlbed: %s while loading the scenario files\n", strsignal(umb_describe_stopped));
    status = 128 + umb_describe_stopped;
    goto out;
  }
  if (!g.shard.n) {
    char err[256];
    if (umb_shard_from_env(&g.shard, err, sizeof err) < 0) {
      fprintf(stderr, "umlbed: %s\n", err);
      status = 2;
      goto out;
    }
  }
  if (durations && !g.shard.n) {
    fprintf(stderr, "umlbed: --durations balances shards: give --shard K/N (or a CI engine's shard variables)\n");
    status = 2;
    goto out;
  }
  if (g.shard.n && fuzz && !seed_arg) {
    /* Every shard must deal the same list: seeds from each machine's clock would differ. */
    fprintf(stderr, "umlbed: a sharded umlbed fuzz needs --seed S, the same in every shard\n");
    status = 2;
    goto out;
  }
  if (g.shard.n && shard_select(durations)) {
    status = 2;
    goto out;
  }
  if (nfiles == 0) {
    fprintf(stderr, "umlbed: no scenario files (*.lua) in");
    for (int i = 0; i < nargs; i++) fprintf(stderr, " %s", args[i]);
    fprintf(stderr, "\n");
    status = 2;
    goto out;
  }

  if (!strcmp(cmd, "list")) {
    for (int i = 0; i < g.njobs; i++) printf("%s\t%s\n", g.jobs[i].file, g.jobs[i].name);
    status = planned ? 2 : 0;
    goto out;
  }
  /* Files that did not load are ERROR lines of their own; the others still run. */
  if (access(kernel, X_OK)) {
    fprintf(stderr, "umlbed: kernel %s: %s (use --kernel, --variant or $UMLBED_KERNEL)\n", kernel, strerror(errno));
    status = 2;
    goto out;
  }
  char release[128];
  if (kernel_release(kernel, release, sizeof release)) {
    fprintf(stderr, "umlbed: kernel %s: not a UML kernel (its --version did not print a release)\n", kernel);
    status = 2;
    goto out;
  }
  if (access(agent, R_OK)) {
    fprintf(stderr, "umlbed: agent %s: %s (use --agent or $UMLBED_AGENT)\n", agent, strerror(errno));
    status = 2;
    goto out;
  }
  char kreal[PATH_MAX], areal[PATH_MAX];
  g.cfg.kernel = realpath(kernel, kreal) ? kreal : kernel;
  char vbuf[256];
  /* The path as given names the variant even when it is a symbolic link to elsewhere. */
  g.cfg.variant = variant ? variant : umb_kernel_variant(kernel, vbuf, sizeof vbuf);
  if (g.cfg.variant == NULL) g.cfg.variant = umb_kernel_variant(g.cfg.kernel, vbuf, sizeof vbuf);
  g.cfg.agent = realpath(agent, areal) ? areal : agent;
  if (coverage) {
    if (mkdir(coverage, 0755) && errno != EEXIST) {
      fprintf(stderr, "umlbed: --coverage %s: %s\n", coverage, strerror(errno));
      status = 2;
      goto out;
    }
    if (realpath(coverage, covreal) == NULL) {
      fprintf(stderr, "umlbed: --coverage %s: %s\n", coverage, strerror(errno));
      status = 2;
      goto out;
    }
    g.cfg.coverage = covreal;
  }
  /* A gcov kernel names each .gcda file by its build path (the folder the binary was linked in): drop that many
   * components, so the data lands under the run's coverage folder as mm/memory.gcda and so on. */
  for (const char *p = g.cfg.kernel; *p; p++)
    if (*p == '/' && p[1]) g.cfg.gcov_strip++;
  if (g.cfg.gcov_strip) g.cfg.gcov_strip--;
  {
    const char *env = getenv("UMLBED_LPJ_CACHE");
    snprintf(lpj_cache, sizeof lpj_cache, "%s%s", env ? env : bdir, env ? "" : "/lpj.cache");
    if (umb_lpj_load(&lpj, lpj_cache, g.cfg.kernel) == 0) g.cfg.lpj = &lpj;
  }
  g.cfg.release = release;
  /* The generation is what the kernel says it is (6.1.192 -> 6.1), whichever way it was chosen. */
  size_t glen = strcspn(release, ".");
  if (release[glen] == '.') glen += 1 + strspn(release + glen + 1, "0123456789");
  snprintf(g.generation, sizeof g.generation, "%.*s", (int)glen, release);
  g.cfg.generation = g.generation;
  const char *tmp = getenv("TMPDIR");
  g.cfg.tmpbase = tmp && *tmp ? tmp : "/tmp";
  struct stat tst;
  if (stat(g.cfg.tmpbase, &tst) || !S_ISDIR(tst.st_mode) || strchr(g.cfg.tmpbase, '\n')) {
    fprintf(stderr, "umlbed: TMPDIR %s is not a folder\n", g.cfg.tmpbase);
    status = 2;
    goto out;
  }
  /* What killed runners left behind goes first; then a reaper makes sure this runner leaves nothing either,
   * however it ends. It is forked before libuv starts any thread. */
  umb_stale_clean(g.cfg.tmpbase);
  int rrc = umb_reaper_start();
  if (rrc) fprintf(stderr, "umlbed: no reaper (%s): a killed runner may leave instances behind\n", strerror(-rrc));
  if (gdb) {
    if (g.njobs != 1) {
      fprintf(stderr, "umlbed: --gdb runs exactly one scenario (got %d; use --filter)\n", g.njobs);
      status = 2;
      goto out;
    }
    g.cfg.gdb_interactive = !batch && isatty(0);
    g.cfg.gdb_script = write_gdb_script(breaks, nbreaks, g.cfg.gdb_interactive);
    if (g.cfg.gdb_script == NULL) {
      fprintf(stderr, "umlbed: cannot write the gdb script: %s\n", strerror(errno));
      status = 2;
      goto out;
    }
    if (g.cfg.gdb_interactive) g.cfg.timeout_s = 0;
  }

  /* Orphaned UML helper processes get reparented to us, so we can reap and account for them. */
  prctl(PR_SET_CHILD_SUBREAPER, 1);
  signal(SIGPIPE, SIG_IGN);
  g.tty = isatty(2);
  g.cfg.ignore = nignore ? ignore : NULL;
  g.loop = uv_default_loop();
  uv_signal_init(g.loop, &g.sigint);
  uv_signal_init(g.loop, &g.sigterm);
  uv_signal_start(&g.sigint, on_signal, SIGINT);
  uv_signal_start(&g.sigterm, on_signal, SIGTERM);
  /* A closed terminal or a dropped ssh session is a request to stop like SIGTERM. */
  uv_signal_init(g.loop, &g.sighup);
  uv_signal_start(&g.sighup, on_signal, SIGHUP);
  printf("TAP version 13\n1..%d\n", g.njobs);
  printf("# kernel %s (generation %s, variant %s)\n", g.cfg.release, g.cfg.generation,
         g.cfg.variant ? g.cfg.variant : "-");
  if (g.shard.n)
    printf("# shard %d/%d (%s; dealt by %s): %d of %d runs\n", g.shard.k, g.shard.n, g.shard.source, g.shard.balance,
           g.njobs, g.nall);
  if (g.fuzz_note[0]) printf("# %s\n", g.fuzz_note);
  fflush(stdout);
  jobs_cache_load();
  start_next();
  uv_run(g.loop, UV_RUN_DEFAULT);
  if (!g.interrupted) jobs_cache_save();
  if (lpj.learnt) umb_lpj_save(&lpj, lpj_cache);
  if (g.jobs_ctl.automatic) {
    char line[512];
    umb_jobs_summary(&g.jobs_ctl, line, sizeof line);
    printf("# %s\n", line);
  }
  int rc = uv_loop_close(g.loop);
  if (rc) fprintf(stderr, "umlbed: loop not closed cleanly: %s\n", uv_strerror(rc));
  remove_gdb_dir();
  umb_reaper_stop();

  int bad = 0;
  for (int i = 0; i < g.njobs; i++)
    if (!g.jobs[i].done || (g.jobs[i].verdict != UMB_OK && g.jobs[i].verdict != UMB_SKIP)) bad = 1;
  if (g.junit && umb_out_junit(g.junit, g.jobs, g.njobs, &g.cfg))
    fprintf(stderr, "umlbed: cannot write %s\n", g.junit), bad = 1;
  char packid[64];
  umb_out_shard osh = {
      g.shard.k, g.shard.n, g.shard.source, g.shard.balance, g.all, g.nall, umb_pack_id(bdir, packid, sizeof packid)};
  if (g.json && umb_out_json(g.json, g.jobs, g.njobs, &g.cfg, &g.jobs_ctl, &osh))
    fprintf(stderr, "umlbed: cannot write %s\n", g.json), bad = 1;
  status = g.interrupted ? 128 + g.interrupted : bad;

out:
  umb_reaper_stop();
  for (int i = 0; i < g.njobs; i++) {
    free(g.jobs[i].file);
    free(g.jobs[i].name);
    free(g.jobs[i].diag);
    free(g.jobs[i].coverage);
    free(g.jobs[i].metrics);
    free(g.jobs[i].reason);
    free(g.jobs[i].prints);
    free(g.jobs[i].dir);
    free(g.jobs[i].broken);
  }
  free(g.jobs);
  for (int i = 0; i < g.nall; i++) free(g.all[i]);
  free(g.all);
  for (int i = 0; i < nfiles; i++) free(files[i]);
  free(files);
  for (int i = 0; i < nparams; i++) free(params[i]);
  free(params);
  free(bdir);
  return status;
}

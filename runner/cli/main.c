/* main.c: the umlbed command line: find scenarios, run them N at a time on one loop, report TAP/JUnit/JSON. */
#include <dirent.h>
#include <stddef.h>
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
#include "boot.h"
#include "merge.h"
#include "output.h"
#include "pack.h"
#include "path.h"
#include "plan.h"
#include "describe.h"
#include "runchild.h"
#include "runproc.h"
#include "shard.h"
#include "wall.h"
#include "luamod.h"
#include "scenario.h"

static struct {
  uv_loop_t *loop;
  umb_config cfg;
  umb_host_config hcfg; /* Its host part: the sandbox, parameters and memory cap of scenario code. */
  char generation[32];  /* The kernel's major.minor. */
  umb_plan plan;
  int next;
  int running;
  int finished;
  umb_jobs jobs_ctl; /* How many scenarios run at once (-j). */
  umb_shard shard;   /* --shard K/N or a CI engine's variables; n == 0: the whole list. */
  int interrupted;
  int tty;
  const char *junit;
  const char *json;
  uv_signal_t sigint, sigterm, sighup;
  char gdbdir[PATH_MAX];
  char fuzz_note[1024]; /* umlbed fuzz: the seeds, printed after the plan so a failure can be replayed. */
} g;

/* The most --break and --ignore-warning options one command takes. */
#define UMB_BREAKS_MAX 64
#define UMB_IGNORE_MAX 63
/* What a --variant name may hold (a folder name under BUILD/kernel/). */
#define UMB_VARIANT_CHARS "abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ0123456789_.-"

static const char *usage =
    "usage: umlbed run [options] [FILE|DIR]...\n"
    "       umlbed list [--filter GLOB] [--param KEY=VALUE]... [FILE|DIR]...\n"
    "       umlbed run --gdb [--break SYMBOL]... FILE\n"
    "       umlbed fuzz [--seed S] [--steps N] [--runs K] [options] [FILE]\n"
    "       umlbed bench [--out DIR] [options] [FILE|DIR]...   (umlbed bench --help)\n"
    "       umlbed merge [--json FILE] [--junit FILE] SHARD.json...\n"
    "       umlbed boot --root DIR --dir DIR [--kernel PATH] ...   (umlbed boot --help)\n"
    "       umlbed mutate list|run|report [--gen GEN] [--all] [--shard K/N] ...   (docs/mutate.md)\n"
    "       umlbed kbuild [--variant NAME] [--generation GEN] [KEY]   (how to build a module against a kernel)\n"
    "\n"
    "Runs Lua scenarios, each in its own User-Mode Linux instance, and prints TAP.\n"
    "Without FILE or DIR, runs ./scenarios.\n"
    "\n"
    "options:\n"
    "  --kernel PATH     UML kernel binary (default: $UMLBED_KERNEL, else\n"
    "                    BUILD/kernel/full/obj/linux, BUILD being the folder above\n"
    "                    the one holding this umlbed binary)\n"
    "  --variant NAME    use BUILD/kernel/NAME/obj/linux (full, gpl-only, broken-...)\n"
    "  --generation GEN  the kernel generation (as uml-kernel/generations/ names them):\n"
    "                    the built variant NAME (--variant, default full) of GEN\n"
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
    "                    TEXT are not findings; repeatable (at most 63)\n"
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
    "  --break SYMBOL    with --gdb: break at SYMBOL (in batch mode: print a backtrace and go on;\n"
    "                    at most 64)\n"
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
  for (unsigned long long i = 0; i < runs; i++)
    if (add_param(params, nparams, "seed=%llu", seed + i)) return -1;
  if (steps_arg && add_param(params, nparams, "steps=%llu", steps)) return -1;
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

/* The folder of the host's caches: BUILD in a build tree; for an installed runner (BUILD/install.info, written by
 * make install), whose BUILD may belong to root, $XDG_CACHE_HOME/umlbed or ~/.cache/umlbed, made if missing.
 * "" when there is none. */
static const char *cache_dir(const char *bdir) {
  static char dir[PATH_MAX];
  char info[PATH_MAX];
  if (dir[0]) return dir;
  if (umb_path(info, sizeof info, "%s/install.info", bdir) || access(info, F_OK)) {
    snprintf(dir, sizeof dir, "%s", bdir);
    return dir;
  }
  const char *xdg = getenv("XDG_CACHE_HOME"), *home = getenv("HOME");
  int rc = -1;
  if (xdg && *xdg)
    rc = umb_path(dir, sizeof dir, "%s/umlbed", xdg);
  else if (home && *home)
    rc = umb_path(dir, sizeof dir, "%s/.cache/umlbed", home);
  if (rc) {
    dir[0] = '\0';
    return dir;
  }
  char parent[PATH_MAX];
  snprintf(parent, sizeof parent, "%s", dir);
  mkdir(dirname(parent), 0700);
  if (mkdir(dir, 0700) && errno != EEXIST) dir[0] = '\0';
  return dir;
}

/* Where -j auto keeps what it learnt about this host between runs: $UMLBED_JOBS_CACHE ("" turns it off), else
 * jobs-auto.cache in the cache folder (BUILD in a build tree). */
static char jobs_cache[PATH_MAX];

static void jobs_cache_path(const char *bdir) {
  const char *env = getenv("UMLBED_JOBS_CACHE");
  /* A path too long to hold is no cache. */
  const char *dir = env ? env : cache_dir(bdir);
  if (!*dir || umb_path(jobs_cache, sizeof jobs_cache, "%s%s", dir, env ? "" : "/jobs-auto.cache"))
    jobs_cache[0] = '\0';
}

/* Where the kernel's delay-loop calibration on this host is kept: $UMLBED_LPJ_CACHE ("" keeps it for this run
 * only), else lpj.cache in the cache folder (BUILD in a build tree; core/lpj.h). */
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
    fprintf(stderr, "umlbed: [%d/%d] %-7s %s (%.2f s)%s%s\n", g.finished, g.plan.njobs, umb_verdict_name(j->verdict),
            j->name, j->seconds, j->dir ? " kept in " : "", j->dir ? j->dir : "");
}

/* Every running job has now seen g.running scenarios at once. */
static void note_concurrency(void) {
  for (int i = 0; i < g.plan.njobs; i++) {
    job *j = &g.plan.jobs[i];
    if (j->proc == NULL) continue;
    if (j->cmin == 0 || g.running < j->cmin) j->cmin = g.running;
    if (g.running > j->cmax) j->cmax = g.running;
  }
}

static void start_next(void) {
  while (!g.interrupted && g.running < umb_jobs_level(&g.jobs_ctl) && g.next < g.plan.njobs) {
    job *j = &g.plan.jobs[g.next++];
    if (j->broken) {
      j->verdict = UMB_ERROR;
      j->diag = strdup(j->broken);
      j->done = 1;
      report(j);
      continue;
    }
    j->proc = umb_runproc_start(g.loop, &g.hcfg, j, on_run_done, j);
    if (j->proc == NULL) abort();
    g.running++;
    umb_jobs_started(&g.jobs_ctl);
  }
  /* Counted once the replacements have started: the instant between a run's end and the next start is no dip. */
  note_concurrency();
  if (g.running == 0 && (g.next == g.plan.njobs || g.interrupted)) {
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
  for (int i = 0; i < g.plan.njobs; i++)
    if (g.plan.jobs[i].proc) umb_runproc_signal(g.plan.jobs[i].proc, signum);
  /* With nothing running, nothing else would close the signal handles. */
  if (g.running == 0) start_next();
}

/* Writes the gdb script for --gdb into a private folder (removed at exit). */
static const char *write_gdb_script(char **breaks, int nbreaks, int interactive) {
  if (umb_path(g.gdbdir, sizeof g.gdbdir, "%s/umlbed-gdb-XXXXXX", g.cfg.tmpbase) || mkdtemp(g.gdbdir) == NULL) {
    g.gdbdir[0] = '\0';
    return NULL;
  }
  umb_reaper_add_dir(g.gdbdir);
  static char path[PATH_MAX];
  FILE *f = umb_path(path, sizeof path, "%s/script.gdb", g.gdbdir) ? NULL : fopen(path, "we");
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
  /* The kernel's own helpers (lx-dmesg, lx-ps, lx-symbols, ...; docs/gdb.md), when its objtree has them. They
   * look for the image as vmlinux, which the objtree has beside linux: the same file under the name they know. */
  char kdir[PATH_MAX], py[PATH_MAX], vmlinux[PATH_MAX];
  snprintf(kdir, sizeof kdir, "%s", g.cfg.kernel);
  dirname(kdir);
  if (!umb_path(py, sizeof py, "%s/vmlinux-gdb.py", kdir) && !umb_path(vmlinux, sizeof vmlinux, "%s/vmlinux", kdir) &&
      access(py, R_OK) == 0 && access(vmlinux, R_OK) == 0)
    fprintf(f, "add-auto-load-safe-path %s\nsymbol-file %s\nsource %s\n", kdir, vmlinux, py);
  else
    fprintf(stderr,
            "umlbed: no lx- gdb helpers: %s has no vmlinux and vmlinux-gdb.py (an installed umlbed has "
            "none)\n",
            kdir);
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
  char path[PATH_MAX];
  if (umb_path(path, sizeof path, "%s/script.gdb", g.gdbdir) == 0) unlink(path);
  rmdir(g.gdbdir);
  umb_reaper_del_dir(g.gdbdir);
}

/* ---- The command line. ---- */

/* What the command line says, before it is checked. */
typedef struct cli_args {
  const char *cmd;
  int fuzz, list;
  const char *kernel, *variant, *agent, *generation, *filter, *coverage, *durations, *jobs;
  const char *timeout, *lua_memory, *mem, *shard, *seed, *steps, *runs;
  int gdb, batch;
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
  char kpath[PATH_MAX], apath[PATH_MAX], kreal[PATH_MAX], areal[PATH_MAX], covreal[PATH_MAX];
  char release[128], vbuf[256];
} cli_args;

/* One long option: where its value goes (a string or a flag of cli_args), or what checks and keeps it. */
typedef struct opt_def {
  const char *name;
  int has_arg;
  size_t field; /* offsetof(cli_args, ...) of a const char * (with an argument) or an int flag (without). */
  int (*take)(cli_args *a, const char *arg); /* Instead of field: 0, or -1 after a message. */
} opt_def;

static int take_break(cli_args *a, const char *arg) {
  if (a->nbreaks == UMB_BREAKS_MAX) {
    fprintf(stderr, "umlbed: --break: at most %d breakpoints\n", UMB_BREAKS_MAX);
    return -1;
  }
  a->breaks[a->nbreaks++] = (char *)arg;
  return 0;
}

static int take_ignore(cli_args *a, const char *arg) {
  if (a->nignore == UMB_IGNORE_MAX) {
    fprintf(stderr, "umlbed: --ignore-warning: at most %d texts\n", UMB_IGNORE_MAX);
    return -1;
  }
  a->ignore[a->nignore++] = arg;
  return 0;
}

static int take_param(cli_args *a, const char *arg) {
  if (umb_param_check(arg)) {
    fprintf(stderr, "umlbed: --param wants KEY=VALUE with KEY a Lua name (got '%s')\n", arg);
    return -1;
  }
  return add_param(&a->params, &a->nparams, "%s", arg) ? -1 : 0;
}

static int take_coverage(cli_args *a, const char *arg) {
  a->coverage = arg ? arg : "umlbed-coverage";
  if (!*a->coverage || strchr(a->coverage, '\n')) {
    fprintf(stderr, "umlbed: --coverage wants a folder (got '%s')\n", a->coverage);
    return -1;
  }
  return 0;
}

#define STR(n, f) \
  { n, 1, offsetof(cli_args, f), NULL }
#define FLAG(n, f) \
  { n, 0, offsetof(cli_args, f), NULL }
/* Options whose value is the run configuration's own (take_config). */
#define CFG(n, arg) \
  { n, arg, 0, NULL }
static const opt_def opt_defs[] = {
    STR("kernel", kernel),
    STR("variant", variant),
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
    CFG("time-travel", 0),
    CFG("keep", 0),
    CFG("unsafe-lua", 0),
    CFG("fake-uml", 0),
    CFG("cmdline", 1),
    CFG("junit", 1),
    CFG("json", 1),
    {"break", 1, 0, take_break},
    {"ignore-warning", 1, 0, take_ignore},
    {"param", 1, 0, take_param},
    {"coverage", 2, 0, take_coverage},
};
#undef STR
#undef FLAG
#undef CFG
#define NOPTS (sizeof opt_defs / sizeof opt_defs[0])

/* Options whose value lands in the run configuration itself; 1 if name is one of them. */
static int take_config(const char *name, const char *arg) {
  if (!strcmp(name, "time-travel"))
    g.cfg.time_travel = 1;
  else if (!strcmp(name, "keep"))
    g.cfg.keep = 1;
  else if (!strcmp(name, "unsafe-lua"))
    g.hcfg.unsafe_lua = 1;
  else if (!strcmp(name, "fake-uml"))
    g.cfg.fake_uml = 1;
  else if (!strcmp(name, "cmdline"))
    g.cfg.cmdline = arg;
  else if (!strcmp(name, "junit"))
    g.junit = arg;
  else if (!strcmp(name, "json"))
    g.json = arg;
  else
    return 0;
  return 1;
}

/* Reads argv into a: 0, 1 after --help (printed), -1 after a message. */
static int parse_args(int argc, char **argv, cli_args *a) {
  struct option lo[NOPTS + 2];
  for (size_t i = 0; i < NOPTS; i++) lo[i] = (struct option){opt_defs[i].name, opt_defs[i].has_arg, 0, 256 + (int)i};
  lo[NOPTS] = (struct option){"help", 0, 0, 'h'};
  lo[NOPTS + 1] = (struct option){0, 0, 0, 0};
  optind = 2;
  for (int c; (c = getopt_long(argc, argv, "j:h", lo, NULL)) != -1;) {
    if (c == 'h') {
      fputs(usage, stdout);
      return 1;
    }
    if (c == 'j') a->jobs = optarg;
    if (c == 'j') continue;
    if (c < 256 || c >= 256 + (int)NOPTS) {
      fputs(usage, stderr);
      return -1;
    }
    const opt_def *d = &opt_defs[c - 256];
    if (d->take) {
      if (d->take(a, optarg)) return -1;
    } else if (!take_config(d->name, optarg)) {
      if (d->has_arg)
        *(const char **)((char *)a + d->field) = optarg;
      else
        *(int *)((char *)a + d->field) = 1;
    }
  }
  a->args = argv + optind;
  a->nargs = argc - optind;
  return 0;
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

/* Timeouts, memory, jobs and shard from the options and the environment. */
static int configure_limits(cli_args *a) {
  double v;
  g.cfg.timeout_s = 60;
  if (a->timeout) {
    /* Only a finite number of seconds, 0 for none: anything else must not turn the guard off unseen. */
    if (option_number("--timeout", a->timeout, 1e9, "seconds, 0 for none", &g.cfg.timeout_s)) return -1;
    g.cfg.timeout_given = 1;
  }
  g.hcfg.lua_memory = (size_t)UMB_LUA_MEMORY_DEFAULT_MIB << 20;
  if (a->lua_memory) {
    /* A whole number of MiB that fits: a typo must not lift the cap unseen. */
    if (option_number("--lua-memory", a->lua_memory, (double)(SIZE_MAX >> 21), "a whole number of MiB, 0 for no cap",
                      &v))
      return -1;
    if (v != (double)(size_t)v || strpbrk(a->lua_memory, ".eExX")) {
      fprintf(stderr, "umlbed: --lua-memory wants a whole number of MiB, 0 for no cap (got '%s')\n", a->lua_memory);
      return -1;
    }
    g.hcfg.lua_memory = (size_t)v << 20;
  }
  g.cfg.mem = a->mem ? a->mem : "64M";
  if (umb_mem_check(g.cfg.mem)) {
    fprintf(stderr, "umlbed: --mem wants a size from 32M to 64G, such as 64M or 1G (got '%s')\n", g.cfg.mem);
    return -1;
  }
  char why[512];
  if (umb_cmdline_check(g.cfg.cmdline, why, sizeof why)) {
    fprintf(stderr, "umlbed: --cmdline: %s\n", why);
    return -1;
  }
  if (a->shard) {
    if (umb_shard_parse(a->shard, &g.shard.k, &g.shard.n)) {
      fprintf(stderr, "umlbed: --shard wants K/N with 1 <= K <= N <= %d (got '%s')\n", UMB_SHARDS_MAX, a->shard);
      return -1;
    }
    snprintf(g.shard.source, sizeof g.shard.source, "--shard");
  }
  /* A slower host or a heavier kernel gets longer hang guards, never different verdicts. */
  const char *scale = getenv("UMLBED_TIMEOUT_SCALE");
  g.cfg.timeout_scale = 1;
  if (scale && *scale &&
      option_number("UMLBED_TIMEOUT_SCALE", scale, 1000, "a number in (0, 1000]", &g.cfg.timeout_scale))
    return -1;
  if (!(g.cfg.timeout_scale > 0)) {
    fprintf(stderr, "umlbed: UMLBED_TIMEOUT_SCALE wants a number in (0, 1000] (got '%s')\n", scale);
    return -1;
  }
  if (!g.cfg.timeout_given) g.cfg.timeout_s *= g.cfg.timeout_scale;
  const char *jobs = a->jobs ? a->jobs : getenv("UMLBED_JOBS");
  if (parse_jobs(jobs ? jobs : "auto")) {
    fprintf(stderr, "umlbed: -j wants 1..256, auto or auto:1..256 (got '%s')\n", jobs);
    return -1;
  }
  return 0;
}

/* The variant.info beside a built kernel (uml-kernel/build.sh): its generation and its name without the
 * generation's suffix. 0, or -1 when there is none. */
static int variant_info(const char *dir, char *gen, size_t gsize, char *base, size_t bsize) {
  char path[PATH_MAX], line[256];
  if (umb_path(path, sizeof path, "%s/variant.info", dir)) return -1;
  FILE *f = fopen(path, "re");
  if (f == NULL) return -1;
  gen[0] = base[0] = '\0';
  while (fgets(line, sizeof line, f)) {
    line[strcspn(line, "\n")] = '\0';
    if (!strncmp(line, "generation ", 11)) snprintf(gen, gsize, "%.60s", line + 11);
    if (!strncmp(line, "base ", 5)) snprintf(base, bsize, "%.120s", line + 5);
  }
  fclose(f);
  return gen[0] && base[0] ? 0 : -1;
}

/* --generation GEN: the built kernel of variant NAME (or named NAME) whose variant.info says GEN; the generations
 * come from the build, not from this program. 0 with a->kpath set, or -1 after a message. */
static int generation_kernel(cli_args *a, const char *name) {
  char kdir[PATH_MAX], gens[512] = "";
  if (umb_path(kdir, sizeof kdir, "%s/kernel", a->bdir)) return -1;
  DIR *d = opendir(kdir);
  int found = 0;
  for (struct dirent *e; d && !found && (e = readdir(d));) {
    char vdir[PATH_MAX], gen[64], base[128];
    if (e->d_name[0] == '.' || umb_path(vdir, sizeof vdir, "%s/%s", kdir, e->d_name) ||
        variant_info(vdir, gen, sizeof gen, base, sizeof base))
      continue;
    if (!strstr(gens, gen) && strlen(gens) + strlen(gen) + 3 < sizeof gens)
      snprintf(gens + strlen(gens), sizeof gens - strlen(gens), "%s%s", gens[0] ? ", " : "", gen);
    if (!strcmp(gen, a->generation) && (!strcmp(base, name) || !strcmp(e->d_name, name)))
      found = !umb_path(a->kpath, sizeof a->kpath, "%s/%s/obj/linux", kdir, e->d_name);
  }
  if (d) closedir(d);
  if (!found)
    fprintf(stderr, "umlbed: --generation %s: no built kernel of variant %s in that generation (built: %s)\n",
            a->generation, name, gens[0] ? gens : "none");
  return found ? 0 : -1;
}

/* Which kernel and agent: --kernel, --variant, --generation, $UMLBED_KERNEL, $UMLBED_AGENT, the build's own. */
static int configure_paths(cli_args *a) {
  const char *variant = a->variant, *kernel = a->kernel ? a->kernel : getenv("UMLBED_KERNEL");
  if (variant && (!*variant || *variant == '.' || strspn(variant, UMB_VARIANT_CHARS) != strlen(variant))) {
    fprintf(stderr, "umlbed: --variant wants a name such as full or gpl-only\n");
    return -1;
  }
  if (a->generation) {
    if (a->kernel && !variant) {
      fprintf(stderr, "umlbed: --generation chooses a built variant; it does not go with --kernel\n");
      return -1;
    }
    /* $UMLBED_KERNEL names one binary; --generation asks for the build's own. */
    if (generation_kernel(a, variant ? variant : "full")) return -1;
    kernel = a->kpath;
    variant = NULL;
  } else if (variant || kernel == NULL) {
    if (umb_path(a->kpath, sizeof a->kpath, "%s/kernel/%s/obj/linux", a->bdir, variant ? variant : "full")) {
      fprintf(stderr, "umlbed: the kernel's path is too long\n");
      return -1;
    }
    kernel = a->kpath;
  }
  a->kernel = kernel;
  a->variant = variant;
  a->agent = a->agent ? a->agent : getenv("UMLBED_AGENT");
  if (a->agent == NULL) {
    if (umb_path(a->apath, sizeof a->apath, "%s/guest/umlbed-agent", a->bdir)) {
      fprintf(stderr, "umlbed: the agent's path is too long\n");
      return -1;
    }
    a->agent = a->apath;
  }
  return 0;
}

/* The fuzz options, and the file arguments (default scenarios/, or the fuzzer's scenario). */
static int configure_files(cli_args *a) {
  if (!a->fuzz && (a->seed || a->steps || a->runs)) {
    fprintf(stderr, "umlbed: --seed, --steps and --runs are options of umlbed fuzz\n");
    return -1;
  }
  if (a->fuzz && fuzz_params(a->seed, a->steps, a->runs, &a->params, &a->nparams)) return -1;
  g.hcfg.params = (const char *const *)a->params;
  static char *defargs[1];
  if (a->nargs == 0) {
    defargs[0] = a->fuzz ? "scenarios/model-fuzz.lua" : "scenarios";
    a->args = defargs;
    a->nargs = 1;
  } else if (g.fuzz_note[0]) {
    /* The replay command names the files too when they are not the default. */
    for (int i = 0; i < a->nargs; i++) {
      size_t len = strlen(g.fuzz_note);
      snprintf(g.fuzz_note + len, sizeof g.fuzz_note - len, " %s", a->args[i]);
    }
  }
  return umb_plan_collect(a->args, a->nargs, &a->files, &a->nfiles);
}

/* The list of runs: every file described (a stop signal ends the runner at once), then this shard's share.
 * 0, 1 when some file did not load (its runs are ERROR lines), -1 after a message, or 128 + a signal. */
static int plan_runs(cli_args *a) {
  struct sigaction stop = {.sa_handler = umb_describe_stop_handler};
  sigemptyset(&stop.sa_mask);
  sigaction(SIGINT, &stop, NULL);
  sigaction(SIGTERM, &stop, NULL);
  sigaction(SIGHUP, &stop, NULL);
  int planned = umb_plan_describe(&g.plan, a->files, a->nfiles, a->filter, &g.hcfg);
  if (planned == -EINTR || umb_describe_stopped) {
    fprintf(stderr, "umlbed: %s while loading the scenario files\n", strsignal(umb_describe_stopped));
    return 128 + umb_describe_stopped;
  }
  if (planned < 0) {
    fprintf(stderr, "umlbed: %s\n", strerror(-planned));
    return -1;
  }
  char err[256];
  if (!g.shard.n && umb_shard_from_env(&g.shard, err, sizeof err) < 0) {
    fprintf(stderr, "umlbed: %s\n", err);
    return -1;
  }
  if (a->durations && !g.shard.n) {
    fprintf(stderr, "umlbed: --durations balances shards: give --shard K/N (or a CI engine's shard variables)\n");
    return -1;
  }
  if (g.shard.n && a->fuzz && !a->seed) {
    /* Every shard must deal the same list: seeds from each machine's clock would differ. */
    fprintf(stderr, "umlbed: a sharded umlbed fuzz needs --seed S, the same in every shard\n");
    return -1;
  }
  if (g.shard.n && umb_plan_shard(&g.plan, &g.shard, a->durations)) return -1;
  if (a->nfiles == 0) {
    fprintf(stderr, "umlbed: no scenario files (*.lua) in");
    for (int i = 0; i < a->nargs; i++) fprintf(stderr, " %s", a->args[i]);
    fprintf(stderr, "\n");
    return -1;
  }
  return planned;
}

/* The kernel, agent and coverage folder exist and are what they should be; the run configuration takes them. */
static int check_engine(cli_args *a) {
  if (access(a->kernel, X_OK)) {
    fprintf(stderr, "umlbed: kernel %s: %s (use --kernel, --variant or $UMLBED_KERNEL)\n", a->kernel, strerror(errno));
    return -1;
  }
  if (kernel_release(a->kernel, a->release, sizeof a->release)) {
    fprintf(stderr, "umlbed: kernel %s: not a UML kernel (its --version did not print a release)\n", a->kernel);
    return -1;
  }
  if (access(a->agent, R_OK)) {
    fprintf(stderr, "umlbed: agent %s: %s (use --agent or $UMLBED_AGENT)\n", a->agent, strerror(errno));
    return -1;
  }
  g.cfg.kernel = realpath(a->kernel, a->kreal) ? a->kreal : a->kernel;
  /* The path as given names the variant even when it is a symbolic link to elsewhere. */
  g.cfg.variant = a->variant ? a->variant : umb_kernel_variant(a->kernel, a->vbuf, sizeof a->vbuf);
  if (g.cfg.variant == NULL) g.cfg.variant = umb_kernel_variant(g.cfg.kernel, a->vbuf, sizeof a->vbuf);
  g.cfg.agent = realpath(a->agent, a->areal) ? a->areal : a->agent;
  if (a->coverage) {
    if ((mkdir(a->coverage, 0755) && errno != EEXIST) || realpath(a->coverage, a->covreal) == NULL) {
      fprintf(stderr, "umlbed: --coverage %s: %s\n", a->coverage, strerror(errno));
      return -1;
    }
    g.cfg.coverage = a->covreal;
  }
  /* A gcov kernel names each .gcda file by its build path (the folder the binary was linked in): drop that many
   * components, so the data lands under the run's coverage folder as mm/memory.gcda and so on. */
  for (const char *p = g.cfg.kernel; *p; p++)
    if (*p == '/' && p[1]) g.cfg.gcov_strip++;
  if (g.cfg.gcov_strip) g.cfg.gcov_strip--;
  g.cfg.release = a->release;
  /* The generation is what the kernel says it is (6.1.192 -> 6.1), whichever way it was chosen. */
  size_t glen = strcspn(a->release, ".");
  if (a->release[glen] == '.') glen += 1 + strspn(a->release + glen + 1, "0123456789");
  snprintf(g.generation, sizeof g.generation, "%.*s", (int)glen, a->release);
  g.cfg.generation = g.generation;
  return 0;
}

/* The host side of the runs: caches, TMPDIR, the reaper, gdb. */
static int prepare_host(cli_args *a) {
  const char *env = getenv("UMLBED_LPJ_CACHE");
  const char *dir = env ? env : cache_dir(a->bdir);
  if (*dir && umb_path(lpj_cache, sizeof lpj_cache, "%s%s", dir, env ? "" : "/lpj.cache") == 0 &&
      umb_lpj_load(&lpj, lpj_cache, g.cfg.kernel) == 0)
    g.cfg.lpj = &lpj;
  const char *tmp = getenv("TMPDIR");
  g.cfg.tmpbase = tmp && *tmp ? tmp : "/tmp";
  struct stat tst;
  if (stat(g.cfg.tmpbase, &tst) || !S_ISDIR(tst.st_mode) || strchr(g.cfg.tmpbase, '\n')) {
    fprintf(stderr, "umlbed: TMPDIR %s is not a folder\n", g.cfg.tmpbase);
    return -1;
  }
  /* What killed runners left behind goes first; then a reaper makes sure this runner leaves nothing either,
   * however it ends. It is forked before libuv starts any thread. */
  umb_stale_clean(g.cfg.tmpbase);
  int rrc = umb_reaper_start(g.cfg.tmpbase);
  if (rrc) fprintf(stderr, "umlbed: no reaper (%s): a killed runner may leave instances behind\n", strerror(-rrc));
  if (a->gdb) {
    if (g.plan.njobs != 1) {
      fprintf(stderr, "umlbed: --gdb runs exactly one scenario (got %d; use --filter)\n", g.plan.njobs);
      return -1;
    }
    g.cfg.gdb_interactive = !a->batch && isatty(0);
    g.cfg.gdb_script = write_gdb_script(a->breaks, a->nbreaks, g.cfg.gdb_interactive);
    if (g.cfg.gdb_script == NULL) {
      fprintf(stderr, "umlbed: cannot write the gdb script: %s\n", strerror(errno));
      return -1;
    }
    if (g.cfg.gdb_interactive) g.cfg.timeout_s = 0;
  }
  g.cfg.ignore = a->nignore ? a->ignore : NULL;
  return 0;
}

/* ---- Running the plan. ---- */

static void print_header(void) {
  printf("TAP version 13\n1..%d\n", g.plan.njobs);
  printf("# kernel %s (generation %s, variant %s)\n", g.cfg.release, g.cfg.generation,
         g.cfg.variant ? g.cfg.variant : "-");
  if (g.shard.n)
    printf("# shard %d/%d (%s; dealt by %s): %d of %d runs\n", g.shard.k, g.shard.n, g.shard.source, g.shard.balance,
           g.plan.njobs, g.plan.nall);
  if (g.fuzz_note[0]) printf("# %s\n", g.fuzz_note);
  fflush(stdout);
}

/* Every run of the plan on the loop, its run processes bounded and its signals passed on; returns when all ended. */
static void run_plan(void) {
  /* Orphaned UML helper processes of a killed run process get reparented to the runner, which reaps them. */
  prctl(PR_SET_CHILD_SUBREAPER, 1);
  signal(SIGPIPE, SIG_IGN);
  g.tty = isatty(2);
  g.loop = uv_default_loop();
  uv_signal_t *sigs[] = {&g.sigint, &g.sigterm, &g.sighup};
  /* A closed terminal or a dropped ssh session is a request to stop like SIGTERM. */
  const int signums[] = {SIGINT, SIGTERM, SIGHUP};
  for (int i = 0; i < 3; i++) {
    uv_signal_init(g.loop, sigs[i]);
    uv_signal_start(sigs[i], on_signal, signums[i]);
  }
  print_header();
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
}

/* The reports and the exit status of a finished plan. */
static int report_plan(cli_args *a) {
  int bad = 0;
  for (int i = 0; i < g.plan.njobs; i++)
    if (!g.plan.jobs[i].done || (g.plan.jobs[i].verdict != UMB_OK && g.plan.jobs[i].verdict != UMB_SKIP)) bad = 1;
  if (g.junit && umb_out_junit(g.junit, g.plan.jobs, g.plan.njobs, &g.cfg))
    fprintf(stderr, "umlbed: cannot write %s\n", g.junit), bad = 1;
  char packid[64];
  umb_out_shard osh = {g.shard.k,
                       g.shard.n,
                       g.shard.source,
                       g.shard.balance,
                       g.plan.all,
                       g.plan.nall,
                       umb_pack_id(a->bdir, packid, sizeof packid)};
  if (g.json && umb_out_json(g.json, g.plan.jobs, g.plan.njobs, &g.cfg, &g.jobs_ctl, &osh))
    fprintf(stderr, "umlbed: cannot write %s\n", g.json), bad = 1;
  return g.interrupted ? 128 + g.interrupted : bad;
}

static void free_args(cli_args *a) {
  for (int i = 0; i < a->nfiles; i++) free(a->files[i]);
  free(a->files);
  for (int i = 0; i < a->nparams; i++) free(a->params[i]);
  free(a->params);
  free(a->bdir);
}

/* umlbed run, list and fuzz: the options checked, the plan made, then run (or listed). */
static int run_command(int argc, char **argv) {
  cli_args a = {.cmd = argv[1], .fuzz = !strcmp(argv[1], "fuzz"), .list = !strcmp(argv[1], "list")};
  int status = 2, rc;
  a.bdir = build_dir();
  a.params = calloc(1, sizeof(char *));
  if (a.bdir == NULL || a.params == NULL) {
    fprintf(stderr, "umlbed: %s\n", strerror(ENOMEM));
  } else if ((rc = parse_args(argc, argv, &a)) != 0) {
    status = rc > 0 ? 0 : 2;
  } else if (configure_limits(&a) || configure_paths(&a) || configure_files(&a) || (rc = plan_runs(&a)) < 0) {
    status = 2;
  } else if (rc > 1) {
    status = rc; /* 128 + a stop signal. */
  } else if (a.list) {
    for (int i = 0; i < g.plan.njobs; i++) printf("%s\t%s\n", g.plan.jobs[i].file, g.plan.jobs[i].name);
    status = rc ? 2 : 0;
  } else if (check_engine(&a) == 0 && prepare_host(&a) == 0) {
    /* Files that did not load are ERROR lines of their own; the others still run. */
    jobs_cache_path(a.bdir);
    run_plan();
    status = report_plan(&a);
  }
  remove_gdb_dir();
  umb_reaper_stop();
  umb_plan_free(&g.plan);
  free_args(&a);
  return status;
}

/* umlbed mutate ARGS: mutation testing of the series (docs/mutate.md). Its driver is uml-kernel/mutate.pl of the
 * source tree that holds BUILD, which it needs anyway (the series, the scenarios, a kernel tree to mutate). */
static int mutate_main(int argc, char **argv) {
  char *bdir = build_dir();
  char script[PATH_MAX];
  (void)argc;
  if (bdir == NULL || umb_path(script, sizeof script, "%s/../uml-kernel/mutate.pl", bdir)) {
    fprintf(stderr, "umlbed mutate: no path to the driver\n");
    free(bdir);
    return 2;
  }
  if (access(script, X_OK)) {
    fprintf(stderr, "umlbed mutate: %s: %s (mutation testing runs in a checkout of umlbed)\n", script, strerror(errno));
    free(bdir);
    return 2;
  }
  /* The driver builds and runs with this runner's build folder unless the caller names another. */
  if (setenv("BUILD", bdir, 0)) {
    fprintf(stderr, "umlbed mutate: setenv: %s\n", strerror(errno));
    free(bdir);
    return 2;
  }
  free(bdir);
  argv[1] = script;
  execv(script, argv + 1);
  fprintf(stderr, "umlbed mutate: %s: %s\n", script, strerror(errno));
  return 2;
}

/* The variants of BUILD/kernel/ that have an objtree to build modules against, as "full, gpl-only, ...". */
static void built_objtrees(const char *bdir, char *out, size_t size) {
  char kdir[PATH_MAX];
  DIR *d = umb_path(kdir, sizeof kdir, "%s/kernel", bdir) ? NULL : opendir(kdir);
  for (struct dirent *e; d && (e = readdir(d));) {
    char sym[PATH_MAX];
    if (e->d_name[0] == '.' || umb_path(sym, sizeof sym, "%s/%s/obj/Module.symvers", kdir, e->d_name) ||
        access(sym, R_OK))
      continue;
    size_t len = strlen(out);
    snprintf(out + len, size - len, "%s%s", len ? ", " : "", e->d_name);
  }
  if (d) closedir(d);
}

/* umlbed kbuild [--variant NAME | --generation GEN [--variant NAME]] [KEY]: what an out-of-tree module is built
 * with against that variant's kernel (its objtree, ARCH=um, its release and generation), as "KEY VALUE" lines or
 * KEY's value alone, for a Makefile's $(shell ...). The objtree is the build's: an installed umlbed has none. */
static int kbuild_main(int argc, char **argv) {
  static const char *const keys[] = {"kdir", "arch", "release", "generation", "variant", "make", NULL};
  cli_args a = {.cmd = argv[1]};
  const char *key = NULL;
  int status = 2;
  static const char kusage[] =
      "usage: umlbed kbuild [--variant NAME] [--generation GEN] [KEY]\n"
      "KEY: kdir, arch, release, generation, variant or make\n";
  for (int i = 2; i < argc; i++) {
    const char *why = NULL;
    if (!strcmp(argv[i], "--help") || !strcmp(argv[i], "-h")) {
      fputs(kusage, stdout);
      return 0;
    } else if (!strcmp(argv[i], "--variant") || !strcmp(argv[i], "--generation")) {
      if (i + 1 < argc) {
        *(argv[i][2] == 'v' ? &a.variant : &a.generation) = argv[i + 1];
        i++;
      } else
        why = argv[i][2] == 'v' ? "--variant needs a NAME" : "--generation needs a GEN";
    } else if (argv[i][0] == '-') {
      why = "unknown option";
    } else if (key) {
      why = "one KEY at most";
    } else {
      key = argv[i];
    }
    if (why) {
      fprintf(stderr, "umlbed kbuild: %s: %s\n%s", argv[i], why, kusage);
      return 2;
    }
  }
  int known = key == NULL;
  for (int i = 0; key && keys[i]; i++) known |= !strcmp(key, keys[i]);
  if (!known) {
    fprintf(stderr, "umlbed kbuild: no key %s (kdir, arch, release, generation, variant, make)\n", key);
    return 2;
  }
  a.bdir = build_dir();
  if (a.bdir == NULL || configure_paths(&a)) goto out;
  char kdir[PATH_MAX], vdir[PATH_MAX], path[PATH_MAX], release[128] = "", gen[64], base[128];
  snprintf(kdir, sizeof kdir, "%s", a.kernel);
  dirname(kdir);
  snprintf(vdir, sizeof vdir, "%s", kdir);
  dirname(vdir);
  FILE *f = umb_path(path, sizeof path, "%s/include/config/kernel.release", kdir) ? NULL : fopen(path, "re");
  if (f && fgets(release, sizeof release, f)) release[strcspn(release, "\n")] = '\0';
  if (f) fclose(f);
  if (umb_path(path, sizeof path, "%s/Module.symvers", kdir) || access(path, R_OK) || !release[0] ||
      variant_info(vdir, gen, sizeof gen, base, sizeof base)) {
    char built[1024] = "";
    built_objtrees(a.bdir, built, sizeof built);
    fprintf(stderr,
            "umlbed kbuild: %s is not a built kernel objtree (built: %s; uml-kernel/build.sh VARIANT builds "
            "one, an installed umlbed has none)\n",
            kdir, built[0] ? built : "none");
    goto out;
  }
  const char *vname = strrchr(vdir, '/') ? strrchr(vdir, '/') + 1 : vdir;
  char make[PATH_MAX + 64];
  snprintf(make, sizeof make, "make -C %s M=$PWD ARCH=um modules", kdir);
  const char *vals[] = {kdir, "um", release, gen, vname, make};
  for (int i = 0; keys[i]; i++) {
    if (key == NULL)
      printf("%s %s\n", keys[i], vals[i]);
    else if (!strcmp(key, keys[i]))
      printf("%s\n", vals[i]);
  }
  status = 0;
out:
  free(a.bdir);
  return status;
}

int main(int argc, char **argv) {
  /* The host opens the bindings in every scenario's state; it knows them only through this registration. */
  umb_host_register(&umb_lua_module);
  if (argc < 2 || !strcmp(argv[1], "--help") || !strcmp(argv[1], "-h")) {
    fputs(usage, argc < 2 ? stderr : stdout);
    return argc < 2 ? 2 : 0;
  }
  const char *cmd = argv[1];
  if (!strcmp(cmd, "__wall")) return umb_wall_main(argc, argv);
  if (!strcmp(cmd, "__run")) return umb_runchild_main(argc, argv);
  if (!strcmp(cmd, "bench")) return umb_bench_main(argc, argv);
  if (!strcmp(cmd, "boot")) return umb_boot_main(argc, argv);
  if (!strcmp(cmd, "merge")) return umb_merge_main(argc, argv);
  if (!strcmp(cmd, "mutate")) return mutate_main(argc, argv);
  if (!strcmp(cmd, "kbuild")) return kbuild_main(argc, argv);
  for (int i = 2; i < argc; i++)
    if (!strcmp(argv[i], "--pack") || !strncmp(argv[i], "--pack=", 7)) return umb_pack_main(argc, argv);
  if (strcmp(cmd, "run") && strcmp(cmd, "list") && strcmp(cmd, "fuzz")) {
    fprintf(stderr, "umlbed: unknown command '%s'\n%s", cmd, usage);
    return 2;
  }
  /* The runner holds the TAP stream and the reaper's pipe: a scenario must not reach them through /proc/PID/fd
   * (the run processes it starts are dumpable again after their exec). */
  prctl(PR_SET_DUMPABLE, 0);
  g.cfg.runner_pid = (int)getpid();
  g.hcfg.core = &g.cfg;
  return run_command(argc, argv);
}

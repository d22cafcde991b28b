// SPDX-License-Identifier: MIT
/* runcmd.c: umlbed run, list and fuzz: find scenarios, run them N at a time on one loop, report TAP/JUnit/JSON. */
#include "runcmd.h"
#include "args.h"
#include "caps.h"
#include "describe.h"
#include "gdb.h"
#include "jobs.h"
#include "lpj.h"
#include "output.h"
#include "pack.h"
#include "path.h"
#include "paths.h"
#include "plan.h"
#include "reaper.h"
#include "report.h"
#include "runproc.h"
#include "shard.h"

#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <signal.h>
#include <spawn.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/prctl.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <unistd.h>

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
  uv_signal_t sigint, sigterm, sighup;
  char fuzz_note[1024]; /* umlbed fuzz: the seeds, printed after the plan so a failure can be replayed. */
  const char *subtest;  /* --subtest NAME: the TAP is a subtest of an outer stream, named NAME. */
  const char *indent;   /* What each TAP line starts with: four spaces in a subtest, else nothing. */
} g;

static void start_next(void);
static void report(job *j);

/* A stop signal that comes after the loop closed its signal handles, while the reports are written: noted, not
 * fatal. libuv gives the signal back its default action on closing, which would end the runner mid-report and
 * lose the report that names a failed run's kept folder. */
static volatile sig_atomic_t late_stop;
static void on_late_stop(int sig) { late_stop = sig; }
static void hold_late_stops(void) {
  /* SA_RESTART: the report's open, which waits for a reader when the path is a FIFO, goes on. */
  struct sigaction sa = {.sa_handler = on_late_stop, .sa_flags = SA_RESTART};
  sigemptyset(&sa.sa_mask);
  sigaction(SIGINT, &sa, NULL);
  sigaction(SIGTERM, &sa, NULL);
  sigaction(SIGHUP, &sa, NULL);
}

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
 * jobs-auto.cache in the cache folder (BUILD in a build tree). */
static char jobs_cache[PATH_MAX];

/* Where the kernel's delay-loop calibration on this host and its release are kept: $UMLBED_LPJ_CACHE ("" keeps
 * them for this run only), else lpj.cache in the cache folder (BUILD in a build tree; core/lpj.h). */
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

/* ---- The loop: runs started, ended and reported. ---- */

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
  umb_out_tap_indent(stdout, j, g.finished, g.indent);
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
    hold_late_stops();
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

/* ---- The plan, the engine and the host. ---- */

/* The list of runs: every file described (a stop signal ends the runner at once), then this shard's share.
 * 0, 1 when some file did not load (its runs are ERROR lines), -1 after a message, or 128 + a signal. */
static int plan_runs(umb_cli_args *a) {
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

/* --probe-variant: the kernel a scenario's t:vm{probe = true} boots, else the run's own. It must be of the run's
 * generation, since probes read the points of the same code. */
static int check_probe(umb_cli_args *a) {
  char prel[128];
  g.cfg.probe_kernel = g.cfg.kernel;
  if (a->probe_variant == NULL) return 0;
  if (access(a->ppath, X_OK)) {
    fprintf(stderr, "umlbed: probe kernel %s: %s (build it: make kernel VARIANT=%s)\n", a->ppath, strerror(errno),
            a->probe_variant);
    return -1;
  }
  if (umb_release_load(lpj_cache, a->ppath, prel, sizeof prel)) {
    if (kernel_release(a->ppath, prel, sizeof prel)) {
      fprintf(stderr, "umlbed: probe kernel %s: not a UML kernel (its --version did not print a release)\n", a->ppath);
      return -1;
    }
    umb_release_save(lpj_cache, a->ppath, prel);
  }
  size_t glen = strlen(g.generation);
  if (strncmp(prel, g.generation, glen) || prel[glen] != '.') {
    fprintf(stderr, "umlbed: probe kernel %s is Linux %s, not of the run's generation %s\n", a->ppath, prel,
            g.generation);
    return -1;
  }
  g.cfg.probe_kernel = realpath(a->ppath, a->preal) ? a->preal : a->ppath;
  return 0;
}

/* The kernel, agent and coverage folder exist and are what they should be; the run configuration takes them. */
static int check_engine(umb_cli_args *a) {
  if (access(a->kernel, X_OK)) {
    int err = errno;
    /* A variant of the build folder that is not built yet: say how to build it. */
    if (a->variant && err == ENOENT)
      fprintf(stderr, "umlbed: kernel %s: %s (build it: make kernel VARIANT=%s)\n", a->kernel, strerror(err),
              a->variant);
    else
      fprintf(stderr, "umlbed: kernel %s: %s (use --kernel, --variant or $UMLBED_KERNEL)\n", a->kernel, strerror(err));
    return -1;
  }
  /* The release of a build already asked is in the cache file of its delay-loop calibration: one exec less. */
  if (umb_cache_file(lpj_cache, sizeof lpj_cache, a->bdir, "UMLBED_LPJ_CACHE", "lpj.cache")) lpj_cache[0] = '\0';
  if (umb_release_load(lpj_cache, a->kernel, a->release, sizeof a->release)) {
    if (kernel_release(a->kernel, a->release, sizeof a->release)) {
      fprintf(stderr, "umlbed: kernel %s: not a UML kernel (its --version did not print a release)\n", a->kernel);
      return -1;
    }
    umb_release_save(lpj_cache, a->kernel, a->release);
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
  return check_probe(a);
}

/* The host side of the runs: caches, TMPDIR, the reaper, gdb. */
static int prepare_host(umb_cli_args *a) {
  if (lpj_cache[0] && umb_lpj_load(&lpj, lpj_cache, g.cfg.kernel) == 0) g.cfg.lpj = &lpj;
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
    g.cfg.gdb_script = umb_gdb_script(g.cfg.tmpbase, g.cfg.kernel, a->breaks, a->nbreaks, g.cfg.gdb_interactive);
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

/* A subtest is headed as KTAP heads a nested test: its version line, its name, its plan, all indented; the outer
 * stream writes the result line that follows it. */
static void print_header(void) {
  const char *in = g.indent;
  printf("%sTAP version 13\n", in);
  if (g.subtest) {
    printf("%s# Subtest: ", in);
    umb_tap_escape(stdout, g.subtest);
    printf("\n");
  }
  printf("%s1..%d\n", in, g.plan.njobs);
  printf("%s# kernel %s (generation %s, variant %s)\n", in, g.cfg.release, g.cfg.generation,
         g.cfg.variant ? g.cfg.variant : "-");
  if (g.shard.n)
    printf("%s# shard %d/%d (%s; dealt by %s): %d of %d runs\n", in, g.shard.k, g.shard.n, g.shard.source,
           g.shard.balance, g.plan.njobs, g.plan.nall);
  if (g.fuzz_note[0]) printf("%s# %s\n", in, g.fuzz_note);
  char caps[512];
  printf("%s# %s\n", in, umb_caps_line(caps, sizeof caps));
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
    printf("%s# %s\n", g.indent, line);
  }
  int rc = uv_loop_close(g.loop);
  if (rc) fprintf(stderr, "umlbed: loop not closed cleanly: %s\n", uv_strerror(rc));
}

/* The reports and the exit status of a finished plan. */
static int report_plan(umb_cli_args *a) {
  int bad = 0;
  for (int i = 0; i < g.plan.njobs; i++)
    if (!g.plan.jobs[i].done || (g.plan.jobs[i].verdict != UMB_OK && g.plan.jobs[i].verdict != UMB_SKIP)) bad = 1;
  if (a->junit && umb_out_junit(a->junit, g.plan.jobs, g.plan.njobs, &g.cfg))
    fprintf(stderr, "umlbed: cannot write %s\n", a->junit), bad = 1;
  char packid[64];
  umb_out_shard osh = {g.shard.k,
                       g.shard.n,
                       g.shard.source,
                       g.shard.balance,
                       g.plan.all,
                       g.plan.nall,
                       umb_pack_id(a->bdir, packid, sizeof packid)};
  if (a->json && umb_out_json(a->json, g.plan.jobs, g.plan.njobs, &g.cfg, &g.jobs_ctl, &osh))
    fprintf(stderr, "umlbed: cannot write %s\n", a->json), bad = 1;
  /* A stop that came after the last run still ends the runner with its status, the reports whole. */
  int stop = g.interrupted ? g.interrupted : late_stop;
  return stop ? 128 + stop : bad;
}

/* The run configuration from the options: the flags as given, the limits checked, the kernel and agent chosen,
 * the files found. 0, or -1 after a message. */
static int configure(umb_cli_args *a) {
  g.cfg.time_travel = a->time_travel;
  g.cfg.keep = a->keep;
  g.cfg.fake_uml = a->fake_uml;
  g.cfg.cmdline = a->cmdline;
  g.hcfg.unsafe_lua = a->unsafe_lua;
  g.subtest = a->subtest;
  g.indent = a->subtest ? "    " : "";
  if (umb_cli_limits(a, &g.cfg, &g.hcfg, &g.shard, &g.jobs_ctl) || umb_engine_paths(a) ||
      umb_cli_files(a, &g.cfg, &g.hcfg, g.fuzz_note, sizeof g.fuzz_note))
    return -1;
  return 0;
}

/* The options checked, the plan made, then run (or listed). */
int umb_runcmd_main(int argc, char **argv) {
  /* The runner holds the TAP stream and the reaper's pipe: a scenario must not reach them through /proc/PID/fd
   * (the run processes it starts are dumpable again after their exec). */
  prctl(PR_SET_DUMPABLE, 0);
  g.cfg.runner_pid = (int)getpid();
  g.hcfg.core = &g.cfg;
  umb_cli_args a = {.cmd = argv[1], .fuzz = !strcmp(argv[1], "fuzz"), .list = !strcmp(argv[1], "list")};
  int status = 2, rc;
  a.bdir = umb_build_dir();
  a.params = calloc(1, sizeof(char *));
  if (a.bdir == NULL || a.params == NULL) {
    fprintf(stderr, "umlbed: %s\n", strerror(ENOMEM));
  } else if ((rc = umb_cli_parse(argc, argv, &a)) != 0) {
    status = rc > 0 ? 0 : 2;
  } else if (configure(&a) || (rc = plan_runs(&a)) < 0) {
    status = 2;
  } else if (rc > 1) {
    status = rc; /* 128 + a stop signal. */
  } else if (a.list) {
    for (int i = 0; i < g.plan.njobs; i++) printf("%s\t%s\n", g.plan.jobs[i].file, g.plan.jobs[i].name);
    status = rc ? 2 : 0;
  } else if (check_engine(&a) == 0 && prepare_host(&a) == 0) {
    /* Files that did not load are ERROR lines of their own; the others still run. */
    umb_cache_file(jobs_cache, sizeof jobs_cache, a.bdir, "UMLBED_JOBS_CACHE", "jobs-auto.cache");
    run_plan();
    status = report_plan(&a);
  }
  umb_gdb_remove();
  umb_reaper_stop();
  umb_plan_free(&g.plan);
  umb_cli_free(&a);
  return status;
}

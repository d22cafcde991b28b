/* runchild.c: a run process (umlbed __run): one scenario run, configured by its runner and reporting over its link. */
#include "runchild.h"

#include <dirent.h>
#include <errno.h>
#include <limits.h>
#include <fcntl.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/prctl.h>
#include <unistd.h>

#include "runlink.h"
#include "reaper.h"
#include "runrec.h"
#include "scenario.h"
#include "wall.h"

/* The configuration the runner sent, and what it points to (owned here for the process's life). */
static struct {
  umb_config cfg;
  umb_host_config hcfg;
  umb_lpj lpj;
  char *file, *name;
  int combo;
  char **strs; /* Every string the configuration holds, to free at the end. */
  int nstrs;
  char **ignore, **params;
  int nignore, nparams;
  int ended;
  uv_signal_t sig[3];
  umb_scen *sc;
} c;

static char *keep(const char *v) {
  char *s = strdup(v);
  char **n = realloc(c.strs, sizeof(char *) * (size_t)(c.nstrs + 1));
  if (s == NULL || n == NULL) {
    free(s);
    if (n) c.strs = n;
    return NULL;
  }
  c.strs = n;
  c.strs[c.nstrs++] = s;
  return s;
}

/* Adds v to a NULL-terminated list. */
static int list_add(char ***list, int *n, const char *v) {
  char *s = keep(v);
  char **l = s ? realloc(*list, sizeof(char *) * (size_t)(*n + 2)) : NULL;
  if (l == NULL) return -ENOMEM;
  l[(*n)++] = s;
  l[*n] = NULL;
  *list = l;
  return 0;
}

static int num(const char *v, double *out) {
  char *end;
  *out = strtod(v, &end);
  return end == v || *end ? -EINVAL : 0;
}

/* One line of the configuration record (runproc.c writes it). */
static int on_cfg_line(void *arg, char *line, size_t len, int toolong) {
  (void)arg;
  char *k, *v;
  size_t vn;
  if (toolong || umb_rec_parse(line, len, "cfg", &k, &v, &vn) || strlen(v) != vn) return -EINVAL;
  umb_config *g = &c.cfg;
  double d = 0;
  long long i = 0;
  int rc = 0;
  if (!strcmp(k, "end")) {
    c.ended = 1;
  } else if (!strcmp(k, "kernel")) {
    rc = (g->kernel = keep(v)) ? 0 : -ENOMEM;
  } else if (!strcmp(k, "agent")) {
    rc = (g->agent = keep(v)) ? 0 : -ENOMEM;
  } else if (!strcmp(k, "tmpbase")) {
    rc = (g->tmpbase = keep(v)) ? 0 : -ENOMEM;
  } else if (!strcmp(k, "mem")) {
    rc = (g->mem = keep(v)) ? 0 : -ENOMEM;
  } else if (!strcmp(k, "cmdline")) {
    rc = (g->cmdline = keep(v)) ? 0 : -ENOMEM;
  } else if (!strcmp(k, "gdb_script")) {
    rc = (g->gdb_script = keep(v)) ? 0 : -ENOMEM;
  } else if (!strcmp(k, "variant")) {
    rc = (g->variant = keep(v)) ? 0 : -ENOMEM;
  } else if (!strcmp(k, "release")) {
    rc = (g->release = keep(v)) ? 0 : -ENOMEM;
  } else if (!strcmp(k, "generation")) {
    rc = (g->generation = keep(v)) ? 0 : -ENOMEM;
  } else if (!strcmp(k, "coverage")) {
    rc = (g->coverage = keep(v)) ? 0 : -ENOMEM;
  } else if (!strcmp(k, "file")) {
    rc = (c.file = keep(v)) ? 0 : -ENOMEM;
  } else if (!strcmp(k, "name")) {
    rc = (c.name = keep(v)) ? 0 : -ENOMEM;
  } else if (!strcmp(k, "ignore")) {
    rc = list_add(&c.ignore, &c.nignore, v);
  } else if (!strcmp(k, "param")) {
    rc = list_add(&c.params, &c.nparams, v);
  } else if (!strcmp(k, "timeout")) {
    rc = num(v, &g->timeout_s);
  } else if (!strcmp(k, "timeout_scale")) {
    rc = num(v, &g->timeout_scale);
  } else if (!strcmp(k, "lpj")) {
    /* The runner keeps a calibration: this run uses it, or learns it when it is 0. */
    rc = num(v, &d);
    c.lpj.value = (unsigned long)d;
    g->lpj = &c.lpj;
  } else if (!umb_rec_int(v, 0, 1LL << 62, &i)) {
    if (!strcmp(k, "time_travel"))
      g->time_travel = (int)i;
    else if (!strcmp(k, "keep"))
      g->keep = (int)i;
    else if (!strcmp(k, "timeout_given"))
      g->timeout_given = (int)i;
    else if (!strcmp(k, "gdb_interactive"))
      g->gdb_interactive = (int)i;
    else if (!strcmp(k, "unsafe_lua"))
      c.hcfg.unsafe_lua = (int)i;
    else if (!strcmp(k, "lua_memory"))
      c.hcfg.lua_memory = (size_t)i;
    else if (!strcmp(k, "gcov_strip"))
      g->gcov_strip = (int)i;
    else if (!strcmp(k, "runner_pid"))
      g->runner_pid = (int)i;
    else if (!strcmp(k, "fake_uml"))
      g->fake_uml = (int)i;
    else if (!strcmp(k, "combo"))
      c.combo = (int)i;
    else
      rc = -EINVAL;
  } else {
    rc = -EINVAL;
  }
  return rc;
}

/* Reads the configuration record up to its end line. The runner sends nothing more unasked, so nothing past it is
 * read. */
static int read_config(int fd) {
  umb_lines l = {.max = 1 << 20};
  char buf[4096];
  int rc = 0;
  while (!c.ended && rc == 0) {
    ssize_t n = read(fd, buf, sizeof buf);
    if (n < 0 && errno == EINTR) continue;
    if (n <= 0) {
      rc = -EPIPE;
      break;
    }
    rc = umb_lines_feed(&l, buf, (size_t)n, on_cfg_line, NULL);
  }
  umb_lines_free(&l);
  if (rc == 0 &&
      (c.cfg.kernel == NULL || c.cfg.agent == NULL || c.cfg.tmpbase == NULL || c.file == NULL || c.name == NULL))
    rc = -EINVAL;
  c.cfg.ignore = (const char *const *)c.ignore;
  c.hcfg.params = (const char *const *)c.params;
  c.hcfg.core = &c.cfg;
  return rc;
}

/*
 * The run process's Landlock domain. A sandboxed scenario may read and execute the host's files but /proc's (no
 * /proc/self/mem to write code over its own functions; UML's /proc/cpuinfo excepted), and write only beneath TMPDIR
 * (its run folder, os.tmpname), the run's own /dev/shm, the coverage folder and the devices a kernel uses. Its
 * kernels' walls nest inside this one. With --unsafe-lua or under gdb (which reads its inferior's /proc files),
 * the domain handles no file: it only keeps the runner's /proc files out of reach.
 */
static int run_wall(void) {
  if (c.hcfg.unsafe_lua || c.cfg.gdb_script) return umb_wall_landlock(NULL, -1, 0);
  umb_wall_path p[64];
  int n = 0;
  DIR *d = opendir("/");
  static char names[48][NAME_MAX + 2];
  for (struct dirent *e; d && (e = readdir(d)) != NULL && n < 48;) {
    if (e->d_name[0] == '.' || !strcmp(e->d_name, "proc")) continue;
    snprintf(names[n], sizeof names[n], "/%s", e->d_name);
    p[n] = (umb_wall_path){names[n], UMB_WALL_READ | UMB_WALL_EXEC};
    n++;
  }
  if (d) closedir(d);
  const int rw = UMB_WALL_READ | UMB_WALL_WRITE, dev = rw | UMB_WALL_IOCTL;
  p[n++] = (umb_wall_path){"/proc/cpuinfo", UMB_WALL_READ};
#ifdef __SANITIZE_ADDRESS__
  /* LeakSanitizer lists this process's threads and maps at its exit: read only, and nothing beside them (the
   * sanitizer build's tests run walls.t's /proc/self/mem checks too). */
  p[n++] = (umb_wall_path){"/proc/self/task", UMB_WALL_READ};
  p[n++] = (umb_wall_path){"/proc/self/maps", UMB_WALL_READ};
#endif
  p[n++] = (umb_wall_path){c.cfg.tmpbase, rw};
  if (umb_wall_shm_is_private()) p[n++] = (umb_wall_path){"/dev/shm", rw};
  if (c.cfg.coverage) p[n++] = (umb_wall_path){c.cfg.coverage, rw};
  static const char *devs[] = {"/dev/null", "/dev/zero", "/dev/ptmx", "/dev/pts", "/dev/tty"};
  for (size_t i = 0; i < sizeof devs / sizeof devs[0]; i++) p[n++] = (umb_wall_path){devs[i], dev};
  return umb_wall_landlock(p, n, 0);
}

/* The result record, sent whole once the run is done: everything it started is gone by then. */
static void send_result(const umb_scen_result *res) {
  const umb_result *r = res->run;
  umb_buf b = {0};
  int rc = umb_rec_str(&b, "res", "verdict", umb_verdict_name(r->verdict));
  if (!rc) rc = umb_rec_num(&b, "res", "seconds", r->seconds);
  if (!rc) rc = umb_rec_str(&b, "res", "diag", r->diag);
  if (!rc) rc = umb_rec_str(&b, "res", "reason", r->reason);
  if (!rc) rc = umb_rec_str(&b, "res", "dir", r->dir);
  if (!rc) rc = umb_rec_str(&b, "res", "prints", res->prints);
  if (!rc) rc = umb_rec_str(&b, "res", "metrics", res->metrics);
  for (int i = 0; i < r->nboot && !rc; i++) rc = umb_rec_num(&b, "res", "boot", r->boot_ms[i]);
  if (!rc) rc = umb_rec_str(&b, "res", "coverage", r->coverage);
  if (!rc) rc = umb_rec_num(&b, "res", "cov_written", r->cov_written);
  if (!rc) rc = umb_rec_num(&b, "res", "cov_lost", r->cov_lost);
  if (!rc) rc = umb_buf_puts(&b, "res end -\n");
  if (rc == 0) rc = umb_link_write(b.data, b.len);
  /* Without its record the runner reports the run as one that ended without a verdict. */
  if (rc) fprintf(stderr, "umlbed: run process: cannot send the result: %s\n", strerror(-rc));
  umb_buf_free(&b);
}

static void on_done(umb_scen *sc, void *data) {
  (void)data;
  send_result(umb_scen_get_result(sc));
  umb_scen_free(sc);
  c.sc = NULL;
  for (int i = 0; i < 3; i++) uv_close((uv_handle_t *)&c.sig[i], NULL);
}

static void on_signal(uv_signal_t *s, int signum) {
  (void)s;
  (void)signum;
  if (c.sc) umb_scen_interrupt(c.sc);
}

/* libuv's handlers only reach the loop, which busy Lua code does not return to; this one, installed in front of
 * them, also tells the scenario's deadline hook (umb_stop_signal), and then calls libuv's. */
static struct sigaction uv_handlers[NSIG];

static void stop_handler(int sig, siginfo_t *si, void *uc) {
  umb_stop_signal = sig;
  struct sigaction *h = &uv_handlers[sig];
  if (h->sa_flags & SA_SIGINFO)
    h->sa_sigaction(sig, si, uc);
  else if (h->sa_handler != SIG_DFL && h->sa_handler != SIG_IGN)
    h->sa_handler(sig);
}

static void chain_stop_signal(int sig) {
  struct sigaction sa;
  if (sigaction(sig, NULL, &uv_handlers[sig])) return;
  memset(&sa, 0, sizeof sa);
  sa.sa_sigaction = stop_handler;
  sa.sa_flags = SA_SIGINFO | (uv_handlers[sig].sa_flags & SA_RESTART);
  sa.sa_mask = uv_handlers[sig].sa_mask;
  sigaction(sig, &sa, NULL);
}

static void free_config(void) {
  for (int i = 0; i < c.nstrs; i++) free(c.strs[i]);
  free(c.strs);
  free(c.ignore);
  free(c.params);
}

int umb_runchild_main(int argc, char **argv) {
  long long runner = 0;
  if (argc != 3 || umb_rec_int(argv[2], 2, 1 << 30, &runner)) {
    fprintf(stderr, "umlbed: __run is the runner's own way to start a run process\n");
    return 2;
  }
  /* The runner's death is this process's: its reaper then cleans up what this one started. The check after the
   * prctl closes the window in which the runner died before it. */
  prctl(PR_SET_PDEATHSIG, SIGKILL);
  if (getppid() != (pid_t)runner) return 2;
  /* The link was given to this process only: not to the kernels it starts. Whatever else it inherited (a
   * descriptor of the runner's parent that was not close-on-exec) is not the scenario's to reach through
   * /proc/self/fd. */
  if (fcntl(UMB_RUN_LINK_FD, F_SETFD, FD_CLOEXEC) < 0) return 2;
  close_range(UMB_RUN_LINK_FD + 1, ~0U, 0);
  int rc = read_config(UMB_RUN_LINK_FD);
  if (rc) {
    fprintf(stderr, "umlbed: run process: bad configuration from the runner: %s\n", strerror(-rc));
    free_config();
    return 2;
  }
  umb_link_attach(UMB_RUN_LINK_FD);
  /* The kernels' memory files go to a /dev/shm of this run's own, made before the domain below forbids mounts;
   * whether the kernels drop to another uid is known before it hides /proc/self/uid_map. */
  umb_wall_owner();
  umb_wall_private_shm(0);
  /* In a Landlock domain of its own, this process cannot open the runner's /proc files (its TAP stream's
   * descriptor), even as root, where the runner's PR_SET_DUMPABLE does not stop it; sandboxed, it also cannot open
   * its own /proc files (/proc/self/mem), nor write outside TMPDIR. */
  int wall = run_wall();
  if (wall < 0 && wall != -EOPNOTSUPP && wall != -ENOSYS)
    fprintf(stderr, "umlbed: run process: no Landlock domain: %s\n", strerror(-wall));
  /* Orphaned UML helper processes get reparented to this process, so it can reap and account for them. */
  prctl(PR_SET_CHILD_SUBREAPER, 1);
  signal(SIGPIPE, SIG_IGN);
  uv_loop_t *loop = uv_default_loop();
  static const int stops[3] = {SIGINT, SIGTERM, SIGHUP};
  for (int i = 0; i < 3; i++) {
    uv_signal_init(loop, &c.sig[i]);
    uv_signal_start(&c.sig[i], on_signal, stops[i]);
    chain_stop_signal(stops[i]);
  }
  c.sc = umb_scen_new(loop, &c.hcfg, c.file, c.name, c.combo, on_done, NULL);
  if (c.sc == NULL) {
    fprintf(stderr, "umlbed: run process: out of memory\n");
    free_config();
    return 2;
  }
  umb_scen_start(c.sc);
  uv_run(loop, UV_RUN_DEFAULT);
  rc = uv_loop_close(loop);
  if (rc) fprintf(stderr, "umlbed: run process: loop not closed cleanly: %s\n", uv_strerror(rc));
  free_config();
  return 0;
}

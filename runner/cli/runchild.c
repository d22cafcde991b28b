// SPDX-License-Identifier: MIT
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
#include "scenario.h"
#include "kns.h"
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

/* Where a string key of the record goes. */
static const char **str_field(int key) {
  umb_config *g = &c.cfg;
  switch (key) {
    case UMB_LK_CFG_kernel:
      return &g->kernel;
    case UMB_LK_CFG_probe_kernel:
      return &g->probe_kernel;
    case UMB_LK_CFG_agent:
      return &g->agent;
    case UMB_LK_CFG_tmpbase:
      return &g->tmpbase;
    case UMB_LK_CFG_dir:
      return &g->rundir;
    case UMB_LK_CFG_mem:
      return &g->mem;
    case UMB_LK_CFG_cmdline:
      return &g->cmdline;
    case UMB_LK_CFG_gdb_script:
      return &g->gdb_script;
    case UMB_LK_CFG_variant:
      return &g->variant;
    case UMB_LK_CFG_release:
      return &g->release;
    case UMB_LK_CFG_generation:
      return &g->generation;
    case UMB_LK_CFG_coverage:
      return &g->coverage;
    case UMB_LK_CFG_file:
      return (const char **)&c.file;
    case UMB_LK_CFG_name:
      return (const char **)&c.name;
  }
  return NULL;
}

/* A number key of the record (umb_link_parse checked its range). */
static void num_field(const umb_link_msg *m) {
  umb_config *g = &c.cfg;
  int i = (int)m->i;
  switch (m->key) {
    case UMB_LK_CFG_timeout:
      g->timeout_s = m->num;
      break;
    case UMB_LK_CFG_timeout_scale:
      g->timeout_scale = m->num;
      break;
    case UMB_LK_CFG_lpj:
      /* The runner keeps a calibration: this run uses it, or learns it when it is 0. */
      c.lpj.value = (unsigned long)m->i;
      g->lpj = &c.lpj;
      break;
    case UMB_LK_CFG_time_travel:
      g->time_travel = i;
      break;
    case UMB_LK_CFG_keep:
      g->keep = i;
      break;
    case UMB_LK_CFG_timeout_given:
      g->timeout_given = i;
      break;
    case UMB_LK_CFG_gdb_interactive:
      g->gdb_interactive = i;
      break;
    case UMB_LK_CFG_unsafe_lua:
      c.hcfg.unsafe_lua = i;
      break;
    case UMB_LK_CFG_lua_memory:
      c.hcfg.lua_memory = (size_t)m->i;
      break;
    case UMB_LK_CFG_gcov_strip:
      g->gcov_strip = i;
      break;
    case UMB_LK_CFG_runner_pid:
      g->runner_pid = i;
      break;
    case UMB_LK_CFG_fake_uml:
      g->fake_uml = i;
      break;
    case UMB_LK_CFG_combo:
      c.combo = i;
      break;
  }
}

/* One line of the configuration record (runproc.c writes it), read through the link's table. */
static int on_cfg_line(void *arg, char *line, size_t len, int toolong) {
  (void)arg;
  umb_link_msg m;
  if (toolong || umb_link_parse(line, len, UMB_LINK_IN, &m) || m.msg != UMB_LM_CFG) return -EINVAL;
  const char **field = str_field(m.key);
  if (m.key == UMB_LK_CFG_end)
    c.ended = 1;
  else if (m.key == UMB_LK_CFG_ignore)
    return list_add(&c.ignore, &c.nignore, m.val);
  else if (m.key == UMB_LK_CFG_param)
    return list_add(&c.params, &c.nparams, m.val);
  else if (field)
    return (*field = keep(m.val)) ? 0 : -ENOMEM;
  else
    num_field(&m);
  return 0;
}

/* Reads the configuration record up to its end line. The runner sends nothing more unasked, so nothing past it is
 * read. A run process needs its kernel, agent and folder; a describing process only the file. */
static int read_config(int fd, int run) {
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
  if (rc == 0 && (c.file == NULL || (run && (c.cfg.kernel == NULL || c.cfg.agent == NULL || c.cfg.tmpbase == NULL ||
                                             c.cfg.rundir == NULL || c.name == NULL))))
    rc = -EINVAL;
  c.cfg.ignore = (const char *const *)c.ignore;
  c.hcfg.params = (const char *const *)c.params;
  c.hcfg.core = &c.cfg;
  return rc;
}

/*
 * The run process's Landlock domain. A sandboxed scenario may read and execute the host's files but /proc's (no
 * /proc/self/mem to write code over its own functions; UML's /proc/cpuinfo excepted), and write only beneath its
 * run folder (the runner made it; os.tmpname's files go there), the run's own /dev/shm, the coverage folder and the
 * devices a kernel uses (the terminals only of the run's own devpts): not the rest of TMPDIR, where other runs'
 * folders, a pack and the runner's lock file are. Its kernels' walls nest inside this one. A describing process
 * (run is 0) writes nowhere but /dev/null. With --unsafe-lua or under gdb (which reads its inferior's /proc files),
 * the domain handles no file: it only keeps the runner's /proc files out of reach.
 */
static int lua_wall(int run) {
  if (c.hcfg.unsafe_lua || c.cfg.gdb_script) return umb_wall_landlock(NULL, -1, 0);
  umb_wall_path p[64];
  int n = 0;
  DIR *d = opendir("/");
  static char names[48][NAME_MAX + 2];
  for (struct dirent *e; d && (e = readdir(d)) != NULL && n < 48;) {
    if (e->d_name[0] == '.' || !strcmp(e->d_name, "proc")) continue;
    snprintf(names[n], sizeof names[n], "/%s", e->d_name);
    p[n] = (umb_wall_path){names[n], UMB_WALL_READ | UMB_WALL_EXEC, -1};
    n++;
  }
  if (d) closedir(d);
  const int rw = UMB_WALL_READ | UMB_WALL_WRITE, dev = rw | UMB_WALL_IOCTL;
  p[n++] = (umb_wall_path){"/proc/cpuinfo", UMB_WALL_READ, -1};
#ifdef __SANITIZE_ADDRESS__
  /* LeakSanitizer lists this process's threads and maps at its exit: read only, and nothing beside them (the
   * sanitizer build's tests run walls.t's /proc/self/mem checks too). */
  p[n++] = (umb_wall_path){"/proc/self/task", UMB_WALL_READ, -1};
  p[n++] = (umb_wall_path){"/proc/self/maps", UMB_WALL_READ, -1};
#endif
  p[n++] = (umb_wall_path){"/dev/null", dev, -1};
  p[n++] = (umb_wall_path){"/dev/zero", dev, -1};
  if (run) {
    int ns = umb_wall_ns();
    p[n++] = (umb_wall_path){c.cfg.rundir, rw, -1};
    /* The kernels' memory files: beneath the run folder in their own namespace (kns.h), else in this run's own
     * /dev/shm. */
    if (!umb_kns_active() && (ns & UMB_WALL_NS_SHM)) p[n++] = (umb_wall_path){"/dev/shm", rw, -1};
    if (c.cfg.coverage) p[n++] = (umb_wall_path){c.cfg.coverage, rw, -1};
    /* The run's own terminals (UML tests SIGIO on one): never the host's, where a user types. */
    if (ns & UMB_WALL_NS_PTS) {
      p[n++] = (umb_wall_path){"/dev/ptmx", dev, -1};
      p[n++] = (umb_wall_path){"/dev/pts", dev, -1};
    }
  }
  return umb_wall_landlock(p, n, 0);
}

/* Whether the Landlock domain lua_wall() returned is there, or may be missing: only --unsafe-lua runs scenario
 * code unwalled, on a host without Landlock, and says so. */
static int wall_refused(int wall) {
  if (wall >= 0) return 0;
  if (wall != -EOPNOTSUPP && wall != -ENOSYS) return 1;
  return !c.hcfg.unsafe_lua;
}

/* The result record, sent whole once the run is done: everything it started is gone by then. Its verdict went on
 * the "finishing" line (run.c), once; its folder is the runner's own. */
static void send_result(const umb_scen_result *res) {
  const umb_result *r = res->run;
  umb_buf b = {0};
  int rc = 0;
#define STR(k, v) rc |= umb_link_rec_str(&b, UMB_LM_RES, UMB_LK_RES_##k, (v))
#define NUM(k, v) rc |= umb_link_rec_num(&b, UMB_LM_RES, UMB_LK_RES_##k, (double)(v))
  NUM(seconds, r->seconds);
  STR(diag, r->diag);
  STR(reason, r->reason);
  STR(prints, res->prints);
  STR(metrics, res->metrics);
  for (int i = 0; i < r->nboot; i++) NUM(boot, r->boot_ms[i]);
  STR(coverage, r->coverage);
  NUM(cov_written, r->cov_written);
  NUM(cov_lost, r->cov_lost);
#undef STR
#undef NUM
  rc |= umb_link_rec_end(&b, UMB_LM_RES);
  rc = rc ? -ENOMEM : umb_link_write(b.data, b.len);
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

/* What both kinds of process do first: check who started them, keep only their link, read their configuration.
 * 0, or an exit status. */
static int child_start(int argc, char **argv, int run) {
  char *end;
  long runner = argc == 3 ? strtol(argv[2], &end, 10) : 0;
  if (argc != 3 || *end || runner < 2) {
    fprintf(stderr, "umlbed: %s is the runner's own way to start a process\n", argv[1]);
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
  /* Its own program again, for the walls it starts, opened before its Landlock domain hides /proc. */
  if (run && umb_wall_self_open()) return 2;
  int rc = read_config(UMB_RUN_LINK_FD, run);
  if (rc) {
    fprintf(stderr, "umlbed: %s: bad configuration from the runner: %s\n", argv[1], strerror(-rc));
    free_config();
    return 2;
  }
  return 0;
}

/* A run that may not start: its verdict and reason, as a run's would come. */
static void refuse_run(const char *msg) {
  umb_buf b = {0};
  int rc = umb_buf_printf(&b, "%s ERROR\n", umb_link_word(UMB_LM_FINISHING));
  rc |= umb_link_rec_str(&b, UMB_LM_RES, UMB_LK_RES_reason, msg);
  rc |= umb_link_rec_str(&b, UMB_LM_RES, UMB_LK_RES_diag, msg);
  rc |= umb_link_rec_end(&b, UMB_LM_RES);
  if (rc == 0) umb_link_write(b.data, b.len);
  umb_buf_free(&b);
}

#define NO_LANDLOCK_LUA                                 \
  "the wall around the scenario: " UMB_WALL_NO_LANDLOCK \
  ", and umlbed runs no sandboxed scenario without it " \
  "(--unsafe-lua runs it unwalled)"

int umb_describe_main(int argc, char **argv) {
  int rc = child_start(argc, argv, 0);
  if (rc) return rc;
  umb_buf b = {0};
  char *name = NULL, **combos = NULL, *err = NULL;
  int n = 0, wall = lua_wall(0);
  if (wall_refused(wall)) {
    rc = umb_link_rec_str(&b, UMB_LM_DESC, UMB_LK_DESC_err,
                          wall == -EOPNOTSUPP || wall == -ENOSYS ? NO_LANDLOCK_LUA : strerror(-wall));
  } else if (umb_scen_describe(c.file, &c.hcfg, &name, &combos, &n, &err)) {
    rc = umb_link_rec_str(&b, UMB_LM_DESC, UMB_LK_DESC_err, err ? err : "cannot load the scenario");
  } else {
    rc = umb_link_rec_str(&b, UMB_LM_DESC, UMB_LK_DESC_name, name);
    for (int i = 0; i < n; i++) rc |= umb_link_rec_str(&b, UMB_LM_DESC, UMB_LK_DESC_combo, combos[i]);
  }
  rc |= umb_link_rec_end(&b, UMB_LM_DESC);
  umb_link_attach(UMB_RUN_LINK_FD);
  if (rc == 0) rc = umb_link_write(b.data, b.len);
  for (int i = 0; i < n; i++) free(combos[i]);
  free(combos);
  free(name);
  free(err);
  umb_buf_free(&b);
  free_config();
  return rc ? 2 : 0;
}

int umb_runchild_main(int argc, char **argv) {
  int rc = child_start(argc, argv, 1);
  if (rc) return rc;
  umb_link_attach(UMB_RUN_LINK_FD);
  /* The kernels' memory files go to a /dev/shm of this run's own, made before the domain below forbids mounts;
   * whether the kernels drop to another uid is known before it hides /proc/self/uid_map. */
  umb_wall_owner();
  /* The kernels' own namespace, read-only but the run's folders (kns.h), where the run's own ones could be made. */
  const char *rw[] = {c.cfg.rundir, c.cfg.coverage};
  if (umb_wall_private_ns(0) == 0) umb_kns_start(rw, c.cfg.coverage ? 2 : 1);
  /* In a Landlock domain of its own, this process cannot open the runner's /proc files (its TAP stream's
   * descriptor), even as root, where the runner's PR_SET_DUMPABLE does not stop it; sandboxed, it also cannot open
   * its own /proc files (/proc/self/mem), nor write outside its run folder. */
  int wall = lua_wall(1);
  if (wall_refused(wall)) {
    if (wall == -EOPNOTSUPP || wall == -ENOSYS) {
      refuse_run(NO_LANDLOCK_LUA);
    } else {
      char msg[256];
      snprintf(msg, sizeof msg, "the wall around the scenario: Landlock: %s", strerror(-wall));
      refuse_run(msg);
    }
    umb_kns_stop();
    free_config();
    return 0;
  }
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
  umb_kns_stop();
  free_config();
  return 0;
}

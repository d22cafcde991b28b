/* describe.c: a scenario file's runs, listed by a forked process that the runner can kill at the load deadline. */
#include "describe.h"

#include <errno.h>
#include <poll.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/prctl.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#include "runproc.h"
#include "runrec.h"
#include "scenario.h"

/* In the forked process: describe, send the record (name, combo..., or err), exit. */
static void __attribute__((noreturn)) describe_child(int fd, const char *file, const umb_host_config *cfg) {
  char *name, **combos, *err;
  int n;
  umb_buf b = {0};
  int rc = umb_scen_describe(file, cfg, &name, &combos, &n, &err);
  if (rc) {
    umb_rec_str(&b, "desc", "err", err ? err : "cannot load the scenario");
  } else {
    umb_rec_str(&b, "desc", "name", name);
    for (int i = 0; i < n; i++) umb_rec_str(&b, "desc", "combo", combos[i]);
  }
  umb_buf_puts(&b, "desc end -\n");
  for (size_t off = 0; b.data && off < b.len;) {
    ssize_t w = write(fd, b.data + off, b.len - off);
    if (w < 0 && errno == EINTR) continue;
    if (w <= 0) break;
    off += (size_t)w;
  }
  _exit(0);
}

typedef struct desc {
  char *name, *err;
  char **combos;
  int n, ended;
} desc;

static int on_desc_line(void *arg, char *line, size_t len, int toolong) {
  desc *d = arg;
  char *k, *v;
  size_t vn;
  if (toolong || umb_rec_parse(line, len, "desc", &k, &v, &vn)) return -EINVAL;
  if (!strcmp(k, "end")) {
    d->ended = 1;
  } else if (!strcmp(k, "name") && d->name == NULL) {
    d->name = strdup(v);
  } else if (!strcmp(k, "err") && d->err == NULL) {
    d->err = strdup(v);
  } else if (!strcmp(k, "combo")) {
    char **c = realloc(d->combos, sizeof(char *) * (size_t)(d->n + 1));
    if (c == NULL) return -ENOMEM;
    d->combos = c;
    if ((c[d->n] = strdup(v)) == NULL) return -ENOMEM;
    d->n++;
  } else {
    return -EINVAL;
  }
  return 0;
}

volatile sig_atomic_t umb_describe_stopped;

void umb_describe_stop_handler(int sig) { umb_describe_stopped = sig; }

static double now_s(void) {
  struct timespec t;
  clock_gettime(CLOCK_MONOTONIC, &t);
  return (double)t.tv_sec + (double)t.tv_nsec / 1e9;
}

int umb_describe_isolated(const char *file, const umb_host_config *hc, char **name, char ***combos, int *ncombos,
                          char **err) {
  const umb_config *cfg = hc->core;
  *name = NULL;
  *combos = NULL;
  *ncombos = 0;
  *err = NULL;
  int p[2];
  if (pipe2(p, O_CLOEXEC)) return -errno;
  pid_t runner = getpid();
  pid_t pid = fork();
  if (pid < 0) {
    int e = -errno;
    close(p[0]);
    close(p[1]);
    return e;
  }
  if (pid == 0) {
    close(p[0]);
    prctl(PR_SET_PDEATHSIG, SIGKILL);
    if (getppid() != runner) _exit(1);
    describe_child(p[1], file, hc);
  }
  close(p[1]);
  double scale = cfg->timeout_scale > 0 ? cfg->timeout_scale : 1;
  double deadline = cfg->timeout_s > 0 ? now_s() + cfg->timeout_s + UMB_RUNPROC_MARGIN_S * scale : 0;
  desc d = {0};
  umb_lines l = {.max = 64u << 20};
  char buf[65536];
  int late = 0, bad = 0;
  for (;;) {
    if (umb_describe_stopped) break;
    int wait_ms = -1;
    if (deadline) {
      double left = deadline - now_s();
      if (left <= 0) {
        late = 1;
        break;
      }
      wait_ms = (int)(left * 1000) + 1;
    }
    struct pollfd pf = {.fd = p[0], .events = POLLIN};
    int r = poll(&pf, 1, wait_ms);
    if (r < 0 && errno == EINTR) continue;
    if (r == 0) continue;
    ssize_t n = read(p[0], buf, sizeof buf);
    if (n < 0 && errno == EINTR) continue;
    if (n <= 0) break;
    if (umb_lines_feed(&l, buf, (size_t)n, on_desc_line, &d)) {
      bad = 1;
      break;
    }
  }
  close(p[0]);
  if (late || bad || umb_describe_stopped) kill(pid, SIGKILL);
  int st = 0;
  while (waitpid(pid, &st, 0) < 0 && errno == EINTR) {
  }
  umb_lines_free(&l);
  if (umb_describe_stopped && !d.ended) {
    free(d.err);
    free(d.name);
    for (int i = 0; i < d.n; i++) free(d.combos[i]);
    free(d.combos);
    return -EINTR;
  }
  char msg[1024] = "";
  if (late)
    snprintf(msg, sizeof msg,
             "%s: loading it took longer than its deadline of %.1f s, and its code did not return to Lua's control "
             "(a loop that catches errors, or a long C call): the process loading it was killed",
             file, cfg->timeout_s);
  else if (!d.ended && WIFSIGNALED(st))
    snprintf(msg, sizeof msg, "%s: the process loading it died of signal %d (%s)", file, WTERMSIG(st),
             strsignal(WTERMSIG(st)));
  else if (!d.ended || bad || (d.err == NULL && d.name == NULL))
    snprintf(msg, sizeof msg, "%s: the process loading it ended without a description", file);
  if (msg[0] || d.err) {
    *err = msg[0] ? strdup(msg) : d.err;
    if (msg[0]) free(d.err);
    free(d.name);
    for (int i = 0; i < d.n; i++) free(d.combos[i]);
    free(d.combos);
    return -EINVAL;
  }
  *name = d.name;
  *combos = d.combos;
  *ncombos = d.n;
  return 0;
}

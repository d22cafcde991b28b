// SPDX-License-Identifier: MIT
/* describe.c: a scenario file's runs, listed by a walled process (__describe's code) the runner kills at the load deadline. */
#include "describe.h"
#include "reaper.h"

#include <errno.h>
#include <fcntl.h>
#include <poll.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#include "runchild.h"
#include "runlink.h"
#include "runproc.h"
#include "scenario.h"

typedef struct desc {
  char *name, *err;
  char **combos;
  int n, ended;
} desc;

/* One line of the describing process's record, read through the link's table. */
static int on_desc_line(void *arg, char *line, size_t len, int toolong) {
  desc *d = arg;
  umb_link_msg m;
  if (toolong || umb_link_parse(line, len, UMB_LINK_DESC, &m) || d->ended) return -EINVAL;
  if (m.key == UMB_LK_DESC_end) {
    d->ended = 1;
  } else if (m.key == UMB_LK_DESC_name && d->name == NULL) {
    d->name = strdup(m.val);
  } else if (m.key == UMB_LK_DESC_err && d->err == NULL) {
    d->err = strdup(m.val);
  } else if (m.key == UMB_LK_DESC_combo) {
    char **c = realloc(d->combos, sizeof(char *) * (size_t)(d->n + 1));
    if (c == NULL) return -ENOMEM;
    d->combos = c;
    if ((c[d->n] = strdup(m.val)) == NULL) return -ENOMEM;
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

/* Forks the describing process (umlbed __describe's code, without its exec: the runner has no thread and no Lua
 * state yet, and an exec of a fresh image cost more than the description itself) with the runner's stderr and the
 * link as descriptor 3, nothing else (its input and output are /dev/null: not the runner's TAP stream); its walls
 * go up as __describe's do, before the file's first line runs. Then sends it its configuration. */
static int spawn_describer(const int link[2], const umb_host_config *hc, const char *file, pid_t *pid) {
  char runner[24];
  snprintf(runner, sizeof runner, "%d", (int)getpid());
  fflush(NULL);
  *pid = fork();
  if (*pid < 0) return -errno;
  if (*pid == 0) {
    /* Above the standard descriptors first: the runner may have been started with one of them closed. */
    int l = fcntl(link[1], F_DUPFD, UMB_RUN_LINK_FD + 1), null = open("/dev/null", O_RDWR);
    if (l < 0 || null < 0 || dup2(null, 0) < 0 || dup2(null, 1) < 0 || dup2(l, UMB_RUN_LINK_FD) < 0) _exit(2);
    umb_signals_default();
    char *args[] = {"umlbed", "__describe", runner, NULL};
    _exit(umb_describe_main(3, args));
  }
  umb_buf b = {0};
  int rc = umb_runproc_config(&b, hc, file, NULL, 0, NULL);
  for (size_t off = 0; rc == 0 && off < b.len;) {
    ssize_t w = write(link[0], b.data + off, b.len - off);
    if (w < 0 && errno == EINTR) continue;
    if (w <= 0) break;
    off += (size_t)w;
  }
  umb_buf_free(&b);
  return 0;
}

int umb_describe_isolated(const char *file, const umb_host_config *hc, char **name, char ***combos, int *ncombos,
                          char **err) {
  const umb_config *cfg = hc->core;
  *name = NULL;
  *combos = NULL;
  *ncombos = 0;
  *err = NULL;
  int p[2];
  pid_t pid;
  if (socketpair(AF_UNIX, SOCK_STREAM | SOCK_CLOEXEC, 0, p)) return -errno;
  int rc = spawn_describer(p, hc, file, &pid);
  if (rc) {
    close(p[0]);
    close(p[1]);
    return rc;
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

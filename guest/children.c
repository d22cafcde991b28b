// SPDX-License-Identifier: MIT
/* children.c: PID 1's children: the worker table, requests pending per worker, adoption, reaping, the helper. */
#include "pid1.h"

#include <errno.h>
#include <fcntl.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>
#include <sys/wait.h>
#include <unistd.h>

#define ORPHANS_MAX 256

struct worker **workers;
size_t nworkers;
static size_t workers_cap;
size_t outstanding;
int chld_pipe[2] = {-1, -1};
static struct {
  pid_t pid;
  int status;
} orphans[ORPHANS_MAX];
static size_t norphans, orphan_next;

/* ---- the worker table ---- */

struct worker *find_key(pid_t key) {
  for (size_t i = 0; i < nworkers; i++)
    if (workers[i]->key == key) return workers[i];
  return NULL;
}

static struct worker *find_pid(pid_t pid) {
  for (size_t i = 0; i < nworkers; i++)
    if (workers[i]->pid == pid) return workers[i];
  return NULL;
}

static struct worker *add_worker(pid_t pid, pid_t key, int fd) {
  if (nworkers == workers_cap) {
    size_t cap = workers_cap ? workers_cap * 2 : 16;
    struct worker **p = realloc(workers, cap * sizeof *p);
    if (!p) return NULL;
    workers = p;
    workers_cap = cap;
  }
  struct worker *w = calloc(1, sizeof *w);
  if (!w) return NULL;
  w->pid = pid;
  w->key = key;
  w->fd = fd;
  workers[nworkers++] = w;
  return w;
}

void free_worker(struct worker *w) {
  for (size_t i = 0; i < nworkers; i++) {
    if (workers[i] == w) {
      workers[i] = workers[--nworkers];
      break;
    }
  }
  if (w->fd >= 0) close(w->fd);
  for (size_t i = 0; i < w->nrfds; i++) close(w->rfds[i]);
  outstanding -= w->qlen;
  free(w->rfds);
  free(w->q);
  umb_q_free(&w->in);
  umb_q_free(&w->out);
  free(w);
}

bool id_outstanding(uint64_t id) {
  for (size_t i = 0; i < nworkers; i++) {
    struct worker *w = workers[i];
    for (size_t j = 0; j < w->qlen; j++)
      if (w->q[(w->qhead + j) % w->qcap].id == id) return true;
  }
  return false;
}

int push_pending(struct worker *w, uint64_t id, umb_field verb) {
  if (w->qlen == w->qcap) {
    size_t cap = w->qcap ? w->qcap * 2 : 8;
    struct pending *q = malloc(cap * sizeof *q);
    if (!q) return -ENOMEM;
    for (size_t j = 0; j < w->qlen; j++) q[j] = w->q[(w->qhead + j) % w->qcap];
    free(w->q);
    w->q = q;
    w->qcap = cap;
    w->qhead = 0;
  }
  struct pending *p = &w->q[(w->qhead + w->qlen) % w->qcap];
  p->id = id;
  snprintf(p->verb, sizeof p->verb, "%.*s", (int)verb.n, verb.p);
  w->qlen++;
  outstanding++;
  return 0;
}

/* Removes the pending request id (normally the oldest one: a worker answers in order); returns it or NULL. */
static bool pop_pending(struct worker *w, uint64_t id, struct pending *out) {
  for (size_t j = 0; j < w->qlen; j++) {
    size_t at = (w->qhead + j) % w->qcap;
    if (w->q[at].id != id) continue;
    *out = w->q[at];
    for (size_t k = j; k > 0; k--) w->q[(w->qhead + k) % w->qcap] = w->q[(w->qhead + k - 1) % w->qcap];
    w->qhead = (w->qhead + 1) % w->qcap;
    w->qlen--;
    outstanding--;
    return true;
  }
  return false;
}

/* ---- workers ---- */

static void __attribute__((noreturn)) become_worker(int chan) {
  /* Keep only the console (0-2) and the channel; everything else of PID 1 stays with PID 1. */
  if (chan > 3) close_range(3, (unsigned)chan - 1, 0);
  close_range((unsigned)chan + 1, ~0U, 0);
  if (stdio_mode) {
    /* The runner's pipes must see EOF when the agent ends, whatever its workers do. */
    int null = open("/dev/null", O_RDWR);
    if (null >= 0) {
      dup2(null, 0);
      dup2(null, 1);
      if (null > 2) close(null);
    }
  }
  umb_worker_main(chan, UMB_ROLE_AGENT);
}

/* Starts the helper that executes requests addressed to PID 1, so that PID 1 itself never blocks on one. */
int spawn_helper(void) {
  int sp[2];
  if (socketpair(AF_UNIX, SOCK_STREAM | SOCK_CLOEXEC, 0, sp) < 0) return -errno;
  pid_t pid = fork();
  if (pid < 0) {
    int e = -errno;
    close(sp[0]);
    close(sp[1]);
    return e;
  }
  if (pid == 0) {
    close(sp[0]);
    become_worker(sp[1]);
  }
  close(sp[1]);
  set_nonblock(sp[0]);
  if (!add_worker(pid, 1, sp[0])) {
    kill(pid, SIGKILL);
    close(sp[0]);
    return -ENOMEM;
  }
  return 0;
}

void flush_worker(struct worker *w) {
  while (w->fd >= 0 && !w->eof && umb_q_size(&w->out) > 0) {
    ssize_t n = send(w->fd, umb_q_data(&w->out), umb_q_size(&w->out), MSG_DONTWAIT | MSG_NOSIGNAL);
    if (n < 0 && errno == EINTR) continue;
    if (n < 0) {
      /* EAGAIN waits for POLLOUT; EPIPE means the worker is dying and its reap will answer. */
      if (errno != EAGAIN) umb_q_clear(&w->out);
      return;
    }
    umb_q_consume(&w->out, (size_t)n);
  }
}

static void finalize(struct worker *w, int status);

static void adopt(struct worker *parent, const char *line, size_t len) {
  umb_field t = {line + 7, len - 7};
  uint64_t pid;
  if (len <= 7 || umb_field_num(t, &pid) < 0 || pid < 2 || pid > INT32_MAX || parent->nrfds == 0) {
    logmsg("umlbed-agent: worker %d sent a bad adopt line", (int)parent->pid);
    return;
  }
  int fd = parent->rfds[0];
  memmove(parent->rfds, parent->rfds + 1, --parent->nrfds * sizeof(int));
  set_nonblock(fd);
  struct worker *w = add_worker((pid_t)pid, (pid_t)pid, fd);
  if (!w) {
    logmsg("umlbed-agent: out of memory adopting worker %d", (int)pid);
    kill((pid_t)pid, SIGKILL);
    close(fd);
    return;
  }
  /* It may have died before this line was read; its status then waits among the orphans. */
  for (size_t i = 0; i < norphans; i++) {
    if (orphans[i].pid == (pid_t)pid) {
      int st = orphans[i].status;
      orphans[i] = orphans[--norphans];
      finalize(w, st);
      return;
    }
  }
}

static void worker_lines(struct worker *w) {
  char *nl;
  while ((nl = memchr(umb_q_data(&w->in) + w->scanned, '\n', umb_q_size(&w->in) - w->scanned))) {
    char *line = umb_q_data(&w->in);
    size_t len = (size_t)(nl - line);
    if (len >= 7 && memcmp(line, "~adopt ", 7) == 0) {
      adopt(w, line, len);
    } else if (line[0] == '~') {
      logmsg("umlbed-agent: worker %d sent an unknown internal line", (int)w->pid);
    } else {
      umb_field f[3];
      uint64_t id = 0;
      struct pending p;
      int n = umb_split(line, len, f, 3);
      if (n == -E2BIG) n = 3;
      if (n < 1 || umb_field_num(f[0], &id) < 0 || !pop_pending(w, id, &p)) {
        /* Workers answer in order: keep the count right even if the ID got lost. */
        logmsg("umlbed-agent: worker %d answered no request of its", (int)w->pid);
        if (w->qlen > 0) pop_pending(w, w->q[w->qhead].id, &p);
      } else {
        out_add(line, len + 1);
        if (strcmp(p.verb, "poweroff") == 0 && n == 3 && umb_field_eq(f[2], "ok")) shutting_down = true;
      }
    }
    umb_q_consume(&w->in, len + 1);
    w->scanned = 0;
  }
  w->scanned = umb_q_size(&w->in);
  if (w->scanned > UMB_LINE_MAX + READ_CHUNK) {
    logmsg("umlbed-agent: worker %d sent an overlong line; killing it", (int)w->pid);
    kill(w->pid, SIGKILL);
    umb_q_clear(&w->in);
    w->scanned = 0;
  }
}

/*
 * gcc 12's -fanalyzer starts at every function with external linkage, here with the worker table unknown, and then
 * loses the store of the realloc below into w->rfds: it reports a leak that cannot happen (a failed realloc leaves
 * the old block in w->rfds, which free_worker frees). Only this function is exempt from its leak check.
 */
#if defined(__GNUC__) && !defined(__clang__)
#pragma GCC diagnostic push
#pragma GCC diagnostic ignored "-Wanalyzer-malloc-leak"
#endif
/* Reads what the worker has sent (at most limit bytes), with any channels attached; returns bytes read. */
size_t read_worker(struct worker *w, size_t limit) {
  size_t total = 0;
  while (w->fd >= 0 && !w->eof && total < limit) {
    if (umb_q_reserve(&w->in, READ_CHUNK) < 0) break;
    union {
      char buf[CMSG_SPACE(sizeof(int) * 253)];
      struct cmsghdr align;
    } u;
    struct iovec iov = {.iov_base = w->in.b.data + w->in.b.len, .iov_len = READ_CHUNK};
    struct msghdr mh = {.msg_iov = &iov, .msg_iovlen = 1, .msg_control = u.buf, .msg_controllen = sizeof u.buf};
    ssize_t n = recvmsg(w->fd, &mh, MSG_DONTWAIT | MSG_CMSG_CLOEXEC);
    if (n < 0 && errno == EINTR) continue;
    if (n < 0 && errno == EAGAIN) break;
    for (struct cmsghdr *c = CMSG_FIRSTHDR(&mh); n >= 0 && c; c = CMSG_NXTHDR(&mh, c)) {
      if (c->cmsg_level != SOL_SOCKET || c->cmsg_type != SCM_RIGHTS) continue;
      size_t k = (c->cmsg_len - CMSG_LEN(0)) / sizeof(int);
      int *fds = realloc(w->rfds, (w->nrfds + k) * sizeof(int));
      for (size_t i = 0; i < k; i++) {
        int fd;
        memcpy(&fd, CMSG_DATA(c) + i * sizeof(int), sizeof fd);
        if (fds)
          fds[w->nrfds++] = fd;
        else
          close(fd);
      }
      if (fds) w->rfds = fds;
    }
    if (n <= 0) {
      w->eof = true;
      break;
    }
    w->in.b.len += (size_t)n;
    total += (size_t)n;
    worker_lines(w);
  }
  return total;
}
#if defined(__GNUC__) && !defined(__clang__)
#pragma GCC diagnostic pop
#endif

static void status_text(char *buf, size_t n, int st) {
  if (WIFSIGNALED(st))
    snprintf(buf, n, "signal:%d", WTERMSIG(st));
  else
    snprintf(buf, n, "exit:%d", WEXITSTATUS(st));
}

/* A worker was reaped: forward what it still said, fail what it left unanswered, report its end. */
static void finalize(struct worker *w, int status) {
  if (w->fd >= 0) read_worker(w, SIZE_MAX);
  char msg[64], st[32];
  snprintf(msg, sizeof msg, "worker %d ended", (int)w->pid);
  while (w->qlen > 0) {
    struct pending p = w->q[w->qhead];
    w->qhead = (w->qhead + 1) % w->qcap;
    w->qlen--;
    outstanding--;
    emit_err(p.id, p.verb, "ECHILD", msg);
  }
  status_text(st, sizeof st, status);
  bool helper = w->key == 1;
  if (helper) {
    logmsg("umlbed-agent: the PID 1 helper %d ended (%s); starting another", (int)w->pid, st);
  } else {
    char ev[96];
    int n = snprintf(ev, sizeof ev, "0 exited ok %d %s\n", (int)w->pid, st);
    out_add(ev, (size_t)n);
  }
  free_worker(w);
  if (helper && !shutting_down) {
    int e = spawn_helper();
    if (e < 0) logmsg("umlbed-agent: cannot start a PID 1 helper: %s", strerror(-e));
  }
}

void on_sigchld(int sig) {
  (void)sig;
  int saved = errno;
  (void)!write(chld_pipe[1], "", 1);
  errno = saved;
}

void reap(void) {
  char drain[64];
  while (read(chld_pipe[0], drain, sizeof drain) > 0)
    ;
  for (;;) {
    int st;
    pid_t pid = waitpid(-1, &st, WNOHANG);
    if (pid <= 0) break;
    struct worker *w = find_pid(pid);
    if (w) {
      finalize(w, st);
    } else {
      /* Not (yet) known: a worker whose "~adopt" is still unread, or an orphaned grandchild. */
      if (norphans < ORPHANS_MAX) {
        orphans[norphans].pid = pid;
        orphans[norphans++].status = st;
      } else {
        orphans[orphan_next].pid = pid;
        orphans[orphan_next].status = st;
        orphan_next = (orphan_next + 1) % ORPHANS_MAX;
      }
    }
  }
}

/* main.c: the guest agent's PID 1: boot-time mounts, the serial line, and the poll loop routing requests to workers. */
#include "agent.h"

#include <errno.h>
#include <fcntl.h>
#include <poll.h>
#include <limits.h>
#include <signal.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mount.h>
#include <sys/reboot.h>
#include <sys/socket.h>
#include <sys/stat.h>
#include <sys/utsname.h>
#include <sys/wait.h>
#include <termios.h>
#include <time.h>
#include <unistd.h>

#define SERIAL_PATH "/dev/ttyS0"
#define FAULT_AROUND_PATH "/sys/kernel/debug/fault_around_bytes"
#define FAULT_AROUND_OPT "umlbed.fault_around_bytes="

/* Above this much unsent output, the agent stops reading anything until the runner catches up. */
#define OUTQ_HIGH ((size_t)8 << 20)
/* Requests queued to one worker that has not read them yet; beyond it a request gets EAGAIN. */
#define WORKER_QUEUE_MAX ((size_t)8 << 20)
/* Requests outstanding over all workers; beyond it a request gets EAGAIN. */
#define OUTSTANDING_MAX 4096
#define READ_CHUNK 65536
#define ORPHANS_MAX 256

/* A request sent to a worker and not answered yet, kept so that a dead worker's requests get ECHILD. */
struct pending {
  uint64_t id;
  char verb[16];
};

/* A worker as PID 1 sees it: its channel, its queues and its unanswered requests. */
struct worker {
  pid_t pid; /* The real pid. */
  pid_t key; /* The protocol's pid: 1 for the helper that executes PID 1's requests. */
  int fd;    /* The channel; -1 once closed. */
  bool eof;  /* The channel reached EOF: the worker is dying, its reap is pending. */
  struct umb_queue in, out;
  size_t scanned; /* Bytes of in known to hold no newline. */
  struct pending *q;
  size_t qhead, qlen, qcap;
  int *rfds; /* Channels received by SCM_RIGHTS, not yet claimed by an "~adopt" line. */
  size_t nrfds;
};

static struct worker **workers;
static size_t nworkers, workers_cap;
static size_t outstanding;
static struct umb_queue ser_in, ser_out;
static size_t ser_in_scanned;
static bool ser_in_discard;
static int in_fd = -1, out_fd = -1;
/* SIGCHLD wakes the poll loop through this pipe (UML test kernels are built without signalfd). */
static int chld_pipe[2] = {-1, -1};
static bool stdio_mode, shutting_down, input_closed;
static struct {
  pid_t pid;
  int status;
} orphans[ORPHANS_MAX];
static size_t norphans, orphan_next;

static void logmsg(const char *fmt, ...) __attribute__((format(printf, 1, 2)));
static void logmsg(const char *fmt, ...) {
  char buf[512];
  va_list ap;
  va_start(ap, fmt);
  int n = vsnprintf(buf, sizeof buf - 1, fmt, ap);
  va_end(ap);
  if (n < 0) return;
  if ((size_t)n > sizeof buf - 2) n = (int)sizeof buf - 2;
  buf[n++] = '\n';
  (void)!write(2, buf, (size_t)n);
}

static void out_add(const void *p, size_t n) {
  if (umb_q_append(&ser_out, p, n) < 0)
    logmsg("umlbed-agent: out of memory: a %zu-byte message to the runner is lost", n);
}

static void emit_err(uint64_t id, const char *verb, const char *ename, const char *msg) {
  umb_buf b = {0};
  umb_buf_printf(&b, "%lu %s err %s ", (unsigned long)id, verb, ename);
  umb_pct_encode(&b, msg, strlen(msg));
  umb_buf_append(&b, "\n", 1);
  if (b.data) out_add(b.data, b.len);
  umb_buf_free(&b);
}

static int set_nonblock(int fd) {
  int fl = fcntl(fd, F_GETFL);
  if (fl < 0 || fcntl(fd, F_SETFL, fl | O_NONBLOCK) < 0) return -errno;
  return 0;
}

/* ---- the worker table ---- */

static struct worker *find_key(pid_t key) {
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

static void free_worker(struct worker *w) {
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

static bool id_outstanding(uint64_t id) {
  for (size_t i = 0; i < nworkers; i++) {
    struct worker *w = workers[i];
    for (size_t j = 0; j < w->qlen; j++)
      if (w->q[(w->qhead + j) % w->qcap].id == id) return true;
  }
  return false;
}

static int push_pending(struct worker *w, uint64_t id, umb_field verb) {
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
static int spawn_helper(void) {
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

static void flush_worker(struct worker *w) {
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

/* Reads what the worker has sent (at most limit bytes), with any channels attached; returns bytes read. */
static size_t read_worker(struct worker *w, size_t limit) {
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

static void on_sigchld(int sig) {
  (void)sig;
  int saved = errno;
  (void)!write(chld_pipe[1], "", 1);
  errno = saved;
}

static void reap(void) {
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

/* ---- requests from the runner ---- */

/*
 * Takes the first three fields (ID PID VERB) without splitting the rest of a possibly long line. Returns how many
 * fields it found (at most 3); *bad is set when one of them, or the rest of the line, has an empty field.
 */
static int head_fields(const char *line, size_t len, umb_field f[3], bool *bad) {
  size_t at = 0;
  int n = 0;
  *bad = len == 0;
  while (n < 3 && at < len) {
    const char *sp = memchr(line + at, ' ', len - at);
    size_t end = sp ? (size_t)(sp - line) : len;
    if (end == at) {
      *bad = true;
      return n;
    }
    f[n].p = line + at;
    f[n++].n = end - at;
    if (!sp) return n;
    at = end + 1;
  }
  /* The worker rejects an empty field anywhere; catching it here keeps the reply's ID and verb right. */
  if (at >= len || memmem(line + at - 1, len - at + 1, "  ", 2) || line[len - 1] == ' ') *bad = true;
  return n;
}

static void route(const char *line, size_t len) {
  umb_field f[3];
  uint64_t id = 0, pid;
  bool bad;
  int n = head_fields(line, len, f, &bad);
  bool id_ok = n >= 1 && umb_field_id(f[0], &id) == 0;
  if (!id_ok) id = 0;
  char verb[40] = "error";
  if (n >= 3 && umb_verb_name_ok(f[2].p, f[2].n)) snprintf(verb, sizeof verb, "%.*s", (int)f[2].n, f[2].p);
  if (bad) {
    emit_err(id, verb, "EINVAL", len ? "empty field" : "empty line");
    return;
  }
  if (!id_ok) {
    emit_err(0, verb, "EINVAL", "bad request ID");
    return;
  }
  if (n < 3) {
    emit_err(id, verb, "EINVAL", "expected ID PID VERB ARG...");
    return;
  }
  if (umb_field_num(f[1], &pid) < 0 || pid == 0 || pid > UMB_PID_MAX) {
    emit_err(id, verb, "EINVAL", "bad PID");
    return;
  }
  if (!umb_verb_find(f[2].p, f[2].n)) {
    emit_err(id, verb, "ENOSYS", "unknown verb");
    return;
  }
  struct worker *w = find_key((pid_t)pid);
  if (!w) {
    emit_err(id, verb, "ESRCH", "no such worker");
    return;
  }
  if (w->eof || w->fd < 0) {
    emit_err(id, verb, "ECHILD", "the worker is ending");
    return;
  }
  if (id_outstanding(id)) {
    emit_err(id, verb, "EBUSY", "a request with this ID is outstanding");
    return;
  }
  if (outstanding >= OUTSTANDING_MAX || umb_q_size(&w->out) + len + 1 > WORKER_QUEUE_MAX) {
    emit_err(id, verb, "EAGAIN", "too many requests queued");
    return;
  }
  if (umb_q_reserve(&w->out, len + 1) < 0 || push_pending(w, id, f[2]) < 0) {
    emit_err(id, verb, "ENOMEM", "out of memory");
    return;
  }
  umb_q_append(&w->out, line, len);
  umb_q_append(&w->out, "\n", 1);
  flush_worker(w);
}

static void serial_lines(void) {
  while (umb_q_size(&ser_out) < OUTQ_HIGH && umb_q_size(&ser_in) > 0) {
    char *data = umb_q_data(&ser_in);
    size_t size = umb_q_size(&ser_in);
    char *nl = memchr(data + ser_in_scanned, '\n', size - ser_in_scanned);
    if (ser_in_discard) {
      if (!nl) {
        umb_q_clear(&ser_in);
        ser_in_scanned = 0;
        return;
      }
      umb_q_consume(&ser_in, (size_t)(nl - data) + 1);
      ser_in_scanned = 0;
      ser_in_discard = false;
      continue;
    }
    if (!nl) {
      ser_in_scanned = size;
      if (size >= UMB_LINE_MAX) {
        emit_err(0, "error", "E2BIG", "line longer than 4 MiB");
        umb_q_clear(&ser_in);
        ser_in_scanned = 0;
        ser_in_discard = true;
      }
      return;
    }
    size_t len = (size_t)(nl - data);
    if (len + 1 > UMB_LINE_MAX)
      emit_err(0, "error", "E2BIG", "line longer than 4 MiB");
    else
      route(data, len);
    umb_q_consume(&ser_in, len + 1);
    ser_in_scanned = 0;
  }
}

/* Returns false once the runner's side is gone. */
static bool read_serial(void) {
  for (int i = 0; i < 16 && umb_q_size(&ser_out) < OUTQ_HIGH; i++) {
    if (umb_q_reserve(&ser_in, READ_CHUNK) < 0) return true;
    ssize_t n = read(in_fd, ser_in.b.data + ser_in.b.len, READ_CHUNK);
    if (n < 0 && errno == EINTR) continue;
    if (n < 0 && errno == EAGAIN) return true;
    if (n <= 0) return false;
    ser_in.b.len += (size_t)n;
    serial_lines();
  }
  return true;
}

static void flush_serial(void) {
  while (umb_q_size(&ser_out) > 0) {
    ssize_t n = write(out_fd, umb_q_data(&ser_out), umb_q_size(&ser_out));
    if (n < 0 && errno == EINTR) continue;
    if (n < 0) {
      if (errno != EAGAIN) {
        logmsg("umlbed-agent: write to the runner: %s", strerror(errno));
        umb_q_clear(&ser_out);
      }
      return;
    }
    umb_q_consume(&ser_out, (size_t)n);
  }
}

/* Sends what is queued for the runner, waiting at most a few seconds for it to read. */
static void drain_serial(void) {
  struct timespec t0, t;
  clock_gettime(CLOCK_MONOTONIC, &t0);
  while (umb_q_size(&ser_out) > 0) {
    flush_serial();
    clock_gettime(CLOCK_MONOTONIC, &t);
    if (umb_q_size(&ser_out) == 0 || t.tv_sec - t0.tv_sec > 5) break;
    struct pollfd p = {.fd = out_fd, .events = POLLOUT};
    poll(&p, 1, 100);
  }
  if (!stdio_mode) tcdrain(out_fd);
}

static void __attribute__((noreturn)) shutdown_agent(const char *why) {
  shutting_down = true;
  drain_serial();
  if (!stdio_mode) {
    printf("umlbed-agent: %s; powering off\n", why);
    fflush(stdout);
    sync();
    reboot(RB_POWER_OFF);
    logmsg("umlbed-agent: reboot: %s", strerror(errno));
    for (;;) pause();
  }
  /* On the host, end every worker and free everything so that valgrind sees a clean exit. */
  for (size_t i = 0; i < nworkers; i++) kill(workers[i]->pid, SIGKILL);
  while (nworkers > 0) {
    struct worker *w = workers[nworkers - 1];
    while (waitpid(w->pid, NULL, 0) < 0 && errno == EINTR)
      ;
    w->qlen = 0;
    outstanding = 0;
    free_worker(w);
  }
  free(workers);
  umb_q_free(&ser_in);
  umb_q_free(&ser_out);
  close(chld_pipe[0]);
  close(chld_pipe[1]);
  exit(0);
}

/* ---- boot ---- */

static void ensure_dir(const char *path) {
  if (mkdir(path, 0755) < 0 && errno != EEXIST) logmsg("umlbed-agent: mkdir %s: %s", path, strerror(errno));
}

static bool is_mountpoint(const char *path) {
  struct stat a, b;
  char parent[256];
  snprintf(parent, sizeof parent, "%s/..", path);
  return stat(path, &a) == 0 && stat(parent, &b) == 0 && a.st_dev != b.st_dev;
}

static void mount_fs(const char *type, const char *path, bool create) {
  if (create) ensure_dir(path);
  if (is_mountpoint(path)) return;
  if (mount(type, path, type, MS_NOSUID, NULL) < 0)
    logmsg("umlbed-agent: mount %s on %s: %s", type, path, strerror(errno));
}

/* The kernel gives init no console when the root has no /dev/console; get one from devtmpfs then. */
static void ensure_std_fds(void) {
  for (int fd = 0; fd < 3; fd++) {
    if (fcntl(fd, F_GETFD) >= 0) continue;
    int c = open("/dev/console", O_RDWR | O_NOCTTY);
    if (c < 0) c = open("/dev/null", O_RDWR);
    if (c >= 0 && c != fd) {
      dup2(c, fd);
      close(c);
    }
  }
}

static unsigned long fault_around_option(void) {
  unsigned long v = 4096;
  char buf[4096];
  int fd = open("/proc/cmdline", O_RDONLY | O_CLOEXEC);
  if (fd < 0) return v;
  ssize_t n = read(fd, buf, sizeof buf - 1);
  close(fd);
  if (n <= 0) return v;
  buf[n] = '\0';
  for (char *s = strtok(buf, " \n"); s; s = strtok(NULL, " \n")) {
    if (strncmp(s, "time-travel", 11) == 0) umb_time_travel = true;
    if (strncmp(s, FAULT_AROUND_OPT, strlen(FAULT_AROUND_OPT)) != 0) continue;
    umb_field t = {s + strlen(FAULT_AROUND_OPT), strlen(s) - strlen(FAULT_AROUND_OPT)};
    uint64_t x;
    if (umb_field_num(t, &x) == 0 && x <= ULONG_MAX)
      v = (unsigned long)x;
    else
      logmsg("umlbed-agent: ignoring bad %s%s", FAULT_AROUND_OPT, t.p);
  }
  return v;
}

static void set_fault_around(unsigned long bytes) {
  char val[32];
  int n = snprintf(val, sizeof val, "%lu\n", bytes);
  int fd = open(FAULT_AROUND_PATH, O_WRONLY | O_CLOEXEC);
  if (fd < 0 || write(fd, val, (size_t)n) != n)
    logmsg("umlbed-agent: set %s to %lu: %s", FAULT_AROUND_PATH, bytes, strerror(errno));
  if (fd >= 0) close(fd);
}

static int open_serial(void) {
  int fd = open(SERIAL_PATH, O_RDWR | O_NOCTTY | O_NONBLOCK | O_CLOEXEC);
  if (fd < 0) return -errno;
  struct termios t;
  if (tcgetattr(fd, &t) == 0) {
    cfmakeraw(&t);
    if (tcsetattr(fd, TCSANOW, &t) < 0) logmsg("umlbed-agent: raw mode on %s: %s", SERIAL_PATH, strerror(errno));
  }
  return fd;
}

static void boot(void) {
  mount_fs("devtmpfs", "/dev", true);
  ensure_std_fds();
  mount_fs("proc", "/proc", true);
  mount_fs("sysfs", "/sys", true);
  mount_fs("debugfs", "/sys/kernel/debug", false);
  mount_fs("tmpfs", "/tmp", true);
  ensure_dir("/shared");
  set_fault_around(fault_around_option());
  int fd = open_serial();
  if (fd < 0) {
    logmsg("umlbed-agent: open %s: %s", SERIAL_PATH, strerror(-fd));
    shutdown_agent("no serial line");
  }
  in_fd = out_fd = fd;
}

int main(int argc, char **argv) {
  struct utsname u;
  long ps = sysconf(_SC_PAGESIZE);
  if (getpid() != 1) {
    if (argc != 2 || strcmp(argv[1], "--stdio") != 0) {
      fprintf(stderr, "usage: %s --stdio\n(as PID 1 inside UML it serves %s)\n", argv[0], SERIAL_PATH);
      return 2;
    }
    /* Host mode for tests: the same protocol on stdin/stdout, nothing mounted. */
    stdio_mode = true;
    in_fd = 0;
    out_fd = 1;
    set_nonblock(0);
    set_nonblock(1);
  } else {
    umask(022);
    boot();
  }
  signal(SIGPIPE, SIG_IGN);
  if (pipe2(chld_pipe, O_NONBLOCK | O_CLOEXEC) < 0) {
    logmsg("umlbed-agent: pipe: %s", strerror(errno));
    shutdown_agent("no pipe");
  }
  struct sigaction sa = {.sa_handler = on_sigchld, .sa_flags = SA_RESTART | SA_NOCLDSTOP};
  sigemptyset(&sa.sa_mask);
  sigaction(SIGCHLD, &sa, NULL);
  int e = spawn_helper();
  if (e < 0) {
    logmsg("umlbed-agent: cannot start the PID 1 helper: %s", strerror(-e));
    shutdown_agent("no helper");
  }
  uname(&u);
  if (!stdio_mode) {
    printf("umlbed-agent: protocol %d, page size %ld, kernel %s, serving %s\n", UMB_PROTOCOL_VERSION, ps, u.release,
           SERIAL_PATH);
    fflush(stdout);
  }
  umb_buf ready = {0};
  umb_buf_printf(&ready, "0 ready ok %d %ld ", UMB_PROTOCOL_VERSION, ps);
  umb_pct_encode(&ready, u.release, strlen(u.release));
  umb_buf_append(&ready, "\n", 1);
  if (ready.data) out_add(ready.data, ready.len);
  umb_buf_free(&ready);

  size_t pcap = 64;
  struct pollfd *pfd = malloc(pcap * sizeof *pfd);
  struct worker **snap = malloc(pcap * sizeof *snap);
  if (!pfd || !snap) shutdown_agent("out of memory");
  for (;;) {
    flush_serial();
    if (shutting_down) break;
    serial_lines();
    if (input_closed && outstanding == 0 && umb_q_size(&ser_in) == 0) shutdown_agent("end of input");
    if (nworkers + 3 > pcap) {
      size_t cap = (nworkers + 3) * 2;
      struct pollfd *p = realloc(pfd, cap * sizeof *p);
      if (!p) {
        logmsg("umlbed-agent: out of memory for the poll set");
        sleep(1);
        continue;
      }
      pfd = p;
      struct worker **s = realloc(snap, cap * sizeof *s);
      if (!s) {
        logmsg("umlbed-agent: out of memory for the poll set");
        sleep(1);
        continue;
      }
      snap = s;
      pcap = cap;
    }
    bool room = umb_q_size(&ser_out) < OUTQ_HIGH;
    pfd[0] = (struct pollfd){.fd = input_closed ? -1 : in_fd, .events = room ? POLLIN : 0};
    pfd[1] = (struct pollfd){.fd = out_fd, .events = umb_q_size(&ser_out) ? POLLOUT : 0};
    pfd[2] = (struct pollfd){.fd = chld_pipe[0], .events = POLLIN};
    size_t np = 3;
    for (size_t i = 0; i < nworkers; i++) {
      struct worker *w = workers[i];
      if (w->fd < 0 || w->eof) continue;
      short ev = (short)((room ? POLLIN : 0) | (umb_q_size(&w->out) ? POLLOUT : 0));
      snap[np] = w;
      pfd[np++] = (struct pollfd){.fd = w->fd, .events = ev};
    }
    if (poll(pfd, np, -1) < 0) {
      if (errno != EINTR) logmsg("umlbed-agent: poll: %s", strerror(errno));
      continue;
    }
    for (size_t i = 3; i < np; i++) {
      struct worker *w = snap[i];
      if (pfd[i].revents & POLLOUT) flush_worker(w);
      if (pfd[i].revents & (POLLIN | POLLHUP | POLLERR)) read_worker(w, 1 << 20);
    }
    if (pfd[0].revents & (POLLIN | POLLHUP | POLLERR)) {
      /* On the host, requests already read are still answered; in UML nobody would read the answers. */
      if (!read_serial()) {
        if (!stdio_mode) shutdown_agent("the serial line closed");
        input_closed = true;
      }
    }
    if (pfd[2].revents & POLLIN) reap();
  }
  free(pfd);
  free(snap);
  shutdown_agent("poweroff requested");
}

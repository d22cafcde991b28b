// SPDX-License-Identifier: MIT
/* main.c: PID 1 of the guest agent: the runner's line, requests checked and routed to workers, the poll loop. */
#include "pid1.h"

#include <errno.h>
#include <fcntl.h>
#include <poll.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/reboot.h>
#include <sys/stat.h>
#include <sys/utsname.h>
#include <sys/wait.h>
#include <termios.h>
#include <time.h>
#include <unistd.h>

/* Above this much unsent output, the agent stops reading anything until the runner catches up. */
#define OUTQ_HIGH ((size_t)8 << 20)
/* Requests queued to one worker that has not read them yet; beyond it a request gets EAGAIN. */
#define WORKER_QUEUE_MAX ((size_t)8 << 20)
/* Requests outstanding over all workers; beyond it a request gets EAGAIN. */
#define OUTSTANDING_MAX 4096

static struct umb_queue ser_in;
static size_t ser_in_scanned;
static bool ser_in_discard;
static int in_fd = -1, out_fd = -1;
static bool input_closed;

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

/* The poll loop over the serial line, the SIGCHLD pipe and every worker's channel, until a poweroff is answered. */
static void __attribute__((noreturn)) serve(void) {
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
    int fd = boot();
    if (fd < 0) shutdown_agent("no serial line");
    in_fd = out_fd = fd;
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
  serve();
}

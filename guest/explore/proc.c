// SPDX-License-Identifier: MIT
/* proc.c: the case's processes: each a server on a pair of pipes, made before any of them so that forks inherit them. */
#include "xp.h"

#include <errno.h>
#include <fcntl.h>
#include <poll.h>
#include <sched.h>
#include <signal.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/syscall.h>
#include <unistd.h>

/* cmd[p] carries the controller's lines to process p, rep[p] its replies back; go is the start barrier. */
static int cmd[XP_MAX_PROCS][2], rep[XP_MAX_PROCS][2];
int xp_go[2];

void xp_procs_init(void) {
  for (int p = 0; p < XP_MAX_PROCS; p++) {
    if (pipe(cmd[p]) < 0 || pipe(rep[p]) < 0) xp_die("pipe: %s", strerror(errno));
    xp_c.procs[p].pidfd = -1;
  }
  if (pipe(xp_go) < 0) xp_die("pipe: %s", strerror(errno));
}

static int pidfd_of(pid_t pid) {
  int fd = (int)syscall(SYS_pidfd_open, pid, 0);
  if (fd < 0) xp_die("pidfd_open %d: %s", (int)pid, strerror(errno));
  return fd;
}

/* Learns process p's pid from its first line, "hello PID", once it runs. */
void xp_greet(int p) {
  char line[64];
  unsigned long pid;
  if (!xp_reply(p, line, sizeof line) || sscanf(line, "hello %lu", &pid) != 1)
    xp_die("process P%d did not start: %s", p, line);
  xp_c.procs[p].pid = (pid_t)pid;
  xp_c.procs[p].pidfd = pidfd_of((pid_t)pid);
}

/* A new process of the controller's own, with no mapping. */
int xp_proc_start(int p) {
  if (xp_c.procs[p].used) xp_die("P%d exists already", p);
  xp_c.procs[p].used = true;
  fflush(stdout);
  pid_t pid = fork();
  if (pid < 0) xp_die("fork: %s", strerror(errno));
  if (pid == 0) {
    memset(xp_c.procs[p].maps, 0, sizeof xp_c.procs[p].maps);
    xp_serve(p);
  }
  xp_greet(p);
  return 0;
}

void xp_send(int p, const char *fmt, ...) {
  char line[XP_LINE_MAX];
  va_list ap;
  va_start(ap, fmt);
  int n = vsnprintf(line, sizeof line - 1, fmt, ap);
  va_end(ap);
  if (n < 0 || (size_t)n >= sizeof line - 1) xp_die("a line to P%d is too long", p);
  line[n++] = '\n';
  if (write(cmd[p][1], line, (size_t)n) != n) xp_die("write to P%d: %s", p, strerror(errno));
}

/* One line from fd, a byte at a time: the pipe is shared by nobody else, and lines are short. */
static bool read_line(int fd, char *line, size_t size) {
  size_t n = 0;
  for (;;) {
    char c;
    ssize_t r = read(fd, &c, 1);
    if (r < 0 && errno == EINTR) continue;
    if (r <= 0) return false;
    if (c == '\n') break;
    if (n + 1 < size) line[n++] = c;
  }
  line[n] = '\0';
  return true;
}

/* Waits for a line of p, or for p's end: every process holds every pipe, so no end of file comes. */
bool xp_reply(int p, char *line, size_t size) {
  struct pollfd pf[2] = {{.fd = rep[p][0], .events = POLLIN}, {.fd = xp_c.procs[p].pidfd, .events = POLLIN}};
  int n = xp_c.procs[p].pidfd >= 0 ? 2 : 1;
  for (;;) {
    int r = poll(pf, (nfds_t)n, -1);
    if (r < 0 && errno == EINTR) continue;
    if (r < 0) xp_die("poll: %s", strerror(errno));
    if (pf[0].revents & POLLIN) return read_line(rep[p][0], line, size);
    if (n == 2 && pf[1].revents) {
      xp_c.procs[p].gone = true;
      snprintf(line, size, "gone");
      return false;
    }
  }
}

void xp_set_fifo(int p, int prio) {
  struct sched_param sp = {.sched_priority = prio};
  if (sched_setscheduler(xp_c.procs[p].pid, SCHED_FIFO | SCHED_RESET_ON_FORK, &sp) < 0)
    xp_die("SCHED_FIFO %d for P%d: %s", prio, p, strerror(errno));
}

void xp_set_other(int p) {
  struct sched_param sp = {.sched_priority = 0};
  if (xp_c.procs[p].gone) return;
  if (sched_setscheduler(xp_c.procs[p].pid, SCHED_OTHER, &sp) < 0 && errno != ESRCH)
    xp_die("SCHED_OTHER for P%d: %s", p, strerror(errno));
}

static void reply(int self, const char *fmt, ...) __attribute__((format(printf, 2, 3)));
static void reply(int self, const char *fmt, ...) {
  char line[XP_LINE_MAX];
  va_list ap;
  va_start(ap, fmt);
  int n = vsnprintf(line, sizeof line - 1, fmt, ap);
  va_end(ap);
  if (n < 0) n = 0;
  if ((size_t)n >= sizeof line - 1) n = (int)sizeof line - 2;
  line[n++] = '\n';
  if (write(rep[self][1], line, (size_t)n) != n) _exit(3);
}

/* Writes a mark of the kernel's exploration: an edge of one primitive, a step like any point. One descriptor,
 * opened before the barrier, so that a mark adds no step of its own but the write's. */
static void mark(int fd, const char *edge) {
  if (pwrite(fd, edge, strlen(edge), 0) != (ssize_t)strlen(edge)) _exit(4);
}

/* What a primitive uses of the process's own memory, made before the barrier: the page buffer, and the stack below
 * where the process is now. (Its faults outside its marks are not steps: the kernel counts a task's points only
 * between its marks begin and end.) */
static void prefault_self(void) {
  volatile char depth[1 << 16];
  memset((char *)depth, 0, sizeof depth);
  xp_prefault_buffers();
}

/* "arm PRIM [; PRIM]": waits at the barrier, then runs the primitives with a mark around each. */
static void serve_armed(int self, char **w, int n) {
  char res[XP_LINE_MAX] = "";
  char all[XP_LINE_MAX] = "";
  char go;
  int mfd = open("/sys/kernel/umlbed_explore/mark", O_WRONLY | O_CLOEXEC);
  if (mfd < 0) _exit(4);
  prefault_self();
  while (read(xp_go[0], &go, 1) < 0 && errno == EINTR) {
  }
  int start = 0;
  for (int i = 0; i <= n; i++) {
    if (i < n && strcmp(w[i], ";") != 0) continue;
    mark(mfd, "begin");
    xp_prim_run(self, w + start, i - start, res, sizeof res);
    /* An exit does not come back; the controller learns of its end from the process's pidfd. */
    mark(mfd, "end");
    size_t len = strlen(all);
    snprintf(all + len, sizeof all - len, "%s%s", len ? " ; " : "", res);
    start = i + 1;
  }
  close(mfd);
  reply(self, "%s", all);
}

_Noreturn void xp_serve(int self) {
  char line[XP_LINE_MAX];
  char *w[XP_WORDS_MAX * XP_MAX_PRIMS + 2];
  /* A child that exits is reaped by the kernel: the controller follows every process through its pidfd. */
  signal(SIGCHLD, SIG_IGN);
  /* The barrier ends for every armed process when the controller closes the only write end left. Once: a fork's child
   * inherits the -1, and must not close the number its parent's file descriptor may have taken since. */
  if (xp_go[1] >= 0) close(xp_go[1]);
  xp_go[1] = -1;
  if (xp_fd < 0) xp_fd = open(xp_c.file.path, O_RDWR | O_CLOEXEC);
  if (xp_fd < 0) _exit(5);
  reply(self, "hello %ld", (long)getpid());
  for (;;) {
    if (!read_line(cmd[self][0], line, sizeof line)) _exit(0);
    int n = xp_split(line, w, (int)(sizeof w / sizeof w[0]));
    if (n <= 0) {
      reply(self, "error bad line");
      continue;
    }
    if (strcmp(w[0], "arm") == 0) {
      serve_armed(self, w + 1, n - 1);
    } else if (strcmp(w[0], "quit") == 0) {
      _exit(0);
    } else {
      char res[XP_LINE_MAX];
      xp_prim_run(self, w, n, res, sizeof res);
      reply(self, "%s", res);
    }
  }
}

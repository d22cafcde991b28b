/* runlink.c: the run process's line to its supervisor, and the CPU table that places instances. */
#include "runlink.h"

#include <errno.h>
#include <limits.h>
#include <sched.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

static int link_fd = -1;

/* Live instances per host CPU (this process's, or every run process's in the supervisor). */
static int cpu_load[CPU_SETSIZE];

void umb_link_attach(int fd) { link_fd = fd; }

int umb_link_active(void) { return link_fd >= 0; }

int umb_link_write(const void *p, size_t n) {
  const char *c = p;
  if (link_fd < 0) return -EBADF;
  while (n > 0) {
    ssize_t w = write(link_fd, c, n);
    if (w < 0 && errno == EINTR) continue;
    if (w <= 0) return w < 0 ? -errno : -EPIPE;
    c += w;
    n -= (size_t)w;
  }
  return 0;
}

void umb_link_send(const char *fmt, ...) {
  if (link_fd < 0) return;
  char line[PATH_MAX + 64];
  va_list ap;
  va_start(ap, fmt);
  int n = vsnprintf(line, sizeof line - 1, fmt, ap);
  va_end(ap);
  /* Every line the core sends is short; one that is not would be cut into a wrong fact, so it is not sent. */
  if (n <= 0 || (size_t)n >= sizeof line - 1) return;
  line[n++] = '\n';
  (void)umb_link_write(line, (size_t)n);
}

int umb_cpu_take_local(void) {
  cpu_set_t allowed;
  int cpu = -1;
  if (sched_getaffinity(0, sizeof allowed, &allowed) == 0) {
    for (int c = 0; c < CPU_SETSIZE; c++)
      if (CPU_ISSET(c, &allowed) && (cpu < 0 || cpu_load[c] < cpu_load[cpu])) cpu = c;
  }
  if (cpu >= 0) cpu_load[cpu]++;
  return cpu;
}

void umb_cpu_put_local(int cpu) {
  if (cpu >= 0 && cpu < CPU_SETSIZE && cpu_load[cpu] > 0) cpu_load[cpu]--;
}

/* Reads the supervisor's one-line answer; nothing else ever comes this way, so the next line is it. */
static int read_answer(char *buf, size_t size) {
  size_t n = 0;
  while (n < size - 1) {
    ssize_t r = read(link_fd, buf + n, 1);
    if (r < 0 && errno == EINTR) continue;
    if (r <= 0) return -EPIPE;
    if (buf[n] == '\n') break;
    n++;
  }
  buf[n] = '\0';
  return 0;
}

int umb_cpu_take(void) {
  if (link_fd < 0) return umb_cpu_take_local();
  char answer[64];
  int cpu;
  umb_link_send("cpu?");
  if (read_answer(answer, sizeof answer) || sscanf(answer, "cpu %d", &cpu) != 1 || cpu < -1 || cpu >= CPU_SETSIZE)
    return -1;
  return cpu;
}

void umb_cpu_put(int cpu) {
  if (cpu < 0) return;
  if (link_fd < 0)
    umb_cpu_put_local(cpu);
  else
    umb_link_send("cpu- %d", cpu);
}

// SPDX-License-Identifier: MIT
/* out.c: what PID 1's files share: its two modes, its queue to the runner, error replies and console lines. */
#include "pid1.h"

#include <errno.h>
#include <fcntl.h>
#include <stdarg.h>
#include <stdio.h>
#include <string.h>
#include <unistd.h>

/* These live apart from main.c so that children.c and boot.c, which main.c calls, never call back into it. */
struct umb_queue ser_out;
bool stdio_mode, shutting_down;

void logmsg(const char *fmt, ...) {
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

void out_add(const void *p, size_t n) {
  if (umb_q_append(&ser_out, p, n) < 0)
    logmsg("umlbed-agent: out of memory: a %zu-byte message to the runner is lost", n);
}

void emit_err(uint64_t id, const char *verb, const char *ename, const char *msg) {
  umb_buf b = {0};
  umb_buf_printf(&b, "%lu %s err %s ", (unsigned long)id, verb, ename);
  umb_pct_encode(&b, msg, strlen(msg));
  umb_buf_append(&b, "\n", 1);
  if (b.data) out_add(b.data, b.len);
  umb_buf_free(&b);
}

int set_nonblock(int fd) {
  int fl = fcntl(fd, F_GETFL);
  if (fl < 0 || fcntl(fd, F_SETFL, fl | O_NONBLOCK) < 0) return -errno;
  return 0;
}

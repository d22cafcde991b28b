// SPDX-License-Identifier: MIT
/* queue.c: the agent's byte queues, string fields and blocking writes (the protocol itself is ../protocol). */
#include "agent.h"

#include <errno.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

/* A queue holds at most a longest line and the read that completes it: past this, doubling would only claim
 * memory that no line can use, and the guest's (64 MiB by default) is shared by PID 1's queues, a worker's, its
 * decoded copy and the page cache the line is written to. */
#define UMB_Q_MOST (UMB_LINE_MAX + 2 * (size_t)65536)

int umb_q_reserve(struct umb_queue *q, size_t extra) {
  umb_buf *b = &q->b;
  if (b->data && b->cap - b->len > extra) return 0;
  /* Reclaim consumed space first so that a queue does not grow without bound. */
  if (q->off > 0) {
    memmove(b->data, b->data + q->off, b->len - q->off);
    b->len -= q->off;
    b->data[b->len] = '\0';
    q->off = 0;
    if (b->cap - b->len > extra) return 0;
  }
  size_t need = b->len + extra + 1;
  if (b->cap && need <= UMB_Q_MOST && 2 * b->cap > UMB_Q_MOST) {
    char *d = realloc(b->data, UMB_Q_MOST);
    if (d == NULL) return b->err = -ENOMEM;
    b->data = d;
    b->cap = UMB_Q_MOST;
    return 0;
  }
  return umb_buf_reserve(b, extra);
}

int umb_q_append(struct umb_queue *q, const void *p, size_t n) {
  int r = umb_q_reserve(q, n);
  return r ? r : umb_buf_append(&q->b, p, n);
}

void umb_q_consume(struct umb_queue *q, size_t n) {
  q->off += n;
  if (q->off >= q->b.len) umb_q_clear(q);
}

int umb_pct_decode_str(umb_field f, char **s) {
  umb_buf b = {0};
  int r = umb_pct_decode_buf(f.p, f.n, &b);
  if (r == 0 && b.len && memchr(b.data, '\0', b.len)) r = -EINVAL;
  if (r == 0) r = umb_buf_reserve(&b, 0);
  if (r < 0) {
    umb_buf_free(&b);
    return r;
  }
  *s = b.data;
  return 0;
}

int umb_write_all(int fd, const void *p, size_t n) {
  const char *c = p;
  while (n > 0) {
    ssize_t w = write(fd, c, n);
    if (w < 0) {
      if (errno == EINTR) continue;
      return -errno;
    }
    c += w;
    n -= (size_t)w;
  }
  return 0;
}

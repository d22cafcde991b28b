/* SPDX-License-Identifier: MIT */
/* agent.h: what PID 1 (pid1.h) and the workers (worker.h) share: roles, byte queues (queue.c), the worker's entry. */
#ifndef UMB_AGENT_H
#define UMB_AGENT_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <sys/types.h>

#include "umb_proto.h"

/* The hidden worker that executes requests addressed to PID 1 has this role; it refuses mapping verbs. */
enum umb_role { UMB_ROLE_WORKER, UMB_ROLE_AGENT };

/* A byte queue: a umb_buf whose first off bytes are consumed already, so that taking a line or a partial write
 * off the front costs nothing; live bytes are b.data[off, b.len). A zeroed struct is an empty queue. */
struct umb_queue {
  umb_buf b;
  size_t off;
};

/* Makes room for extra more bytes at the end (reclaiming consumed space first); returns 0 or -ENOMEM. */
int umb_q_reserve(struct umb_queue *q, size_t extra);
int umb_q_append(struct umb_queue *q, const void *p, size_t n);
/* Drops n bytes from the front. */
void umb_q_consume(struct umb_queue *q, size_t n);
static inline size_t umb_q_size(const struct umb_queue *q) { return q->b.len - q->off; }
/* Never NULL, so that an empty queue can go to memchr or memcpy. */
static inline char *umb_q_data(const struct umb_queue *q) { return q->b.data ? q->b.data + q->off : (char *)""; }
/* Empties the queue; a buffer grown past a megabyte by a long line goes back to the system rather than stay. */
static inline void umb_q_clear(struct umb_queue *q) {
  q->off = 0;
  if (q->b.cap > ((size_t)1 << 20))
    umb_buf_free(&q->b);
  else
    umb_buf_reset(&q->b);
}
static inline void umb_q_free(struct umb_queue *q) {
  q->off = 0;
  umb_buf_free(&q->b);
}

#define UMB_STR_(x) #x
#define UMB_STR(x) UMB_STR_(x)

/* A buffer's bytes, never NULL, so that an empty buffer can go to memchr, memcpy or write. */
static inline char *umb_bytes(const umb_buf *b) { return b->data ? b->data : (char *)""; }

/* A field as a number or a request ID (umb_num_parse_n, umb_id_parse). */
static inline int umb_field_num(umb_field f, uint64_t *v) { return umb_num_parse_n(f.p, f.n, v); }
static inline int umb_field_id(umb_field f, uint64_t *v) { return umb_id_parse(f.p, f.n, v); }
/* Decodes a field into a NUL-terminated string; a decoded NUL byte is -EINVAL. The caller frees *s. */
int umb_pct_decode_str(umb_field f, char **s);

/*
 * Writes all of n bytes to a blocking fd, retrying on EINTR; returns 0 or -errno.
 */
int umb_write_all(int fd, const void *p, size_t n);

/*
 * Runs the command loop of a worker on channel fd chan, never returning. Requests arrive as protocol lines; replies
 * go back on the same channel, preceded by "~adopt PID" lines (with the new channel attached by SCM_RIGHTS) for each
 * process that fork or spawn creates.
 */
void umb_worker_main(int chan, enum umb_role role) __attribute__((noreturn));

/*
 * The kernel runs in UML time-travel mode: guest time stands still while a CPU is busy, so no timer tick ever
 * preempts a process that does not enter the kernel. Loops on a loop control then sleep 1 ns after each pass, or
 * they would starve the processes that are to stop them. Set by PID 1 from /proc/cmdline before any worker exists.
 */
extern bool umb_time_travel;

#endif

// SPDX-License-Identifier: MIT
/* args.c: the argument helpers and error messages of the verbs (worker.h), which every verb_*.c file uses. */
#include "worker.h"

#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <string.h>

/* Apart from worker.c, whose dispatch table calls the verbs, so that the verbs never call back into their caller. */

int bad(struct req *r, const char *what) {
  snprintf(r->ctx, sizeof r->ctx, "bad %s", what);
  return -EINVAL;
}

int arg_u64(struct req *r, size_t i, const char *what, uint64_t *v) {
  if (umb_field_num(r->arg[i], v) < 0) return bad(r, what);
  return 0;
}

int arg_off(struct req *r, size_t i, const char *what, off_t *v) {
  uint64_t x;
  if (umb_field_num(r->arg[i], &x) < 0 || x > (uint64_t)INT64_MAX) return bad(r, what);
  *v = (off_t)x;
  return 0;
}

int arg_str(struct req *r, size_t i, const char *what, char **s) {
  int e = umb_pct_decode_str(r->arg[i], s);
  if (e == -EINVAL) return bad(r, what);
  return e;
}

int arg_data(struct req *r, size_t i, umb_buf *b) {
  int e = umb_pct_decode_buf(r->arg[i].p, r->arg[i].n, b);
  if (e == -EINVAL) return bad(r, "DATA");
  return e;
}

/* A user address range [addr, addr + len) that does not wrap. */
int arg_range(struct req *r, size_t i, uintptr_t *addr, uint64_t *len) {
  uint64_t a;
  int e = arg_u64(r, i, "ADDR", &a);
  if (e == 0) e = arg_u64(r, i + 1, "LEN", len);
  if (e == 0 && (a > UINTPTR_MAX || *len > UINTPTR_MAX - a)) e = bad(r, "range (it wraps)");
  *addr = (uintptr_t)a;
  return e;
}

int arg_rw(struct req *r, size_t i, bool *write) {
  if (umb_field_eq(r->arg[i], "r"))
    *write = false;
  else if (umb_field_eq(r->arg[i], "w"))
    *write = true;
  else
    return bad(r, "access (r or w)");
  return 0;
}

int fail(struct req *r, int err, const char *fmt, const char *s) {
  snprintf(r->ctx, sizeof r->ctx, fmt, s);
  return -err;
}

/* libc sets errno only for a return of -4095..-1; a store() or show() under test that returns garbage passes through
 * the VFS as it is, and errno then still holds an earlier call's error, which must not be reported as this one's. The
 * value goes at the end whatever the length of what failed. */
int io_fail(struct req *r, ssize_t n, const char *fmt, const char *s) {
  if (n == -1) return fail(r, errno, fmt, s);
  char tail[64];
  int tn = snprintf(tail, sizeof tail, ": returned %zd, neither a count nor -1", n);
  _Static_assert(sizeof r->ctx > sizeof tail, "the context holds the value's tail");
  snprintf(r->ctx, sizeof r->ctx - (size_t)tn, fmt, s);
  strcat(r->ctx, tail);
  return -EPROTO;
}

int open_path(struct req *r, const char *path, int flags) {
  /* A created file is 0644: open(2) without a mode took whatever the stack held (0500 was seen), and its owner,
   * the unprivileged user a walled kernel writes as, then could not open it for writing. */
  int fd = open(path, flags | O_CLOEXEC | O_NOCTTY, 0644);
  if (fd < 0) return fail(r, errno, "open %s", path);
  return fd;
}

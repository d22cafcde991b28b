/* SPDX-License-Identifier: MIT */
/* worker.h: what a worker's files share: the request being executed, the argument helpers and the verb functions. */
#ifndef UMB_WORKER_H
#define UMB_WORKER_H

#include "agent.h"

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <sys/types.h>

/* What the command loop of one worker process knows about itself. */
struct wctx {
  int chan;
  enum umb_role role;
  uintptr_t ps;
};

/* One request being executed: its fields, the reply fields built so far, and an error context. */
struct req {
  struct wctx *w;
  umb_field *arg;
  size_t narg;
  umb_buf *out;  /* Reply fields, each preceded by a space. */
  char ctx[160]; /* What failed, for the error message ("open /shared/f"). */
  int after;     /* What to do once the reply is sent (AFTER_*). */
  int exit_code;
};

enum { AFTER_NOTHING, AFTER_EXIT, AFTER_CHILD };

/*
 * Argument helpers (args.c). Each arg_ function reads argument i of the request; a malformed one gets bad(): the
 * message "bad WHAT" and -EINVAL, so that every verb words its EINVAL the same way. Strings are decoded into memory
 * the caller frees.
 */
int bad(struct req *r, const char *what);
int arg_u64(struct req *r, size_t i, const char *what, uint64_t *v);
int arg_off(struct req *r, size_t i, const char *what, off_t *v);
int arg_str(struct req *r, size_t i, const char *what, char **s);
int arg_data(struct req *r, size_t i, umb_buf *b);
int arg_range(struct req *r, size_t i, uintptr_t *addr, uint64_t *len);
int arg_rw(struct req *r, size_t i, bool *write);
/* Sets the error message to fmt with s (what failed) and returns -err. */
int fail(struct req *r, int err, const char *fmt, const char *s);
/* The failure of a read or write that returned n < 0: errno when n is -1, else EPROTO naming n. */
int io_fail(struct req *r, ssize_t n, const char *fmt, const char *s);
/* Opens path close-on-exec without taking a controlling tty; a failure is "open PATH" with its errno. */
int open_path(struct req *r, const char *path, int flags);

/* Reads a whole file (at most max bytes) into b, non-blocking (verb_file.c; stats reads its file with it too). */
int slurp(struct req *r, const char *path, size_t max, umb_buf *b);
/* One write() of the decoded data to path, replying what it returned (verb_file.c; trigger writes with it too). */
int writefile(struct req *r, const char *path, umb_field data);

/* Catches SIGSEGV and SIGBUS on an alternate stack, for the guarded memory accesses (verb_memory.c). */
void install_fault_handlers(void);

/*
 * One function per row of the protocol's verb table (protocol/verbs.h), each in the verb_*.c file of its family;
 * worker.c's dispatch table is made from the same rows, so a verb without its function does not link, and
 * -Wmissing-prototypes refuses a v_ function that is not in the table.
 */
#define UMB_VERB_FN_DECL_(name, amin, amax, flags, nf, nb) int v_##name(struct req *r);
UMB_VERBS(UMB_VERB_FN_DECL_)
#undef UMB_VERB_FN_DECL_

#endif

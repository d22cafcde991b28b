// SPDX-License-Identifier: MIT
/* worker.c: the command loop of a worker and of PID 1's helper: read a request, check it, run its verb, reply. */
#include "worker.h"

#include <errno.h>
#include <signal.h>
#include <stdio.h>
#include <string.h>
#include <unistd.h>

/* ---- the command loop ---- */

/* The dispatch table: one function for each row of the protocol's verb table (protocol/verbs.h); a verb without
 * its v_ function does not compile. */
#define VERB_FN_(name, amin, amax, flags, nf, nb) [UMB_VERB_##name] = v_##name,
static int (*const verb_fn[UMB_NVERBS])(struct req *r) = {UMB_VERBS(VERB_FN_)};
#undef VERB_FN_

/* PID 1 hands "fork N" to its helper too: there it makes N fresh workers, like N spawns. */
static int check_role(struct req *r, const umb_verb *v) {
  if ((v->flags & UMB_VF_AGENT_ONLY) && r->w->role != UMB_ROLE_AGENT)
    return fail(r, EPERM, "%s is accepted by PID 1 only", v->name);
  if ((v->flags & (UMB_VF_MAPPING | UMB_VF_WORKER_ONLY)) && r->w->role == UMB_ROLE_AGENT)
    return fail(r, EPERM, "PID 1 does not accept %s: use a worker", v->name);
  return 0;
}

static void reply_header(umb_buf *b, const char *id, umb_field verb) {
  umb_buf_puts(b, id);
  umb_buf_puts(b, " ");
  if (umb_verb_name_ok(verb.p, verb.n))
    umb_buf_append(b, verb.p, verb.n);
  else
    umb_buf_puts(b, "error");
}

/* Executes one request line and writes its reply; returns AFTER_* for the command loop. */
static int handle_line(struct wctx *w, const char *line, size_t len, struct req *r, umb_buf *reply) {
  static umb_field toks[UMB_ARGS_MAX + 3];
  umb_buf fields = {0};
  char idbuf[24] = "0";
  umb_field verb = {"error", 5};
  const umb_verb *v = NULL;
  int n = umb_split(line, len, toks, UMB_ARGS_MAX + 3);
  int e = 0;
  memset(r, 0, sizeof *r);
  r->w = w;
  r->out = &fields;
  uint64_t id;
  /* The ID is taken even from a line that does not split, so that PID 1 can match the reply. */
  const char *sp = memchr(line, ' ', len);
  umb_field idtok = {line, sp ? (size_t)(sp - line) : len};
  if (umb_field_id(idtok, &id) == 0) snprintf(idbuf, sizeof idbuf, "%lu", (unsigned long)id);
  if (n >= 3 || n == -E2BIG) verb = toks[2];
  if (n == -E2BIG)
    e = fail(r, E2BIG, "%s", "too many fields");
  else if (n < 3 || idbuf[0] == '0')
    e = bad(r, "request (expected ID PID VERB ARG...)");
  else if (!(v = umb_verb_find(verb.p, verb.n)))
    e = fail(r, ENOSYS, "%s", "unknown verb");
  else if ((size_t)n - 3 < v->args_min || (size_t)n - 3 > v->args_max)
    e = bad(r, "argument count");
  else if (!(e = check_role(r, v))) {
    r->arg = toks + 3;
    r->narg = (size_t)n - 3;
    e = verb_fn[v - umb_verbs](r);
  }
  /* The verb table bounds every reply (protocol/verbs.h); one beyond the line limit would be a bug here, and the
   * runner could not read it. */
  if (e == 0 && UMB_HEAD_BYTES + fields.len + 1 > UMB_LINE_MAX) e = fail(r, E2BIG, "%s", "reply longer than a line");
  if (r->after == AFTER_CHILD) {
    umb_buf_free(&fields);
    return AFTER_CHILD;
  }
  umb_buf_reset(reply);
  reply_header(reply, idbuf, verb);
  if (e == 0) {
    umb_buf_puts(reply, " ok");
    umb_buf_append(reply, umb_bytes(&fields), fields.len);
  } else {
    const char *why = strerror(-e);
    char msg[UMB_ERRMSG_MAX + 1];
    if (r->ctx[0])
      snprintf(msg, sizeof msg, "%s: %s", r->ctx, why);
    else
      snprintf(msg, sizeof msg, "%s", why);
    umb_buf_printf(reply, " err %s ", umb_errname(-e));
    umb_pct_encode(reply, msg, strlen(msg));
    r->after = AFTER_NOTHING;
  }
  umb_buf_free(&fields);
  if (umb_buf_append(reply, "\n", 1) < 0) {
    /* Out of memory for the reply itself: answer with a fixed-size one. */
    char small[96];
    int k = snprintf(small, sizeof small, "%s error err ENOMEM -\n", idbuf);
    umb_buf_reset(reply);
    if (umb_buf_append(reply, small, (size_t)k) < 0) _exit(3);
  }
  if (umb_write_all(w->chan, umb_bytes(reply), reply->len) < 0) _exit(1); /* PID 1 is gone: nobody is left to serve. */
  if (reply->len > 65536) umb_buf_free(reply); /* Do not keep a large reply's memory around in every worker. */
  return r->after;
}

void umb_worker_main(int chan, enum umb_role role) {
  struct wctx w = {.chan = chan, .role = role, .ps = (uintptr_t)sysconf(_SC_PAGESIZE)};
  struct umb_queue in = {0};
  umb_buf reply = {0};
  struct req r;
  size_t scanned = 0;
  signal(SIGPIPE, SIG_IGN);
  signal(SIGCHLD, SIG_DFL);
  install_fault_handlers();
  sigset_t none;
  sigemptyset(&none);
  sigprocmask(SIG_SETMASK, &none, NULL);
  for (;;) {
    char *nl;
    while ((nl = memchr(umb_q_data(&in) + scanned, '\n', umb_q_size(&in) - scanned))) {
      char *line = umb_q_data(&in);
      size_t len = (size_t)(nl - line);
      int after = handle_line(&w, line, len, &r, &reply);
      umb_q_consume(&in, len + 1);
      scanned = 0;
      if (after == AFTER_EXIT) _exit(r.exit_code);
      if (after == AFTER_CHILD) {
        /* A new worker: the rest of the buffer was its parent's. */
        umb_q_clear(&in);
        umb_buf_free(&reply);
      }
    }
    scanned = umb_q_size(&in);
    if (scanned > UMB_LINE_MAX) _exit(2); /* PID 1 never forwards such a line. */
    if (umb_q_reserve(&in, 65536) < 0) _exit(3);
    ssize_t n = read(w.chan, in.b.data + in.b.len, 65536);
    if (n < 0 && errno == EINTR) continue;
    if (n <= 0) _exit(n == 0 ? 0 : 1);
    in.b.len += (size_t)n;
  }
}

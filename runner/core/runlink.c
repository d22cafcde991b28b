// SPDX-License-Identifier: MIT
/* runlink.c: the run link's one reader and its writers, a run process's line to its supervisor, and the CPU table. */
#include "runlink.h"

#include <errno.h>
#include <limits.h>
#include <math.h>
#include <sched.h>
#include <stdarg.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "run.h"

/* The table of protocol/run-link.h, as rows. */
typedef struct link_row {
  const char *word;
  int dir, field;
  long long min, max;
} link_row;
#define ROW_(id, word, dir, field, min, max) {word, dir, field, min, max},
static const link_row msgs[UMB_NLINK_MSGS] = {UMB_LINK_MESSAGES(ROW_)};
#undef ROW_

typedef struct key_row {
  int msg;
  const char *name;
  int kind;
  long long min, max;
} key_row;
#define KEY_(msg, key, kind, min, max) {UMB_LM_##msg, #key, kind, min, max},
static const key_row keys[UMB_NLINK_KEYS] = {UMB_LINK_KEYS(KEY_)};
#undef KEY_

const char *umb_link_word(int msg) { return msg >= 0 && msg < UMB_NLINK_MSGS ? msgs[msg].word : "?"; }

/* A whole number in [min, max], the whole of s. */
static int parse_int(const char *s, long long min, long long max, long long *out) {
  char *end;
  errno = 0;
  long long v = strtoll(s, &end, 10);
  if (errno || end == s || *end || v < min || v > max) return -EINVAL;
  *out = v;
  return 0;
}

/* A finite number >= 0, the whole of s. */
static int parse_num(const char *s, double *out) {
  char *end;
  double v = strtod(s, &end);
  if (end == s || *end || !isfinite(v) || v < 0) return -EINVAL;
  *out = v;
  return 0;
}

/* One field of kind, in place: a number's text, or a record value already decoded. */
static int parse_field(int kind, long long min, long long max, char *s, umb_link_msg *m) {
  switch (kind) {
    case UMB_LF_NONE:
      return 0;
    case UMB_LF_INT:
      return parse_int(s, min, max, &m->i);
    case UMB_LF_NUM:
      return parse_num(s, &m->num);
    case UMB_LF_VERDICT:
      for (int v = UMB_OK; v <= UMB_ERROR; v++)
        if (!strcmp(s, umb_verdict_name((umb_verdict)v))) {
          m->i = v;
          return 0;
        }
      return -EINVAL;
    default:
      /* Text: any bytes but NUL, which would end it early wherever it is used. */
      return strlen(s) == m->vlen ? 0 : -EINVAL;
  }
}

/* "KEY VALUE" of record message msg, in s (n bytes). */
static int parse_record(int msg, char *s, size_t n, umb_link_msg *m) {
  char *sp = memchr(s, ' ', n);
  if (sp == NULL || sp == s) return -EINVAL;
  *sp = '\0';
  char *v = sp + 1;
  size_t vn = n - (size_t)(v - s);
  /* The codec writes an empty value as "-". */
  if (vn == 1 && v[0] == '-')
    vn = 0;
  else if (vn == 0 || umb_pct_decode(v, &vn))
    return -EINVAL;
  v[vn] = '\0';
  m->val = v;
  m->vlen = vn;
  for (int k = 0; k < UMB_NLINK_KEYS; k++) {
    if (keys[k].msg != msg || strcmp(keys[k].name, s)) continue;
    m->key = k;
    if (keys[k].kind == UMB_LF_NONE && vn) return -EINVAL;
    return parse_field(keys[k].kind, keys[k].min, keys[k].max, v, m);
  }
  return -EINVAL;
}

int umb_link_parse(char *line, size_t len, int dirs, umb_link_msg *m) {
  memset(m, 0, sizeof *m);
  m->msg = m->key = -1;
  if (memchr(line, '\0', len)) return -EINVAL;
  char *sp = memchr(line, ' ', len);
  size_t wn = sp ? (size_t)(sp - line) : len;
  for (int i = 0; i < UMB_NLINK_MSGS; i++) {
    const link_row *r = &msgs[i];
    if (!(r->dir & dirs) || strlen(r->word) != wn || memcmp(r->word, line, wn)) continue;
    /* The word alone, or the word, one blank and a field. */
    if ((r->field == UMB_LF_NONE) != (sp == NULL)) return -EINVAL;
    m->msg = i;
    if (sp == NULL) return 0;
    char *f = sp + 1;
    size_t fn = len - wn - 1;
    if (fn == 0) return -EINVAL;
    if (r->field == UMB_LF_RECORD) return parse_record(i, f, fn, m);
    if (memchr(f, ' ', fn)) return -EINVAL;
    return parse_field(r->field, r->min, r->max, f, m);
  }
  return -EINVAL;
}

int umb_link_rec_bytes(umb_buf *b, int msg, int key, const char *val, size_t n) {
  int rc = umb_buf_printf(b, "%s %s ", msgs[msg].word, keys[key].name);
  if (rc == 0) rc = umb_pct_encode(b, val, n);
  if (rc == 0) rc = umb_buf_append(b, "\n", 1);
  return rc;
}

int umb_link_rec_str(umb_buf *b, int msg, int key, const char *val) {
  return val ? umb_link_rec_bytes(b, msg, key, val, strlen(val)) : 0;
}

int umb_link_rec_num(umb_buf *b, int msg, int key, double v) {
  char num[64];
  /* A whole number as one (an INT key reads no exponent), any other exactly. */
  if (fabs(v) < 1e18 && v == (double)(long long)v)
    snprintf(num, sizeof num, "%lld", (long long)v);
  else
    snprintf(num, sizeof num, "%.17g", v);
  return umb_link_rec_str(b, msg, key, num);
}

int umb_link_rec_end(umb_buf *b, int msg) { return umb_buf_printf(b, "%s end -\n", msgs[msg].word); }

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

int umb_cpu_pick(const cpu_set_t *allowed, const int *load, int here) {
  int cpu = -1;
  for (int c = 0; c < CPU_SETSIZE; c++)
    if (CPU_ISSET(c, allowed) && (cpu < 0 || load[c] < load[cpu] || (load[c] == load[cpu] && c == here))) cpu = c;
  return cpu;
}

int umb_cpu_take_local(void) {
  cpu_set_t allowed;
  int cpu = -1;
  /* Of the CPUs with fewest of this process's instances, the one it runs on now: the host's scheduler put it on an
   * idle one, so that runners started side by side (a test file each, a mutant's run each) spread their guests
   * instead of all taking the first CPU. */
  if (sched_getaffinity(0, sizeof allowed, &allowed) == 0) cpu = umb_cpu_pick(&allowed, cpu_load, sched_getcpu());
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
  umb_link_send("%s", umb_link_word(UMB_LM_CPU_ASK));
  umb_link_msg m;
  if (read_answer(answer, sizeof answer) || umb_link_parse(answer, strlen(answer), UMB_LINK_IN, &m) ||
      m.msg != UMB_LM_CPU || m.i >= CPU_SETSIZE)
    return -1;
  return (int)m.i;
}

void umb_cpu_put(int cpu) {
  if (cpu < 0) return;
  if (link_fd < 0)
    umb_cpu_put_local(cpu);
  else
    umb_link_send("%s %d", umb_link_word(UMB_LM_CPU_PUT), cpu);
}

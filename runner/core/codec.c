/* codec.c: buffers, percent-encoding, reply parsing and line splitting for the agent protocol. */
#include "umlbed.h"

#include <errno.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

int umb_buf_append(umb_buf *b, const void *p, size_t n) {
  if (b->len + n + 1 > b->cap) {
    size_t cap = b->cap ? b->cap : 64;
    while (cap < b->len + n + 1) cap *= 2;
    char *d = realloc(b->data, cap);
    if (d == NULL) return -ENOMEM;
    b->data = d;
    b->cap = cap;
  }
  /* A NULL p only reserves room (the bytes are left for the caller to fill). */
  if (n && p) memcpy(b->data + b->len, p, n);
  b->len += n;
  b->data[b->len] = '\0';
  return 0;
}

int umb_buf_printf(umb_buf *b, const char *fmt, ...) {
  char small[256];
  va_list ap;
  va_start(ap, fmt);
  int n = vsnprintf(small, sizeof small, fmt, ap);
  va_end(ap);
  if (n < 0) return -EINVAL;
  if ((size_t)n < sizeof small) return umb_buf_append(b, small, (size_t)n);
  char *big = malloc((size_t)n + 1);
  if (big == NULL) return -ENOMEM;
  va_start(ap, fmt);
  vsnprintf(big, (size_t)n + 1, fmt, ap);
  va_end(ap);
  int rc = umb_buf_append(b, big, (size_t)n);
  free(big);
  return rc;
}

void umb_buf_reset(umb_buf *b) {
  b->len = 0;
  if (b->data) b->data[0] = '\0';
}

void umb_buf_free(umb_buf *b) {
  free(b->data);
  b->data = NULL;
  b->len = b->cap = 0;
}

int umb_pct_encode(umb_buf *b, const void *p, size_t n) {
  static const char hex[] = "0123456789ABCDEF";
  const unsigned char *s = p;
  if (n == 0) return umb_buf_append(b, "-", 1);
  if (n == 1 && s[0] == '-') return umb_buf_append(b, "%2D", 3);
  /* Reserve the worst case once so the loop cannot fail halfway. */
  size_t need = b->len + 3 * n + 1;
  if (need > b->cap) {
    size_t keep = b->len;
    int rc = umb_buf_append(b, NULL, 3 * n);
    if (rc) return rc;
    b->len = keep;
  }
  char *o = b->data + b->len;
  for (size_t i = 0; i < n; i++) {
    unsigned char c = s[i];
    if (c >= 0x21 && c <= 0x7e && c != '%') {
      *o++ = (char)c;
    } else {
      *o++ = '%';
      *o++ = hex[c >> 4];
      *o++ = hex[c & 15];
    }
  }
  b->len = (size_t)(o - b->data);
  b->data[b->len] = '\0';
  return 0;
}

static int hexval(char c) {
  if (c >= '0' && c <= '9') return c - '0';
  if (c >= 'A' && c <= 'F') return c - 'A' + 10;
  if (c >= 'a' && c <= 'f') return c - 'a' + 10;
  return -1;
}

int umb_pct_decode(char *tok, size_t *n) {
  if (tok[0] == '-' && tok[1] == '\0') {
    tok[0] = '\0';
    *n = 0;
    return 0;
  }
  char *o = tok;
  for (const char *s = tok; *s; s++) {
    if (*s != '%') {
      *o++ = *s;
      continue;
    }
    int hi = hexval(s[1]);
    int lo = hi < 0 ? -1 : hexval(s[2]);
    if (lo < 0) return -EINVAL;
    *o++ = (char)(hi << 4 | lo);
    s += 2;
  }
  *n = (size_t)(o - tok);
  *o = '\0';
  return 0;
}

int umb_num_parse(const char *s, uint64_t *v) {
  uint64_t x = 0;
  if (s[0] == '\0') return -EINVAL;
  if (s[0] == '0' && (s[1] == 'x' || s[1] == 'X')) {
    s += 2;
    if (*s == '\0') return -EINVAL;
    for (; *s; s++) {
      int d = hexval(*s);
      if (d < 0 || x > (UINT64_MAX >> 4)) return -EINVAL;
      x = x << 4 | (uint64_t)d;
    }
  } else {
    for (; *s; s++) {
      if (*s < '0' || *s > '9') return -EINVAL;
      uint64_t d = (uint64_t)(*s - '0');
      if (x > (UINT64_MAX - d) / 10) return -EINVAL;
      x = x * 10 + d;
    }
  }
  *v = x;
  return 0;
}

int umb_msg_parse(char *line, size_t len, umb_msg *m) {
  char *tok[3];
  int ntok = 0;
  char *p = line, *end = line + len;
  m->nfields = 0;
  if (memchr(line, '\0', len) != NULL) return -EINVAL;
  while (p < end) {
    char *sp = memchr(p, ' ', (size_t)(end - p));
    char *e = sp ? sp : end;
    if (e == p) return -EINVAL;  /* Empty field: two spaces or a leading/trailing space. */
    *e = '\0';
    if (ntok < 3) {
      tok[ntok++] = p;
    } else {
      if (m->nfields == UMB_MSG_FIELDS_MAX) return -E2BIG;
      m->fields[m->nfields++] = p;
    }
    p = e + 1;
    if (sp && p == end) return -EINVAL;
  }
  if (ntok < 3) return -EINVAL;
  if (umb_num_parse(tok[0], &m->id)) return -EINVAL;
  m->verb = tok[1];
  if (strcmp(tok[2], "ok") == 0) m->ok = 1;
  else if (strcmp(tok[2], "err") == 0) m->ok = 0;
  else return -EINVAL;
  if (!m->ok && m->nfields < 1) return -EINVAL;
  return 0;
}

int umb_lines_feed(umb_lines *l, const char *p, size_t n, umb_line_cb cb, void *arg) {
  int rc = 0;
  while (n > 0 && rc == 0) {
    const char *nl = memchr(p, '\n', n);
    size_t take = nl ? (size_t)(nl - p) : n;
    if (!l->overflow) {
      size_t room = l->max > l->buf.len ? l->max - l->buf.len : 0;
      size_t keep = take < room ? take : room;
      if (umb_buf_append(&l->buf, p, keep)) return -ENOMEM;
      if (keep < take) l->overflow = 1;
    }
    if (nl) {
      int toolong = l->overflow;
      if (l->buf.data == NULL && umb_buf_append(&l->buf, "", 0)) return -ENOMEM;
      rc = cb(arg, l->buf.data, l->buf.len, toolong);
      umb_buf_reset(&l->buf);
      l->overflow = 0;
      take++;
    }
    p += take;
    n -= take;
  }
  return rc;
}

int umb_lines_flush(umb_lines *l, umb_line_cb cb, void *arg) {
  if (l->buf.len == 0 && !l->overflow) return 0;
  int rc = cb(arg, l->buf.data, l->buf.len, l->overflow);
  umb_buf_reset(&l->buf);
  l->overflow = 0;
  return rc;
}

void umb_lines_free(umb_lines *l) { umb_buf_free(&l->buf); }

/* One table for both directions; the names the agent may send in error replies. */
static const struct {
  int no;
  const char *name;
} errnames[] = {
#define E(x) {x, #x}
    E(EPERM),  E(ENOENT),  E(ESRCH),     E(EINTR),     E(EIO),       E(ENXIO),   E(E2BIG),
    E(ENOEXEC), E(EBADF),  E(ECHILD),    E(EAGAIN),    E(ENOMEM),    E(EACCES),  E(EFAULT),
    E(EBUSY),  E(EEXIST),  E(EXDEV),     E(ENODEV),    E(ENOTDIR),   E(EISDIR),  E(EINVAL),
    E(ENFILE), E(EMFILE),  E(ENOTTY),    E(ETXTBSY),   E(EFBIG),     E(ENOSPC),  E(ESPIPE),
    E(EROFS),  E(EMLINK),  E(EPIPE),     E(EDOM),      E(ERANGE),    E(EDEADLK), E(ENAMETOOLONG),
    E(ENOSYS), E(ENOTEMPTY), E(ELOOP),   E(ENODATA),   E(ETIME),     E(EPROTO),  E(EBADMSG),
    E(EOVERFLOW), E(EILSEQ), E(ENOTSUP), E(ETIMEDOUT), E(ECANCELED), E(EKEYEXPIRED),
    E(EHWPOISON), E(ENOKEY), E(EOWNERDEAD), E(ENOTCONN), E(ECONNRESET),
#undef E
};

const char *umb_errname(int err) {
  static char other[32];
  if (err < 0) err = -err;
  for (size_t i = 0; i < sizeof errnames / sizeof errnames[0]; i++)
    if (errnames[i].no == err) return errnames[i].name;
  snprintf(other, sizeof other, "E%d", err);
  return other;
}

int umb_errno_from_name(const char *name) {
  for (size_t i = 0; i < sizeof errnames / sizeof errnames[0]; i++)
    if (strcmp(errnames[i].name, name) == 0) return errnames[i].no;
  return 0;
}

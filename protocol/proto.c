// SPDX-License-Identifier: MIT
/* proto.c: the protocol code both sides link: the verb table, buffers, field codec, numbers and errno names. */
#include "umb_proto.h"

#include <errno.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#define UMB_VERB_ROW_(name, amin, amax, flags, nf, nb) [UMB_VERB_##name] = {#name, amin, amax, flags},
const umb_verb umb_verbs[UMB_NVERBS] = {UMB_VERBS(UMB_VERB_ROW_)};
#undef UMB_VERB_ROW_

const umb_verb *umb_verb_find(const char *s, size_t n) {
  for (size_t i = 0; i < UMB_NVERBS; i++)
    if (strlen(umb_verbs[i].name) == n && memcmp(umb_verbs[i].name, s, n) == 0) return &umb_verbs[i];
  return NULL;
}

bool umb_verb_name_ok(const char *s, size_t n) {
  if (n == 0 || n > UMB_VERB_NAME_MAX) return false;
  for (size_t i = 0; i < n; i++) {
    char c = s[i];
    if (!((c >= 'a' && c <= 'z') || (c >= '0' && c <= '9') || c == '_' || c == '-')) return false;
  }
  return true;
}

/* Every byte of s[0..n) is 0x21..0x7e, or a space if spaces is set. */
static bool field_bytes_ok(const char *s, size_t n, bool spaces) {
  for (size_t i = 0; i < n; i++) {
    unsigned char c = (unsigned char)s[i];
    if (!(c >= 0x21 && c <= 0x7e) && !(spaces && c == ' ')) return false;
  }
  return true;
}

int umb_request_check(uint64_t pid, const char *verb, const char *args, bool table) {
  size_t vn = strlen(verb), an = args ? strlen(args) : 0;
  if (pid < 1 || pid > UMB_PID_MAX || vn == 0 || !field_bytes_ok(verb, vn, false) || !field_bytes_ok(args, an, true))
    return -EINVAL;
  int n = an ? umb_split(args, an, NULL, UMB_ARGS_MAX) : 0;
  if (n < 0) return -EINVAL;
  const umb_verb *v = umb_verb_find(verb, vn);
  if (table && (v == NULL || n < v->args_min || n > v->args_max)) return -EINVAL;
  return 0;
}

/* ---- Buffer. ---- */

int umb_buf_reserve(umb_buf *b, size_t extra) {
  if (b->data && b->cap - b->len > extra) return 0;
  if (extra >= SIZE_MAX / 2 - b->len) return b->err = -ENOMEM;
  size_t cap = b->cap ? b->cap : 64;
  while (cap - b->len <= extra) cap *= 2;
  char *d = realloc(b->data, cap);
  if (d == NULL) return b->err = -ENOMEM;
  if (b->data == NULL) d[0] = '\0';
  b->data = d;
  b->cap = cap;
  return 0;
}

int umb_buf_append(umb_buf *b, const void *p, size_t n) {
  int rc = umb_buf_reserve(b, n);
  if (rc) return rc;
  if (n) memcpy(b->data + b->len, p, n);
  b->len += n;
  b->data[b->len] = '\0';
  return 0;
}

int umb_buf_puts(umb_buf *b, const char *s) { return umb_buf_append(b, s, strlen(s)); }

int umb_buf_printf(umb_buf *b, const char *fmt, ...) {
  va_list ap;
  va_start(ap, fmt);
  int n = vsnprintf(NULL, 0, fmt, ap);
  va_end(ap);
  if (n < 0) return -EINVAL;
  int rc = umb_buf_reserve(b, (size_t)n);
  if (rc) return rc;
  va_start(ap, fmt);
  vsnprintf(b->data + b->len, (size_t)n + 1, fmt, ap);
  va_end(ap);
  b->len += (size_t)n;
  return 0;
}

void umb_buf_reset(umb_buf *b) {
  b->len = 0;
  b->err = 0;
  if (b->data) b->data[0] = '\0';
}

void umb_buf_free(umb_buf *b) {
  free(b->data);
  b->data = NULL;
  b->len = b->cap = 0;
  b->err = 0;
}

/* ---- Fields. ---- */

int umb_split(const char *line, size_t len, umb_field *f, size_t max) {
  size_t n = 0, start = 0;
  if (len == 0) return -EINVAL;
  for (size_t i = 0; i <= len; i++) {
    if (i < len && line[i] != ' ') continue;
    if (i == start) return -EINVAL;
    if (n == max) return -E2BIG;
    if (f) f[n] = (umb_field){line + start, i - start};
    n++;
    start = i + 1;
  }
  return (int)n;
}

bool umb_field_eq(umb_field f, const char *s) {
  size_t n = strlen(s);
  return f.n == n && memcmp(f.p, s, n) == 0;
}

static bool pct_plain(unsigned char c) { return c >= 0x21 && c <= 0x7e && c != '%'; }

static int hexval(char c) {
  if (c >= '0' && c <= '9') return c - '0';
  if (c >= 'A' && c <= 'F') return c - 'A' + 10;
  if (c >= 'a' && c <= 'f') return c - 'a' + 10;
  return -1;
}

int umb_pct_encode(umb_buf *b, const void *p, size_t n) {
  static const char hex[] = "0123456789ABCDEF";
  const unsigned char *s = p;
  if (n == 0) return umb_buf_append(b, "-", 1);
  if (n == 1 && s[0] == '-') return umb_buf_append(b, "%2D", 3);
  size_t need = 0;
  for (size_t i = 0; i < n; i++) need += pct_plain(s[i]) ? 1 : 3;
  /* Reserve the whole field once so that the loop cannot fail halfway. */
  int rc = umb_buf_reserve(b, need);
  if (rc) return rc;
  char *o = b->data + b->len;
  for (size_t i = 0; i < n; i++) {
    if (pct_plain(s[i])) {
      *o++ = (char)s[i];
    } else {
      *o++ = '%';
      *o++ = hex[s[i] >> 4];
      *o++ = hex[s[i] & 15];
    }
  }
  b->len += need;
  b->data[b->len] = '\0';
  return 0;
}

int umb_pct_decode_to(const char *s, size_t n, char *out, size_t *outn) {
  size_t o = 0;
  if (n == 1 && s[0] == '-') {
    *outn = 0;
    return 0;
  }
  for (size_t i = 0; i < n; i++) {
    unsigned char c = (unsigned char)s[i];
    if (c == '%') {
      int hi = n - i >= 3 ? hexval(s[i + 1]) : -1;
      int lo = hi < 0 ? -1 : hexval(s[i + 2]);
      if (lo < 0) return -EINVAL;
      out[o++] = (char)(hi << 4 | lo);
      i += 2;
    } else if (c >= 0x21 && c <= 0x7e) {
      out[o++] = (char)c;
    } else {
      return -EINVAL;
    }
  }
  *outn = o;
  return 0;
}

int umb_pct_decode(char *tok, size_t *n) {
  int rc = umb_pct_decode_to(tok, strlen(tok), tok, n);
  if (rc == 0) tok[*n] = '\0';
  return rc;
}

int umb_pct_decode_buf(const char *s, size_t n, umb_buf *out) {
  size_t got;
  int rc = umb_buf_reserve(out, n);
  if (rc) return rc;
  rc = umb_pct_decode_to(s, n, out->data + out->len, &got);
  if (rc == 0) out->len += got;
  out->data[out->len] = '\0';
  return rc;
}

int umb_num_parse_n(const char *s, size_t n, uint64_t *v) {
  uint64_t x = 0;
  if (n > 2 && s[0] == '0' && (s[1] == 'x' || s[1] == 'X')) {
    for (size_t i = 2; i < n; i++) {
      int d = hexval(s[i]);
      if (d < 0 || x > (UINT64_MAX >> 4)) return -EINVAL;
      x = x << 4 | (uint64_t)d;
    }
    *v = x;
    return 0;
  }
  if (n == 0) return -EINVAL;
  for (size_t i = 0; i < n; i++) {
    if (s[i] < '0' || s[i] > '9') return -EINVAL;
    uint64_t d = (uint64_t)(s[i] - '0');
    if (x > (UINT64_MAX - d) / 10) return -EINVAL;
    x = x * 10 + d;
  }
  *v = x;
  return 0;
}

int umb_num_parse(const char *s, uint64_t *v) { return umb_num_parse_n(s, strlen(s), v); }

int umb_id_parse(const char *s, size_t n, uint64_t *v) {
  uint64_t x = 0;
  if (n == 0 || n > 19 || s[0] == '0') return -EINVAL;
  for (size_t i = 0; i < n; i++) {
    if (s[i] < '0' || s[i] > '9') return -EINVAL;
    x = x * 10 + (uint64_t)(s[i] - '0');
  }
  if (x > (uint64_t)INT64_MAX) return -EINVAL;
  *v = x;
  return 0;
}

/* ---- Errno names. ---- */

/* Linux's errno values (asm-generic/errno-base.h and errno.h); where two names share a value, the first is the one
 * sent and both are understood. */
/* clang-format off */
static const struct {
  int no;
  const char *name;
} errnames[] = {
#define E(x) {x, #x}
    E(EPERM), E(ENOENT), E(ESRCH), E(EINTR), E(EIO), E(ENXIO), E(E2BIG), E(ENOEXEC), E(EBADF), E(ECHILD), E(EAGAIN),
    E(ENOMEM), E(EACCES), E(EFAULT), E(ENOTBLK), E(EBUSY), E(EEXIST), E(EXDEV), E(ENODEV), E(ENOTDIR), E(EISDIR),
    E(EINVAL), E(ENFILE), E(EMFILE), E(ENOTTY), E(ETXTBSY), E(EFBIG), E(ENOSPC), E(ESPIPE), E(EROFS), E(EMLINK),
    E(EPIPE), E(EDOM), E(ERANGE), E(EDEADLK), E(ENAMETOOLONG), E(ENOLCK), E(ENOSYS), E(ENOTEMPTY), E(ELOOP),
    E(ENOMSG), E(EIDRM), E(ECHRNG), E(EL2NSYNC), E(EL3HLT), E(EL3RST), E(ELNRNG), E(EUNATCH), E(ENOCSI), E(EL2HLT),
    E(EBADE), E(EBADR), E(EXFULL), E(ENOANO), E(EBADRQC), E(EBADSLT), E(EBFONT), E(ENOSTR), E(ENODATA), E(ETIME),
    E(ENOSR), E(ENONET), E(ENOPKG), E(EREMOTE), E(ENOLINK), E(EADV), E(ESRMNT), E(ECOMM), E(EPROTO), E(EMULTIHOP),
    E(EDOTDOT), E(EBADMSG), E(EOVERFLOW), E(ENOTUNIQ), E(EBADFD), E(EREMCHG), E(ELIBACC), E(ELIBBAD), E(ELIBSCN),
    E(ELIBMAX), E(ELIBEXEC), E(EILSEQ), E(ERESTART), E(ESTRPIPE), E(EUSERS), E(ENOTSOCK), E(EDESTADDRREQ),
    E(EMSGSIZE), E(EPROTOTYPE), E(ENOPROTOOPT), E(EPROTONOSUPPORT), E(ESOCKTNOSUPPORT), E(EOPNOTSUPP),
    E(EPFNOSUPPORT), E(EAFNOSUPPORT), E(EADDRINUSE), E(EADDRNOTAVAIL), E(ENETDOWN), E(ENETUNREACH), E(ENETRESET),
    E(ECONNABORTED), E(ECONNRESET), E(ENOBUFS), E(EISCONN), E(ENOTCONN), E(ESHUTDOWN), E(ETOOMANYREFS), E(ETIMEDOUT),
    E(ECONNREFUSED), E(EHOSTDOWN), E(EHOSTUNREACH), E(EALREADY), E(EINPROGRESS), E(ESTALE), E(EUCLEAN), E(ENOTNAM),
    E(ENAVAIL), E(EISNAM), E(EREMOTEIO), E(EDQUOT), E(ENOMEDIUM), E(EMEDIUMTYPE), E(ECANCELED), E(ENOKEY),
    E(EKEYEXPIRED), E(EKEYREVOKED), E(EKEYREJECTED), E(EOWNERDEAD), E(ENOTRECOVERABLE), E(ERFKILL), E(EHWPOISON),
    E(EWOULDBLOCK), E(EDEADLOCK), E(ENOTSUP),
#undef E
};
/* clang-format on */

const char *umb_errname(int err) {
  static char other[24];
  if (err < 0) err = -err;
  for (size_t i = 0; i < sizeof errnames / sizeof errnames[0]; i++)
    if (errnames[i].no == err) return errnames[i].name;
  snprintf(other, sizeof other, "E%d", err);
  return other;
}

int umb_errno_from_name(const char *name) {
  for (size_t i = 0; i < sizeof errnames / sizeof errnames[0]; i++)
    if (strcmp(errnames[i].name, name) == 0) return errnames[i].no;
  /* "E<n>": what umb_errname writes for a number without a name. */
  uint64_t v;
  if (name[0] == 'E' && name[1] >= '1' && name[1] <= '9' && umb_num_parse(name + 1, &v) == 0 && v <= 4095)
    return (int)v;
  return 0;
}

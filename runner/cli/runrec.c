/* runrec.c: writing and reading the runner's records with the protocol's own percent codec. */
#include "runrec.h"

#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

int umb_rec_bytes(umb_buf *b, const char *tag, const char *key, const char *val, size_t n) {
  int rc = umb_buf_printf(b, "%s %s ", tag, key);
  if (rc == 0) rc = umb_pct_encode(b, val, n);
  if (rc == 0) rc = umb_buf_append(b, "\n", 1);
  return rc;
}

int umb_rec_str(umb_buf *b, const char *tag, const char *key, const char *val) {
  return val ? umb_rec_bytes(b, tag, key, val, strlen(val)) : 0;
}

int umb_rec_num(umb_buf *b, const char *tag, const char *key, double v) {
  char num[64];
  snprintf(num, sizeof num, "%.17g", v);
  return umb_rec_str(b, tag, key, num);
}

int umb_rec_parse(char *line, size_t len, const char *tag, char **key, char **val, size_t *vlen) {
  size_t tl = strlen(tag);
  if (len < tl + 4 || strncmp(line, tag, tl) || line[tl] != ' ') return -EINVAL;
  char *k = line + tl + 1, *sp = memchr(k, ' ', len - tl - 1);
  if (sp == NULL || sp == k) return -EINVAL;
  *sp = '\0';
  char *v = sp + 1;
  size_t n = len - (size_t)(v - line);
  /* The codec writes an empty value as "-". */
  if (n == 1 && v[0] == '-') {
    n = 0;
  } else if (umb_pct_decode(v, &n)) {
    return -EINVAL;
  }
  v[n] = '\0';
  *key = k;
  *val = v;
  *vlen = n;
  return 0;
}

int umb_rec_int(const char *val, long long min, long long max, long long *out) {
  char *end;
  errno = 0;
  long long v = strtoll(val, &end, 10);
  if (errno || end == val || *end || v < min || v > max) return -EINVAL;
  *out = v;
  return 0;
}

// SPDX-License-Identifier: MIT
/* codec.c: the runner's side of the protocol: reply parsing and splitting a byte stream into lines. */
#include "umlbed.h"

#include <errno.h>
#include <stdlib.h>
#include <string.h>

int umb_msg_parse(char *line, size_t len, umb_msg *m) {
  m->nfields = 0;
  if (memchr(line, '\0', len) != NULL) return -EINVAL;
  /* Count and check first, so that the field array grows once, to the size this line needs. */
  int n = umb_split(line, len, NULL, 3 + UMB_FIELDS_MAX);
  if (n < 0) return n;
  if (n < 3) return -EINVAL;
  size_t nf = (size_t)n - 3;
  if (nf > m->fields_cap) {
    char **f = realloc(m->fields, nf * sizeof *f);
    if (f == NULL) return -ENOMEM;
    m->fields = f;
    m->fields_cap = nf;
  }
  char *tok[3], *p = line;
  for (int i = 0; i < n; i++) {
    char *e = memchr(p, ' ', (size_t)(line + len - p));
    if (e == NULL) e = line + len;
    *e = '\0';
    if (i < 3)
      tok[i] = p;
    else
      m->fields[i - 3] = p;
    p = e + 1;
  }
  if (umb_num_parse(tok[0], &m->id)) return -EINVAL;
  m->verb = tok[1];
  if (strcmp(tok[2], "ok") == 0)
    m->ok = 1;
  else if (strcmp(tok[2], "err") == 0)
    m->ok = 0;
  else
    return -EINVAL;
  if (!m->ok && nf < 1) return -EINVAL;
  m->nfields = (int)nf;
  return 0;
}

void umb_msg_free(umb_msg *m) {
  free(m->fields);
  m->fields = NULL;
  m->fields_cap = 0;
  m->nfields = 0;
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

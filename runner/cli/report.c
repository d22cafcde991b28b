// SPDX-License-Identifier: MIT
/* report.c: escaping for the TAP, JUnit and JSON reports, so that no byte a scenario produces can break them. */
#include "report.h"

#include <stdlib.h>
#include <string.h>

/* Length of the valid UTF-8 sequence at p (at most n bytes), or 0: no overlongs, surrogates or code points past
 * U+10FFFF. */
static size_t utf8_seq(const unsigned char *p, size_t n) {
  if (p[0] < 0x80) return 1;
  size_t len;
  unsigned cp;
  if (p[0] >= 0xc2 && p[0] <= 0xdf)
    len = 2, cp = p[0] & 0x1f;
  else if (p[0] >= 0xe0 && p[0] <= 0xef)
    len = 3, cp = p[0] & 0x0f;
  else if (p[0] >= 0xf0 && p[0] <= 0xf4)
    len = 4, cp = p[0] & 0x07;
  else
    return 0;
  if (n < len) return 0;
  for (size_t i = 1; i < len; i++) {
    if ((p[i] & 0xc0) != 0x80) return 0;
    cp = (cp << 6) | (p[i] & 0x3f);
  }
  if ((len == 3 && (cp < 0x800 || (cp >= 0xd800 && cp <= 0xdfff))) || (len == 4 && (cp < 0x10000 || cp > 0x10ffff)))
    return 0;
  return len;
}

char *umb_utf8_clean(const char *s) {
  if (s == NULL) return NULL;
  size_t n = strlen(s);
  char *out = malloc(2 * n + 1), *o = out;
  if (out == NULL) return NULL;
  const unsigned char *p = (const unsigned char *)s;
  while (n > 0) {
    size_t len = utf8_seq(p, n);
    if (len) {
      memcpy(o, p, len);
      o += len;
    } else {
      /* U+00NN in two bytes. */
      *o++ = (char)(0xc0 | (p[0] >> 6));
      *o++ = (char)(0x80 | (p[0] & 0x3f));
      len = 1;
    }
    p += len;
    n -= len;
  }
  *o = '\0';
  return out;
}

void umb_xml_escape(FILE *f, const char *s) {
  char *clean = umb_utf8_clean(s);
  for (const char *p = clean; p && *p; p++) {
    unsigned char c = (unsigned char)*p;
    if (c == '<')
      fputs("&lt;", f);
    else if (c == '>')
      fputs("&gt;", f);
    else if (c == '&')
      fputs("&amp;", f);
    else if (c == '"')
      fputs("&quot;", f);
    else if (c < 0x20 && c != '\n' && c != '\t' && c != '\r')
      fprintf(f, "\\x%02x", c);
    else
      fputc(c, f);
  }
  free(clean);
}

void umb_tap_escape(FILE *f, const char *s) {
  for (const unsigned char *p = (const unsigned char *)s; p && *p; p++) {
    if (*p == '\\')
      fputs("\\\\", f);
    else if (*p == '#')
      fputs("\\#", f);
    else if (*p == '\n')
      fputs("\\n", f);
    else if (*p == '\r')
      fputs("\\r", f);
    else if (*p < 0x20 || *p == 0x7f)
      fprintf(f, "\\x%02x", *p);
    else
      fputc(*p, f);
  }
}

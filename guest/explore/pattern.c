// SPDX-License-Identifier: MIT
/* pattern.c: the bytes of page i at version v, and the token that names a page's bytes in the explorer's state. */
#include "xp.h"

#include <stdio.h>
#include <string.h>

#define HEAD_LEN 32

static char fill_byte(unsigned v, size_t i) { return (char)('a' + (v * 7 + i) % 26); }

void xp_fill(char *page, unsigned v, size_t i) {
  memset(page, fill_byte(v, i), xp_ps);
  char head[HEAD_LEN + 1];
  snprintf(head, sizeof head, "umlbed v%u p%zu.", v, i);
  memcpy(page, head, strlen(head));
}

/* FNV-1a over the page: a name for bytes that are neither a version of a page nor zeros. */
static unsigned hash(const char *p, size_t n) {
  unsigned h = 2166136261u;
  for (size_t k = 0; k < n; k++) h = (h ^ (unsigned char)p[k]) * 16777619u;
  return h;
}

void xp_token(const char *page, size_t i, char *tok, size_t toksz) {
  unsigned v;
  size_t at;
  int len = 0;
  if (sscanf(page, "umlbed v%u p%zu.%n", &v, &at, &len) == 2 && len > 0 && len <= HEAD_LEN) {
    char c = fill_byte(v, at);
    size_t k = (size_t)len;
    while (k < xp_ps && page[k] == c) k++;
    if (k == xp_ps) {
      if (at == i)
        snprintf(tok, toksz, "v%u", v);
      else
        snprintf(tok, toksz, "v%u@%zu", v, at);
      return;
    }
  }
  size_t z = 0;
  while (z < xp_ps && page[z] == 0) z++;
  if (z == xp_ps)
    snprintf(tok, toksz, "z");
  else
    snprintf(tok, toksz, "h%08x", hash(page, xp_ps));
}

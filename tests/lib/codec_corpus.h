/* SPDX-License-Identifier: MIT */
/* codec_corpus.h: runs tests/data/codec-corpus against protocol/'s codec; shared by the runner's and the agent's C tests. */
#ifndef UMLBED_CODEC_CORPUS_H
#define UMLBED_CODEC_CORPUS_H

#include <errno.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "tap.h"
#include "umb_proto.h"

/* Hex to bytes ("-" is none): the count, or -1 for bad hex. */
static inline int corpus_hex(const char *h, char *out, size_t size) {
  if (!strcmp(h, "-")) return 0;
  size_t n = strlen(h);
  if (n % 2 || n / 2 > size) return -1;
  for (size_t i = 0; i < n / 2; i++) {
    unsigned v;
    if (sscanf(h + 2 * i, "%2x", &v) != 1) return -1;
    out[i] = (char)v;
  }
  return (int)(n / 2);
}

/* One case; 1 if it holds. */
static inline int corpus_case(const char *kind, const char *a, const char *b) {
  char bytes[512], in[512];
  int nb;
  size_t n;
  umb_buf e = {0};
  int good = 0;
  if (!strcmp(kind, "encode") && (nb = corpus_hex(a, bytes, sizeof bytes)) >= 0) {
    good = umb_pct_encode(&e, bytes, (size_t)nb) == 0 && !strcmp(e.data, b);
    snprintf(in, sizeof in, "%s", b);
    good = good && umb_pct_decode(in, &n) == 0 && n == (size_t)nb && !memcmp(in, bytes, n);
  } else if (!strcmp(kind, "decode") && (nb = corpus_hex(b, bytes, sizeof bytes)) >= 0) {
    snprintf(in, sizeof in, "%s", a);
    good = umb_pct_decode(in, &n) == 0 && n == (size_t)nb && !memcmp(in, bytes, n);
  } else if (!strcmp(kind, "refuse") && (nb = corpus_hex(a, in, sizeof in - 1)) >= 0) {
    in[nb] = '\0';
    good = umb_pct_decode(in, &n) == -EINVAL;
  } else if (!strcmp(kind, "number") || !strcmp(kind, "id")) {
    uint64_t v = 0;
    int rc = !strcmp(kind, "id") ? umb_id_parse(a, strlen(a), &v) : umb_num_parse(a, &v);
    good = !strcmp(b, "refuse") ? rc == -EINVAL : rc == 0 && v == strtoull(b, NULL, 10);
  }
  umb_buf_free(&e);
  return good;
}

/* Every case of the corpus at path: each failure printed with its line; returns the number of cases run. */
static inline int corpus_run(const char *path) {
  FILE *f = fopen(path, "re");
  if (f == NULL) {
    printf("#   cannot open %s\n", path);
    tap_failures++;
    return 0;
  }
  char line[1024];
  int lineno = 0, cases = 0;
  while (fgets(line, sizeof line, f)) {
    lineno++;
    char kind[16], a[512], b[512] = "";
    if (line[0] == '#' || line[0] == '\n') continue;
    if (sscanf(line, "%15s %511s %511s", kind, a, b) < 2) {
      printf("#   %s:%d: not a case\n", path, lineno);
      tap_failures++;
      continue;
    }
    cases++;
    if (!corpus_case(kind, a, b)) {
      printf("#   %s:%d: %s %s %s does not hold", path, lineno, kind, a, b);
      printf("\n");
      tap_failures++;
    }
  }
  fclose(f);
  return cases;
}

#endif

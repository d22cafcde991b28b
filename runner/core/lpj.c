// SPDX-License-Identifier: MIT
/* lpj.c: the delay-loop calibration a kernel made on this host, learnt from one boot and passed to the next as lpj=. */
#include "lpj.h"

#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#define LPJ_LINES_MAX 64

/* The host CPU's model name: the calibration measures it, so another CPU must measure again. */
static void cpu_model(char *out, size_t size) {
  char line[512];
  FILE *f = fopen("/proc/cpuinfo", "re");
  snprintf(out, size, "unknown-cpu");
  while (f && fgets(line, sizeof line, f)) {
    if (strncmp(line, "model name", 10)) continue;
    const char *colon = strchr(line, ':');
    if (colon == NULL) continue;
    colon += strspn(colon + 1, " \t") + 1;
    snprintf(out, size, "%.*s", (int)strcspn(colon, "\n"), colon);
    break;
  }
  if (f) fclose(f);
  /* The key is one space-free word. */
  for (char *p = out; *p; p++)
    if (*p == ' ' || *p == '\t') *p = '_';
}

static int lpj_plausible(unsigned long v) { return v >= UMB_LPJ_MIN && v <= UMB_LPJ_MAX; }

int umb_lpj_load(umb_lpj *l, const char *cache, const char *kernel) {
  struct stat st;
  char model[256], real[4096];
  memset(l, 0, sizeof *l);
  if (stat(kernel, &st)) return -errno;
  if (realpath(kernel, real) == NULL) snprintf(real, sizeof real, "%s", kernel);
  cpu_model(model, sizeof model);
  /* A rebuilt kernel (size or time changed) measures again: its delay loop may differ. */
  snprintf(l->key, sizeof l->key, "%.600s:%lld:%lld.%09ld:%.200s", real, (long long)st.st_size,
           (long long)st.st_mtim.tv_sec, st.st_mtim.tv_nsec, model);
  for (char *p = l->key; *p; p++)
    if (*p == ' ' || *p == '\n') *p = '_';
  FILE *f = cache && *cache ? fopen(cache, "re") : NULL;
  char line[1200];
  size_t klen = strlen(l->key);
  while (f && fgets(line, sizeof line, f)) {
    if (strncmp(line, l->key, klen) || line[klen] != ' ') continue;
    char *end;
    const char *num = line + klen + 1;
    errno = 0;
    unsigned long v = strtoul(num, &end, 10);
    /* strtoul takes a sign and wraps it: only digits, in range, are a calibration. */
    if (*num >= '0' && *num <= '9' && end != num && (*end == '\n' || *end == '\0') && !errno && lpj_plausible(v))
      l->value = v;
  }
  if (f) fclose(f);
  return 0;
}

unsigned long umb_lpj_parse(const char *text, size_t len) {
  static const char head[] = "Calibrating delay loop... ", tag[] = "(lpj=";
  const char *end = text + len;
  for (const char *p = text; p && p < end; p = memchr(p, '\n', (size_t)(end - p)), p = p ? p + 1 : NULL) {
    const char *nl = memchr(p, '\n', (size_t)(end - p));
    size_t n = nl ? (size_t)(nl - p) : (size_t)(end - p);
    const char *h = memmem(p, n, head, sizeof head - 1);
    const char *t = h ? memmem(h, n - (size_t)(h - p), tag, sizeof tag - 1) : NULL;
    if (t == NULL) continue;
    unsigned long v = 0;
    const char *d = t + sizeof tag - 1;
    int digits = 0;
    for (; d < p + n && *d >= '0' && *d <= '9' && digits < 19; d++, digits++) v = v * 10 + (unsigned long)(*d - '0');
    if (digits && d < p + n && *d == ')') return lpj_plausible(v) ? v : 0;
  }
  return 0;
}

int umb_lpj_save(const umb_lpj *l, const char *cache) {
  if (cache == NULL || !*cache || l->value == 0 || !l->key[0]) return 0;
  if (!lpj_plausible(l->value)) return -ERANGE;
  char *keep[LPJ_LINES_MAX];
  int n = 0;
  char line[1200];
  size_t klen = strlen(l->key);
  FILE *f = fopen(cache, "re");
  while (f && fgets(line, sizeof line, f)) {
    if (!strncmp(line, l->key, klen) && line[klen] == ' ') continue;
    if (strchr(line, '\n') == NULL) continue; /* Cut: not one of ours. */
    if (n == LPJ_LINES_MAX - 1) {
      free(keep[0]);
      memmove(keep, keep + 1, sizeof keep[0] * (size_t)(n - 1));
      n--;
    }
    if ((keep[n] = strdup(line)) != NULL) n++;
  }
  if (f) fclose(f);
  char tmp[4200];
  snprintf(tmp, sizeof tmp, "%s.%d", cache, (int)getpid());
  int rc = 0;
  FILE *out = fopen(tmp, "we");
  if (out == NULL) rc = -errno;
  for (int i = 0; i < n; i++) {
    if (out && fputs(keep[i], out) < 0) rc = -EIO;
    free(keep[i]);
  }
  if (out) {
    if (fprintf(out, "%s %lu\n", l->key, l->value) < 0) rc = -EIO;
    if (fclose(out)) rc = -errno;
    /* Renamed into place whole: runners in parallel never read half a file. */
    if (rc == 0 && rename(tmp, cache)) rc = -errno;
    if (rc) unlink(tmp);
  }
  return rc;
}

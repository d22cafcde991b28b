// SPDX-License-Identifier: MIT
/* lpj.c: what a kernel build showed on this host (its delay-loop calibration, its release), kept for the next run. */
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

/* The value of key's line in the cache file ("KEY VALUE\n"), or -ENOENT. */
static int kv_get(const char *cache, const char *key, char *val, size_t size) {
  FILE *f = cache && *cache ? fopen(cache, "re") : NULL;
  char line[1200];
  size_t klen = strlen(key);
  int rc = -ENOENT;
  while (f && fgets(line, sizeof line, f)) {
    char *nl = strchr(line, '\n');
    if (nl == NULL || strncmp(line, key, klen) || line[klen] != ' ') continue;
    *nl = '\0';
    snprintf(val, size, "%s", line + klen + 1);
    rc = 0;
  }
  if (f) fclose(f);
  return rc;
}

/* Writes key's line, keeping the other keys' lines (at most LPJ_LINES_MAX in all); the file is renamed into place
 * whole, so runners in parallel never read half of it. */
static int kv_put(const char *cache, const char *key, const char *val) {
  char *keep[LPJ_LINES_MAX];
  int n = 0;
  char line[1200];
  size_t klen = strlen(key);
  FILE *f = fopen(cache, "re");
  while (f && fgets(line, sizeof line, f)) {
    if (!strncmp(line, key, klen) && line[klen] == ' ') continue;
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
    if (fprintf(out, "%s %s\n", key, val) < 0) rc = -EIO;
    if (fclose(out)) rc = -errno;
    if (rc == 0 && rename(tmp, cache)) rc = -errno;
    if (rc) unlink(tmp);
  }
  return rc;
}

/* The kernel build's key: its path, size and times (a rebuilt kernel is another key), then extra; one word. */
static int build_key(char *key, size_t size, const char *kernel, const char *extra) {
  struct stat st;
  char real[4096];
  if (stat(kernel, &st)) return -errno;
  if (realpath(kernel, real) == NULL) snprintf(real, sizeof real, "%s", kernel);
  snprintf(key, size, "%.600s:%lld:%lld.%09ld:%.200s", real, (long long)st.st_size, (long long)st.st_mtim.tv_sec,
           st.st_mtim.tv_nsec, extra);
  for (char *p = key; *p; p++)
    if (*p == ' ' || *p == '\n') *p = '_';
  return 0;
}

int umb_lpj_load(umb_lpj *l, const char *cache, const char *kernel) {
  char model[256], val[64];
  memset(l, 0, sizeof *l);
  /* The calibration measures the host's CPU: another CPU must measure again. */
  cpu_model(model, sizeof model);
  int rc = build_key(l->key, sizeof l->key, kernel, model);
  if (rc) return rc;
  if (kv_get(cache, l->key, val, sizeof val)) return 0;
  char *end;
  errno = 0;
  unsigned long v = strtoul(val, &end, 10);
  /* strtoul takes a sign and wraps it: only digits, in range, are a calibration. */
  if (val[0] >= '0' && val[0] <= '9' && *end == '\0' && !errno && lpj_plausible(v)) l->value = v;
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
  char val[32];
  snprintf(val, sizeof val, "%lu", l->value);
  return kv_put(cache, l->key, val);
}

/* The release key also holds the change time: a kernel rewritten in place within one mtime tick is another build. */
static int release_key(char *key, size_t size, const char *kernel) {
  struct stat st;
  if (stat(kernel, &st)) return -errno;
  char extra[96];
  snprintf(extra, sizeof extra, "release:%llu:%llu:%lld.%09ld", (unsigned long long)st.st_dev,
           (unsigned long long)st.st_ino, (long long)st.st_ctim.tv_sec, st.st_ctim.tv_nsec);
  return build_key(key, size, kernel, extra);
}

static int release_word(const char *r) {
  size_t digits = strspn(r, "0123456789");
  return digits && r[digits] == '.' && strlen(r) < UMB_RELEASE_MAX && !strpbrk(r, " \t\n");
}

int umb_release_load(const char *cache, const char *kernel, char *release, size_t size) {
  char key[1024], val[UMB_RELEASE_MAX + 1];
  if (cache == NULL || !*cache || release_key(key, sizeof key, kernel) || kv_get(cache, key, val, sizeof val) ||
      !release_word(val))
    return -ENOENT;
  snprintf(release, size, "%s", val);
  return 0;
}

int umb_release_save(const char *cache, const char *kernel, const char *release) {
  char key[1024];
  if (cache == NULL || !*cache || !release_word(release)) return 0;
  int rc = release_key(key, sizeof key, kernel);
  return rc ? rc : kv_put(cache, key, release);
}

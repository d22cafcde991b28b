// SPDX-License-Identifier: MIT
/* jobs.c: -j auto: probe one more concurrent scenario, keep it only if measured throughput rises by 10 %. */
#include "jobs.h"

#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

/* First hold after a failed probe, in completed runs; it grows fourfold per failure, so a host where more
 * instances never pay costs a few probes per suite, not one every few runs. */
#define HOLD_FIRST 16
#define HOLD_MAX 1024

void umb_jobs_init(umb_jobs *j, int automatic, int cap) {
  memset(j, 0, sizeof *j);
  if (cap < 1) cap = 1;
  if (cap > UMB_JOBS_MAX) cap = UMB_JOBS_MAX;
  j->automatic = automatic;
  j->cap = cap;
  j->base = 1;
  j->level = automatic ? 1 : cap;
  j->backoff = HOLD_FIRST;
}

int umb_jobs_level(const umb_jobs *j) { return j->level; }

void umb_jobs_started(umb_jobs *j) { j->runs[j->level]++; }

void umb_jobs_sample(umb_jobs *j, int level, double boot_ms) {
  if (level < 1 || level > UMB_JOBS_MAX || !(boot_ms > 0)) return;
  j->samples[level][j->nsamples[level] % UMB_JOBS_WINDOW] = boot_ms;
  j->nsamples[level]++;
}

static int cmp_double(const void *a, const void *b) {
  double x = *(const double *)a, y = *(const double *)b;
  return (x > y) - (x < y);
}

double umb_jobs_median(const umb_jobs *j, int level) {
  if (level < 1 || level > UMB_JOBS_MAX) return 0;
  int n = j->nsamples[level] < UMB_JOBS_WINDOW ? j->nsamples[level] : UMB_JOBS_WINDOW;
  if (n < UMB_JOBS_MIN_SAMPLES) return 0;
  double v[UMB_JOBS_WINDOW];
  memcpy(v, j->samples[level], sizeof(double) * (size_t)n);
  qsort(v, (size_t)n, sizeof v[0], cmp_double);
  return n % 2 ? v[n / 2] : (v[n / 2 - 1] + v[n / 2]) / 2;
}

double umb_jobs_throughput(const umb_jobs *j, int level) {
  double alone = umb_jobs_median(j, 1), here = umb_jobs_median(j, level);
  if (!(alone > 0) || !(here > 0)) return 0;
  return level * alone / here;
}

static void say(const umb_jobs *j, const char *what, int level) {
  if (j->verbose)
    fprintf(stderr, "umlbed: -j auto: %s %d (throughput %.2f at %d, %.2f at %d)\n", what, level,
            umb_jobs_throughput(j, level), level, umb_jobs_throughput(j, level > 1 ? level - 1 : 1),
            level > 1 ? level - 1 : 1);
}

static void fall_back(umb_jobs *j) {
  j->level = j->base;
  j->probing = 0;
  j->hold = j->backoff;
  j->backoff = j->backoff * 4 > HOLD_MAX ? HOLD_MAX : j->backoff * 4;
}

void umb_jobs_run_done(umb_jobs *j) {
  if (!j->automatic) return;
  if (j->probing) {
    int next = j->base + 1;
    double tn = umb_jobs_throughput(j, next), tb = umb_jobs_throughput(j, j->base);
    if (!(tn > 0) || !(tb > 0)) return; /* The trial goes on until both levels have enough samples. */
    /* Clear either way after the first samples; in between, a full window decides against the 10 % bar. */
    int full = j->nsamples[next] >= UMB_JOBS_WINDOW;
    if (tn < UMB_JOBS_CLEAR_GAIN * tb && tn >= UMB_JOBS_CLEAR_LOSS * tb && !full) return;
    if (tn >= UMB_JOBS_GAIN * tb) {
      j->base = next;
      j->probing = 0;
      j->next_failed = 0;
      j->accepted++;
      j->backoff = HOLD_FIRST;
      say(j, "keeps", next);
    } else {
      say(j, "drops", next);
      fall_back(j);
      j->next_failed = 1;
    }
  } else if (j->base >= 2) {
    /* The kept level must still beat the one below it: the host or its neighbours may have changed. */
    double tb = umb_jobs_throughput(j, j->base), tl = umb_jobs_throughput(j, j->base - 1);
    if (tb > 0 && tl > 0 && tb < tl) {
      say(j, "backs off from", j->base);
      j->base--;
      fall_back(j);
      j->next_failed = 1;
    }
  }
  if (j->hold > 0) {
    j->hold--;
    return;
  }
  if (!j->probing && j->base < j->cap && umb_jobs_median(j, j->base) > 0) {
    /* A trial needs fresh samples: ones from an earlier trial may come from another state of the host. */
    j->nsamples[j->base + 1] = 0;
    j->probing = 1;
    j->probes++;
    j->level = j->base + 1;
  }
}

void umb_jobs_seed(umb_jobs *j, int base, int next_failed, const double *medians) {
  if (!j->automatic) return;
  for (int l = 1; l <= j->cap; l++)
    if (medians[l] > 0)
      for (int k = 0; k < UMB_JOBS_MIN_SAMPLES; k++) umb_jobs_sample(j, l, medians[l]);
  if (base < 1) base = 1;
  if (base > j->cap) base = j->cap;
  /* Without the lone-boot median the kept level cannot be checked: start from one again. */
  if (umb_jobs_median(j, 1) > 0 && umb_jobs_median(j, base) > 0) j->base = j->level = base;
  /* The level above did not pay last time: wait as long as after a second failed trial before trying it. */
  if (next_failed && j->base < j->cap) {
    j->next_failed = 1;
    j->hold = j->backoff * 4;
    j->backoff = j->backoff * 16 > HOLD_MAX ? HOLD_MAX : j->backoff * 16;
  }
}

int umb_jobs_load(umb_jobs *j, const char *line) {
  int version, cap, base, next_failed, n = 0;
  if (sscanf(line, "umlbed-jobs %d %d %d %d%n", &version, &cap, &base, &next_failed, &n) != 4 || version != 1 ||
      cap != j->cap)
    return -EINVAL;
  double medians[UMB_JOBS_MAX + 1] = {0};
  const char *p = line + n;
  for (int l = 1; l <= cap; l++) {
    int used;
    if (sscanf(p, "%lf%n", &medians[l], &used) != 1 || !(medians[l] >= 0) || medians[l] > 1e7) return -EINVAL;
    p += used;
  }
  umb_jobs_seed(j, base, next_failed, medians);
  return 0;
}

int umb_jobs_save(const umb_jobs *j, char *buf, unsigned long size) {
  int n = snprintf(buf, size, "umlbed-jobs 1 %d %d %d", j->cap, j->base, j->next_failed);
  for (int l = 1; l <= j->cap && n >= 0 && (unsigned long)n < size; l++)
    n += snprintf(buf + n, size - (unsigned long)n, " %.1f", umb_jobs_median(j, l));
  if (n < 0 || (unsigned long)n + 2 > size) return -E2BIG;
  buf[n++] = '\n';
  buf[n] = '\0';
  return n;
}

void umb_jobs_summary(const umb_jobs *j, char *buf, unsigned long size) {
  size_t at = 0;
  int n = snprintf(buf, size, "-j %s%d:", j->automatic ? "auto, at most " : "", j->cap);
  if (n < 0) return;
  at = (size_t)n;
  for (int l = 1; l <= j->cap && at < size; l++) {
    if (!j->runs[l]) continue;
    double m = umb_jobs_median(j, l);
    if (m > 0)
      n = snprintf(buf + at, size - at, " %d run(s) at %d (boot %.0f ms)", j->runs[l], l, m);
    else
      n = snprintf(buf + at, size - at, " %d run(s) at %d", j->runs[l], l);
    if (n < 0) return;
    at += (size_t)n;
  }
  if (j->automatic && at < size) snprintf(buf + at, size - at, "; %d probe(s), %d kept", j->probes, j->accepted);
}

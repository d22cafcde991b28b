/* SPDX-License-Identifier: MIT */
/* jobs.h: -j auto, how many scenarios run at once: raised while measured throughput rises, lowered when it falls. */
#ifndef UMLBED_JOBS_H
#define UMLBED_JOBS_H

#define UMB_JOBS_MAX 256
#define UMB_JOBS_WINDOW 5 /* Samples kept per concurrency level (the most recent ones). */
#define UMB_JOBS_MIN_SAMPLES 3
#define UMB_JOBS_GAIN 1.10 /* A level must beat the one below by this factor to be kept. */
/* A trial ends early when the answer is clear (boot times are noisy: one slow boot must not decide). */
#define UMB_JOBS_CLEAR_GAIN 1.25
#define UMB_JOBS_CLEAR_LOSS 0.95

/*
 * The signal is the boot time of a UML instance (spawn to the agent's ready event): the same work in every run,
 * and all memory management, which is what a host that handles concurrent mm work badly slows down. A boot is a
 * sample of level c when its scenario ran from start to end with exactly c scenarios running. Throughput at c is
 * c / (median boot at c / median boot at 1): c instances at once, each slowed down by that factor.
 */
typedef struct umb_jobs {
  int automatic; /* 0: the level is fixed at cap. */
  int cap;       /* Highest level tried (auto) or the fixed level. */
  int level;     /* Scenarios to run at once now. */
  int base;      /* Highest level accepted so far (auto). */
  int probing;   /* level == base + 1 is on trial. */
  int hold;      /* Completed runs to wait before the next probe. */
  int backoff;   /* The hold after the next failed probe (doubles, at most 64). */
  double samples[UMB_JOBS_MAX + 1][UMB_JOBS_WINDOW];
  int nsamples[UMB_JOBS_MAX + 1]; /* Samples seen per level (the window keeps the last UMB_JOBS_WINDOW). */
  int runs[UMB_JOBS_MAX + 1];     /* Runs that started at each level, for the report. */
  int probes, accepted;
  int next_failed; /* The last trial of base + 1 did not pay. */
  int verbose;     /* Decisions to stderr. */
} umb_jobs;

/* cap: 1..UMB_JOBS_MAX. A fixed controller always answers cap. */
void umb_jobs_init(umb_jobs *j, int automatic, int cap);
/* How many scenarios should run at once now. */
int umb_jobs_level(const umb_jobs *j);
/* A run is about to start: counted at the current level. */
void umb_jobs_started(umb_jobs *j);
/* One boot of a run that ran with exactly `level` runs at once throughout. */
void umb_jobs_sample(umb_jobs *j, int level, double boot_ms);
/* A run ended: decides the next level. */
void umb_jobs_run_done(umb_jobs *j);
/* Median of the samples kept for a level, or 0 without enough of them. */
double umb_jobs_median(const umb_jobs *j, int level);
/* Throughput at a level in units of one lone instance, or 0 when unknown. */
double umb_jobs_throughput(const umb_jobs *j, int level);
/* Starts from what an earlier run on this host measured: its kept level, whether the level above it failed its
 * trial, and the median boot per level (medians[l] for l in 1..cap, 0 where unknown). */
void umb_jobs_seed(umb_jobs *j, int base, int next_failed, const double *medians);
/* Reads or writes that state as one line ("umlbed-jobs 1 CAP BASE NEXT_FAILED M1 M2 ..."); read returns 0 if the
 * line is for this controller's cap, -EINVAL otherwise. */
int umb_jobs_load(umb_jobs *j, const char *line);
int umb_jobs_save(const umb_jobs *j, char *buf, unsigned long size);
/* One line for the TAP trailer: the levels used and the measured slowdowns. */
void umb_jobs_summary(const umb_jobs *j, char *buf, unsigned long size);

#endif

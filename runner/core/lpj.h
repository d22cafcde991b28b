/* SPDX-License-Identifier: MIT */
/* lpj.h: what a kernel build showed on this host (its delay-loop calibration, its release), kept for the next run. */
#ifndef UMLBED_LPJ_H
#define UMLBED_LPJ_H

#include <stddef.h>

/* The plausible loops_per_jiffy of a UML kernel on any host: a value outside (a corrupt cache line, a garbled
 * console line) is not passed to a kernel, which would then run its delays wildly off. */
#define UMB_LPJ_MIN 1000UL
#define UMB_LPJ_MAX 100000000000UL

/* What one runner knows of its kernel's calibration; value 0 until known. */
typedef struct umb_lpj {
  unsigned long value; /* loops_per_jiffy, as the kernel printed it. */
  int learnt;          /* value came from a boot of this runner (not yet in the cache). */
  char key[1024];      /* The kernel build and the host CPU it was measured for. */
} umb_lpj;

/* Fills l->key for kernel (a path) on this host and l->value from the cache file (0 when absent, unreadable,
 * outside UMB_LPJ_MIN..UMB_LPJ_MAX, or cache is NULL or empty). Returns 0, or a negative errno when the kernel cannot be stat'ed. */
int umb_lpj_load(umb_lpj *l, const char *cache, const char *kernel);
/* The lpj of a "Calibrating delay loop... N BogoMIPS (lpj=N)" line in console text; 0 if there is none (a skipped
 * or preset calibration says no lpj=) or N is outside UMB_LPJ_MIN..UMB_LPJ_MAX. */
unsigned long umb_lpj_parse(const char *text, size_t len);
/* Writes l->value for l->key into the cache file, keeping the other keys' lines (at most 64); 0 or -errno. A value
 * outside UMB_LPJ_MIN..UMB_LPJ_MAX is not written (-ERANGE). */
int umb_lpj_save(const umb_lpj *l, const char *cache);

/* The longest release a cache line holds ("6.12.57-rc1+" and the like). */
#define UMB_RELEASE_MAX 64

/* The release kernel (a path) answered --version with, as the cache file keeps it for this very build (its path,
 * size, inode and times): 0 and release filled, or -ENOENT when the cache has none (or cache is NULL or empty). */
int umb_release_load(const char *cache, const char *kernel, char *release, size_t size);
/* Keeps release for kernel's build in the cache file; 0 or -errno (nothing is written for a NULL or empty cache). */
int umb_release_save(const char *cache, const char *kernel, const char *release);

#endif

/* SPDX-License-Identifier: MIT */
/* paths.h: where the runner finds its build folder, its kernels and agent, and the folder of its host caches. */
#ifndef UMLBED_PATHS_H
#define UMLBED_PATHS_H

#include <stddef.h>

#include "args.h"

/* The build folder above the one holding this binary (BUILD/runner/umlbed), malloc'd; NULL when out of memory. */
char *umb_build_dir(void);
/* The folder of the data files a command reads (bench/report.pl, bench/scenarios/): the checkout above bdir, or,
 * for an installed runner, PREFIX/share/umlbed. 0, or -ENAMETOOLONG. */
int umb_data_dir(char *out, size_t size, const char *bdir);
/* A cache file of this host: $env when it is set ("" turns the cache off), else name in the cache folder (bdir in a
 * build tree; for an installed runner, $XDG_CACHE_HOME/umlbed or ~/.cache/umlbed, made if missing). 0 with the
 * path in out, or -1 (out "") when there is none. */
int umb_cache_file(char *out, size_t size, const char *bdir, const char *env, const char *name);
/* The variant.info beside a built kernel (uml-kernel/build.sh): its generation and its name without the
 * generation's suffix. 0, or -1 when there is none. */
int umb_variant_info(const char *dir, char *gen, size_t gsize, char *base, size_t bsize);
/* Which kernel and agent (a->kernel and a->agent set, a->variant kept only when it names the kernel): --kernel,
 * --variant, --generation, $UMLBED_KERNEL, $UMLBED_AGENT, the build's own (a->bdir). 0, or -1 after a message. */
int umb_engine_paths(umb_cli_args *a);

#endif

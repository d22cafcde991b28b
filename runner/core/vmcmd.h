/* SPDX-License-Identifier: MIT */
/* vmcmd.h: inside the core, shared by vm.c and vmcmd.c: what one spawn of a UML instance builds before it starts. */
#ifndef UMLBED_VMCMD_H
#define UMLBED_VMCMD_H

#include <limits.h>

#include "umlbed.h"
#include "wall.h"

/* The caller's options are added to the kernel's command line while it has fewer words than this. */
#define UMB_VM_ARGS_MAX 64

/* What one spawn builds: the kernel's command line and environment (their strings live here until uv_spawn has
 * copied them), and the descriptors the instance gets. */
typedef struct umb_spawn_ctx {
  char *args[UMB_VM_ARGS_MAX + 32];
  int nargs;
  /* The wall (wall.h) the kernel starts inside, and its arguments to umlbed __wall. */
  umb_wall_spec wall;
  int walled;
  char self[PATH_MAX], fdarg[3][PATH_MAX + 16], fsize[32], uid[16], ns[16];
  char shm[PATH_MAX]; /* The instance's tmp/, a tmpfs in the kernels' namespace (kns.h), or "". */
  char *env[256];
  char *extra; /* The caller's command line, split in place. */
  char umldir[PATH_MAX + 16], tmpdir[PATH_MAX + 16], jail[PATH_MAX + 16], umid[300], memarg[64], gdbx[PATH_MAX];
  char mutant[32]; /* umlbed_mutant=N when the mutate tool asks for it (UMLBED_MUTANT), else empty. */
  char gcov_prefix[PATH_MAX + 16], gcov_strip[64];
  int devnull, con[2], tx[2], rx[2];
  int mapper; /* The wall's socket to the kernels' namespace's helper (kns.h), or -1. */
  char mapperarg[16];
  uv_stdio_container_t stdio[7];
  int nstdio;
} umb_spawn_ctx;

/* Closes the descriptors c still holds and frees its copy of the caller's command line. */
void umb_spawn_ctx_close(umb_spawn_ctx *c);
/* The kernel's command line into c->args (c->walled and c->self say whether and how the wall goes in front): 0,
 * -EINVAL for a umid or an extra command line the allow-list refuses, -E2BIG, or another negative errno. */
int umb_spawn_args(umb_spawn_ctx *c, const umb_vm_options *opt);
/* The kernel's environment into c->env: 0 or a negative errno. */
int umb_spawn_env(umb_spawn_ctx *c, const umb_vm_options *opt);

#endif

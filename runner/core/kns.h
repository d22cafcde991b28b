/* SPDX-License-Identifier: MIT */
/* kns.h: the kernels' mount namespace: the host read-only but for the run's folders, and a tmpfs per instance. */
#ifndef UMLBED_KNS_H
#define UMLBED_KNS_H

#include <stddef.h>

/*
 * Landlock decides what a kernel may open, but not whose metadata it may change: chmod, chown, utimensat and
 * setxattr take a path that no rule sees. So a run's kernels live in a mount namespace of their own in which every
 * mount of the host is read-only but the run's own folders and its devpts; and each instance's tmp/ folder (UML's
 * TMPDIR) is there a tmpfs as large as its memory and 64 MiB more: its memory file, which the scenario's Lua cannot
 * reach (in the run process's namespace that folder is on disk, and its /dev/shm is an empty read-only tmpfs). A
 * helper process keeps that namespace and mounts each instance's tmpfs (Landlock forbids the run process to mount
 * once it is walled); the run process enters the namespace only around a spawn.
 *
 * umb_kns_start is called by a process that has just made its namespaces private (umb_wall_private_ns), before its
 * Landlock domain, with the folders the kernels write (the run's folder first): 0, or a negative errno (then
 * kernels run in the process's own namespace, as before).
 */
int umb_kns_start(const char *const *rw, int nrw);
/* Whether the kernels' namespace exists. */
int umb_kns_active(void);
/* Ends the helper and reaps it (at the end of the process that started it). */
void umb_kns_stop(void);
/* A tmpfs of size bytes, owned by uid, on dir (a folder beneath the run's) in the kernels' namespace; given back
 * with umb_kns_shm_put once the instance is gone. 0 or a negative errno. */
int umb_kns_shm(unsigned long long size, int uid, const char *dir);
void umb_kns_shm_put(const char *dir);
/* A socket for one wall, which asks on it for the ids of the user namespace it makes (the run's Landlock domain
 * hides its /proc files from it); the helper answers from the kernel's credentials of the message. The descriptor
 * (close-on-exec, at least UMB_KNS_MAPPER_FD_MIN) or a negative errno. */
int umb_kns_mapper(void);
#define UMB_KNS_MAPPER_FD_MIN 16

/* Enters the kernels' namespace (the calling thread) and comes back to this process's own, its working folder
 * kept: around the spawn of a kernel, which is born in it. 0 or a negative errno. */
int umb_kns_enter(void);
void umb_kns_leave(void);
/* The read-only view made in place, with a /dev/shm of shm bytes for its one kernel (UMB_KNS_SHM_DEFAULT: tmpfs's
 * default size), for a process that runs one kernel itself (umlbed boot): 0 or -errno. */
#define UMB_KNS_SHM_DEFAULT (~0ULL)
int umb_kns_view(const char *const *rw, int nrw, unsigned long long shm);

#endif

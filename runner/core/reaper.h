/* SPDX-License-Identifier: MIT */
/* reaper.h: a watchdog process that outlives a killed runner just long enough to end its instances and folders. */
#ifndef UMLBED_REAPER_H
#define UMLBED_REAPER_H

#include <sys/types.h>

/*
 * The runner tells the reaper, over a pipe only the runner holds (no run process inherits it), which process groups
 * and run folders are live. The reaper takes only folders that umb_reaper_dir_ok() accepts, and kills only groups
 * that umb_reaper_group_in() finds in them.
 * When the pipe reaches EOF (the runner exited or was killed, even by SIGKILL) the reaper SIGKILLs every group
 * still registered and every process whose working directory is inside a registered folder (this catches an
 * instance spawned just before the runner died, before its group was registered), removes the folders, then the
 * runner's folders it was never told of, and exits. After a death (an EOF the runner did not announce with
 * umb_reaper_stop()) it first waits for the runner's exit to be complete, so that no run process can still be
 * making a folder when it looks.
 * It runs in a session of its own, so the terminal's SIGINT or SIGHUP does not reach it.
 */

/* A forked child's signals as a fresh process has them: every handler the default, nothing blocked. */
void umb_signals_default(void);

/* Forks the reaper, which takes folders under TMPBASE only. Call once, before any thread or child exists. Returns 0
 * or a negative errno. */
int umb_reaper_start(const char *tmpbase);
/* Registrations; no-ops when the reaper is not running. A folder path must not contain a newline. */
void umb_reaper_add_group(pid_t pgid);
void umb_reaper_del_group(pid_t pgid);
void umb_reaper_add_dir(const char *dir);
void umb_reaper_del_dir(const char *dir);
/* Normal exit: close the pipe with nothing registered and wait for the reaper to end. */
void umb_reaper_stop(void);
/* Whether dir is a run folder the reaper may remove: a folder (not a link) directly under tmpbase whose plain name
 * starts with "umlbed-". Both the reaper and the runner check what they are told with it. */
int umb_reaper_dir_ok(const char *tmpbase, const char *dir);
/* Whether pgid is an instance's group: its leader exists and works inside one of the ndirs folders. */
int umb_reaper_group_in(pid_t pgid, const char *const *dirs, int ndirs);
/* SIGKILLs every process whose working directory is inside dir, and its process group unless that is spare_pgid
 * or the caller's, until none is left: what the reaper does for a registered folder, for a supervisor whose run
 * process died. */
void umb_sweep_dir(const char *dir, pid_t spare_pgid);
/* The same over the caller's descendants alone when it is a subreaper (every process its runs started is below it,
 * an orphan included); over the whole of /proc when it is not, or the kernel does not list children. */
void umb_sweep_below(const char *dir, pid_t spare_pgid);

/* Removes a folder and everything in it through descriptors (tree.c): no symbolic link is followed, nothing is
 * opened that could block (a FIFO), and a folder moved away during the walk ends it rather than lead outside. */
void umb_rm_tree(const char *dir);
/* The same for name beneath the folder dirfd (a file that is not a folder: unlinked). */
void umb_rm_at(int dirfd, const char *name);
/* Everything inside the folder open as dirfd, which stays; 0 or the first error. */
int umb_rm_inside(int dirfd);
/* Marks a run folder as kept on purpose (a failed run, --keep), so that umb_stale_clean() leaves it. */
#define UMB_KEPT_MARK ".umlbed-kept"
/* Makes the mark in the folder open as dirfd: beneath that descriptor, through no link and without blocking, after
 * removing whatever else had its name. 0 or a negative errno. */
int umb_mark_kept(int dirfd);
/*
 * Makes a live folder from TEMPLATE (mkdtemp's XXXXXX) under TMPBASE and locks it: the returned descriptor (or a
 * negative errno) holds an flock on the folder for as long as it stays open, which is how umb_stale_clean() knows
 * the folder's owner is alive, whatever PID namespace the owner is in. Close it after removing the folder.
 */
int umb_live_dir_make(const char *tmpbase, char *template);
/* Removes TMPBASE/umlbed-PID-* and umlbed-pack-PID-* folders of this user that no live owner holds locked, whose
 * PID is not alive here either (a folder of an older runner has no lock), and that are not marked kept; returns how
 * many it removed. */
int umb_stale_clean(const char *tmpbase);

#endif

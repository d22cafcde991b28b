/* wall.h: walls in the host kernel around a process before it runs untrusted code (Landlock, no_new_privs). */
#ifndef UMLBED_WALL_H
#define UMLBED_WALL_H

/*
 * A wall is set by trusted code on itself, just before it runs or execs what it does not trust, and it cannot be
 * lifted afterwards: Landlock's rules and no_new_privs are kept across fork and execve, and a process in a Landlock
 * domain can neither ptrace nor open the /proc files (fd, mem, environ) of a process outside that domain.
 */

/* The best Landlock ABI this host has (1 and up), or a negative errno (-EOPNOTSUPP: built without it or not in the
 * LSM list; -ENOSYS: a kernel older than 5.13). */
int umb_wall_abi(void);

/* What a wall lets a process do beneath one path. */
enum {
  UMB_WALL_READ = 1,  /* Read files and list folders. */
  UMB_WALL_EXEC = 2,  /* Execute files. */
  UMB_WALL_WRITE = 4, /* Create, write, remove and rename files and folders (devices excepted). */
  UMB_WALL_REFER = 8, /* Link or rename from one folder into another (WRITE includes it). */
};
typedef struct umb_wall_path {
  const char *path;
  int rights;
} umb_wall_path;

/*
 * Puts the calling process (and all it starts later) in a new Landlock domain, with no_new_privs:
 *   - with npaths >= 0, it may reach files only beneath those paths, with their rights; a path that does not exist
 *     is skipped;
 *   - with npaths < 0, files are left alone (the domain exists, so the ptrace and /proc walls hold); that needs
 *     ABI 2 (-EOPNOTSUPP before);
 *   - on an ABI that has them, no TCP bind or connect, no abstract unix socket and no signal to a process
 *     outside the domain (with scope set).
 * Returns the ABI used, or a negative errno (nothing was changed but perhaps no_new_privs).
 */
int umb_wall_landlock(const umb_wall_path *paths, int npaths, int scope);

#endif

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
  UMB_WALL_READ = 1,   /* Read files and list folders. */
  UMB_WALL_EXEC = 2,   /* Execute files. */
  UMB_WALL_WRITE = 4,  /* Create, write, remove and rename files and folders (devices excepted). */
  UMB_WALL_REFER = 8,  /* Link or rename from one folder into another (WRITE includes it). */
  UMB_WALL_IOCTL = 16, /* ioctl on the device files beneath (a terminal's, say). */
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

/* The user a UML process runs as when its runner is root: a uid no account has (2^31 - 2), so that it owns nothing
 * on the host and no guest user (nobody is 65534) is it by chance. */
#define UMB_WALL_UID 2147483646

/* Who must own what an instance may write: UMB_WALL_UID when this process is root in the host's user namespace (its
 * instances drop to that user), else -1 (they keep this process's). Known from the first call on: call it once
 * before a Landlock domain hides /proc/self/uid_map. */
int umb_wall_owner(void);

/* Hands path to umb_wall_owner() (nothing when that is -1), and with recurse all beneath it, following no symbolic
 * link. 0 or a negative errno. */
int umb_wall_hand_over(const char *path, int recurse);

/*
 * umlbed __wall [--fd N=DIR]... [--exec FILE] [--uid UID] [--fsize BYTES] [--debug] -- PROGRAM ARG...
 *
 * Builds the host kernel's walls around the calling process, then execs PROGRAM: what starts UML (the runner's
 * spawn goes through it; umlbed boot calls umb_wall_exec itself). Each DIR is opened as descriptor N, which the
 * program's arguments name as /proc/self/fd/N, and is the only place it may write. --exec FILE is the program,
 * executed through a descriptor opened before the walls, as UID when given (umb_wall_owner); with --debug the
 * program is gdb, and a FILE that is not ELF is a script: either may read and execute the host's files, and keeps
 * the uid. Returns only on failure (an exit status, the reason on stderr).
 */
int umb_wall_main(int argc, char **argv);

/* Gives this process and all it starts later a /dev/shm of their own: an empty tmpfs of size bytes (0: the
 * default, half the host's memory) in a private mount namespace, which UML's memory files then share with nothing
 * else on the host. Root unshares the mount namespace; anyone else needs a user namespace too, where it keeps its
 * uid (and, after an exec, no capability). Call it before a Landlock domain that handles files, which forbids
 * mounting. 0 or a negative errno (then /dev/shm is the host's). */
int umb_wall_private_shm(unsigned long long size);
/* Whether umb_wall_private_shm succeeded in this process. */
int umb_wall_shm_is_private(void);

/* What umlbed __wall builds, for a caller that execs itself. */
typedef struct umb_wall_spec {
  int nfds;
  int fd[4];                /* Descriptor numbers to open the folders as. */
  const char *fd_path[4];   /* The folders: the only places the program may write. */
  const char *exec;         /* The program's file; NULL with debug (then argv[0] is found in PATH). */
  unsigned long long fsize; /* Longest file it may write; 0: no limit. */
  int debug;                /* gdb runs the kernel: read and execute everywhere, the uid kept. */
  int uid;                  /* The uid (and gid) an ELF program runs as; -1: this process's. */
} umb_wall_spec;
int umb_wall_exec(const umb_wall_spec *spec, char *const argv[], char *const envp[]);

#endif

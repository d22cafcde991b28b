/* SPDX-License-Identifier: MIT */
/* wall.h: walls in the host kernel around a process before it runs untrusted code (Landlock, no_new_privs). */
#ifndef UMLBED_WALL_H
#define UMLBED_WALL_H

/*
 * A wall is set by trusted code on itself, just before it runs or execs what it does not trust, and it cannot be
 * lifted afterwards: Landlock's rules and no_new_privs are kept across fork and execve, and a process in a Landlock
 * domain can neither ptrace nor open the /proc files (fd, mem, environ) of a process outside that domain.
 */

/* What umlbed says where it refuses to run a kernel or sandboxed scenario code for want of Landlock. */
#define UMB_WALL_NO_LANDLOCK "this host has no Landlock (Linux 5.13 or later with landlock in its LSM list)"

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
  const char *path; /* NULL: the folder open as fd. */
  int rights;
  int fd;
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

/* Opens this process's own program (and, in the sanitizer build, the plain build beside it, which builds the walls)
 * as descriptors, once; call it before a Landlock domain hides /proc. 0 or a negative errno. umb_wall_self() and
 * umb_wall_prog() name them as /proc/self/fd/N, what the runner's own processes and the walls are executed as
 * (NULL if they could not be opened). */
int umb_wall_self_open(void);
/* The lowest number they get: above every descriptor a child is given at spawn. */
#define UMB_WALL_SELF_FD_MIN 100
const char *umb_wall_self(void);
const char *umb_wall_prog(void);

/* Who must own what an instance may write: UMB_WALL_UID when this process is root in the host's user namespace (its
 * instances drop to that user), else -1 (they keep this process's). Known from the first call on: call it once
 * before a Landlock domain hides /proc/self/uid_map. */
int umb_wall_owner(void);

/* Hands path to umb_wall_owner() (nothing when that is -1), and with recurse all beneath it, following no symbolic
 * link. 0 or a negative errno. */
int umb_wall_hand_over(const char *path, int recurse);

/*
 * umlbed __wall [--fd N=DIR]... [--exec FILE] [--uid UID] [--fsize BYTES] [--ns BITS] [--mapper FD] [--debug]
 *               [--foreground] -- PROGRAM ARG...
 *
 * Builds the host kernel's walls around the calling process, then execs PROGRAM: what starts UML (the runner's
 * spawn goes through it; umlbed boot calls umb_wall_exec itself). Each DIR is opened as descriptor N, which the
 * program's arguments name as /proc/self/fd/N, and is the only place it may write. --exec FILE is the program,
 * executed through a descriptor opened before the walls, as UID when given (umb_wall_owner); with --debug the
 * program is gdb, and a FILE that is not ELF is a script: either may read and execute the host's files, and keeps
 * the uid. Returns only on failure (an exit status, the reason on stderr).
 */
int umb_wall_main(int argc, char **argv);

/* Gives this process and all it starts later a mount namespace of their own, with an empty tmpfs of size bytes on
 * /dev/shm (0: the default, half the host's memory), which shares nothing with the host's, and a devpts of their
 * own on /dev/pts and /dev/ptmx (no terminal of the host's is there to open). Root unshares it; anyone else needs a
 * user namespace too, where it keeps its uid (and, after an exec, no capability). Call it before a Landlock domain
 * that handles files, which forbids mounting. 0 or a negative errno (then nothing is private). */
int umb_wall_private_ns(unsigned long long size);
/* Which of them umb_wall_private_ns made private in this process (UMB_WALL_NS_* bits, 0 before or without). */
enum { UMB_WALL_NS_SHM = 1, UMB_WALL_NS_PTS = 4 };
int umb_wall_ns(void);

/* What umlbed __wall builds, for a caller that execs itself. */
typedef struct umb_wall_spec {
  int nfds;
  int fd[4];                /* Descriptor numbers to open the folders as. */
  const char *fd_path[4];   /* The folders: the only places the program may write. */
  const char *exec;         /* The program's file; NULL with debug (then argv[0] is found in PATH). */
  unsigned long long fsize; /* Longest file it may write; 0: no limit. */
  int debug;                /* gdb runs the kernel: read and execute everywhere, the uid kept. */
  int foreground;           /* An interactive gdb: a process group of its own, the terminal's foreground. */
  int uid;                  /* The uid (and gid) an ELF program runs as; -1: this process's. */
  int ns;                   /* UMB_WALL_NS_* the run has of its own (umb_wall_ns() of the process that starts it). */
  int mapper;               /* A socket to ask for its user namespace's ids on (kns.h), or -1: it writes them. */
} umb_wall_spec;
/* Processes an instance may have at once (RLIMIT_NPROC, in a user namespace of its own): room for many guest
 * processes, not for a fork bomb. $UMLBED_NPROC may set a lower limit. */
#define UMB_WALL_NPROC 4096
int umb_wall_exec(const umb_wall_spec *spec, char *const argv[], char *const envp[]);

#endif

// SPDX-License-Identifier: MIT
/* wall.c: Landlock, seccomp, rlimits, a private /dev/shm and an unprivileged uid for a process about to run what it
 * does not trust. */
#include "wall.h"

#include <elf.h>
#include <errno.h>
#include <fcntl.h>
#include <ftw.h>
#include <grp.h>
#include <limits.h>
#include <linux/audit.h>
#include <linux/filter.h>
#include <linux/seccomp.h>
#include <sched.h>
#include <signal.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mount.h>
#include <sys/personality.h>
#include <sys/prctl.h>
#include <sys/resource.h>
#include <sys/stat.h>
#include <sys/socket.h>
#include <sys/syscall.h>
#include <termios.h>
#include <unistd.h>

/* Landlock's interface (linux/landlock.h), spelled out here: a build host's headers may be older than the kernel
 * the runner runs on, and the ABI is asked for at run time. */
#ifndef SYS_landlock_create_ruleset
#define SYS_landlock_create_ruleset 444
#define SYS_landlock_add_rule 445
#define SYS_landlock_restrict_self 446
#endif
#define LL_CREATE_RULESET_VERSION (1U << 0)
#define LL_RULE_PATH_BENEATH 1
#define LL_FS_EXECUTE (1ULL << 0)
#define LL_FS_WRITE_FILE (1ULL << 1)
#define LL_FS_READ_FILE (1ULL << 2)
#define LL_FS_READ_DIR (1ULL << 3)
#define LL_FS_REMOVE_DIR (1ULL << 4)
#define LL_FS_REMOVE_FILE (1ULL << 5)
#define LL_FS_MAKE_CHAR (1ULL << 6)
#define LL_FS_MAKE_DIR (1ULL << 7)
#define LL_FS_MAKE_REG (1ULL << 8)
#define LL_FS_MAKE_SOCK (1ULL << 9)
#define LL_FS_MAKE_FIFO (1ULL << 10)
#define LL_FS_MAKE_BLOCK (1ULL << 11)
#define LL_FS_MAKE_SYM (1ULL << 12)
#define LL_FS_REFER (1ULL << 13)     /* ABI 2 */
#define LL_FS_TRUNCATE (1ULL << 14)  /* ABI 3 */
#define LL_FS_IOCTL_DEV (1ULL << 15) /* ABI 5 */
#define LL_NET_BIND_TCP (1ULL << 0)  /* ABI 4 */
#define LL_NET_CONNECT_TCP (1ULL << 1)
#define LL_SCOPE_ABSTRACT_UNIX (1ULL << 0) /* ABI 6 */
#define LL_SCOPE_SIGNAL (1ULL << 1)

struct ll_ruleset_attr {
  uint64_t handled_access_fs, handled_access_net, scoped;
};
struct ll_path_beneath {
  uint64_t allowed_access;
  int32_t parent_fd;
} __attribute__((packed));

/* The rights a regular file can hold; a rule on a file with any other is refused (EINVAL). */
#define LL_FILE_RIGHTS (LL_FS_EXECUTE | LL_FS_WRITE_FILE | LL_FS_READ_FILE | LL_FS_TRUNCATE | LL_FS_IOCTL_DEV)

int umb_wall_abi(void) {
  long v = syscall(SYS_landlock_create_ruleset, NULL, 0, LL_CREATE_RULESET_VERSION);
  return v > 0 ? (int)v : -errno;
}

/* Every file-system right the ABI knows. */
static uint64_t fs_handled(int abi) {
  uint64_t all = (LL_FS_MAKE_SYM << 1) - 1;
  if (abi >= 2) all |= LL_FS_REFER;
  if (abi >= 3) all |= LL_FS_TRUNCATE;
  if (abi >= 5) all |= LL_FS_IOCTL_DEV;
  return all;
}

static uint64_t fs_rights(int rights, uint64_t handled) {
  uint64_t r = rights & UMB_WALL_REFER ? LL_FS_REFER : 0;
  if (rights & UMB_WALL_READ) r |= LL_FS_READ_FILE | LL_FS_READ_DIR;
  if (rights & UMB_WALL_EXEC) r |= LL_FS_EXECUTE | LL_FS_READ_FILE;
  if (rights & UMB_WALL_IOCTL) r |= LL_FS_IOCTL_DEV;
  if (rights & UMB_WALL_WRITE)
    r |= LL_FS_WRITE_FILE | LL_FS_REMOVE_DIR | LL_FS_REMOVE_FILE | LL_FS_MAKE_DIR | LL_FS_MAKE_REG | LL_FS_MAKE_SOCK |
         LL_FS_MAKE_FIFO | LL_FS_MAKE_SYM | LL_FS_REFER | LL_FS_TRUNCATE;
  return r & handled;
}

/* One rule: a descriptor (O_PATH) and the UMB_WALL_* rights beneath it. */
typedef struct ll_rule {
  int fd;
  int rights;
} ll_rule;

/* A new domain handling the rights in handled, with the rules, and no_new_privs; the ABI or a negative errno. */
static int ll_apply(int abi, uint64_t handled, const ll_rule *rules, int n, int scope) {
  struct ll_ruleset_attr attr = {.handled_access_fs = handled};
  size_t size = sizeof attr.handled_access_fs;
  if (scope && abi >= 4) {
    attr.handled_access_net = LL_NET_BIND_TCP | LL_NET_CONNECT_TCP;
    size = 2 * sizeof(uint64_t);
  }
  if (scope && abi >= 6) {
    attr.scoped = LL_SCOPE_ABSTRACT_UNIX | LL_SCOPE_SIGNAL;
    size = sizeof attr;
  }
  int rs = (int)syscall(SYS_landlock_create_ruleset, &attr, size, 0);
  if (rs < 0) return -errno;
  int rc = 0;
  for (int i = 0; i < n && rc == 0; i++) {
    struct stat st;
    struct ll_path_beneath pb = {.allowed_access = fs_rights(rules[i].rights, handled), .parent_fd = rules[i].fd};
    if (rules[i].fd < 0) continue;
    if (fstat(rules[i].fd, &st) == 0 && !S_ISDIR(st.st_mode)) pb.allowed_access &= LL_FILE_RIGHTS;
    if (pb.allowed_access && syscall(SYS_landlock_add_rule, rs, LL_RULE_PATH_BENEATH, &pb, 0)) rc = -errno;
  }
  if (rc == 0 && prctl(PR_SET_NO_NEW_PRIVS, 1, 0, 0, 0)) rc = -errno;
  if (rc == 0 && syscall(SYS_landlock_restrict_self, rs, 0)) rc = -errno;
  close(rs);
  return rc ? rc : abi;
}

int umb_wall_landlock(const umb_wall_path *paths, int npaths, int scope) {
  int abi = umb_wall_abi();
  if (abi < 0) return abi;
  /* Without file rules, the domain handles only device nodes, which nothing the runner starts makes, and linking or
   * renaming into another folder, which a rule on / allows again: a domain that does not handle that right refuses
   * it everywhere (EXDEV), and before ABI 2 no domain can allow it. */
  if (npaths < 0 && abi < 2) return -EOPNOTSUPP;
  uint64_t handled = npaths >= 0 ? fs_handled(abi) : (LL_FS_MAKE_CHAR | LL_FS_MAKE_BLOCK | LL_FS_REFER);
  static const umb_wall_path everywhere = {"/", UMB_WALL_REFER, -1};
  if (npaths < 0) {
    paths = &everywhere;
    npaths = 1;
  }
  ll_rule rules[64] = {{-1, 0}};
  int n = 0;
  for (int i = 0; i < npaths && n < 64; i++) {
    int fd = paths[i].path ? open(paths[i].path, O_PATH | O_CLOEXEC) : fcntl(paths[i].fd, F_DUPFD_CLOEXEC, 0);
    if (fd >= 0) rules[n++] = (ll_rule){fd, paths[i].rights};
  }
  int rc = ll_apply(abi, handled, rules, n, scope);
  for (int i = 0; i < n; i++) close(rules[i].fd);
  return rc;
}

/* The runner's own program, and the one that builds the walls (the same, but for the sanitizer build), opened
 * once: every process the runner starts of its own (run, describing and wall processes) is executed through these
 * descriptors, so a file that replaced the program on disk since (in a pack's folder, say) is never run. They are
 * not close-on-exec: an exec through /proc/self/fd/N under valgrind's --trace-children execs valgrind first, which
 * must still find N; what the runner starts closes what it does not need (runchild.c, umb_wall_exec). */
static int self_fd = -1, prog_fd = -1;
static char self_path[40], prog_path[40];

/* fd moved to a number above those the runner's children get as stdio and links. */
static int high(int fd) {
  if (fd < 0) return fd;
  int h = fcntl(fd, F_DUPFD, UMB_WALL_SELF_FD_MIN);
  close(fd);
  return h;
}

int umb_wall_self_open(void) {
  if (self_fd >= 0) return 0;
  int fd = high(open("/proc/self/exe", O_RDONLY));
  if (fd < 0) return -errno;
  self_fd = prog_fd = fd;
  snprintf(self_path, sizeof self_path, "/proc/self/fd/%d", fd);
  snprintf(prog_path, sizeof prog_path, "/proc/self/fd/%d", fd);
#ifdef __SANITIZE_ADDRESS__
  /* The sanitizer build's start-up costs about 60 ms of CPU (4 ms plain), at every spawn: when the plain build of
   * the same tree sits beside it (BUILD/runner-san and BUILD/runner, as make check builds them), that one builds
   * the wall. */
  char exe[PATH_MAX], plain[PATH_MAX + 32];
  ssize_t n = readlink("/proc/self/exe", exe, sizeof exe - 1);
  char *slash = n > 0 ? (exe[n] = '\0', strrchr(exe, '/')) : NULL;
  if (slash && snprintf(plain, sizeof plain, "%.*s/../runner/umlbed", (int)(slash - exe), exe) < (int)sizeof plain &&
      (fd = high(open(plain, O_RDONLY))) >= 0) {
    prog_fd = fd;
    snprintf(prog_path, sizeof prog_path, "/proc/self/fd/%d", fd);
  }
#endif
  return 0;
}

const char *umb_wall_self(void) { return umb_wall_self_open() == 0 ? self_path : NULL; }

const char *umb_wall_prog(void) { return umb_wall_self_open() == 0 ? prog_path : NULL; }

int umb_wall_owner(void) {
  /* Root of the host's user namespace only: root in a namespace of its own (unshare -r) has no such uid to give. */
  static int owner = -2;
  if (owner == -2) {
    owner = -1;
    FILE *f = geteuid() == 0 ? fopen("/proc/self/uid_map", "re") : NULL;
    unsigned long in, out, count;
    while (f && fscanf(f, "%lu %lu %lu", &in, &out, &count) == 3)
      if (in <= UMB_WALL_UID && UMB_WALL_UID - in < count) owner = UMB_WALL_UID;
    if (f) fclose(f);
  }
  return owner;
}

static int hand_one(const char *path, const struct stat *st, int type, struct FTW *ftw) {
  (void)st, (void)type, (void)ftw;
  return lchown(path, UMB_WALL_UID, UMB_WALL_UID) ? -errno : 0;
}

int umb_wall_hand_over(const char *path, int recurse) {
  if (umb_wall_owner() < 0) return 0;
  if (!recurse) return lchown(path, UMB_WALL_UID, UMB_WALL_UID) ? -errno : 0;
  /* FTW_PHYS: a symbolic link is handed over itself, never followed; FTW_MOUNT: no other file system. */
  int rc = nftw(path, hand_one, 16, FTW_PHYS | FTW_MOUNT);
  return rc < 0 ? -errno : rc;
}

/* The ELF interpreter the program names (PT_INTERP), in out; "" for a static program. 0, or -ENOEXEC when it is
 * not a 64-bit ELF file (a script, say). */
static int elf_interp(int fd, char *out, size_t size) {
  Elf64_Ehdr eh;
  out[0] = '\0';
  if (pread(fd, &eh, sizeof eh, 0) != (ssize_t)sizeof eh || memcmp(eh.e_ident, ELFMAG, SELFMAG) ||
      eh.e_ident[EI_CLASS] != ELFCLASS64 || eh.e_phentsize != sizeof(Elf64_Phdr) || eh.e_phnum > 64)
    return -ENOEXEC;
  for (int i = 0; i < eh.e_phnum; i++) {
    Elf64_Phdr ph;
    if (pread(fd, &ph, sizeof ph, (off_t)(eh.e_phoff + (Elf64_Off)i * sizeof ph)) != (ssize_t)sizeof ph)
      return -ENOEXEC;
    if (ph.p_type != PT_INTERP || ph.p_filesz == 0 || ph.p_filesz >= size) continue;
    if (pread(fd, out, ph.p_filesz, (off_t)ph.p_offset) != (ssize_t)ph.p_filesz) out[0] = '\0';
    out[ph.p_filesz] = '\0';
    return 0;
  }
  return 0;
}

/* The system calls a UML host process never makes, refused (EPERM) for it and all it starts:
 *   - new namespaces, mounts, modules, keys, BPF, perf, userfaultfd, io_uring (whose operations pass no filter),
 *     SysV and POSIX message queues and shared memory, handles, swap, reboot, kexec, accounting;
 *   - a socket of any family but AF_UNIX, connect, and a datagram to an address (sendto with one, sendmsg): no
 *     socket of the host's is reachable;
 *   - bind and listen: an abstract unix socket's name is the host's, which a guest would take before the program
 *     that owns it (UML binds one socket, its management console in uml_dir, which could not answer anyway: its
 *     replies are addressed datagrams; it says it cannot start);
 *   - setsid and setpgid: every process it starts stays in the instance's group, which the runner kills as one;
 *   - TIOCSTI, which would type into a terminal it inherited;
 *   - any other architecture's calls (x32, i386): the filter reads x86_64 numbers. */
static const int denied[] = {SYS_mount,
                             SYS_umount2,
                             SYS_pivot_root,
                             SYS_chroot,
                             SYS_unshare,
                             SYS_setns,
                             SYS_keyctl,
                             SYS_add_key,
                             SYS_request_key,
                             SYS_bpf,
                             SYS_perf_event_open,
                             SYS_userfaultfd,
                             SYS_kexec_load,
                             SYS_kexec_file_load,
                             SYS_init_module,
                             SYS_finit_module,
                             SYS_delete_module,
                             SYS_swapon,
                             SYS_swapoff,
                             SYS_reboot,
                             SYS_acct,
                             SYS_shmget,
                             SYS_shmat,
                             SYS_msgget,
                             SYS_semget,
                             SYS_mq_open,
                             SYS_io_uring_setup,
                             SYS_io_uring_enter,
                             SYS_io_uring_register,
                             SYS_open_by_handle_at,
                             SYS_name_to_handle_at,
                             SYS_fsopen,
                             SYS_fsmount,
                             SYS_fspick,
                             SYS_open_tree,
                             SYS_move_mount,
                             SYS_mount_setattr,
                             SYS_quotactl,
                             SYS_connect,
                             SYS_sendmsg,
                             SYS_sendmmsg,
                             SYS_setsid,
                             SYS_setpgid,
                             SYS_process_vm_writev,
                             SYS_bind,
                             SYS_listen};

/* Calls that may act on another process (or all of a uid's) by a number in an argument: a UML process may make
 * them on itself alone, so another process of its uid (another instance, a user's shell when the runner is not
 * root) keeps its limits, priority and CPUs. X(call, argument, the only value it may have): prlimit64 of pid 0,
 * setpriority and ioprio_set of which PRIO_PROCESS / IOPRIO_WHO_PROCESS and who 0, the sched_set* calls of pid 0. */
static const struct self_only {
  int nr, arg;
  uint32_t value;
} self_only[] = {
    {SYS_prlimit64, 0, 0},      {SYS_setpriority, 0, 0 /* PRIO_PROCESS */},
    {SYS_setpriority, 1, 0},    {SYS_ioprio_set, 0, 1 /* IOPRIO_WHO_PROCESS */},
    {SYS_ioprio_set, 1, 0},     {SYS_sched_setaffinity, 0, 0},
    {SYS_sched_setparam, 0, 0}, {SYS_sched_setscheduler, 0, 0},
    {SYS_sched_setattr, 0, 0},
};

#define LD_NR BPF_STMT(BPF_LD | BPF_W | BPF_ABS, offsetof(struct seccomp_data, nr))
#define LD_ARG(i, hi) BPF_STMT(BPF_LD | BPF_W | BPF_ABS, offsetof(struct seccomp_data, args[i]) + 4 * (hi))
#define ALLOW BPF_STMT(BPF_RET | BPF_K, SECCOMP_RET_ALLOW)
#define FAIL(e) BPF_STMT(BPF_RET | BPF_K, SECCOMP_RET_ERRNO | (e))
#define IS(nr, t, f) BPF_JUMP(BPF_JMP | BPF_JEQ | BPF_K, (nr), (t), (f))

/* The checks of arguments; each ends with the call's number loaded again. */
static const struct sock_filter head[] = {
    BPF_STMT(BPF_LD | BPF_W | BPF_ABS, offsetof(struct seccomp_data, arch)),
    IS(AUDIT_ARCH_X86_64, 1, 0),
    FAIL(ENOSYS),
    LD_NR,
    BPF_JUMP(BPF_JMP | BPF_JGE | BPF_K, 0x40000000, 0, 1),
    FAIL(ENOSYS),
    /* clone3's flags are in memory no filter reads: libc falls back to clone on ENOSYS. */
    IS(SYS_clone3, 0, 1),
    FAIL(ENOSYS),
    IS(SYS_clone, 0, 3),
    LD_ARG(0, 0),
    BPF_JUMP(BPF_JMP | BPF_JSET | BPF_K,
             CLONE_NEWNS | CLONE_NEWCGROUP | CLONE_NEWUTS | CLONE_NEWIPC | CLONE_NEWUSER | CLONE_NEWPID | CLONE_NEWNET,
             0, 1),
    FAIL(EPERM),
    LD_NR,
    IS(SYS_socket, 0, 3),
    LD_ARG(0, 0),
    IS(AF_UNIX, 1, 0),
    FAIL(EAFNOSUPPORT),
    LD_NR,
    IS(SYS_ioctl, 0, 3),
    LD_ARG(1, 0),
    IS(TIOCSTI, 0, 1),
    FAIL(EPERM),
    LD_NR,
    IS(SYS_sendto, 0, 5),
    LD_ARG(4, 0),
    IS(0, 0, 2),
    LD_ARG(4, 1),
    IS(0, 1, 0),
    FAIL(EPERM),
    LD_NR,
};

/* Installs the filter. */
static int seccomp_install(void) {
  enum { NDENIED = sizeof denied / sizeof denied[0], NSELF = sizeof self_only / sizeof self_only[0] };
  enum { NHEAD = sizeof head / sizeof head[0] };
  struct sock_filter prog[NHEAD + 5 * NSELF + 2 * NDENIED + 1];
  memcpy(prog, head, sizeof head);
  int n = NHEAD;
  for (int i = 0; i < NSELF; i++) {
    prog[n++] = (struct sock_filter)IS((uint32_t)self_only[i].nr, 0, 3);
    prog[n++] = (struct sock_filter)LD_ARG(self_only[i].arg, 0);
    prog[n++] = (struct sock_filter)IS(self_only[i].value, 1, 0);
    prog[n++] = (struct sock_filter)FAIL(EPERM);
    prog[n++] = (struct sock_filter)LD_NR;
  }
  for (int i = 0; i < NDENIED; i++) {
    prog[n++] = (struct sock_filter)IS((uint32_t)denied[i], 0, 1);
    prog[n++] = (struct sock_filter)FAIL(EPERM);
  }
  prog[n++] = (struct sock_filter)ALLOW;
  struct sock_fprog fprog = {.len = (unsigned short)n, .filter = prog};
  return prctl(PR_SET_SECCOMP, SECCOMP_MODE_FILTER, &fprog, 0, 0) ? -errno : 0;
}
#undef LD_NR
#undef LD_ARG
#undef ALLOW
#undef FAIL
#undef IS

static int write_file(const char *path, const char *text) {
  int fd = open(path, O_WRONLY | O_CLOEXEC);
  if (fd < 0) return -errno;
  ssize_t n = write(fd, text, strlen(text));
  int rc = n == (ssize_t)strlen(text) ? 0 : n < 0 ? -errno : -EIO;
  close(fd);
  return rc;
}

static int ns_private;

/* A devpts of the run's own in the new mount namespace, its ptmx on /dev/ptmx: the terminals of the host (a user's
 * shell, another run's) are not there to open. */
static int private_devpts(void) {
  if (mount("devpts", "/dev/pts", "devpts", MS_NOSUID | MS_NOEXEC, "newinstance,ptmxmode=0666,mode=0600"))
    return -errno;
  struct stat st;
  /* /dev/ptmx is a device node on most hosts, a link to pts/ptmx in some containers (which needs nothing more). */
  if (lstat("/dev/ptmx", &st) == 0 && !S_ISLNK(st.st_mode) &&
      mount("/dev/pts/ptmx", "/dev/ptmx", "none", MS_BIND, NULL))
    return -errno;
  return 0;
}

int umb_wall_private_ns(unsigned long long size) {
  int uid = umb_wall_owner() >= 0 ? UMB_WALL_UID : (int)geteuid();
  /* The ids as they are before the new user namespace, where they are unmapped until the maps below. */
  gid_t g = getegid();
  int flags = CLONE_NEWNS;
  if (geteuid() != 0) flags |= CLONE_NEWUSER;
  if (unshare(flags)) return -errno;
  if (flags & CLONE_NEWUSER) {
    char map[64];
    uid_t u = (uid_t)uid;
    snprintf(map, sizeof map, "%u %u 1\n", (unsigned)u, (unsigned)u);
    int rc = write_file("/proc/self/uid_map", map);
    if (rc == 0) rc = write_file("/proc/self/setgroups", "deny");
    snprintf(map, sizeof map, "%u %u 1\n", (unsigned)g, (unsigned)g);
    if (rc == 0) rc = write_file("/proc/self/gid_map", map);
    if (rc) return rc;
  }
  /* "none" for the source and type that MS_PRIVATE ignores: valgrind reads both. */
  if (mount("none", "/", "none", MS_REC | MS_PRIVATE, NULL)) return -errno;
  char opts[128];
  if (size)
    snprintf(opts, sizeof opts, "size=%llu,mode=0700,uid=%d,gid=%d", size, uid, uid);
  else
    snprintf(opts, sizeof opts, "mode=0700,uid=%d,gid=%d", uid, uid);
  /* Not noexec: UML maps its memory file executable. */
  if (mount("tmpfs", "/dev/shm", "tmpfs", MS_NOSUID | MS_NODEV, opts)) return -errno;
  ns_private = UMB_WALL_NS_SHM | (private_devpts() == 0 ? UMB_WALL_NS_PTS : 0);
  return 0;
}

int umb_wall_ns(void) { return ns_private; }

static int fail(const char *what, int rc) {
  fprintf(stderr, "umlbed: the wall around the kernel: %s: %s\n", what, strerror(-rc));
  return 126;
}

/* Opens path O_PATH for a rule (-1 if it does not exist). */
static int rule_fd(const char *path) { return open(path, O_PATH | O_CLOEXEC); }

/* The folders as descriptors at their final numbers, whatever the caller left open: each is opened, moved to its
 * number unless it already is that number (dup2 of a descriptor onto itself changes nothing, and closing the
 * original then would close the rule's), and kept across the exec. Each rule is then checked to be what was
 * opened: a rule on a descriptor that names something else fails the wall instead of granting it. */
static int open_folders(const umb_wall_spec *spec, ll_rule *rules, int *n, int *maxfd, struct stat *ids) {
  for (int i = 0; i < spec->nfds; i++) {
    int fd = open(spec->fd_path[i], O_PATH | O_DIRECTORY | O_CLOEXEC);
    if (fd < 0) return fail(spec->fd_path[i], -errno);
    if (fstat(fd, &ids[i])) return fail(spec->fd_path[i], -errno);
    for (int j = 0; j < i; j++)
      if (fd == spec->fd[j]) return fail("a folder's descriptor is another's number", -EBADF);
    if (fd != spec->fd[i]) {
      if (dup2(fd, spec->fd[i]) < 0) return fail("dup2", -errno);
      close(fd);
    } else if (fcntl(fd, F_SETFD, 0) < 0) {
      return fail("fcntl", -errno);
    }
    rules[(*n)++] = (ll_rule){spec->fd[i], UMB_WALL_READ | UMB_WALL_WRITE};
    if (spec->fd[i] > *maxfd) *maxfd = spec->fd[i];
  }
  return 0;
}

static int check_folders(const umb_wall_spec *spec, const struct stat *ids) {
  for (int i = 0; i < spec->nfds; i++) {
    struct stat st;
    if (fstat(spec->fd[i], &st) || st.st_dev != ids[i].st_dev || st.st_ino != ids[i].st_ino ||
        (fcntl(spec->fd[i], F_GETFD) & FD_CLOEXEC))
      return fail(spec->fd_path[i], -EBADF);
  }
  return 0;
}

/* The rules for what the program runs and reads: an ELF kernel, its interpreter, the C library; or, for gdb and a
 * program that is not ELF, the host's files to read and execute. Returns the kernel's descriptor (or -1) in *kfd,
 * whether it is ELF, or an exit status. */
static int program_rules(const umb_wall_spec *spec, ll_rule *rules, int *n, int *kfd, int *elf) {
  char interp[PATH_MAX] = "";
  *kfd = -1;
  *elf = 0;
  if (spec->exec) {
    int rfd = open(spec->exec, O_RDONLY | O_CLOEXEC | O_NONBLOCK);
    if (rfd < 0) return fail(spec->exec, -errno);
    *elf = elf_interp(rfd, interp, sizeof interp) == 0;
    close(rfd);
  }
  if (*elf) {
    if ((*kfd = rule_fd(spec->exec)) < 0) return fail(spec->exec, -errno);
    rules[(*n)++] = (ll_rule){*kfd, UMB_WALL_EXEC};
    if (interp[0]) rules[(*n)++] = (ll_rule){rule_fd(interp), UMB_WALL_EXEC};
    /* The C library and what the loader reads to find it; UML reads /proc/cpuinfo. */
    static const char *ro[] = {"/lib", "/lib64", "/usr/lib", "/usr/lib64", "/etc/ld.so.cache", "/proc/cpuinfo"};
    for (size_t i = 0; i < sizeof ro / sizeof ro[0]; i++) rules[(*n)++] = (ll_rule){rule_fd(ro[i]), UMB_WALL_READ};
  } else {
    /* gdb reads the host's files (the kernel's DWARF, its own data, the shell it starts the kernel with), and so
     * does a program that is not an ELF file (a script: the runner's tests' fake kernels; umlbed boot takes only a
     * UML kernel), which an interpreter runs by its path. */
    rules[(*n)++] = (ll_rule){rule_fd("/"), UMB_WALL_READ | UMB_WALL_EXEC};
  }
  return 0;
}

/* The devices: /dev/null and /dev/zero; the terminals only where the run has a devpts of its own (UML opens a
 * pseudo-terminal to test SIGIO on it), never the host's, where a user types; a controlling terminal only for an
 * interactive gdb. */
static void device_rules(const umb_wall_spec *spec, char *const envp[], ll_rule *rules, int *n) {
  const int rw = UMB_WALL_READ | UMB_WALL_WRITE, dev = rw | UMB_WALL_IOCTL;
  static const char *always[] = {"/dev/null", "/dev/zero"}, *pts[] = {"/dev/ptmx", "/dev/pts"};
  for (size_t i = 0; i < 2; i++) rules[(*n)++] = (ll_rule){rule_fd(always[i]), dev};
  if (spec->ns & UMB_WALL_NS_PTS)
    for (size_t i = 0; i < 2; i++) rules[(*n)++] = (ll_rule){rule_fd(pts[i]), dev};
  if (spec->foreground) rules[(*n)++] = (ll_rule){rule_fd("/dev/tty"), dev};
  for (char *const *e = envp; *e; e++)
    if (!strcmp(*e, "TMPDIR=/dev/shm") && (spec->ns & UMB_WALL_NS_SHM))
      rules[(*n)++] = (ll_rule){rule_fd("/dev/shm"), rw};
}

/* Maps u and g to themselves in this process's new user namespace. 0 or a negative errno. */
static int map_self(uid_t u, gid_t g) {
  char map[64];
  snprintf(map, sizeof map, "%u %u 1\n", (unsigned)u, (unsigned)u);
  int rc = write_file("/proc/self/uid_map", map);
  if (rc == 0) rc = write_file("/proc/self/setgroups", "deny");
  snprintf(map, sizeof map, "%u %u 1\n", (unsigned)g, (unsigned)g);
  if (rc == 0) rc = write_file("/proc/self/gid_map", map);
  return rc;
}

/* Asks the helper on fd to map them: a message (its credentials say who this is), then its answer, an errno. */
static int map_by(int fd) {
  char reply[16];
  if (send(fd, "m", 1, MSG_NOSIGNAL) != 1) return -errno;
  ssize_t n = recv(fd, reply, sizeof reply - 1, 0);
  if (n <= 0) return n < 0 ? -errno : -EPIPE;
  reply[n] = '\0';
  return -atoi(reply);
}

/* The unprivileged uid (as root), and a user namespace of the instance's own: RLIMIT_NPROC then counts this
 * instance's processes alone (the kernel counts the limit per user namespace, for every uid but root's), whatever
 * the runner's uid and however many instances run. */
static int limit_processes(const umb_wall_spec *spec, int drop) {
  /* $UMLBED_NPROC may lower the limit, never raise it. */
  const char *e = getenv("UMLBED_NPROC");
  long lim = e && *e ? strtol(e, NULL, 10) : UMB_WALL_NPROC;
  if (lim < 1 || lim > UMB_WALL_NPROC) lim = UMB_WALL_NPROC;
  struct rlimit np = {(rlim_t)lim, (rlim_t)lim};
  if (drop) {
    gid_t g = (gid_t)spec->uid;
    uid_t u = (uid_t)spec->uid;
    if (setgroups(0, NULL) || setresgid(g, g, g) || setresuid(u, u, u)) return fail("the unprivileged uid", -errno);
    /* The change of uid made /proc/self root's; its own again for the ids below (the exec decides afresh). */
    prctl(PR_SET_DUMPABLE, 1);
  }
  /* Root (a program that is not ELF keeps the runner's uid) has no RLIMIT_NPROC to count, and would lose its rights
   * over the run's files, which are the unprivileged uid's, in a namespace that maps root alone. */
  if (!spec->debug && geteuid() != 0) {
    uid_t u = geteuid();
    gid_t g = getegid();
    if (unshare(CLONE_NEWUSER)) return fail("the instance's user namespace", -errno);
    /* Its uid and gid are themselves in it (files keep their owners in the guest's view), written here, or where
     * the run's Landlock domain hides /proc, by the helper of the kernels' namespace (kns.h). */
    int rc = map_self(u, g);
    if (rc && spec->mapper >= 0) rc = map_by(spec->mapper);
    if (rc) return fail("the ids of the instance's user namespace", rc);
  }
  if (setrlimit(RLIMIT_NPROC, &np)) return fail("RLIMIT_NPROC", -errno);
  return 0;
}

/* An interactive gdb gets a process group of its own, in the terminal's foreground (as a shell runs a job): Ctrl-C
 * reaches it and its kernel, not the runner, and the instance is one group to kill. */
static int foreground(void) {
  if (setpgid(0, 0)) return fail("setpgid", -errno);
  sigset_t ttou, old;
  sigemptyset(&ttou);
  sigaddset(&ttou, SIGTTOU);
  sigprocmask(SIG_BLOCK, &ttou, &old);
  int rc = tcsetpgrp(0, getpid()) ? -errno : 0;
  sigprocmask(SIG_SETMASK, &old, NULL);
  return rc ? fail("tcsetpgrp", rc) : 0;
}

/* UML gives the guest, besides its mem=, the gap between its image and its heap, and spends page structures on it:
 * with the heap's place randomised (up to 1 GiB on this host), each boot's guest had another amount of free memory.
 * Without randomisation the heap follows the image and every boot's guest is the same. The guest is root in that
 * kernel, so the layout hid nothing from it. Core files and message queues: none. */
static int limits(const umb_wall_spec *spec) {
  int per = personality(0xffffffff);
  if (per < 0 || personality((unsigned long)per | ADDR_NO_RANDOMIZE) < 0) return fail("personality", -errno);
  struct rlimit zero = {0, 0};
  setrlimit(RLIMIT_CORE, &zero);
  setrlimit(RLIMIT_MSGQUEUE, &zero);
  if (spec->fsize) {
    struct rlimit fs = {spec->fsize, spec->fsize};
    if (setrlimit(RLIMIT_FSIZE, &fs)) return fail("RLIMIT_FSIZE", -errno);
  }
  return 0;
}

int umb_wall_exec(const umb_wall_spec *spec, char *const argv[], char *const envp[]) {
  int abi = umb_wall_abi();
  if (abi < 0) return fail(UMB_WALL_NO_LANDLOCK ", and umlbed runs no kernel without it", abi);
  /* Everything the program may reach is opened now, while any path is still reachable: after the uid changes,
   * a folder of the run may sit below one that only root may enter. */
  ll_rule rules[24] = {{-1, 0}};
  struct stat ids[4];
  int n = 0, maxfd = 6, kfd, elf, rc;
  if ((rc = open_folders(spec, rules, &n, &maxfd, ids)) || (rc = program_rules(spec, rules, &n, &kfd, &elf))) return rc;
  device_rules(spec, envp, rules, &n);
  /* gdb, and a program that is not ELF, reach files by path beneath folders root may enter alone: they keep the uid. */
  int drop = spec->uid >= 0 && elf;
  if ((spec->foreground && (rc = foreground())) || (rc = limits(spec)) || (rc = limit_processes(spec, drop)) ||
      (rc = check_folders(spec, ids)))
    return rc;
  rc = ll_apply(abi, fs_handled(abi), rules, n, 1);
  if (rc < 0) return fail("Landlock", rc);
  if ((rc = seccomp_install())) return fail("seccomp", rc);
  /* Nothing else inherited reaches the program; the kernel's own descriptor is close-on-exec. */
  if (kfd > maxfd) {
    if (kfd > maxfd + 1) close_range((unsigned)maxfd + 1, (unsigned)kfd - 1, 0);
    close_range((unsigned)kfd + 1, ~0U, 0);
  } else {
    close_range((unsigned)maxfd + 1, ~0U, 0);
  }
  if (elf)
    syscall(SYS_execveat, kfd, "", argv, envp, AT_EMPTY_PATH);
  else if (spec->exec)
    execve(spec->exec, argv, envp);
  else
    execvpe(argv[0], argv, envp);
  return fail(argv[0], -errno);
}

int umb_wall_main(int argc, char **argv) {
  umb_wall_spec spec = {.uid = -1, .mapper = -1};
  int i = 2;
  for (; i < argc && strcmp(argv[i], "--"); i++) {
    const char *a = argv[i], *v = i + 1 < argc ? argv[i + 1] : NULL;
    if (!strcmp(a, "--debug") || !strcmp(a, "--foreground")) {
      *(a[2] == 'd' ? &spec.debug : &spec.foreground) = 1;
      continue;
    }
    if (v == NULL) break;
    i++;
    if (!strcmp(a, "--exec"))
      spec.exec = v;
    else if (!strcmp(a, "--uid"))
      spec.uid = atoi(v);
    else if (!strcmp(a, "--fsize"))
      spec.fsize = strtoull(v, NULL, 10);
    else if (!strcmp(a, "--ns"))
      spec.ns = atoi(v);
    else if (!strcmp(a, "--mapper"))
      spec.mapper = atoi(v);
    else if (!strcmp(a, "--fd") && spec.nfds < 4 && strchr(v, '=')) {
      spec.fd[spec.nfds] = atoi(v);
      spec.fd_path[spec.nfds++] = strchr(v, '=') + 1;
    } else
      break;
  }
  if (i >= argc - 1 || strcmp(argv[i], "--")) {
    fprintf(stderr,
            "usage: umlbed __wall [--fd N=DIR]... [--exec FILE] [--uid UID] [--fsize BYTES] [--ns BITS] [--debug] "
            "[--foreground] -- PROGRAM ARG...\n");
    return 2;
  }
  extern char **environ;
  return umb_wall_exec(&spec, argv + i + 1, environ);
}

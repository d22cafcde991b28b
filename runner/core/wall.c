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
  static const umb_wall_path everywhere = {"/", UMB_WALL_REFER};
  if (npaths < 0) {
    paths = &everywhere;
    npaths = 1;
  }
  ll_rule rules[64] = {{-1, 0}};
  int n = 0;
  for (int i = 0; i < npaths && n < 64; i++) {
    int fd = open(paths[i].path, O_PATH | O_CLOEXEC);
    if (fd >= 0) rules[n++] = (ll_rule){fd, paths[i].rights};
  }
  int rc = ll_apply(abi, handled, rules, n, scope);
  for (int i = 0; i < n; i++) close(rules[i].fd);
  return rc;
}

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
 *     socket of the host's is reachable, and UML's own AF_UNIX socket (the management console in uml_dir) stays
 *     unanswered;
 *   - setsid and setpgid: every process it starts stays in the instance's group, which the runner kills as one;
 *   - TIOCSTI, which would type into a terminal it inherited;
 *   - any other architecture's calls (x32, i386): the filter reads x86_64 numbers. */
static int seccomp_install(void) {
#define LD_NR BPF_STMT(BPF_LD | BPF_W | BPF_ABS, offsetof(struct seccomp_data, nr))
#define LD_ARG(i, hi) BPF_STMT(BPF_LD | BPF_W | BPF_ABS, offsetof(struct seccomp_data, args[i]) + 4 * (hi))
#define ALLOW BPF_STMT(BPF_RET | BPF_K, SECCOMP_RET_ALLOW)
#define FAIL(e) BPF_STMT(BPF_RET | BPF_K, SECCOMP_RET_ERRNO | (e))
#define IS(nr, t, f) BPF_JUMP(BPF_JMP | BPF_JEQ | BPF_K, (nr), (t), (f))
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
                               SYS_process_vm_writev};
  enum { NDENIED = sizeof denied / sizeof denied[0] };
  const uint32_t ns =
      CLONE_NEWNS | CLONE_NEWCGROUP | CLONE_NEWUTS | CLONE_NEWIPC | CLONE_NEWUSER | CLONE_NEWPID | CLONE_NEWNET;
  struct sock_filter head[] = {
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
      BPF_JUMP(BPF_JMP | BPF_JSET | BPF_K, ns, 0, 1),
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
  enum { NHEAD = sizeof head / sizeof head[0] };
  struct sock_filter prog[NHEAD + 2 * NDENIED + 1];
  memcpy(prog, head, sizeof head);
  int n = NHEAD;
  for (int i = 0; i < NDENIED; i++) {
    prog[n++] = (struct sock_filter)IS((uint32_t)denied[i], 0, 1);
    prog[n++] = (struct sock_filter)FAIL(EPERM);
  }
  prog[n++] = (struct sock_filter)ALLOW;
  struct sock_fprog fprog = {.len = (unsigned short)n, .filter = prog};
  return prctl(PR_SET_SECCOMP, SECCOMP_MODE_FILTER, &fprog, 0, 0) ? -errno : 0;
#undef LD_NR
#undef LD_ARG
#undef ALLOW
#undef FAIL
#undef IS
}

static int write_file(const char *path, const char *text) {
  int fd = open(path, O_WRONLY | O_CLOEXEC);
  if (fd < 0) return -errno;
  ssize_t n = write(fd, text, strlen(text));
  int rc = n == (ssize_t)strlen(text) ? 0 : n < 0 ? -errno : -EIO;
  close(fd);
  return rc;
}

static int shm_private;

int umb_wall_private_shm(unsigned long long size) {
  int uid = umb_wall_owner() >= 0 ? UMB_WALL_UID : (int)geteuid();
  if (geteuid() == 0) {
    if (unshare(CLONE_NEWNS)) return -errno;
  } else {
    char map[64];
    uid_t u = geteuid();
    gid_t g = getegid();
    if (unshare(CLONE_NEWUSER | CLONE_NEWNS)) return -errno;
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
  shm_private = 1;
  return 0;
}

int umb_wall_shm_is_private(void) { return shm_private; }

static int fail(const char *what, int rc) {
  fprintf(stderr, "umlbed: the wall around the kernel: %s: %s\n", what, strerror(-rc));
  return 126;
}

/* Opens path O_PATH for a rule (-1 if it does not exist). */
static int rule_fd(const char *path) { return open(path, O_PATH | O_CLOEXEC); }

int umb_wall_exec(const umb_wall_spec *spec, char *const argv[], char *const envp[]) {
  int abi = umb_wall_abi();
  if (abi < 0)
    return fail(
        "this host has no Landlock (Linux 5.13 or later with landlock in its LSM list), and umlbed runs no "
        "kernel without it",
        abi);
  /* Everything the program may reach is opened now, while any path is still reachable: after the uid changes,
   * a folder of the run may sit below one that only root may enter. */
  ll_rule rules[24] = {{-1, 0}};
  int n = 0, maxfd = 6;
  for (int i = 0; i < spec->nfds; i++) {
    int fd = open(spec->fd_path[i], O_PATH | O_DIRECTORY | O_CLOEXEC);
    if (fd < 0) return fail(spec->fd_path[i], -errno);
    if (dup2(fd, spec->fd[i]) < 0) return fail("dup2", -errno);
    close(fd);
    rules[n++] = (ll_rule){spec->fd[i], UMB_WALL_READ | UMB_WALL_WRITE};
    if (spec->fd[i] > maxfd) maxfd = spec->fd[i];
  }
  int kfd = -1, elf = 0;
  char interp[PATH_MAX] = "";
  if (spec->exec) {
    int rfd = open(spec->exec, O_RDONLY | O_CLOEXEC | O_NONBLOCK);
    if (rfd < 0) return fail(spec->exec, -errno);
    elf = elf_interp(rfd, interp, sizeof interp) == 0;
    close(rfd);
  }
  if (elf) {
    if ((kfd = rule_fd(spec->exec)) < 0) return fail(spec->exec, -errno);
    rules[n++] = (ll_rule){kfd, UMB_WALL_EXEC};
    if (interp[0]) rules[n++] = (ll_rule){rule_fd(interp), UMB_WALL_EXEC};
    /* The C library and what the loader reads to find it; UML reads /proc/cpuinfo, and opens a pseudo-terminal to
     * test SIGIO on it. */
    static const char *ro[] = {"/lib", "/lib64", "/usr/lib", "/usr/lib64", "/etc/ld.so.cache", "/proc/cpuinfo"};
    for (size_t i = 0; i < sizeof ro / sizeof ro[0]; i++) rules[n++] = (ll_rule){rule_fd(ro[i]), UMB_WALL_READ};
  } else {
    /* gdb reads the host's files (the kernel's DWARF, its own data, the shell it starts the kernel with), and so
     * does a program that is not an ELF file (a script: the runner's tests' fake kernels; umlbed boot takes only a
     * UML kernel), which an interpreter runs by its path. */
    rules[n++] = (ll_rule){rule_fd("/"), UMB_WALL_READ | UMB_WALL_EXEC};
  }
  static const char *dev[] = {"/dev/null", "/dev/zero", "/dev/ptmx", "/dev/pts", "/dev/tty"};
  for (size_t i = 0; i < sizeof dev / sizeof dev[0]; i++)
    rules[n++] = (ll_rule){rule_fd(dev[i]), UMB_WALL_READ | UMB_WALL_WRITE | UMB_WALL_IOCTL};
  /* gdb, and a program that is not ELF, reach files by path beneath folders root may enter alone: they keep the uid. */
  int drop = spec->uid >= 0 && elf;
  /* UML's memory file goes to its TMPDIR: /dev/shm when that is private to its run (umb_wall_private_shm). */
  for (char *const *e = envp; *e; e++)
    if (!strcmp(*e, "TMPDIR=/dev/shm")) rules[n++] = (ll_rule){rule_fd("/dev/shm"), UMB_WALL_READ | UMB_WALL_WRITE};
  /* UML gives the guest, besides its mem=, the gap between its image and its heap, and spends page structures on
   * it: with the heap's place randomised (up to 1 GiB on this host), each boot's guest had another amount of free
   * memory. Without randomisation the heap follows the image and every boot's guest is the same. The guest is root
   * in that kernel, so the layout hid nothing from it. */
  int per = personality(0xffffffff);
  if (per < 0 || personality((unsigned long)per | ADDR_NO_RANDOMIZE) < 0) return fail("personality", -errno);
  struct rlimit zero = {0, 0};
  setrlimit(RLIMIT_CORE, &zero);
  setrlimit(RLIMIT_MSGQUEUE, &zero);
  if (spec->fsize) {
    struct rlimit fs = {spec->fsize, spec->fsize};
    if (setrlimit(RLIMIT_FSIZE, &fs)) return fail("RLIMIT_FSIZE", -errno);
  }
  if (drop) {
    /* Processes of its uid, all instances' together: room for many guests' processes, not for a fork bomb. */
    struct rlimit np = {4096, 4096};
    gid_t g = (gid_t)spec->uid;
    uid_t u = (uid_t)spec->uid;
    if (setgroups(0, NULL) || setresgid(g, g, g) || setresuid(u, u, u) || setrlimit(RLIMIT_NPROC, &np))
      return fail("the unprivileged uid", -errno);
  }
  int rc = ll_apply(abi, fs_handled(abi), rules, n, 1);
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
  umb_wall_spec spec = {.uid = -1};
  int i = 2;
  for (; i < argc && strcmp(argv[i], "--"); i++) {
    const char *a = argv[i], *v = i + 1 < argc ? argv[i + 1] : NULL;
    if (!strcmp(a, "--debug")) {
      spec.debug = 1;
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
    else if (!strcmp(a, "--fd") && spec.nfds < 4 && strchr(v, '=')) {
      spec.fd[spec.nfds] = atoi(v);
      spec.fd_path[spec.nfds++] = strchr(v, '=') + 1;
    } else
      break;
  }
  if (i >= argc - 1 || strcmp(argv[i], "--")) {
    fprintf(stderr,
            "usage: umlbed __wall [--fd N=DIR]... [--exec FILE] [--uid UID] [--fsize BYTES] [--debug] -- PROGRAM "
            "ARG...\n");
    return 2;
  }
  extern char **environ;
  return umb_wall_exec(&spec, argv + i + 1, environ);
}

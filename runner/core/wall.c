/* wall.c: Landlock and no_new_privs for a process about to run what it does not trust. */
#include "wall.h"

#include <errno.h>
#include <fcntl.h>
#include <stdint.h>
#include <sys/prctl.h>
#include <sys/stat.h>
#include <sys/syscall.h>
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
  if (rights & UMB_WALL_WRITE)
    r |= LL_FS_WRITE_FILE | LL_FS_REMOVE_DIR | LL_FS_REMOVE_FILE | LL_FS_MAKE_DIR | LL_FS_MAKE_REG | LL_FS_MAKE_SOCK |
         LL_FS_MAKE_FIFO | LL_FS_MAKE_SYM | LL_FS_REFER | LL_FS_TRUNCATE;
  return r & handled;
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
  for (int i = 0; i < npaths && rc == 0; i++) {
    int fd = open(paths[i].path, O_PATH | O_CLOEXEC);
    if (fd < 0) continue;
    struct stat st;
    struct ll_path_beneath pb = {.allowed_access = fs_rights(paths[i].rights, handled), .parent_fd = fd};
    if (fstat(fd, &st) == 0 && !S_ISDIR(st.st_mode)) pb.allowed_access &= LL_FILE_RIGHTS;
    if (pb.allowed_access && syscall(SYS_landlock_add_rule, rs, LL_RULE_PATH_BENEATH, &pb, 0)) rc = -errno;
    close(fd);
  }
  if (rc == 0 && prctl(PR_SET_NO_NEW_PRIVS, 1, 0, 0, 0)) rc = -errno;
  if (rc == 0 && syscall(SYS_landlock_restrict_self, rs, 0)) rc = -errno;
  close(rs);
  return rc ? rc : abi;
}

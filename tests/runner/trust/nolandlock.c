// SPDX-License-Identifier: MIT
/* nolandlock.c: trust.t's wrapper: runs a program with Landlock's calls refused (ENOSYS), as on a host without it. */
#define _GNU_SOURCE
#include <errno.h>
#include <linux/audit.h>
#include <linux/filter.h>
#include <linux/seccomp.h>
#include <stddef.h>
#include <stdio.h>
#include <sys/prctl.h>
#include <sys/syscall.h>
#include <unistd.h>

/* landlock_create_ruleset, landlock_add_rule and landlock_restrict_self: 444, 445, 446 on x86_64. */
#define LL_FIRST 444
#define LL_LAST 446

int main(int argc, char **argv) {
  struct sock_filter filter[] = {
      BPF_STMT(BPF_LD | BPF_W | BPF_ABS, offsetof(struct seccomp_data, arch)),
      BPF_JUMP(BPF_JMP | BPF_JEQ | BPF_K, AUDIT_ARCH_X86_64, 1, 0),
      BPF_STMT(BPF_RET | BPF_K, SECCOMP_RET_ALLOW),
      BPF_STMT(BPF_LD | BPF_W | BPF_ABS, offsetof(struct seccomp_data, nr)),
      BPF_JUMP(BPF_JMP | BPF_JGE | BPF_K, LL_FIRST, 0, 2),
      BPF_JUMP(BPF_JMP | BPF_JGT | BPF_K, LL_LAST, 1, 0),
      BPF_STMT(BPF_RET | BPF_K, SECCOMP_RET_ERRNO | ENOSYS),
      BPF_STMT(BPF_RET | BPF_K, SECCOMP_RET_ALLOW),
  };
  struct sock_fprog prog = {.len = sizeof filter / sizeof filter[0], .filter = filter};

  if (argc < 2) {
    fprintf(stderr, "usage: nolandlock PROGRAM [ARG...]\n");
    return 2;
  }
  /* No new privileges: an unprivileged process may then install a filter, which every child inherits. */
  if (prctl(PR_SET_NO_NEW_PRIVS, 1, 0, 0, 0) || prctl(PR_SET_SECCOMP, SECCOMP_MODE_FILTER, &prog)) {
    perror("nolandlock: seccomp");
    return 127;
  }
  /* The filter's own probe: Landlock's ABI query is refused here, so in every process the program starts. */
  if (syscall(LL_FIRST, NULL, 0, 1) != -1 || errno != ENOSYS) {
    fprintf(stderr, "nolandlock: landlock_create_ruleset is not refused\n");
    return 127;
  }
  execv(argv[1], argv + 1);
  perror(argv[1]);
  return 127;
}

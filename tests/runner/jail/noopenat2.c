// SPDX-License-Identifier: MIT
/* noopenat2.c: jail.t's wrapper: runs a program with openat2(2) refused (ENOSYS), as on a host older than Linux 5.6. */
#define _GNU_SOURCE
#include <errno.h>
#include <fcntl.h>
#include <linux/audit.h>
#include <linux/filter.h>
#include <linux/seccomp.h>
#include <stddef.h>
#include <stdio.h>
#include <sys/prctl.h>
#include <sys/syscall.h>
#include <unistd.h>

#ifndef __NR_openat2
#define __NR_openat2 437
#endif

int main(int argc, char **argv) {
  struct sock_filter filter[] = {
      BPF_STMT(BPF_LD | BPF_W | BPF_ABS, offsetof(struct seccomp_data, arch)),
      BPF_JUMP(BPF_JMP | BPF_JEQ | BPF_K, AUDIT_ARCH_X86_64, 1, 0),
      BPF_STMT(BPF_RET | BPF_K, SECCOMP_RET_ALLOW),
      BPF_STMT(BPF_LD | BPF_W | BPF_ABS, offsetof(struct seccomp_data, nr)),
      BPF_JUMP(BPF_JMP | BPF_JEQ | BPF_K, __NR_openat2, 0, 1),
      BPF_STMT(BPF_RET | BPF_K, SECCOMP_RET_ERRNO | ENOSYS),
      BPF_STMT(BPF_RET | BPF_K, SECCOMP_RET_ALLOW),
  };
  struct sock_fprog prog = {.len = sizeof filter / sizeof filter[0], .filter = filter};

  if (argc < 2) {
    fprintf(stderr, "usage: noopenat2 PROGRAM [ARG...]\n");
    return 2;
  }
  /* No new privileges: an unprivileged process may then install a filter, which every child inherits. */
  if (prctl(PR_SET_NO_NEW_PRIVS, 1, 0, 0, 0) || prctl(PR_SET_SECCOMP, SECCOMP_MODE_FILTER, &prog)) {
    perror("noopenat2: seccomp");
    return 127;
  }
  /* The filter's own probe: openat2 is refused here, so in every process the program starts. */
  if (syscall(__NR_openat2, AT_FDCWD, ".", NULL, 0) != -1 || errno != ENOSYS) {
    fprintf(stderr, "noopenat2: openat2 is not refused\n");
    return 127;
  }
  execv(argv[1], argv + 1);
  perror(argv[1]);
  return 127;
}

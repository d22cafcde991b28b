// SPDX-License-Identifier: MIT
/* helper.c: the hostile guest program of hostile.t: hostfs mounts, chmod, symbolic links. */
#define _GNU_SOURCE
#include <dirent.h>
#include <errno.h>
#include <stdio.h>
#include <string.h>
#include <sys/mount.h>
#include <sys/stat.h>
#include <unistd.h>

static int exists(const char *p) {
  struct stat st;
  return lstat(p, &st) == 0;
}

/* Mounts hostfs with DATA on /mnt and says what it sees there. */
static void look(const char *tag, const char *data) {
  if (mkdir("/mnt", 0755) && errno != EEXIST) {
    printf("%s-mkdir: %s\n", tag, strerror(errno));
    return;
  }
  if (mount("none", "/mnt", "hostfs", 0, data)) {
    printf("%s-mount: %s\n", tag, strerror(errno));
    return;
  }
  printf("%s-mount: ok\n", tag);
  printf("%s-passwd: %s\n", tag, exists("/mnt/etc/passwd") ? "yes" : "no");
  printf("%s-work: %s\n", tag, exists("/mnt/work") ? "yes" : "no");
  printf("%s-agent: %s\n", tag, exists("/mnt/umlbed-agent") || exists("/mnt/root/umlbed-agent") ? "yes" : "no");
  DIR *d = opendir("/mnt");
  for (struct dirent *e; d && (e = readdir(d));) printf("%s-entry: %s\n", tag, e->d_name);
  if (d) closedir(d);
  umount("/mnt");
}

int main(int argc, char **argv) {
  if (argc == 2 && !strcmp(argv[1], "mount")) {
    look("root", "/");
    return 0;
  }
  if (argc == 2 && !strcmp(argv[1], "dotdot")) {
    look("dotdot", "/../../../../../../../../../../../../../../../..");
    return 0;
  }
  if (argc == 3 && !strcmp(argv[1], "chmod")) {
    printf("chmod: %s\n", chmod(argv[2], 0777) ? strerror(errno) : "ok");
    return 0;
  }
  if (argc == 4 && !strcmp(argv[1], "symlink")) {
    if (symlink(argv[2], argv[3])) {
      printf("symlink: %s\n", strerror(errno));
      return 1;
    }
    return 0;
  }
  if (argc == 3 && !strcmp(argv[1], "swapshared")) {
    if (rename("/shared", "/shared.old") || symlink(argv[2], "/shared")) {
      printf("swapshared: %s\n", strerror(errno));
      return 1;
    }
    return 0;
  }
  fprintf(stderr, "usage: helper mount | dotdot | chmod PATH | symlink TARGET LINK | swapshared DIR\n");
  return 2;
}

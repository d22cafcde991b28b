// SPDX-License-Identifier: MIT
/* probe.c: jail-fuzz.lua's mount probe, run in the guest: every form of a list mounted, looked through and unmounted by one process. */
#define _GNU_SOURCE
#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mount.h>
#include <sys/stat.h>
#include <unistd.h>

/*
 * Usage: jail-probe FORMS SPOT...
 * FORMS holds one "ID<TAB>OPTION" line per form. For each one the probe mounts hostfs on /mnt with OPTION as the
 * mount data (none when it is empty), and prints "P ID F" when the mount is refused, else
 * "P ID M N:<inode of /mnt>", then " I:<line>" for a marker /mnt/.jailmark, and for each SPOT i below /mnt that
 * holds a jail-canary: " R<i>:<its first line>" and " C<i>" when a file can be created beside it, and " U" when
 * the unmount fails. The guest's shell ran the same steps as mount, stat, read and umount, one process each; one
 * process for all of them makes the fuzz cost a second instead of half a minute of guest forks.
 * The data goes to mount(2) as written: busybox's mount would split it at commas and drop the flags it knows, so
 * a guest's direct system call is the stronger attacker.
 */

/* The first line of PATH, trimmed of blanks as the shell's read -r trims it, in BUF; 0 when a whole line was read. */
static int first_line(const char *path, char *buf, size_t size) {
  int fd = open(path, O_RDONLY | O_CLOEXEC);
  ssize_t n;
  char *nl, *s, *e;

  if (fd < 0) return -1;
  n = read(fd, buf, size - 1);
  close(fd);
  if (n < 0) return -1;
  buf[n] = '\0';
  nl = strchr(buf, '\n');
  if (nl == NULL) return -1;
  *nl = '\0';
  for (s = buf; *s == ' ' || *s == '\t'; s++)
    ;
  for (e = nl; e > s && (e[-1] == ' ' || e[-1] == '\t'); e--)
    ;
  *e = '\0';
  memmove(buf, s, (size_t)(e - s) + 1);
  return 0;
}

static void probe(const char *id, const char *opt, int nspots, char **spots) {
  char path[8192], line[4096];
  struct stat st;
  int i, fd;

  if (mount("none", "/mnt", "hostfs", 0, *opt ? opt : NULL) != 0) {
    printf("P %s F\n", id);
    return;
  }
  printf("P %s M N:", id);
  if (stat("/mnt", &st) == 0) printf("%llu", (unsigned long long)st.st_ino);
  if (first_line("/mnt/.jailmark", line, sizeof line) == 0) printf(" I:%s", line);
  for (i = 0; i < nspots; i++) {
    snprintf(path, sizeof path, "/mnt%s/jail-canary", spots[i]);
    if (stat(path, &st) != 0) continue;
    if (first_line(path, line, sizeof line) == 0) printf(" R%d:%s", i, line);
    snprintf(path, sizeof path, "/mnt%s/jail-created-%s", spots[i], id);
    fd = open(path, O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC, 0666);
    if (fd >= 0) {
      close(fd);
      printf(" C%d", i);
    }
  }
  if (umount("/mnt") != 0) printf(" U");
  printf("\n");
}

int main(int argc, char **argv) {
  char *line = NULL, *tab;
  size_t cap = 0;
  ssize_t n;
  FILE *f;

  if (argc < 2) {
    fprintf(stderr, "usage: jail-probe FORMS SPOT...\n");
    return 2;
  }
  f = fopen(argv[1], "re");
  if (f == NULL) {
    fprintf(stderr, "jail-probe: %s: %s\n", argv[1], strerror(errno));
    return 2;
  }
  while ((n = getline(&line, &cap, f)) > 0) {
    if (line[n - 1] == '\n') line[n - 1] = '\0';
    tab = strchr(line, '\t');
    if (tab == NULL) {
      fprintf(stderr, "jail-probe: a line without a tab: %s\n", line);
      return 2;
    }
    *tab = '\0';
    probe(line, tab + 1, argc - 2, argv + 2);
    /* The output is read only at the end, but a crash must not lose the lines of the forms before it. */
    fflush(stdout);
  }
  free(line);
  fclose(f);
  return 0;
}

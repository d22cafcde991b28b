// SPDX-License-Identifier: MIT
/* testprog.c: a small static program that the agent tests run with the exec verb. */
#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <stdbool.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/inotify.h>
#include <sys/stat.h>
#include <unistd.h>

/*
 * Blocks until PATH exists: an inotify watch on its folder, set before the first look, so a file created at any
 * moment is seen, and nothing polls. Returns 0, or 3 when inotify fails (an error, not a wait that gives up).
 */
static int wait_file(const char *path) {
  char dir[4096];
  const char *slash = strrchr(path, '/');
  const char *base = slash ? slash + 1 : path;
  if (!slash)
    snprintf(dir, sizeof dir, ".");
  else if (slash == path)
    snprintf(dir, sizeof dir, "/");
  else
    snprintf(dir, sizeof dir, "%.*s", (int)(slash - path), path);
  int fd = inotify_init1(IN_CLOEXEC);
  if (fd < 0 || inotify_add_watch(fd, dir, IN_CREATE | IN_MOVED_TO | IN_ONLYDIR) < 0) {
    perror("waitfile: inotify");
    return 3;
  }
  struct stat st;
  if (stat(path, &st) == 0) return 0;
  for (;;) {
    char buf[4096] __attribute__((aligned(__alignof__(struct inotify_event))));
    ssize_t n = read(fd, buf, sizeof buf);
    if (n < 0 && errno == EINTR) continue;
    if (n <= 0) {
      perror("waitfile: read inotify");
      return 3;
    }
    for (char *p = buf; p < buf + n;) {
      const struct inotify_event *ev = (const struct inotify_event *)p;
      if (ev->len && strcmp(ev->name, base) == 0) return 0;
      /* Events were lost, or the folder went away: only a look can tell. */
      if ((ev->mask & (IN_Q_OVERFLOW | IN_IGNORED)) && stat(path, &st) == 0) return 0;
      if (ev->mask & IN_IGNORED) {
        fprintf(stderr, "waitfile: %s is gone\n", dir);
        return 3;
      }
      p += sizeof *ev + ev->len;
    }
  }
}

static int usage(void) {
  fprintf(stderr,
          "usage: testprog echo ARG... | exit N | kill PID SIG | waitfile PATH | segv | big N | nfd PID |\n"
          "       escape RELEASE [hold] | tree READY | procs STRING\n");
  return 2;
}

/*
 * A process that leaves the program's process group and keeps its stdout: it calls setsid, says "escapee", and waits
 * until RELEASE exists. The program itself says "leader" only once the escapee is out of the group (so the agent
 * never sees the group empty before that), then ends, or with "hold" waits for ever.
 */
static int escape(const char *release, bool hold) {
  int sync[2];
  if (pipe(sync) < 0) return 3;
  pid_t pid = fork();
  if (pid < 0) return 3;
  if (pid == 0) {
    close(sync[0]);
    if (setsid() < 0) _exit(3);
    printf("escapee\n");
    fflush(stdout);
    close(sync[1]);
    _exit(wait_file(release));
  }
  close(sync[1]);
  char c;
  while (read(sync[0], &c, 1) < 0 && errno == EINTR)
    ;
  printf("leader\n");
  fflush(stdout);
  if (hold)
    for (;;) pause();
  return 0;
}

/* A program with a child in its process group: the child creates READY, then both wait for ever. */
static int tree(const char *ready) {
  pid_t pid = fork();
  if (pid < 0) return 3;
  if (pid == 0) {
    int fd = open(ready, O_WRONLY | O_CREAT | O_CLOEXEC, 0644);
    if (fd < 0) _exit(3);
    close(fd);
  }
  for (;;) pause();
}

/* Lists the live processes (not zombies, not this one) whose command line holds STRING: "PID PGRP" lines. */
static int procs(const char *needle) {
  DIR *d = opendir("/proc");
  if (!d) return 3;
  for (struct dirent *e; (e = readdir(d));) {
    char *end;
    long pid = strtol(e->d_name, &end, 10);
    if (*end || pid <= 0 || pid == (long)getpid()) continue;
    char path[64], buf[4096];
    snprintf(path, sizeof path, "/proc/%ld/cmdline", pid);
    FILE *f = fopen(path, "re");
    if (!f) continue;
    size_t n = fread(buf, 1, sizeof buf - 1, f);
    fclose(f);
    for (size_t i = 0; i < n; i++)
      if (buf[i] == '\0') buf[i] = ' ';
    buf[n] = '\0';
    if (!strstr(buf, needle)) continue;
    snprintf(path, sizeof path, "/proc/%ld/stat", pid);
    f = fopen(path, "re");
    if (!f) continue;
    n = fread(buf, 1, sizeof buf - 1, f);
    fclose(f);
    buf[n] = '\0';
    char *p = strrchr(buf, ')'), state;
    int pgrp;
    if (!p || sscanf(p + 1, " %c %*d %d", &state, &pgrp) != 2 || state == 'Z' || state == 'X') continue;
    printf("%ld %d\n", pid, pgrp);
  }
  closedir(d);
  return 0;
}

int main(int argc, char **argv) {
  if (argc < 2) return usage();
  const char *cmd = argv[1];
  if (strcmp(cmd, "echo") == 0) {
    /* Arguments to stdout, and a marker to stderr to show that both are captured. */
    for (int i = 2; i < argc; i++) printf("%s%s", argv[i], i + 1 < argc ? " " : "\n");
    fflush(stdout);
    fprintf(stderr, "stderr\n");
    return 0;
  }
  if (strcmp(cmd, "exit") == 0 && argc == 3) return atoi(argv[2]);
  /* What run's options set: the working directory, an environment variable, the user. */
  if (strcmp(cmd, "pwd") == 0) {
    char buf[4096];
    if (getcwd(buf, sizeof buf) == NULL) return 1;
    printf("%s\n", buf);
    return 0;
  }
  if (strcmp(cmd, "getenv") == 0 && argc == 3) {
    const char *v = getenv(argv[2]);
    printf("%s\n", v ? v : "(unset)");
    return 0;
  }
  /* A hostile guest's symbolic link in the shared root (uml-install.lua). */
  if (strcmp(cmd, "symlink") == 0 && argc == 4) return symlink(argv[2], argv[3]) == 0 ? 0 : 1;
  if (strcmp(cmd, "ids") == 0) {
    printf("%u %u\n", (unsigned)getuid(), (unsigned)getgid());
    return 0;
  }
  if (strcmp(cmd, "kill") == 0 && argc == 4) return kill(atoi(argv[2]), atoi(argv[3])) == 0 ? 0 : 1;
  if (strcmp(cmd, "waitfile") == 0 && argc == 3)
    /* Blocks until another process creates the file: proves that requests run concurrently. */
    return wait_file(argv[2]);
  if (strcmp(cmd, "segv") == 0) {
    signal(SIGSEGV, SIG_DFL);
    raise(SIGSEGV);
    return 1;
  }
  if (strcmp(cmd, "big") == 0 && argc == 3) {
    long n = atol(argv[2]);
    static char buf[65536];
    memset(buf, 'x', sizeof buf);
    while (n > 0) {
      size_t k = n > (long)sizeof buf ? sizeof buf : (size_t)n;
      if (fwrite(buf, 1, k, stdout) != k) return 1;
      n -= (long)k;
    }
    return 0;
  }
  if (strcmp(cmd, "escape") == 0 && (argc == 3 || (argc == 4 && strcmp(argv[3], "hold") == 0)))
    return escape(argv[2], argc == 4);
  if (strcmp(cmd, "tree") == 0 && argc == 3) return tree(argv[2]);
  if (strcmp(cmd, "procs") == 0 && argc == 3) return procs(argv[2]);
  if (strcmp(cmd, "nfd") == 0 && argc == 3) {
    /* The number of open descriptors of a process: the agent must not leak any. */
    char path[64];
    snprintf(path, sizeof path, "/proc/%s/fd", argv[2]);
    DIR *d = opendir(path);
    if (!d) return 1;
    int n = 0;
    for (struct dirent *e; (e = readdir(d));) n += e->d_name[0] != '.';
    closedir(d);
    printf("%d\n", n);
    return 0;
  }
  return usage();
}

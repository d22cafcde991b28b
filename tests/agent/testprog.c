/* testprog.c: a small static program that the agent tests run with the exec verb. */
#include <dirent.h>
#include <errno.h>
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
  fprintf(stderr, "usage: testprog echo ARG... | exit N | kill PID SIG | waitfile PATH | segv | big N | nfd PID\n");
  return 2;
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

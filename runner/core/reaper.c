// SPDX-License-Identifier: MIT
/* reaper.c: the watchdog that ends a dead runner's UML process groups and removes its run folders. */
#include "reaper.h"
#include "runlink.h"
#include "path.h"

#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <ftw.h>
#include <limits.h>
#include <poll.h>
#include <signal.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/file.h>
#include <sys/prctl.h>
#include <sys/stat.h>
#include <sys/syscall.h>
#include <sys/wait.h>
#include <unistd.h>

#define REAPER_GROUPS_MAX 4096
#define REAPER_DIRS_MAX 4096

static int reaper_fd = -1;
static pid_t reaper_pid;

/* A registration goes to the reaper when this is the runner, and to the supervisor when this is a run process
 * (runlink.h): a run process never holds the reaper's pipe, so the runner checks and passes on what it sends. */
static void send_line(const char *fmt, ...) __attribute__((format(printf, 1, 2)));
static void send_line(const char *fmt, ...) {
  char line[PATH_MAX + 16];
  va_list ap;
  va_start(ap, fmt);
  int n = vsnprintf(line, sizeof line, fmt, ap);
  va_end(ap);
  if (n <= 1 || (size_t)n >= sizeof line) return;
  /* One write of less than PIPE_BUF bytes is atomic; the reaper never reads slower than a few lines. */
  if (reaper_fd >= 0)
    while (write(reaper_fd, line, (size_t)n) < 0 && errno == EINTR) {
    }
  umb_link_send("%.*s", n - 1, line);
}

void umb_reaper_add_group(pid_t pgid) {
  if (pgid > 1) send_line("G+ %d\n", (int)pgid);
}
void umb_reaper_del_group(pid_t pgid) {
  if (pgid > 1) send_line("G- %d\n", (int)pgid);
}
void umb_reaper_add_dir(const char *dir) {
  if (dir && *dir == '/' && !strchr(dir, '\n')) send_line("D+ %s\n", dir);
}
void umb_reaper_del_dir(const char *dir) {
  if (dir && *dir == '/' && !strchr(dir, '\n')) send_line("D- %s\n", dir);
}

static int inside(const char *path, const char *dir) {
  size_t n = strlen(dir);
  return strncmp(path, dir, n) == 0 && (path[n] == '\0' || path[n] == '/');
}

int umb_reaper_dir_ok(const char *tmpbase, const char *dir) {
  size_t n = strlen(tmpbase);
  if (n == 0 || strncmp(dir, tmpbase, n) != 0 || dir[n] != '/') return 0;
  const char *name = dir + n + 1;
  if (strncmp(name, "umlbed-", 7) != 0 || name[7] == '\0') return 0;
  /* A plain name: no further folder, no "..", nothing a shell or a line would read differently. */
  for (const char *c = name; *c; c++)
    if (!((*c >= 'a' && *c <= 'z') || (*c >= 'A' && *c <= 'Z') || (*c >= '0' && *c <= '9') || *c == '-' || *c == '_'))
      return 0;
  struct stat st;
  return lstat(dir, &st) == 0 && S_ISDIR(st.st_mode);
}

int umb_reaper_group_in(pid_t pgid, const char *const *dirs, int ndirs) {
  if (pgid <= 1) return 0;
  /* An instance is the leader of its own group (setsid), and it works in its folder inside a run folder. */
  char link[64], cwd[PATH_MAX];
  snprintf(link, sizeof link, "/proc/%d/cwd", (int)pgid);
  ssize_t n = readlink(link, cwd, sizeof cwd - 1);
  if (n <= 0 || getpgid(pgid) != pgid) return 0;
  cwd[n] = '\0';
  for (int i = 0; i < ndirs; i++)
    if (inside(cwd, dirs[i])) return 1;
  return 0;
}

/* SIGKILLs pid when its working directory is inside dir (and its group, unless that is the runner's); 1 if so. */
static int kill_if_inside(long pid, const char *dir, pid_t runner_pgid) {
  char link[64], cwd[PATH_MAX];
  snprintf(link, sizeof link, "/proc/%ld/cwd", pid);
  ssize_t n = readlink(link, cwd, sizeof cwd - 1);
  if (n <= 0) return 0;
  cwd[n] = '\0';
  if (!inside(cwd, dir)) return 0;
  pid_t pgid = getpgid((pid_t)pid);
  if (pgid > 1 && pgid != runner_pgid && pgid != getpgrp()) kill(-pgid, SIGKILL);
  kill((pid_t)pid, SIGKILL);
  return 1;
}

/* SIGKILLs every process whose working directory is inside dir (and its group, unless that is the runner's);
 * returns how many it found. */
static int kill_inside(const char *dir, pid_t runner_pgid) {
  DIR *d = opendir("/proc");
  if (d == NULL) return 0;
  int found = 0;
  pid_t self = getpid();
  for (struct dirent *e; (e = readdir(d));) {
    char *end;
    long pid = strtol(e->d_name, &end, 10);
    if (*end || pid <= 1 || pid == self) continue;
    found += kill_if_inside(pid, dir, runner_pgid);
  }
  closedir(d);
  return found;
}

#define SWEEP_MAX_PIDS 4096

/* Appends the children of every thread of pid to list (from /proc/PID/task/TID/children); -1 when the list is
 * full. A process or thread that ended meanwhile has none. */
static int children_of(long pid, long *list, int *n) {
  char path[64];
  snprintf(path, sizeof path, "/proc/%ld/task", pid);
  DIR *d = opendir(path);
  if (d == NULL) return 0;
  int rc = 0;
  for (struct dirent *e; rc == 0 && (e = readdir(d));) {
    if (e->d_name[0] < '0' || e->d_name[0] > '9') continue;
    char cpath[96];
    snprintf(cpath, sizeof cpath, "/proc/%ld/task/%.20s/children", pid, e->d_name);
    FILE *f = fopen(cpath, "re");
    for (long c; f && rc == 0 && fscanf(f, "%ld", &c) == 1;) {
      if (*n == SWEEP_MAX_PIDS)
        rc = -1;
      else
        list[(*n)++] = c;
    }
    if (f) fclose(f);
  }
  closedir(d);
  return rc;
}

/* Like kill_inside, over the caller's descendants alone; -1 when they cannot be listed. */
static int kill_inside_below(const char *dir, pid_t runner_pgid) {
  char own[64];
  int subreaper = 0;
  snprintf(own, sizeof own, "/proc/%d/task/%d/children", (int)getpid(), (int)getpid());
  /* Only a subreaper keeps the orphans below it; a kernel without CONFIG_PROC_CHILDREN lists no children. */
  if (prctl(PR_GET_CHILD_SUBREAPER, &subreaper) || !subreaper || access(own, R_OK)) return -1;
  long *list = malloc(sizeof *list * SWEEP_MAX_PIDS);
  int n = 0, found = 0;
  if (list == NULL || children_of((long)getpid(), list, &n)) {
    free(list);
    return -1;
  }
  for (int i = 0; i < n; i++) {
    if (children_of(list[i], list, &n)) {
      free(list);
      return -1;
    }
    found += kill_if_inside(list[i], dir, runner_pgid);
  }
  free(list);
  return found;
}

static int creation_lock(const char *tmpbase, int how);

/* Waits until no process holds the folder's flock: a run process holds its run folder's for as long as it lives,
 * and may still write into the folder until it is gone. A folder nobody locks (the runner's own) is taken at once.
 * Returns the descriptor that holds the lock (close it when done), or -1. */
static int lock_folder(const char *path) {
  int fd = open(path, O_RDONLY | O_DIRECTORY | O_NOFOLLOW | O_CLOEXEC);
  if (fd < 0) return -1;
  while (flock(fd, LOCK_EX) < 0 && errno == EINTR) {
  }
  return fd;
}

/* A run folder whose registration had not reached the reaper when the runner died: a run process makes it and the
 * runner passes its line on, and a SIGKILL between the two left it behind. It is named after the runner and locked by
 * its run process until that process is gone, which dies with the runner (PR_SET_PDEATHSIG): the lock's release is
 * the event to wait for. Then it goes as a registered one does; a kept folder (a failed run's) stays.
 * A run process may be making a folder as the runner dies: the creation lock, taken exclusively, waits for every
 * folder being made to be there and locked, so the scan below sees it. */
static void reap_unregistered(const char *tmpbase, pid_t runner, pid_t runner_pgid) {
  char prefix[32];
  snprintf(prefix, sizeof prefix, "umlbed-%d-", (int)runner);
  int guard = creation_lock(tmpbase, LOCK_EX);
  DIR *d = opendir(tmpbase);
  if (d == NULL) {
    if (guard >= 0) close(guard);
    return;
  }
  for (struct dirent *e; (e = readdir(d));) {
    if (strncmp(e->d_name, prefix, strlen(prefix))) continue;
    char path[PATH_MAX], mark[PATH_MAX + 32];
    struct stat st;
    if (umb_path(path, sizeof path, "%s/%s", tmpbase, e->d_name)) continue;
    if (lstat(path, &st) || !S_ISDIR(st.st_mode) || st.st_uid != getuid()) continue;
    int fd = lock_folder(path);
    if (fd < 0) continue;
    if (!umb_path(mark, sizeof mark, "%s/%s", path, UMB_KEPT_MARK) && access(mark, F_OK)) {
      umb_sweep_dir(path, runner_pgid);
      umb_rm_tree(path);
    }
    close(fd);
  }
  closedir(d);
  if (guard >= 0) close(guard);
}

/* Waits until the runner has exited, when its end was not an orderly stop: its pipe reaches EOF when it closes its
 * descriptors, before the kernel has sent its run processes their parent-death SIGKILL. Until then a run process
 * still runs and may make a folder after the scan. The pidfd is readable once the exit is complete. */
static void wait_runner_gone(int pidfd) {
  if (pidfd < 0) return;
  struct pollfd p = {.fd = pidfd, .events = POLLIN};
  while (poll(&p, 1, -1) < 0 && errno == EINTR) {
  }
  close(pidfd);
}

static void __attribute__((noreturn))
reaper_main(int fd, int pidfd, pid_t runner, pid_t runner_pgid, const char *tmpbase) {
  static pid_t groups[REAPER_GROUPS_MAX];
  static char *dirs[REAPER_DIRS_MAX];
  int ngroups = 0, ndirs = 0, orderly = 0;
  char buf[PATH_MAX + 16];
  size_t len = 0;
  for (;;) {
    ssize_t n = read(fd, buf + len, sizeof buf - 1 - len);
    if (n < 0 && errno == EINTR) continue;
    if (n <= 0) break;
    len += (size_t)n;
    char *nl;
    while ((nl = memchr(buf, '\n', len))) {
      *nl = '\0';
      if (!strncmp(buf, "G+ ", 3) && ngroups < REAPER_GROUPS_MAX) {
        groups[ngroups++] = (pid_t)atoi(buf + 3);
      } else if (!strncmp(buf, "G- ", 3)) {
        pid_t g = (pid_t)atoi(buf + 3);
        for (int i = 0; i < ngroups; i++)
          if (groups[i] == g) groups[i--] = groups[--ngroups];
      } else if (!strncmp(buf, "D+ ", 3) && ndirs < REAPER_DIRS_MAX && umb_reaper_dir_ok(tmpbase, buf + 3)) {
        dirs[ndirs] = strdup(buf + 3);
        if (dirs[ndirs]) ndirs++;
      } else if (!strncmp(buf, "D- ", 3)) {
        for (int i = 0; i < ndirs; i++)
          if (!strcmp(dirs[i], buf + 3)) {
            free(dirs[i]);
            dirs[i--] = dirs[--ndirs];
          }
      } else if (!strcmp(buf, "Q")) {
        orderly = 1;
      }
      len -= (size_t)(nl + 1 - buf);
      memmove(buf, nl + 1, len);
    }
    if (len == sizeof buf - 1) len = 0; /* A line longer than any registration: drop it. */
  }
  /* The runner stopped, and waits for this process; or it died, and its run processes are being killed. */
  if (!orderly)
    wait_runner_gone(pidfd);
  else if (pidfd >= 0)
    close(pidfd);
  /* The runner is gone. Anything still registered was live: end it, if it is still an instance in a run folder
   * (a group whose leader died may have a new owner by now). */
  for (int i = 0; i < ngroups; i++)
    if (umb_reaper_group_in(groups[i], (const char *const *)dirs, ndirs)) kill(-groups[i], SIGKILL);
  /* Each folder goes once its run process is gone; what works inside it is killed first, so that nothing there
   * holds the folder's lock. */
  for (int i = 0; i < ndirs; i++) {
    umb_sweep_dir(dirs[i], runner_pgid);
    int lock = lock_folder(dirs[i]);
    umb_sweep_dir(dirs[i], runner_pgid);
    umb_rm_tree(dirs[i]);
    if (lock >= 0) close(lock);
  }
  reap_unregistered(tmpbase, runner, runner_pgid);
  _exit(0);
}

void umb_sweep_dir(const char *dir, pid_t spare_pgid) {
  /* A process found is killed; look again until none is left (a killed one is gone from the scan once it is a
   * zombie, and one forked meanwhile is found next time). Bounded by rounds, not by time. */
  for (int round = 0; round < 10000 && kill_inside(dir, spare_pgid) > 0; round++) {
  }
}

void umb_sweep_below(const char *dir, pid_t spare_pgid) {
  int found;
  for (int round = 0; round < 10000 && (found = kill_inside_below(dir, spare_pgid)) != 0; round++)
    if (found < 0) {
      umb_sweep_dir(dir, spare_pgid);
      return;
    }
}

void umb_signals_default(void) {
  struct sigaction sa = {.sa_handler = SIG_DFL};
  sigemptyset(&sa.sa_mask);
  for (int s = 1; s < NSIG; s++) sigaction(s, &sa, NULL);
  sigset_t none;
  sigemptyset(&none);
  sigprocmask(SIG_SETMASK, &none, NULL);
}

int umb_reaper_start(const char *tmpbase) {
  int p[2];
  if (pipe2(p, O_CLOEXEC)) return -errno;
  pid_t runner = getpid(), runner_pgid = getpgrp();
  pid_t pid = fork();
  if (pid < 0) {
    int e = -errno;
    close(p[0]);
    close(p[1]);
    return e;
  }
  if (pid == 0) {
    /* Out of the runner's session: a closed terminal or Ctrl-C must not end the reaper before the runner. */
    setsid();
    int null = open("/dev/null", O_RDWR);
    if (null >= 0) {
      dup2(null, 0);
      dup2(null, 1);
      dup2(null, 2);
    }
    if (dup2(p[0], 3) < 0) _exit(1);
    close_range(4, ~0U, 0);
    /* The runner's pidfd, checked to be the parent's: a runner already gone is not waited for. */
    int pidfd = -1;
#ifdef SYS_pidfd_open
    pidfd = (int)syscall(SYS_pidfd_open, runner, 0);
    if (pidfd >= 0 && getppid() != runner) {
      close(pidfd);
      pidfd = -1;
    }
#endif
    umb_signals_default();
    reaper_main(3, pidfd, runner, runner_pgid, tmpbase);
  }
  close(p[0]);
  reaper_fd = p[1];
  reaper_pid = pid;
  return 0;
}

void umb_reaper_stop(void) {
  if (reaper_fd < 0) return;
  /* An orderly stop: the reaper need not wait for this process to exit (it waits for the reaper). */
  while (write(reaper_fd, "Q\n", 2) < 0 && errno == EINTR) {
  }
  close(reaper_fd);
  reaper_fd = -1;
  while (waitpid(reaper_pid, NULL, 0) < 0 && errno == EINTR) {
  }
}

/*
 * The creation lock of this user's folders under TMPBASE: held shared while a folder is made and locked, and
 * exclusively while stale folders are judged, so a cleaner never sees a folder in the instant between its mkdtemp
 * and its flock.
 */
static int creation_lock(const char *tmpbase, int how) {
  char path[PATH_MAX];
  int rc = umb_path(path, sizeof path, "%s/.umlbed-%u.lock", tmpbase, (unsigned)getuid());
  if (rc) return rc;
  int fd = open(path, O_RDWR | O_CREAT | O_NOFOLLOW | O_CLOEXEC, 0600);
  if (fd < 0) return -errno;
  while (flock(fd, how) < 0) {
    if (errno != EINTR) {
      int e = -errno;
      close(fd);
      return e;
    }
  }
  return fd;
}

int umb_live_dir_make(const char *tmpbase, char *template) {
  int guard = creation_lock(tmpbase, LOCK_SH);
  if (guard < 0) return guard;
  int fd = -1;
  if (mkdtemp(template) == NULL) {
    fd = -errno;
  } else if ((fd = open(template, O_RDONLY | O_DIRECTORY | O_NOFOLLOW | O_CLOEXEC)) < 0) {
    fd = -errno;
    rmdir(template);
  } else if (flock(fd, LOCK_EX | LOCK_NB) < 0) {
    int e = -errno;
    close(fd);
    rmdir(template);
    fd = e;
  }
  close(guard);
  return fd;
}

/* A folder no live owner holds: its flock is free. An older runner's folder has no lock; its PID decides. */
static int folder_abandoned(const char *path, int pid) {
  int fd = open(path, O_RDONLY | O_DIRECTORY | O_NOFOLLOW | O_CLOEXEC);
  if (fd < 0) return 0;
  int free_lock = flock(fd, LOCK_EX | LOCK_NB) == 0;
  close(fd);
  return free_lock && kill(pid, 0) < 0 && errno == ESRCH;
}

int umb_stale_clean(const char *tmpbase) {
  int guard = creation_lock(tmpbase, LOCK_EX);
  if (guard < 0) return 0;
  DIR *d = opendir(tmpbase);
  if (d == NULL) {
    close(guard);
    return 0;
  }
  int removed = 0;
  for (struct dirent *e; (e = readdir(d));) {
    int pid = 0, used = 0;
    if ((sscanf(e->d_name, "umlbed-%d-%n", &pid, &used) != 1 || used == 0) &&
        (sscanf(e->d_name, "umlbed-pack-%d-%n", &pid, &used) != 1 || used == 0))
      continue;
    if (pid <= 1 || pid == getpid()) continue;
    char path[PATH_MAX], mark[PATH_MAX + 32];
    struct stat st;
    if (umb_path(path, sizeof path, "%s/%s", tmpbase, e->d_name)) continue;
    if (lstat(path, &st) || !S_ISDIR(st.st_mode) || st.st_uid != getuid()) continue;
    if (umb_path(mark, sizeof mark, "%s/%s", path, UMB_KEPT_MARK) || access(mark, F_OK) == 0) continue;
    if (!folder_abandoned(path, pid)) continue;
    umb_rm_tree(path);
    removed++;
  }
  closedir(d);
  close(guard);
  return removed;
}

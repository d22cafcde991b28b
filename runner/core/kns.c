// SPDX-License-Identifier: MIT
/* kns.c: the kernels' mount namespace, read-only but the run's folders, and the helper that mounts their tmpfs. */
#include "kns.h"

#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <poll.h>
#include <sched.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mount.h>
#include <sys/prctl.h>
#include <sys/socket.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <unistd.h>

/* This process's end of the helper's link, the kernels' namespace, this process's own, its working folder. */
static int link_fd = -1, kns_fd = -1, own_fd = -1, cwd_fd = -1;
static pid_t helper_pid = -1;
/* In the helper: the folder beneath which it mounts. */
static const char *beneath;
/* Walls waiting at once for their user namespace's ids (one per instance being started). */
#define KNS_MAPPERS 16

/* Clears the read-only flag of the mount at path (one made read-only in this namespace, not one that came locked
 * from a more privileged one). */
static int writable(const char *path) {
  struct mount_attr a = {.attr_clr = MOUNT_ATTR_RDONLY};
  return mount_setattr(AT_FDCWD, path, 0, &a, sizeof a) ? -errno : 0;
}

int umb_kns_view(const char *const *rw, int nrw, unsigned long long shm) {
  struct mount_attr ro = {.attr_set = MOUNT_ATTR_RDONLY};
  if (mount("none", "/", "none", MS_REC | MS_PRIVATE, NULL)) return -errno;
  if (mount_setattr(AT_FDCWD, "/", AT_RECURSIVE, &ro, sizeof ro)) return -errno;
  /* Each folder the kernels write, as a mount of its own that is not read-only. */
  for (int i = 0; i < nrw; i++) {
    if (mount(rw[i], rw[i], "none", MS_BIND | MS_REC, NULL)) return -errno;
    int rc = writable(rw[i]);
    if (rc) return rc;
  }
  /* /proc as it was: the helper writes a wall's ids there (umb_kns_mapper); what a kernel may open of it is
   * Landlock's to say (/proc/cpuinfo alone). */
  int prc = writable("/proc");
  if (prc) return prc;
  /* The run's devpts (umb_wall_private_ns), if it has one: the terminals UML opens. */
  struct stat st;
  if (stat("/dev/pts/ptmx", &st) == 0) writable("/dev/pts");
  /* A process that runs one kernel itself gives it a /dev/shm of shm bytes, its memory's (not noexec: UML maps its
   * memory file executable); the run's kernels each get a tmpfs on their folder's tmp/ instead (umb_kns_shm). */
  char opts[64];
  if (shm == UMB_KNS_SHM_DEFAULT)
    snprintf(opts, sizeof opts, "mode=0777");
  else
    snprintf(opts, sizeof opts, "size=%llu,mode=0777", shm);
  if (shm && mount("tmpfs", "/dev/shm", "tmpfs", MS_NOSUID | MS_NODEV, opts)) return -errno;
  return 0;
}

/* Whether path is a folder strictly beneath the run's folder, by its name alone (the helper mounts only there). */
static int under_run(const char *path) {
  size_t n = strlen(beneath);
  if (strncmp(path, beneath, n) || path[n] != '/' || strstr(path, "/..") || strstr(path, "//")) return 0;
  struct stat st;
  return lstat(path, &st) == 0 && S_ISDIR(st.st_mode);
}

/* One request of the run process: "shm SIZE UID DIR" mounts a tmpfs of SIZE bytes owned by UID on DIR, "put DIR"
 * unmounts it; DIR is an instance's folder beneath the run's. */
static void serve(int fd, char *line) {
  char dir[PATH_MAX], opts[96];
  unsigned long long size;
  int uid, rc = -EINVAL;
  if (sscanf(line, "shm %llu %d %4095s", &size, &uid, dir) == 3 && size > 0 && under_run(dir)) {
    /* Open to the instance whatever uid it runs as (a program that is not ELF keeps the runner's): the kernels'
     * Landlock rules keep each instance to its own folder. */
    snprintf(opts, sizeof opts, "size=%llu,mode=01777,uid=%d,gid=%d", size, uid, uid);
    /* Not noexec: UML maps its memory file executable. */
    rc = mount("tmpfs", dir, "tmpfs", MS_NOSUID | MS_NODEV, opts) ? -errno : 0;
  } else if (sscanf(line, "put %4095s", dir) == 1 && under_run(dir)) {
    rc = umount2(dir, MNT_DETACH) ? -errno : 0;
  }
  char reply[32];
  snprintf(reply, sizeof reply, "%d", -rc);
  if (send(fd, reply, strlen(reply), MSG_NOSIGNAL) < 0) _exit(0);
}

/* Writes /proc/PID/NAME; 0 or a negative errno. */
static int proc_write(int pid, const char *name, const char *text) {
  char path[64];
  snprintf(path, sizeof path, "/proc/%d/%s", pid, name);
  int fd = open(path, O_WRONLY | O_CLOEXEC);
  if (fd < 0) return -errno;
  ssize_t n = write(fd, text, strlen(text));
  int rc = n == (ssize_t)strlen(text) ? 0 : n < 0 ? -errno : -EIO;
  close(fd);
  return rc;
}

/* A wall asks, on its own socket, for the user namespace it has just made to map its uid and gid to themselves
 * (it cannot write its /proc files: the run's Landlock domain hides them). Who it is comes from the kernel (the
 * message's credentials), and it gets its own ids and nothing else. */
static void map_ids(int fd) {
  char byte, cbuf[CMSG_SPACE(sizeof(struct ucred))];
  struct iovec iov = {&byte, 1};
  struct msghdr mh = {.msg_iov = &iov, .msg_iovlen = 1, .msg_control = cbuf, .msg_controllen = sizeof cbuf};
  int rc = -EPROTO;
  if (recvmsg(fd, &mh, 0) == 1) {
    struct cmsghdr *c = CMSG_FIRSTHDR(&mh);
    if (c && c->cmsg_level == SOL_SOCKET && c->cmsg_type == SCM_CREDENTIALS) {
      struct ucred u;
      memcpy(&u, CMSG_DATA(c), sizeof u);
      char map[64], gmap[64];
      snprintf(map, sizeof map, "%u %u 1\n", (unsigned)u.uid, (unsigned)u.uid);
      snprintf(gmap, sizeof gmap, "%u %u 1\n", (unsigned)u.gid, (unsigned)u.gid);
      rc = proc_write(u.pid, "uid_map", map);
      if (rc == 0) rc = proc_write(u.pid, "setgroups", "deny");
      if (rc == 0) rc = proc_write(u.pid, "gid_map", gmap);
    }
  }
  char reply[16];
  snprintf(reply, sizeof reply, "%d", -rc);
  if (send(fd, reply, strlen(reply), MSG_NOSIGNAL) < 0) {
  }
}

/* One message on the link: a request line, or "map" with a wall's socket. Returns 0, or -1 at the link's end. */
static int on_link(int fd, int *mappers, int *nmappers) {
  char line[PATH_MAX + 64], cbuf[CMSG_SPACE(sizeof(int))];
  struct iovec iov = {line, sizeof line - 1};
  struct msghdr mh = {.msg_iov = &iov, .msg_iovlen = 1, .msg_control = cbuf, .msg_controllen = sizeof cbuf};
  ssize_t n = recvmsg(fd, &mh, MSG_CMSG_CLOEXEC);
  if (n < 0 && errno == EINTR) return 0;
  if (n <= 0) return -1;
  line[n] = '\0';
  struct cmsghdr *c = CMSG_FIRSTHDR(&mh);
  if (c && c->cmsg_level == SOL_SOCKET && c->cmsg_type == SCM_RIGHTS) {
    int m, on = 1;
    memcpy(&m, CMSG_DATA(c), sizeof m);
    if (*nmappers < KNS_MAPPERS && setsockopt(m, SOL_SOCKET, SO_PASSCRED, &on, sizeof on) == 0)
      mappers[(*nmappers)++] = m;
    else
      close(m);
    return 0;
  }
  serve(fd, line);
  return 0;
}

static void __attribute__((noreturn)) helper(int fd, const char *const *rw, int nrw) {
  prctl(PR_SET_PDEATHSIG, SIGKILL);
  /* It keeps its link alone: not the run process's to the runner. */
  if (fd > 3) close_range(3, (unsigned)fd - 1, 0);
  close_range((unsigned)fd + 1, ~0U, 0);
  beneath = rw[0];
  int rc = unshare(CLONE_NEWNS) ? -errno : umb_kns_view(rw, nrw, 0);
  char line[32];
  snprintf(line, sizeof line, "%d", -rc);
  if (send(fd, line, strlen(line), MSG_NOSIGNAL) < 0 || rc) _exit(1);
  int mappers[KNS_MAPPERS], nmappers = 0;
  for (;;) {
    struct pollfd pf[KNS_MAPPERS + 1] = {{.fd = fd, .events = POLLIN}};
    for (int i = 0; i < nmappers; i++) pf[i + 1] = (struct pollfd){.fd = mappers[i], .events = POLLIN};
    if (poll(pf, (nfds_t)nmappers + 1, -1) < 0) continue;
    for (int i = nmappers - 1; i >= 0; i--) {
      if (!pf[i + 1].revents) continue;
      if (pf[i + 1].revents & POLLIN) map_ids(mappers[i]);
      close(mappers[i]);
      mappers[i] = mappers[--nmappers];
    }
    if (pf[0].revents && on_link(fd, mappers, &nmappers)) _exit(0);
  }
}

/* Reads one answer of the helper (a message). */
static int answer(char *buf, size_t size) {
  ssize_t n;
  while ((n = recv(link_fd, buf, size - 1, 0)) < 0 && errno == EINTR) {
  }
  if (n <= 0) return -EPIPE;
  buf[n] = '\0';
  return 0;
}

int umb_kns_start(const char *const *rw, int nrw) {
  int sv[2];
  /* Messages, not a stream: a request may carry a descriptor. */
  if (socketpair(AF_UNIX, SOCK_SEQPACKET | SOCK_CLOEXEC, 0, sv)) return -errno;
  pid_t pid = fork();
  if (pid < 0) {
    close(sv[0]);
    close(sv[1]);
    return -errno;
  }
  if (pid == 0) {
    close(sv[0]);
    helper(sv[1], rw, nrw);
  }
  close(sv[1]);
  link_fd = sv[0];
  helper_pid = pid;
  char buf[64], path[64];
  int rc = answer(buf, sizeof buf) ? -EPIPE : -atoi(buf);
  if (rc == 0) {
    snprintf(path, sizeof path, "/proc/%d/ns/mnt", (int)pid);
    kns_fd = open(path, O_RDONLY | O_CLOEXEC);
    own_fd = open("/proc/self/ns/mnt", O_RDONLY | O_CLOEXEC);
    cwd_fd = open(".", O_PATH | O_DIRECTORY | O_CLOEXEC);
    if (kns_fd < 0 || own_fd < 0 || cwd_fd < 0) rc = -errno;
  }
  /* This process's own /dev/shm (umb_wall_private_ns's) is no kernel's now: read-only, empty, so that nothing it
   * runs (a scenario's Lua) can fill memory there past its cap. */
  if (rc == 0 && mount("none", "/dev/shm", "none", MS_REMOUNT | MS_RDONLY | MS_NOSUID | MS_NODEV, NULL)) rc = -errno;
  if (rc) {
    int fds[] = {link_fd, kns_fd, own_fd, cwd_fd};
    for (size_t i = 0; i < sizeof fds / sizeof fds[0]; i++)
      if (fds[i] >= 0) close(fds[i]);
    link_fd = kns_fd = own_fd = cwd_fd = -1;
    umb_kns_stop();
  }
  return rc;
}

int umb_kns_active(void) { return kns_fd >= 0; }

void umb_kns_stop(void) {
  if (link_fd >= 0) close(link_fd);
  link_fd = -1;
  /* The helper ends at its link's end; reaped here, it leaves no zombie to whoever adopts it. */
  if (helper_pid > 0) {
    kill(helper_pid, SIGKILL);
    while (waitpid(helper_pid, NULL, 0) < 0 && errno == EINTR) {
    }
  }
  helper_pid = -1;
}

/* Sends one request and reads its answer: 0 or a negative errno. */
static int request(const char *line) {
  char buf[32];
  ssize_t len = (ssize_t)strlen(line);
  if (link_fd < 0) return -ENOTCONN;
  if (send(link_fd, line, (size_t)len, MSG_NOSIGNAL) != len || answer(buf, sizeof buf)) return -EPIPE;
  return -atoi(buf);
}

int umb_kns_mapper(void) {
  if (link_fd < 0) return -ENOTCONN;
  int sv[2];
  if (socketpair(AF_UNIX, SOCK_SEQPACKET | SOCK_CLOEXEC, 0, sv)) return -errno;
  char cbuf[CMSG_SPACE(sizeof(int))] = {0}, word[] = "map";
  struct iovec iov = {word, 3};
  struct msghdr mh = {.msg_iov = &iov, .msg_iovlen = 1, .msg_control = cbuf, .msg_controllen = sizeof cbuf};
  struct cmsghdr *c = CMSG_FIRSTHDR(&mh);
  c->cmsg_level = SOL_SOCKET;
  c->cmsg_type = SCM_RIGHTS;
  c->cmsg_len = CMSG_LEN(sizeof(int));
  memcpy(CMSG_DATA(c), &sv[1], sizeof(int));
  int rc = sendmsg(link_fd, &mh, MSG_NOSIGNAL) == 3 ? 0 : -errno;
  close(sv[1]);
  if (rc) {
    close(sv[0]);
    return rc;
  }
  /* Above every number the wall's child gets as stdio or a folder. */
  int fd = fcntl(sv[0], F_DUPFD_CLOEXEC, UMB_KNS_MAPPER_FD_MIN);
  close(sv[0]);
  return fd < 0 ? -errno : fd;
}

int umb_kns_shm(unsigned long long size, int uid, const char *dir) {
  char line[PATH_MAX + 64];
  if (strchr(dir, ' ') || strchr(dir, '\n')) return -EINVAL;
  snprintf(line, sizeof line, "shm %llu %d %s", size, uid, dir);
  return request(line);
}

void umb_kns_shm_put(const char *dir) {
  char line[PATH_MAX + 16];
  snprintf(line, sizeof line, "put %s", dir);
  request(line);
}

int umb_kns_enter(void) {
  if (kns_fd < 0) return 0;
  /* A thread of libuv's pool shares this one's working folder and root: a mount namespace is entered alone. */
  if (unshare(CLONE_FS) || setns(kns_fd, CLONE_NEWNS)) return -errno;
  return 0;
}

void umb_kns_leave(void) {
  if (kns_fd < 0) return;
  /* Back to this process's own namespace, whose working folder setns() does not keep. */
  if (setns(own_fd, CLONE_NEWNS) == 0) fchdir(cwd_fd);
}

// SPDX-License-Identifier: MIT
/* boot.c: PID 1's boot inside UML: mount points, a console, the boot options, the serial line in raw mode. */
#include "pid1.h"

#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <stdio.h>
#include <string.h>
#include <sys/mount.h>
#include <sys/stat.h>
#include <termios.h>
#include <unistd.h>

#define FAULT_AROUND_PATH "/sys/kernel/debug/fault_around_bytes"
#define FAULT_AROUND_OPT "umlbed.fault_around_bytes="

static void ensure_dir(const char *path) {
  if (mkdir(path, 0755) < 0 && errno != EEXIST) logmsg("umlbed-agent: mkdir %s: %s", path, strerror(errno));
}

static bool is_mountpoint(const char *path) {
  struct stat a, b;
  char parent[256];
  snprintf(parent, sizeof parent, "%s/..", path);
  return stat(path, &a) == 0 && stat(parent, &b) == 0 && a.st_dev != b.st_dev;
}

static void mount_fs(const char *type, const char *path, bool create) {
  if (create) ensure_dir(path);
  if (is_mountpoint(path)) return;
  if (mount(type, path, type, MS_NOSUID, NULL) < 0)
    logmsg("umlbed-agent: mount %s on %s: %s", type, path, strerror(errno));
}

/* The kernel gives init no console when the root has no /dev/console; get one from devtmpfs then. */
static void ensure_std_fds(void) {
  for (int fd = 0; fd < 3; fd++) {
    if (fcntl(fd, F_GETFD) >= 0) continue;
    int c = open("/dev/console", O_RDWR | O_NOCTTY);
    if (c < 0) c = open("/dev/null", O_RDWR);
    if (c >= 0 && c != fd) {
      dup2(c, fd);
      close(c);
    }
  }
}

static unsigned long fault_around_option(void) {
  unsigned long v = 4096;
  char buf[4096];
  int fd = open("/proc/cmdline", O_RDONLY | O_CLOEXEC);
  if (fd < 0) return v;
  ssize_t n = read(fd, buf, sizeof buf - 1);
  close(fd);
  if (n <= 0) return v;
  buf[n] = '\0';
  for (char *s = strtok(buf, " \n"); s; s = strtok(NULL, " \n")) {
    if (strncmp(s, "time-travel", 11) == 0) umb_time_travel = true;
    if (strncmp(s, FAULT_AROUND_OPT, strlen(FAULT_AROUND_OPT)) != 0) continue;
    umb_field t = {s + strlen(FAULT_AROUND_OPT), strlen(s) - strlen(FAULT_AROUND_OPT)};
    uint64_t x;
    if (umb_field_num(t, &x) == 0 && x <= ULONG_MAX)
      v = (unsigned long)x;
    else
      logmsg("umlbed-agent: ignoring bad %s%s", FAULT_AROUND_OPT, t.p);
  }
  return v;
}

static void set_fault_around(unsigned long bytes) {
  char val[32];
  int n = snprintf(val, sizeof val, "%lu\n", bytes);
  int fd = open(FAULT_AROUND_PATH, O_WRONLY | O_CLOEXEC);
  if (fd < 0 || write(fd, val, (size_t)n) != n)
    logmsg("umlbed-agent: set %s to %lu: %s", FAULT_AROUND_PATH, bytes, strerror(errno));
  if (fd >= 0) close(fd);
}

static int open_serial(void) {
  int fd = open(SERIAL_PATH, O_RDWR | O_NOCTTY | O_NONBLOCK | O_CLOEXEC);
  if (fd < 0) return -errno;
  struct termios t;
  if (tcgetattr(fd, &t) == 0) {
    cfmakeraw(&t);
    if (tcsetattr(fd, TCSANOW, &t) < 0) logmsg("umlbed-agent: raw mode on %s: %s", SERIAL_PATH, strerror(errno));
  }
  return fd;
}

int boot(void) {
  mount_fs("devtmpfs", "/dev", true);
  ensure_std_fds();
  mount_fs("proc", "/proc", true);
  mount_fs("sysfs", "/sys", true);
  mount_fs("debugfs", "/sys/kernel/debug", false);
  mount_fs("tmpfs", "/tmp", true);
  ensure_dir("/shared");
  set_fault_around(fault_around_option());
  int fd = open_serial();
  if (fd < 0) logmsg("umlbed-agent: open %s: %s", SERIAL_PATH, strerror(-fd));
  return fd;
}

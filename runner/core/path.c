// SPDX-License-Identifier: MIT
/* path.c: formatting a path that either fits or is refused; reading an input file the user named, bounded. */
#include "path.h"

#include <errno.h>
#include <fcntl.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

int umb_path(char *buf, size_t size, const char *fmt, ...) {
  va_list ap;
  va_start(ap, fmt);
  int n = size ? vsnprintf(buf, size, fmt, ap) : -1;
  va_end(ap);
  if (n >= 0 && (size_t)n < size) return 0;
  if (size) buf[0] = '\0';
  return n < 0 && size ? -EINVAL : -ENAMETOOLONG;
}

int umb_input_open(const char *path, size_t max, int *fd_out) {
  /* O_NONBLOCK: opening a FIFO with no writer returns at once instead of waiting for one. */
  int fd = open(path, O_RDONLY | O_NONBLOCK | O_CLOEXEC | O_NOCTTY);
  if (fd < 0) return -errno;
  struct stat st;
  int rc = 0;
  if (fstat(fd, &st))
    rc = -errno;
  else if (!S_ISREG(st.st_mode))
    rc = -EINVAL;
  else if ((unsigned long long)st.st_size > max)
    rc = -EFBIG;
  if (rc) {
    close(fd);
    return rc;
  }
  *fd_out = fd;
  return 0;
}

int umb_input_read(const char *path, size_t max, char **data, size_t *len) {
  int fd;
  int rc = umb_input_open(path, max, &fd);
  if (rc) return rc;
  size_t cap = 0, n = 0;
  char *buf = NULL;
  for (;;) {
    if (n == cap) {
      /* One byte past max tells a file that grew past it since the check. */
      size_t ncap = cap ? cap * 2 : 65536;
      if (ncap > max + 1) ncap = max + 1;
      char *b = ncap > cap ? realloc(buf, ncap + 1) : NULL;
      if (b == NULL) {
        rc = ncap > cap ? -ENOMEM : -EFBIG;
        break;
      }
      buf = b;
      cap = ncap;
    }
    ssize_t r = read(fd, buf + n, cap - n);
    if (r < 0 && errno == EINTR) continue;
    if (r < 0) {
      rc = -errno;
      break;
    }
    if (r == 0) break;
    n += (size_t)r;
  }
  close(fd);
  if (rc == 0 && n > max) rc = -EFBIG;
  if (rc == 0 && buf == NULL && (buf = malloc(1)) == NULL) rc = -ENOMEM;
  if (rc) {
    free(buf);
    return rc;
  }
  buf[n] = '\0';
  *data = buf;
  *len = n;
  return 0;
}

const char *umb_input_strerror(int rc) {
  if (rc == -EINVAL) return "not a regular file";
  if (rc == -EFBIG) return "too large";
  return strerror(-rc);
}

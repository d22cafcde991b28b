// SPDX-License-Identifier: MIT
/* verb_file.c: files, such as those of the shared folder: create, pread, pwrite, fsync, unlink, punch, readfile, writefile. */
#include "worker.h"

#include <errno.h>
#include <fcntl.h>
#include <stdlib.h>
#include <unistd.h>

int v_create(struct req *r) {
  char *path;
  off_t size;
  int e = arg_off(r, 1, "SIZE", &size);
  if (e || (e = arg_str(r, 0, "PATH", &path))) return e;
  int fd = open_path(r, path, O_RDWR | O_CREAT | O_TRUNC);
  if (fd >= 0) {
    if (ftruncate(fd, size) < 0) e = fail(r, errno, "ftruncate %s", path);
    close(fd);
  } else {
    e = fd;
  }
  free(path);
  return e;
}

int v_pread(struct req *r) {
  char *path;
  off_t off;
  uint64_t len;
  int e = arg_off(r, 1, "OFFSET", &off);
  if (e || (e = arg_u64(r, 2, "LEN", &len))) return e;
  if (len > UMB_DATA_MAX) return bad(r, "LEN (at most 1 MiB)");
  if ((e = arg_str(r, 0, "PATH", &path))) return e;
  char *buf = malloc(len ? len : 1);
  int fd = buf ? open_path(r, path, O_RDONLY) : -ENOMEM;
  if (fd < 0) {
    e = fd;
    goto out;
  }
  size_t got = 0;
  while (got < len) {
    ssize_t n = pread(fd, buf + got, len - got, off + (off_t)got);
    if (n == -1 && errno == EINTR) continue;
    if (n < 0) e = io_fail(r, n, "pread %s", path);
    if (n <= 0) break;
    got += (size_t)n;
  }
  close(fd);
  if (!e && !(e = umb_buf_puts(r->out, " "))) e = umb_pct_encode(r->out, buf, got);
out:
  free(buf);
  free(path);
  return e;
}

int v_pwrite(struct req *r) {
  char *path;
  off_t off;
  umb_buf data = {0};
  int e = arg_off(r, 1, "OFFSET", &off);
  if (e || (e = arg_data(r, 2, &data))) goto out_data;
  if ((e = arg_str(r, 0, "PATH", &path))) goto out_data;
  int fd = open_path(r, path, O_WRONLY);
  if (fd < 0) {
    e = fd;
    goto out;
  }
  size_t done = 0, n = data.len;
  while (done < n) {
    ssize_t w = pwrite(fd, umb_bytes(&data) + done, n - done, off + (off_t)done);
    if (w == -1 && errno == EINTR) continue;
    if (w <= 0) {
      if (done == 0) e = w < 0 ? io_fail(r, w, "pwrite %s", path) : fail(r, EIO, "pwrite %s", path);
      break;
    }
    done += (size_t)w;
  }
  close(fd);
  if (!e) e = umb_buf_printf(r->out, " %zu", done);
out:
  free(path);
out_data:
  umb_buf_free(&data);
  return e;
}

int v_fsync(struct req *r) {
  char *path;
  int e = arg_str(r, 0, "PATH", &path);
  if (e) return e;
  int fd = open_path(r, path, O_RDONLY);
  if (fd < 0)
    e = fd;
  else if (fsync(fd) < 0)
    e = fail(r, errno, "fsync %s", path);
  if (fd >= 0) close(fd);
  free(path);
  return e;
}

/* A hole punched in a tmpfs file is what drops its pages from the page cache while they may be mapped. */
int v_punch(struct req *r) {
  char *path;
  off_t off, len;
  int e = arg_off(r, 1, "OFFSET", &off);
  if (e || (e = arg_off(r, 2, "LEN", &len))) return e;
  if (len == 0) return bad(r, "LEN");
  if ((e = arg_str(r, 0, "PATH", &path))) return e;
  int fd = open_path(r, path, O_WRONLY);
  if (fd < 0)
    e = fd;
  else if (fallocate(fd, FALLOC_FL_PUNCH_HOLE | FALLOC_FL_KEEP_SIZE, off, len) < 0)
    e = fail(r, errno, "fallocate %s", path);
  if (fd >= 0) close(fd);
  free(path);
  return e;
}

int v_unlink(struct req *r) {
  char *path;
  int e = arg_str(r, 0, "PATH", &path);
  if (e) return e;
  if (unlink(path) < 0) e = fail(r, errno, "unlink %s", path);
  free(path);
  return e;
}

/* Reads a whole file (at most max bytes) into b; non-blocking, so a FIFO or tty cannot hang the worker. */
int slurp(struct req *r, const char *path, size_t max, umb_buf *b) {
  int fd = open_path(r, path, O_RDONLY | O_NONBLOCK);
  if (fd < 0) return fd;
  int e = 0;
  while (b->len < max) {
    size_t want = max - b->len;
    if (want > 65536) want = 65536;
    if ((e = umb_buf_reserve(b, want))) break;
    ssize_t n = read(fd, b->data + b->len, want);
    if (n == -1 && errno == EINTR) continue;
    if (n == -1 && errno == EAGAIN) break;
    if (n < 0) {
      e = io_fail(r, n, "read %s", path);
      break;
    }
    if (n == 0) break;
    b->len += (size_t)n;
  }
  close(fd);
  return e;
}

int v_readfile(struct req *r) {
  char *path;
  uint64_t max = UMB_DATA_MAX;
  int e = r->narg > 1 ? arg_u64(r, 1, "MAX", &max) : 0;
  if (e) return e;
  if (max > UMB_DATA_MAX) return bad(r, "MAX (at most 1 MiB)");
  if ((e = arg_str(r, 0, "PATH", &path))) return e;
  umb_buf b = {0};
  e = slurp(r, path, (size_t)max, &b);
  if (!e && !(e = umb_buf_puts(r->out, " "))) e = umb_pct_encode(r->out, umb_bytes(&b), b.len);
  umb_buf_free(&b);
  free(path);
  return e;
}

/* DATA is decoded where it lies, in the worker's own copy of the request line (which nothing reads again): a
 * field can be a 4 MiB line, and a second copy of it would take memory that a small guest does not have. */
int writefile(struct req *r, const char *path, umb_field data) {
  char *bytes = (char *)data.p;
  size_t len = 0;
  int e = umb_pct_decode_to(data.p, data.n, bytes, &len);
  if (e == -EINVAL) e = bad(r, "DATA");
  int fd = e ? e : open_path(r, path, O_WRONLY);
  if (fd >= 0) {
    ssize_t n = write(fd, bytes, len);
    if (n < 0)
      e = io_fail(r, n, "write %s", path);
    else
      e = umb_buf_printf(r->out, " %zd", n);
    close(fd);
  } else {
    e = fd;
  }
  return e;
}

int v_writefile(struct req *r) {
  char *path;
  int e = arg_str(r, 0, "PATH", &path);
  if (e) return e;
  e = writefile(r, path, r->arg[1]);
  free(path);
  return e;
}

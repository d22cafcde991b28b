// SPDX-License-Identifier: MIT
/* verb_kernel.c: the kernel's interfaces: the invalidation trigger and its stats, fault injection (failwrite), klog,
 * modules, poweroff. */
#include "worker.h"

#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/klog.h>
#include <sys/syscall.h>
#include <unistd.h>

#define TRIGGER_PATH "/sys/kernel/mm/invalidate_mmap_range/trigger"
#define STATS_PATH "/sys/kernel/mm/invalidate_mmap_range/stats"
#define FAIL_NTH_PATH "/proc/thread-self/fail-nth"

int v_trigger(struct req *r) { return writefile(r, TRIGGER_PATH, r->arg[0]); }

/* Writes a decimal number to the task's fail-nth file; its write ignores the file position. */
static int fail_nth_set(struct req *r, int fd, uint64_t n) {
  char num[24];
  int len = snprintf(num, sizeof num, "%llu", (unsigned long long)n);
  ssize_t w = write(fd, num, (size_t)len);
  if (w < 0) return io_fail(r, w, "%s", "write " FAIL_NTH_PATH);
  if (w != len) return fail(r, EIO, "%s", "write " FAIL_NTH_PATH ": short");
  return 0;
}

/*
 * failwrite N PATH DATA: one write() of DATA to PATH with the task's N-th fault armed (fail-nth, in the kernel's
 * Documentation/fault-injection/fault-injection.rst). Both files are opened before N is set, since fail-nth counts
 * every slab allocation of the task and an open allocates. Reading fail-nth back gives 0 once the fault was
 * injected and what is left of N otherwise; writing 0 then disarms a fault the write did not reach, so no later
 * request of this worker fails by surprise. The reply is what write() returned (a count, the errno name for -1, or
 * any other negative value as it is) and 1 or 0 for injected or not: a failed write is part of the answer, not an
 * error of the verb.
 */
int v_failwrite(struct req *r) {
  uint64_t nth;
  char *path;
  int e = arg_u64(r, 0, "N", &nth);
  if (e) return e;
  /* The kernel reads N with kstrtouint, and 0 would mean no fault at all. */
  if (nth == 0 || nth > UINT32_MAX) return bad(r, "N (1 to 2^32-1)");
  /* DATA is decoded where it lies, as writefile does. */
  char *bytes = (char *)r->arg[2].p;
  size_t len = 0;
  if ((e = umb_pct_decode_to(r->arg[2].p, r->arg[2].n, bytes, &len))) return e == -EINVAL ? bad(r, "DATA") : e;
  if ((e = arg_str(r, 1, "PATH", &path))) return e;
  int fd = open_path(r, path, O_WRONLY), nfd = -1;
  if (fd < 0) {
    e = fd;
    goto out;
  }
  if ((nfd = open_path(r, FAIL_NTH_PATH, O_RDWR)) < 0) {
    e = nfd;
    goto out;
  }
  if ((e = fail_nth_set(r, nfd, nth))) goto out;
  ssize_t n = write(fd, bytes, len);
  int werr = errno;
  char left[24] = "";
  ssize_t got = pread(nfd, left, sizeof left - 1, 0);
  if (got < 0) {
    e = io_fail(r, got, "%s", "read " FAIL_NTH_PATH);
    /* Disarmed all the same; the read's error is the one the reply names. */
    ssize_t ignored = write(nfd, "0", 1);
    (void)ignored;
    goto out;
  }
  if ((e = fail_nth_set(r, nfd, 0))) goto out;
  uint64_t rest;
  left[got] = '\0';
  if (got > 0 && left[got - 1] == '\n') left[got - 1] = '\0';
  if (umb_num_parse(left, &rest)) {
    e = fail(r, EPROTO, "%s", "read " FAIL_NTH_PATH ": not a number");
    goto out;
  }
  /* A negative value other than -1 is no errno: a store() that returned garbage passes through vfs_write(). */
  if (n == -1)
    e = umb_buf_printf(r->out, " %s %d", umb_errname(werr), rest == 0);
  else
    e = umb_buf_printf(r->out, " %zd %d", n, rest == 0);
out:
  if (nfd >= 0) close(nfd);
  if (fd >= 0) close(fd);
  free(path);
  return e;
}

int v_stats(struct req *r) {
  umb_buf b = {0};
  int e = slurp(r, STATS_PATH, UMB_DATA_MAX, &b);
  char *s = umb_bytes(&b), *end = s + b.len;
  size_t nfields = 0;
  while (!e && s < end) {
    char *nl = memchr(s, '\n', (size_t)(end - s));
    char *le = nl ? nl : end;
    if (le > s) {
      /* The protocol's field limit is sized for UMB_STATS_MAX lines (protocol/verbs.h). */
      if (++nfields > UMB_STATS_MAX) {
        e = fail(r, E2BIG, "%s", "stats has more than " UMB_STR(UMB_STATS_MAX) " lines");
        break;
      }
      /* "name value" becomes one field "name=value". */
      char *sp = memchr(s, ' ', (size_t)(le - s));
      if (sp) *sp = '=';
      if (!(e = umb_buf_puts(r->out, " "))) e = umb_pct_encode(r->out, s, (size_t)(le - s));
    }
    s = le + 1;
  }
  umb_buf_free(&b);
  return e;
}

int v_insmod(struct req *r) {
  char *path, *params = NULL;
  int e = arg_str(r, 0, "PATH", &path);
  if (e) return e;
  if (r->narg > 1 && (e = arg_str(r, 1, "PARAMS", &params))) {
    free(path);
    return e;
  }
  int fd = open_path(r, path, O_RDONLY);
  if (fd >= 0) {
    if (syscall(SYS_finit_module, fd, params ? params : "", 0) < 0) e = fail(r, errno, "finit_module %s", path);
    close(fd);
  } else {
    e = fd;
  }
  free(params);
  free(path);
  return e;
}

int v_rmmod(struct req *r) {
  char *name;
  int e = arg_str(r, 0, "NAME", &name);
  if (e) return e;
  if (syscall(SYS_delete_module, name, O_NONBLOCK) < 0) e = fail(r, errno, "delete_module %s", name);
  free(name);
  return e;
}

int v_klog(struct req *r) {
  int size = klogctl(10 /* SYSLOG_ACTION_SIZE_BUFFER */, NULL, 0);
  if (size < 0) return fail(r, errno, "%s", "klogctl");
  if ((size_t)size > UMB_DATA_MAX) size = (int)UMB_DATA_MAX;
  char *buf = malloc((size_t)size + 1);
  if (!buf) return -ENOMEM;
  int n = klogctl(3 /* SYSLOG_ACTION_READ_ALL */, buf, size);
  int e = 0;
  if (n < 0)
    e = fail(r, errno, "%s", "klogctl");
  else if (!(e = umb_buf_puts(r->out, " ")))
    e = umb_pct_encode(r->out, buf, (size_t)n);
  free(buf);
  return e;
}

int v_poweroff(struct req *r) {
  (void)r;
  /* PID 1 powers off once it has sent this reply. */
  sync();
  return 0;
}

/* verb_kernel.c: the kernel's interfaces: the invalidation trigger and its stats, klog, modules, poweroff. */
#include "worker.h"

#include <errno.h>
#include <fcntl.h>
#include <stdlib.h>
#include <string.h>
#include <sys/klog.h>
#include <sys/syscall.h>
#include <unistd.h>

#define TRIGGER_PATH "/sys/kernel/mm/invalidate_mmap_range/trigger"
#define STATS_PATH "/sys/kernel/mm/invalidate_mmap_range/stats"

int v_trigger(struct req *r) { return writefile(r, TRIGGER_PATH, r->arg[0]); }

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

// SPDX-License-Identifier: MIT
/* Static PID 1 of the kernel smoke test: drives the invalidate_mmap_range trigger and test modules, prints TAP. */
#include <errno.h>
#include <fcntl.h>
#include <inttypes.h>
#include <signal.h>
#include <stdarg.h>
#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/mount.h>
#include <sys/reboot.h>
#include <sys/stat.h>
#include <sys/syscall.h>
#include <sys/wait.h>
#include <termios.h>
#include <unistd.h>

/* The data file has this many pages; page masks are int64_t with negative values for errors, so at most 62. */
#define UMB_FILE_PAGES 16
/* A second, offset view of the file checks that the user address is computed from vm_pgoff. */
#define UMB_WINDOW_PGOFF 2
#define UMB_WINDOW_PAGES 8
#define UMB_VIEWS 2

static const char umb_data_path[] = "/smoke-data";
static const char umb_trigger_path[] = "/sys/kernel/mm/invalidate_mmap_range/trigger";
static const char umb_stats_path[] = "/sys/kernel/mm/invalidate_mmap_range/stats";
/* The serial line the host reads TAP from; the console stays free for the kernel log. */
static const char umb_tap_tty[] = "/dev/ttyS0";

struct umb_view {
  unsigned char *addr;
  size_t pages;
  uint64_t pgoff;
};

/* Which pages of each view have a PTE, as reported by pagemap in one process. */
struct umb_state {
  int64_t mask[UMB_VIEWS];
};

static int umb_tap_fd = 1;
static unsigned int umb_tap_count;
static unsigned int umb_tap_failed;
static long umb_page_size;
static struct umb_view umb_views[UMB_VIEWS];
static int umb_cmd_fd = -1;
static int umb_reply_fd = -1;
static pid_t umb_child = -1;

/* What this init wrote to the trigger, to compare with the kernel's stats file. */
struct umb_counts {
  long calls;
  long failures;
  long seed_calls;
  long unmap_calls;
};

static struct umb_counts umb_counts;

static void umb_tap_vprint(const char *prefix, const char *fmt, va_list ap) {
  char line[1024];
  int n;

  n = vsnprintf(line, sizeof(line), fmt, ap);
  if (n < 0) return;
  if ((size_t)n >= sizeof(line)) n = sizeof(line) - 1;
  /* One write per line keeps lines whole if anything else writes to the same channel. */
  dprintf(umb_tap_fd, "%s%.*s\n", prefix, n, line);
}

static void umb_tap_diag(const char *fmt, ...) {
  va_list ap;

  va_start(ap, fmt);
  umb_tap_vprint("# ", fmt, ap);
  va_end(ap);
}

static bool umb_tap_ok(bool cond, const char *fmt, ...) {
  char prefix[32];
  va_list ap;

  umb_tap_count++;
  if (!cond) umb_tap_failed++;
  snprintf(prefix, sizeof(prefix), "%sok %u - ", cond ? "" : "not ", umb_tap_count);
  va_start(ap, fmt);
  umb_tap_vprint(prefix, fmt, ap);
  va_end(ap);
  return cond;
}

/* Powers the machine off; PID 1 must never return, or the kernel panics. */
static _Noreturn void umb_poweroff(void) {
  sync();
  reboot(RB_POWER_OFF);
  umb_tap_diag("reboot(RB_POWER_OFF) failed: %s", strerror(errno));
  for (;;) pause();
}

static int umb_mount(const char *type, const char *dir) {
  if (mkdir(dir, 0755) < 0 && errno != EEXIST) return -errno;
  if (mount(type, dir, type, 0, NULL) < 0 && errno != EBUSY) return -errno;
  return 0;
}

/* Sends TAP to the serial line in raw mode, or to the console if there is no serial line. */
static void umb_tap_open(void) {
  struct termios tio;
  int fd;

  fd = open(umb_tap_tty, O_WRONLY | O_NOCTTY | O_CLOEXEC);
  if (fd < 0) return;
  if (tcgetattr(fd, &tio) == 0) {
    cfmakeraw(&tio);
    tcsetattr(fd, TCSANOW, &tio);
  }
  umb_tap_fd = fd;
}

static int umb_file_create(void) {
  unsigned char *page;
  int fd, err = 0;

  page = malloc(umb_page_size);
  if (!page) return -ENOMEM;
  fd = open(umb_data_path, O_RDWR | O_CREAT | O_TRUNC | O_CLOEXEC, 0644);
  if (fd < 0) {
    err = -errno;
    goto out;
  }
  for (int i = 0; i < UMB_FILE_PAGES && !err; i++) {
    memset(page, 'a' + i, umb_page_size);
    if (write(fd, page, umb_page_size) != umb_page_size) err = errno ? -errno : -EIO;
  }
  if (!err && fsync(fd) < 0) err = -errno;
  close(fd);
out:
  free(page);
  return err;
}

static int umb_views_map(void) {
  int fd, err = 0;

  fd = open(umb_data_path, O_RDWR | O_CLOEXEC);
  if (fd < 0) return -errno;
  umb_views[0] = (struct umb_view){NULL, UMB_FILE_PAGES, 0};
  umb_views[1] = (struct umb_view){NULL, UMB_WINDOW_PAGES, UMB_WINDOW_PGOFF};
  for (int v = 0; v < UMB_VIEWS; v++) {
    void *p = mmap(NULL, umb_views[v].pages * umb_page_size, PROT_READ | PROT_WRITE, MAP_SHARED, fd,
                   (off_t)(umb_views[v].pgoff * umb_page_size));

    if (p == MAP_FAILED) {
      err = -errno;
      break;
    }
    umb_views[v].addr = p;
  }
  close(fd);
  return err;
}

/* Reads one byte of every page, which faults it in and maps it. Returns how many bytes were wrong. */
static unsigned int umb_views_touch(void) {
  unsigned int wrong = 0;

  for (int v = 0; v < UMB_VIEWS; v++)
    for (size_t i = 0; i < umb_views[v].pages; i++) {
      volatile unsigned char *p = umb_views[v].addr + i * umb_page_size;

      if (*p != 'a' + umb_views[v].pgoff + i) wrong++;
    }
  return wrong;
}

/* Returns the present-page bitmask of one view in this process, from /proc/self/pagemap, or a negative errno. */
static int64_t umb_view_present(int pagemap, const struct umb_view *v) {
  int64_t mask = 0;

  for (size_t i = 0; i < v->pages; i++) {
    uint64_t entry;
    off_t at = (off_t)((uintptr_t)(v->addr + i * umb_page_size) / umb_page_size * sizeof(entry));

    if (pread(pagemap, &entry, sizeof(entry), at) != sizeof(entry)) return errno ? -errno : -EIO;
    if (entry >> 63) mask |= INT64_C(1) << i;
  }
  return mask;
}

static void umb_state_read(struct umb_state *st) {
  int pagemap = open("/proc/self/pagemap", O_RDONLY | O_CLOEXEC);

  for (int v = 0; v < UMB_VIEWS; v++) st->mask[v] = pagemap < 0 ? -errno : umb_view_present(pagemap, &umb_views[v]);
  if (pagemap >= 0) close(pagemap);
}

static int umb_read_full(int fd, void *buf, size_t len) {
  size_t done = 0;

  while (done < len) {
    ssize_t n = read(fd, (char *)buf + done, len - done);

    if (n < 0 && errno == EINTR) continue;
    if (n <= 0) return n < 0 ? -errno : -EPIPE;
    done += n;
  }
  return 0;
}

/*
 * The child shares the parent's mappings through fork(). Shared file PTEs are not copied at fork, so it faults the
 * pages in itself ('T') and reports what pagemap shows in its own mm ('S') until told to quit ('Q').
 */
static _Noreturn void umb_child_run(int cmd_fd, int reply_fd) {
  for (;;) {
    struct umb_state st;
    char cmd;

    if (umb_read_full(cmd_fd, &cmd, 1) < 0 || cmd == 'Q') _exit(0);
    if (cmd == 'T' && umb_views_touch() != 0) _exit(2);
    umb_state_read(&st);
    if (write(reply_fd, &st, sizeof(st)) != sizeof(st)) _exit(3);
  }
}

static int umb_child_start(void) {
  int cmd[2], reply[2];

  if (pipe2(cmd, O_CLOEXEC) < 0) return -errno;
  if (pipe2(reply, O_CLOEXEC) < 0) {
    close(cmd[0]);
    close(cmd[1]);
    return -errno;
  }
  umb_child = fork();
  if (umb_child < 0) return -errno;
  if (umb_child == 0) {
    close(cmd[1]);
    close(reply[0]);
    umb_child_run(cmd[0], reply[1]);
  }
  close(cmd[0]);
  close(reply[1]);
  umb_cmd_fd = cmd[1];
  umb_reply_fd = reply[0];
  return 0;
}

static int umb_child_ask(char cmd, struct umb_state *st) {
  if (write(umb_cmd_fd, &cmd, 1) != 1) return -errno;
  return umb_read_full(umb_reply_fd, st, sizeof(*st));
}

static int64_t umb_view_all(const struct umb_view *v) { return (INT64_C(1) << v->pages) - 1; }

/* Expected mask of a view once the file pages [first, first + count) lost their PTEs. */
static int64_t umb_view_expect(const struct umb_view *v, uint64_t first, uint64_t count) {
  int64_t mask = umb_view_all(v);

  for (size_t i = 0; i < v->pages; i++) {
    uint64_t page = v->pgoff + i;

    if (page >= first && page - first < count) mask &= ~(INT64_C(1) << i);
  }
  return mask;
}

static void umb_mask_str(char *buf, int64_t mask, size_t pages) {
  if (mask < 0) {
    snprintf(buf, pages + 1, "%s", strerror((int)-mask));
    return;
  }
  for (size_t i = 0; i < pages; i++) buf[i] = (mask >> i) & 1 ? 'P' : '-';
  buf[pages] = '\0';
}

static bool umb_state_check(const char *who, const char *what, const struct umb_state *st, uint64_t first,
                            uint64_t count) {
  bool same = true;

  for (int v = 0; v < UMB_VIEWS; v++) same = same && st->mask[v] == umb_view_expect(&umb_views[v], first, count);
  if (umb_tap_ok(same, "%s: %s", what, who)) return true;
  for (int v = 0; v < UMB_VIEWS; v++) {
    char got[64], want[64];

    umb_mask_str(got, st->mask[v], umb_views[v].pages);
    umb_mask_str(want, umb_view_expect(&umb_views[v], first, count), umb_views[v].pages);
    umb_tap_diag("view %d (file pages %" PRIu64 "..%" PRIu64 "): got %s want %s (P: PTE present)", v,
                 umb_views[v].pgoff, umb_views[v].pgoff + umb_views[v].pages - 1, got, want);
  }
  return false;
}

/* Checks in both processes that exactly the file pages [first, first + count) have no PTE. */
static void umb_check_pages(const char *what, uint64_t first, uint64_t count) {
  struct umb_state st;
  int err;

  umb_state_read(&st);
  umb_state_check("parent's PTEs", what, &st, first, count);
  err = umb_child_ask('S', &st);
  if (err < 0) {
    umb_tap_ok(false, "%s: child's PTEs", what);
    umb_tap_diag("child did not answer: %s", strerror(-err));
    return;
  }
  umb_state_check("child's PTEs", what, &st, first, count);
}

/* Faults every page in, in both processes, and checks all of them are mapped. */
static void umb_fault_all(const char *before) {
  struct umb_state parent, child;
  bool ok;
  int err;

  ok = umb_views_touch() == 0;
  umb_state_read(&parent);
  err = umb_child_ask('T', &child);
  for (int v = 0; v < UMB_VIEWS; v++)
    ok = ok && parent.mask[v] == umb_view_all(&umb_views[v]) && !err && child.mask[v] == umb_view_all(&umb_views[v]);
  if (!umb_tap_ok(ok, "every page mapped in parent and child before %s", before))
    umb_tap_diag("parent masks %" PRId64 " %" PRId64 ", child %s", parent.mask[0], parent.mask[1],
                 err ? strerror(-err) : "answered");
}

/* Writes CMD and a newline in one write(), as the ABI requires. Returns the byte count or a negative errno. */
static ssize_t umb_trigger(const char *cmd) {
  char text[256];
  ssize_t n;
  int fd, len;

  len = snprintf(text, sizeof(text), "%s\n", cmd);
  if (len < 0 || (size_t)len >= sizeof(text)) return -ENAMETOOLONG;
  fd = open(umb_trigger_path, O_WRONLY | O_CLOEXEC);
  if (fd < 0) return -errno;
  n = write(fd, text, len);
  umb_counts.calls++;
  if (n < 0)
    n = -errno;
  else if (n == len)
    n = 0;
  else
    n = -EIO;
  close(fd);
  if (n < 0) umb_counts.failures++;
  return n;
}

/*
 * Writes "PATH OFFSET LENGTH [words]" and checks that exactly the pages of the seed's rounding lost their PTEs:
 * holebegin is rounded down and holelen rounded up, each on its own.
 */
static void umb_trigger_check(uint64_t offset, uint64_t length, const char *numfmt, const char *words) {
  char text[256], num[2][32];
  uint64_t first = offset / (uint64_t)umb_page_size;
  uint64_t count = length / (uint64_t)umb_page_size + (length % (uint64_t)umb_page_size != 0);
  ssize_t n;

  snprintf(num[0], sizeof(num[0]), numfmt, offset);
  snprintf(num[1], sizeof(num[1]), numfmt, length);
  snprintf(text, sizeof(text), "%s %s %s%s%s", umb_data_path, num[0], num[1], *words ? " " : "", words);
  umb_fault_all(text);
  n = umb_trigger(text);
  /* The gdb test matches these lines with the breakpoint hits in __invalidate_mmap_range(). */
  if (!*words || strncmp(words, "seed", 4) == 0) {
    umb_tap_diag("umlbed-call trigger %" PRIu64 " %" PRIu64, offset, length);
    if (n == 0) umb_counts.seed_calls++;
  } else if (strncmp(words, "unmap", 5) == 0 && n == 0) {
    umb_counts.unmap_calls++;
  }
  if (!umb_tap_ok(n == 0, "trigger accepts \"%s\"", text)) umb_tap_diag("write: %s", strerror((int)-n));
  umb_check_pages(text, first, count);
}

/*
 * Extreme offsets and lengths reach the seed's rounding and overflow paths. Which pages they zap is for the scenarios
 * to establish; here the write must be accepted and the kernel must live on (the host checks the log for splats).
 */
static void umb_trigger_extreme(uint64_t offset, uint64_t length) {
  struct umb_state st;
  char text[128], got[2][64];
  ssize_t n;

  snprintf(text, sizeof(text), "%s 0x%" PRIx64 " 0x%" PRIx64, umb_data_path, offset, length);
  umb_views_touch();
  umb_tap_diag("umlbed-call trigger %" PRIu64 " %" PRIu64, offset, length);
  n = umb_trigger(text);
  if (n == 0) umb_counts.seed_calls++;
  if (!umb_tap_ok(n == 0, "trigger accepts \"%s\"", text)) umb_tap_diag("write: %s", strerror((int)-n));
  umb_state_read(&st);
  for (int v = 0; v < UMB_VIEWS; v++) umb_mask_str(got[v], st.mask[v], umb_views[v].pages);
  umb_tap_diag("parent's PTEs after it: %s and %s (P: present)", got[0], got[1]);
}

static void umb_trigger_reject(const char *text, int want) {
  ssize_t n = umb_trigger(text);

  if (!umb_tap_ok(n == -want, "trigger refuses \"%s\" with %s", text, strerrorname_np(want)))
    umb_tap_diag("write: %s", n < 0 ? strerror((int)-n) : "accepted");
}

/* Returns the value of NAME in the stats text, or -1. */
static long umb_stats_value(const char *stats, const char *name) {
  size_t len = strlen(name);

  for (const char *line = stats; line && *line; line = strchr(line, '\n') ? strchr(line, '\n') + 1 : NULL)
    if (strncmp(line, name, len) == 0 && line[len] == ' ') return strtol(line + len + 1, NULL, 10);
  return -1;
}

/*
 * Compares the stats file with what this init wrote. The last seed call covered file pages 9..10, which both views
 * overlap in both processes: four VMAs visited, four zapped.
 */
static void umb_stats_check(void) {
  const struct {
    const char *name;
    long want;
  } expect[] = {
      {"calls", umb_counts.calls},
      {"failures", umb_counts.failures},
      {"seed_calls", umb_counts.seed_calls},
      {"unmap_calls", umb_counts.unmap_calls},
      {"last_seed_vmas_visited", 2 * UMB_VIEWS},
      {"last_seed_vmas_zapped", 2 * UMB_VIEWS},
  };
  char buf[1024];
  ssize_t n = -1;
  int fd;

  fd = open(umb_stats_path, O_RDONLY | O_CLOEXEC);
  if (fd >= 0) {
    n = read(fd, buf, sizeof(buf) - 1);
    close(fd);
  }
  buf[n > 0 ? n : 0] = '\0';
  for (char *line = buf; *line;) {
    char *end = strchrnul(line, '\n');

    umb_tap_diag("stats: %.*s", (int)(end - line), line);
    line = *end ? end + 1 : end;
  }
  for (size_t i = 0; i < sizeof(expect) / sizeof(expect[0]); i++) {
    long got = umb_stats_value(buf, expect[i].name);

    if (!umb_tap_ok(got == expect[i].want, "stats: %s is %ld", expect[i].name, expect[i].want))
      umb_tap_diag("stats says %ld", got);
  }
}

static long umb_tainted(void) {
  char buf[32] = "";
  ssize_t n = -1;
  int fd;

  fd = open("/proc/sys/kernel/tainted", O_RDONLY | O_CLOEXEC);
  if (fd >= 0) {
    n = read(fd, buf, sizeof(buf) - 1);
    close(fd);
  }
  return n > 0 ? strtol(buf, NULL, 10) : -1;
}

/* Loads /NAME.ko with the given parameters; returns 0 or a negative errno, with *found false if there is no file. */
static int umb_module_load(const char *name, const char *params, bool *found) {
  char path[64];
  int fd, err = 0;

  snprintf(path, sizeof(path), "/%s.ko", name);
  fd = open(path, O_RDONLY | O_CLOEXEC);
  *found = fd >= 0;
  if (fd < 0) return -errno;
  if (syscall(SYS_finit_module, fd, params, 0) < 0) err = -errno;
  close(fd);
  return err;
}

static int umb_module_unload(const char *name) { return syscall(SYS_delete_module, name, O_NONBLOCK) < 0 ? -errno : 0; }

/*
 * Loads a module whose init calls invalidate_mmap_range(offset, length) on the data file. Where it must load, the
 * call's effect is checked in both processes; where it must be refused, nothing may have changed.
 */
static void umb_module_check(const char *name, bool must_load, uint64_t offset, uint64_t length) {
  char params[128], what[160];
  bool found;
  int err;

  snprintf(params, sizeof(params), "path=%s offset=%" PRIu64 " length=%" PRIu64, umb_data_path, offset, length);
  snprintf(what, sizeof(what), "%s %s", name, params);
  umb_fault_all(what);
  if (must_load) umb_tap_diag("umlbed-call module %" PRIu64 " %" PRIu64, offset, length);
  err = umb_module_load(name, params, &found);
  if (!found) umb_tap_diag("/%s.ko: %s (not copied into the root?)", name, strerror(-err));
  if (must_load) {
    if (!umb_tap_ok(err == 0, "%s loads", name)) umb_tap_diag("finit_module: %s", strerror(-err));
    umb_check_pages(what, offset / umb_page_size, (length + umb_page_size - 1) / umb_page_size);
    err = umb_module_unload(name);
    if (!umb_tap_ok(err == 0, "%s unloads", name)) umb_tap_diag("delete_module: %s", strerror(-err));
  } else {
    /* A GPL-only symbol is invisible to a non-GPL module, so the load fails as an unknown symbol. */
    if (!umb_tap_ok(found && err == -ENOENT, "%s is refused (unknown symbol)", name))
      umb_tap_diag("finit_module: %s", err ? strerror(-err) : "loaded");
    if (err == 0) umb_module_unload(name);
    umb_check_pages(what, 0, 0);
  }
}

int main(void) {
  const char *proprietary = getenv("UMLBED_PROPRIETARY");
  bool proprietary_loads = proprietary && strcmp(proprietary, "load") == 0;
  int err, status;
  long taint;

  /* It mounts, loads modules and powers off: never on the host by mistake. */
  if (getpid() != 1) {
    fprintf(stderr, "umlbed smoke init: not PID 1, refusing to run\n");
    return 2;
  }
  umb_page_size = sysconf(_SC_PAGESIZE);
  /* A child that died must show as a failed test (EPIPE), not end PID 1. */
  signal(SIGPIPE, SIG_IGN);
  err = umb_mount("proc", "/proc");
  if (!err) err = umb_mount("sysfs", "/sys");
  if (!err) err = umb_mount("devtmpfs", "/dev");
  umb_tap_open();
  /* Boot-time measurements need only the first line on the TAP channel. */
  if (getenv("UMLBED_BOOT_ONLY")) {
    dprintf(umb_tap_fd, "1..0 # SKIP boot only\n");
    umb_poweroff();
  }
  umb_tap_diag("umlbed smoke init, variant %s, proprietary module expected to %s",
               getenv("UMLBED_VARIANT") ? getenv("UMLBED_VARIANT") : "?", proprietary_loads ? "load" : "be refused");
  if (!umb_tap_ok(err == 0, "mount proc, sysfs and devtmpfs")) umb_tap_diag("mount: %s", strerror(-err));
  umb_tap_ok(access(umb_trigger_path, W_OK) == 0, "%s exists", umb_trigger_path);

  err = umb_file_create();
  if (!umb_tap_ok(err == 0, "create %s (%d pages) on hostfs", umb_data_path, UMB_FILE_PAGES)) {
    umb_tap_diag("%s", strerror(-err));
    goto done;
  }
  err = umb_views_map();
  if (!err) err = umb_child_start();
  if (!umb_tap_ok(err == 0, "map it shared twice (whole, and pages %d..%d) and fork a child", UMB_WINDOW_PGOFF,
                  UMB_WINDOW_PGOFF + UMB_WINDOW_PAGES - 1)) {
    umb_tap_diag("%s", strerror(-err));
    goto done;
  }

  /* Unaligned on both ends: pages 3..5 (holebegin rounded down, holelen rounded up). */
  umb_trigger_check(3 * umb_page_size + 123, 2 * umb_page_size + 1, "%" PRIu64, "");
  /* holelen 0 does nothing. */
  umb_trigger_check(umb_page_size, 0, "%" PRIu64, "");

  umb_fault_all("malformed writes");
  umb_trigger_reject("garbage", EINVAL);
  umb_trigger_reject("/smoke-data 0", EINVAL);
  umb_trigger_reject("/smoke-data 0 4096 bogus", EINVAL);
  umb_trigger_reject("/smoke-data 0 4096 seed keep trailing", EINVAL);
  umb_trigger_reject("/smoke-data -1 4096", EINVAL);
  umb_trigger_reject("/smoke-data 0x 4096", EINVAL);
  umb_trigger_reject("/smoke-data 99999999999999999999 1", EINVAL);
  umb_trigger_reject("/proc 0 4096", EINVAL);
  umb_trigger_reject("/no-such-file 0 4096", ENOENT);
  umb_check_pages("malformed writes zapped nothing", 0, 0);

  umb_trigger_extreme(UINT64_MAX, UINT64_MAX);
  umb_trigger_extreme(0, UINT64_MAX);
  umb_trigger_extreme(0, INT64_MAX);
  umb_trigger_extreme((uint64_t)INT64_MAX, 1);
  umb_trigger_extreme(UINT64_C(1) << 63, 4096);
  umb_trigger_extreme(UINT64_MAX - 4095, 8192);

  /* The kernel lives on: well-formed calls still work, in hex, and with the optional words. */
  umb_trigger_check(9 * umb_page_size, 2 * umb_page_size, "0x%" PRIx64, "seed keep");
  umb_trigger_check(0, 1, "%" PRIu64, "unmap");
  umb_stats_check();

  taint = umb_tainted();
  umb_tap_diag("tainted before modules: %ld", taint);
  umb_module_check("umlbed_gpl", true, 5 * umb_page_size, umb_page_size);
  taint = umb_tainted();
  if (!umb_tap_ok(taint >= 0 && !(taint & 1), "GPL module leaves the kernel untainted by P"))
    umb_tap_diag("tainted: %ld", taint);

  umb_module_check("umlbed_proprietary", proprietary_loads, 7 * umb_page_size, 1);
  taint = umb_tainted();
  if (proprietary_loads) {
    if (!umb_tap_ok(taint >= 0 && (taint & 1), "proprietary module taints the kernel (P)"))
      umb_tap_diag("tainted: %ld", taint);
  } else {
    /* 6.1 taints on the attempt already, before the symbol lookup fails: report it, do not judge it. */
    umb_tap_diag("tainted after the refused proprietary module: %ld", taint);
  }

  /* The child exits on 'Q' without an answer; its exit status is the answer. */
  if (write(umb_cmd_fd, "Q", 1) != 1) umb_tap_diag("cannot tell the child to quit: %s", strerror(errno));
  umb_tap_ok(waitpid(umb_child, &status, 0) == umb_child && WIFEXITED(status) && WEXITSTATUS(status) == 0,
             "child exits cleanly");
done:
  dprintf(umb_tap_fd, "1..%u\n", umb_tap_count);
  umb_tap_diag("umlbed smoke init done, %u of %u failed", umb_tap_failed, umb_tap_count);
  umb_poweroff();
}

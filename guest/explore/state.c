// SPDX-License-Identifier: MIT
/* state.c: the final state of a case on stdout: each process's VMAs of the file, PTEs and data, the cache, the file. */
#include "xp.h"

#include <errno.h>
#include <fcntl.h>
#include <inttypes.h>
#include <poll.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/stat.h>
#include <sys/sysmacros.h>
#include <unistd.h>

/* A VMA of the file in one process, from /proc/PID/maps. */
struct vma {
  uintptr_t start, end;
  uint64_t pgoff;
  char perms[8];
};

#define MAX_VMAS 64

/* Tokens of consecutive pages, each run printed once with its count ("v0*12"). */
struct runs {
  char last[64];
  size_t count;
};

static void runs_put(struct runs *r, const char *tok) {
  if (r->count && strcmp(r->last, tok) == 0) {
    r->count++;
    return;
  }
  if (r->count) printf(r->count > 1 ? " %s*%zu" : " %s", r->last, r->count);
  snprintf(r->last, sizeof r->last, "%s", tok);
  r->count = 1;
}

static void runs_end(struct runs *r) {
  runs_put(r, "");
  putchar('\n');
}

/* Whether process p has ended: its pidfd is readable once it has. */
static bool gone(int p) {
  struct xp_proc *pr = &xp_c.procs[p];
  if (pr->gone || pr->pidfd < 0) return true;
  struct pollfd pf = {.fd = pr->pidfd, .events = POLLIN};
  if (poll(&pf, 1, 0) > 0) pr->gone = true;
  return pr->gone;
}

/* The VMAs of process p that map the file (its device and inode), in address order as maps lists them. */
static int vmas_of(int p, const struct stat *st, struct vma *v, int max) {
  char path[64], line[1024];
  snprintf(path, sizeof path, "/proc/%d/maps", (int)xp_c.procs[p].pid);
  FILE *f = fopen(path, "r");
  if (!f) return -1;
  int n = 0;
  while (fgets(line, sizeof line, f) && n < max) {
    unsigned long start, end, off, ino;
    unsigned maj, min;
    char perms[8];
    if (sscanf(line, "%lx-%lx %7s %lx %x:%x %lu", &start, &end, perms, &off, &maj, &min, &ino) != 7) continue;
    if (ino != st->st_ino || makedev(maj, min) != (dev_t)st->st_dev) continue;
    v[n] = (struct vma){.start = start, .end = end, .pgoff = off / xp_ps};
    snprintf(v[n].perms, sizeof v[n].perms, "%s", perms);
    n++;
  }
  fclose(f);
  return n;
}

/* '-' not present, 'F' a page of the file, 'A' a private (COW) page, from /proc/PID/pagemap; after "pte" or the
 * prefix of a snapshot. */
static void print_ptes(const char *prefix, int p, const struct vma *v) {
  char path[64];
  snprintf(path, sizeof path, "/proc/%d/pagemap", (int)xp_c.procs[p].pid);
  int fd = open(path, O_RDONLY | O_CLOEXEC);
  printf("%s P%d %" PRIxPTR " ", prefix, p, v->start);
  /* One read for the whole VMA: its entries are consecutive. */
  size_t n = (v->end - v->start) / xp_ps;
  uint64_t *e = calloc(n, sizeof *e);
  ssize_t got = fd < 0 || !e ? -1 : pread(fd, e, n * sizeof *e, (off_t)(v->start / xp_ps * sizeof *e));
  for (size_t i = 0; i < n; i++) {
    if (got < (ssize_t)((i + 1) * sizeof *e))
      putchar('?');
    else
      putchar(!(e[i] >> 63 & 1) ? '-' : (e[i] >> 61 & 1) ? 'F' : 'A');
  }
  putchar('\n');
  free(e);
  if (fd >= 0) close(fd);
}

/* The data of each page as the process reads it (through /proc/PID/mem: the kernel faults what is not there). */
static void print_data(int p, const struct vma *v) {
  char path[64], tok[64];
  /* Reads of up to 64 pages at once; a page a read cannot reach is read alone, for its own error. */
  const size_t chunk = 64;
  char *buf = malloc(chunk * xp_ps);
  if (!buf) xp_die("out of memory");
  snprintf(path, sizeof path, "/proc/%d/mem", (int)xp_c.procs[p].pid);
  int fd = open(path, O_RDONLY | O_CLOEXEC);
  struct runs r = {{0}, 0};
  printf("data P%d %" PRIxPTR, p, v->start);
  for (uintptr_t a = v->start; a < v->end;) {
    size_t pages = (v->end - a) / xp_ps < chunk ? (v->end - a) / xp_ps : chunk;
    ssize_t n = fd < 0 ? -1 : pread(fd, buf, pages * xp_ps, (off_t)a);
    if (n != (ssize_t)(pages * xp_ps)) {
      pages = 1;
      n = fd < 0 ? -1 : pread(fd, buf, xp_ps, (off_t)a);
    }
    for (size_t i = 0; i < pages; i++) {
      if (n == (ssize_t)(pages * xp_ps))
        xp_token(buf + i * xp_ps, (size_t)(v->pgoff + (a - v->start) / xp_ps + i), tok, sizeof tok);
      else
        snprintf(tok, sizeof tok, "%s", n < 0 ? strerrorname_np(errno) : "short");
      runs_put(&r, tok);
    }
    a += pages * xp_ps;
  }
  runs_end(&r);
  if (fd >= 0) close(fd);
  free(buf);
}

/* Which pages of the file are in the page cache (mincore of a mapping of the file: it faults nothing in). */
static void print_cache(int fd, size_t pages) {
  printf("cache ");
  if (pages) {
    void *m = mmap(NULL, pages * xp_ps, PROT_READ, MAP_SHARED, fd, 0);
    unsigned char *vec = malloc(pages);
    if (m == MAP_FAILED || !vec || mincore(m, pages * xp_ps, vec) < 0) {
      printf("%s", strerrorname_np(errno));
    } else {
      for (size_t i = 0; i < pages; i++) putchar(vec[i] & 1 ? '1' : '0');
    }
    if (m != MAP_FAILED) munmap(m, pages * xp_ps);
    free(vec);
  }
  putchar('\n');
}

/* The file's size and contents once written back: on hostfs as the other node reads it, on tmpfs its pages. */
static void print_file(int fd, size_t pages) {
  char tok[64];
  char *buf = malloc(xp_ps);
  if (!buf) xp_die("out of memory");
  int rfd = fd;
  if (fsync(fd) < 0) printf("fsync %s\n", strerrorname_np(errno));
  if (xp_c.file.other[0]) {
    rfd = open(xp_c.file.other, O_RDONLY | O_CLOEXEC);
    if (rfd >= 0) posix_fadvise(rfd, 0, 0, POSIX_FADV_DONTNEED);
  }
  struct runs r = {{0}, 0};
  printf("file %zu", pages);
  for (size_t i = 0; i < pages; i++) {
    ssize_t n = rfd < 0 ? -1 : pread(rfd, buf, xp_ps, (off_t)(i * xp_ps));
    if (n > 0 && (size_t)n < xp_ps) memset(buf + n, 0, xp_ps - (size_t)n);
    if (n > 0)
      xp_token(buf, i, tok, sizeof tok);
    else
      snprintf(tok, sizeof tok, "%s", n < 0 ? strerrorname_np(errno) : "eof");
    runs_put(&r, tok);
  }
  runs_end(&r);
  if (rfd >= 0 && rfd != fd) close(rfd);
  free(buf);
}

/* A number from the first line of a proc file whose line starts with key (or the whole first line), or -1. */
static long proc_number(const char *path, const char *key) {
  char line[256];
  long v = -1;
  FILE *f = fopen(path, "r");
  if (!f) return -1;
  while (fgets(line, sizeof line, f)) {
    const char *p = line;
    while (*p == ' ') p++;
    if (key && strncmp(p, key, strlen(key)) != 0) continue;
    if (key) p += strlen(key);
    v = strtol(p, NULL, 10);
    break;
  }
  fclose(f);
  return v;
}

/* What the kernel said of itself: its taint (a WARNING, BUG or KASAN report sets it) and whether lockdep, which
 * turns itself off at its first report, still checks. */
static void print_kernel(void) {
  printf("kernel tainted %ld debug_locks %ld\n", proc_number("/proc/sys/kernel/tainted", NULL),
         proc_number("/proc/lockdep_stats", "debug_locks:"));
}

void xp_kernel_after(void) {
  printf("kernel-after tainted %ld debug_locks %ld\n", proc_number("/proc/sys/kernel/tainted", NULL),
         proc_number("/proc/lockdep_stats", "debug_locks:"));
}

int xp_klog_mark(void) {
  int fd = open("/dev/kmsg", O_RDONLY | O_NONBLOCK | O_CLOEXEC);
  if (fd < 0) xp_die("open /dev/kmsg: %s", strerror(errno));
  if (lseek(fd, 0, SEEK_END) < 0) xp_die("seek /dev/kmsg: %s", strerror(errno));
  return fd;
}

/* Records are "PRI,SEQ,USEC,FLAGS;TEXT": PRI is facility * 8 + level, and the kernel's own facility is 0. */
void xp_klog_since(int fd) {
  char rec[2048];
  for (;;) {
    ssize_t n = read(fd, rec, sizeof rec - 1);
    if (n < 0 && errno == EPIPE) continue; /* records overwritten meanwhile: go on from the oldest kept */
    if (n <= 0) break;
    rec[n] = '\0';
    char *text = strchr(rec, ';');
    unsigned pri = (unsigned)strtoul(rec, NULL, 10);
    if (!text || pri >= 8 || (pri & 7) > 4) continue;
    text++;
    text[strcspn(text, "\n")] = '\0';
    bool words = false;
    for (const char *p = text; *p; p++) words = words || (*p >= 'A' && *p <= 'Z') || (*p >= 'a' && *p <= 'z');
    if (!words) continue;
    printf("klog %u %s\n", pri & 7, text);
    break;
  }
  close(fd);
}

void xp_snap(const char *tag) {
  struct vma v[MAX_VMAS];
  struct stat st;
  char prefix[64];
  extern int xp_ctl_fd;
  if (fstat(xp_ctl_fd, &st) < 0) xp_die("fstat: %s", strerror(errno));
  for (int p = 0; p < XP_MAX_PROCS; p++) {
    if (!xp_c.procs[p].used || gone(p)) continue;
    int n = vmas_of(p, &st, v, MAX_VMAS);
    for (int i = 0; i < n; i++) {
      snprintf(prefix, sizeof prefix, "snap %s %" PRIu64 " %s", tag, v[i].pgoff, v[i].perms);
      print_ptes(prefix, p, &v[i]);
    }
  }
}

void xp_state_print(void) {
  static struct vma v[XP_MAX_PROCS][MAX_VMAS];
  int nv[XP_MAX_PROCS];
  struct stat st;
  /* The controller's own descriptor, opened before the case ran: the file may be unlinked or its mount gone. */
  extern int xp_ctl_fd;
  if (fstat(xp_ctl_fd, &st) < 0) xp_die("fstat: %s", strerror(errno));
  size_t pages = ((size_t)st.st_size + xp_ps - 1) / xp_ps;

  printf("pagesize %zu\n", xp_ps);
  /* Everything that does not fault comes first: the PTEs, then the cache; then the reads, which fault. */
  for (int p = 0; p < XP_MAX_PROCS; p++) {
    nv[p] = 0;
    if (!xp_c.procs[p].used) continue;
    if (gone(p)) {
      printf("proc P%d gone\n", p);
      continue;
    }
    printf("proc P%d alive\n", p);
    nv[p] = vmas_of(p, &st, v[p], MAX_VMAS);
    for (int i = 0; i < nv[p]; i++) {
      printf("vma P%d %" PRIxPTR "-%" PRIxPTR " %" PRIu64 " %s\n", p, v[p][i].start, v[p][i].end, v[p][i].pgoff,
             v[p][i].perms);
      print_ptes("pte", p, &v[p][i]);
    }
  }
  print_cache(xp_ctl_fd, pages);
  for (int p = 0; p < XP_MAX_PROCS; p++) {
    for (int i = 0; i < nv[p]; i++) print_data(p, &v[p][i]);
  }
  print_file(xp_ctl_fd, pages);
  print_kernel();
}

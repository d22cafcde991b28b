// SPDX-License-Identifier: MIT
/* prim.c: the primitive operations a process of a case runs: faults, GUP, fork, munmap, invalidate, truncate, ... */
#include "xp.h"

#include <errno.h>
#include <fcntl.h>
#include <setjmp.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/mount.h>
#include <sys/resource.h>
#include <unistd.h>

/* The process's own descriptor of the file (every process opens it when it starts; a fork shares it). */
int xp_fd = -1;

static sigjmp_buf fault_env;
static volatile sig_atomic_t fault_sig;

static void on_fault(int sig) {
  fault_sig = sig;
  siglongjmp(fault_env, 1);
}

/* Catches SIGBUS and SIGSEGV of a memory access: a truncated page or a hole is a result, not a crash. */
static void catch_faults(void) {
  struct sigaction sa;
  memset(&sa, 0, sizeof sa);
  sa.sa_handler = on_fault;
  sigemptyset(&sa.sa_mask);
  sa.sa_flags = SA_NODEFER;
  sigaction(SIGBUS, &sa, NULL);
  sigaction(SIGSEGV, &sa, NULL);
}

static void res_errno(char *res, size_t sz, int err) {
  const char *name = strerrorname_np(err);
  snprintf(res, sz, "%s", name ? name : "E?");
}

static int parse_num(char **w, int n, int i, uint64_t *v) { return i < n && xp_num(w[i], v) == 0 ? 0 : -1; }

/* The mapping named by word i ("M3") of process self, or NULL. */
static struct xp_map *map_of(int self, char **w, int n, int i) {
  uint64_t m;
  if (i >= n || w[i][0] != 'M' || xp_num(w[i] + 1, &m) < 0 || m >= XP_MAX_MAPS) return NULL;
  struct xp_map *mp = &xp_c.procs[self].maps[m];
  return mp->used ? mp : NULL;
}

/* A page of a mapping by word i, checked against its size. */
static char *page_of(struct xp_map *m, char **w, int n, int i, size_t *page) {
  uint64_t p;
  if (parse_num(w, n, i, &p) < 0 || p >= m->pages) return NULL;
  *page = (size_t)p;
  return (char *)(m->addr + p * xp_ps);
}

/* The buffer of one page, aligned for O_DIRECT. */
static char *scratch(void) {
  static char *buf;
  if (!buf && posix_memalign((void **)&buf, 4096, xp_ps) != 0) xp_die("out of memory");
  return buf;
}

void xp_prefault_buffers(void) { memset(scratch(), 0, xp_ps); }

/* The page faults this thread has taken. */
static long faults_taken(void) {
  struct rusage ru;
  if (getrusage(RUSAGE_THREAD, &ru) != 0) xp_die("getrusage: %s", strerror(errno));
  return ru.ru_minflt + ru.ru_majflt;
}

/* load / store through the mapping, with SIGBUS and SIGSEGV as results. A process's access of a page is one
 * instant in the oracle's orders, but a copy that faults midway may sleep there while another task changes the
 * page (and then reads half of each version). So the copy is made again until one takes no fault: in user mode the
 * task runs alone (one CPU, and no task of the test is woken but by another's kernel work). */
static void mem_access(struct xp_map *m, char *addr, size_t page, bool store, unsigned v, char *res, size_t sz) {
  char *buf = scratch();
  catch_faults();
  fault_sig = 0;
  if (sigsetjmp(fault_env, 1) != 0) {
    snprintf(res, sz, "%s", fault_sig == SIGBUS ? "SIGBUS" : "SIGSEGV");
    return;
  }
  if (store) xp_fill(buf, v, m->pgoff + page);
  long before;
  do {
    before = faults_taken();
    if (store)
      memcpy(addr, buf, xp_ps);
    else
      memcpy(buf, addr, xp_ps);
  } while (faults_taken() != before);
  if (store)
    snprintf(res, sz, "ok");
  else
    xp_token(buf, m->pgoff + page, res, sz);
}

/* pread or pwrite of /proc/self/mem: the kernel reaches the page through get_user_pages. */
static void gup_access(struct xp_map *m, char *addr, size_t page, bool store, unsigned v, char *res, size_t sz) {
  char *buf = scratch();
  int fd = open("/proc/self/mem", O_RDWR | O_CLOEXEC);
  if (fd < 0) return res_errno(res, sz, errno);
  ssize_t r;
  if (store) {
    xp_fill(buf, v, m->pgoff + page);
    r = pwrite(fd, buf, xp_ps, (off_t)(uintptr_t)addr);
  } else {
    r = pread(fd, buf, xp_ps, (off_t)(uintptr_t)addr);
  }
  int err = errno;
  close(fd);
  if (r < 0) return res_errno(res, sz, err);
  if ((size_t)r != xp_ps) return (void)snprintf(res, sz, "short");
  if (store)
    snprintf(res, sz, "ok");
  else
    xp_token(buf, m->pgoff + page, res, sz);
}

/* O_DIRECT read of the file's page into the mapping's page: the kernel pins the destination (GUP for write). */
static void dio_read(struct xp_map *m, char *addr, size_t page, char *res, size_t sz) {
  int fd = open(xp_c.file.path, O_RDONLY | O_DIRECT | O_CLOEXEC);
  if (fd < 0) return res_errno(res, sz, errno);
  ssize_t r = pread(fd, addr, xp_ps, (off_t)((m->pgoff + page) * xp_ps));
  int err = errno;
  close(fd);
  if (r < 0) return res_errno(res, sz, err);
  snprintf(res, sz, "ok %zd", r);
}

static int prot_of(const char *s) {
  if (strcmp(s, "rw") == 0) return PROT_READ | PROT_WRITE;
  if (strcmp(s, "r") == 0) return PROT_READ;
  if (strcmp(s, "none") == 0) return PROT_NONE;
  return -1;
}

/* "map M OFFPAGE NPAGES ADDR shared|private r|rw": ADDR 0 lets the kernel choose. */
static void prim_map(int self, char **w, int n, char *res, size_t sz) {
  uint64_t m, off, np, addr;
  if (n != 7 || w[1][0] != 'M' || xp_num(w[1] + 1, &m) < 0 || m >= XP_MAX_MAPS || parse_num(w, n, 2, &off) < 0 ||
      parse_num(w, n, 3, &np) < 0 || np == 0 || parse_num(w, n, 4, &addr) < 0 || prot_of(w[6]) < 0)
    xp_die("bad map: %s", w[0]);
  bool shared = strcmp(w[5], "shared") == 0;
  int flags = (shared ? MAP_SHARED : MAP_PRIVATE) | (addr ? MAP_FIXED_NOREPLACE : 0);
  void *p = mmap((void *)(uintptr_t)addr, np * xp_ps, prot_of(w[6]), flags, xp_fd, (off_t)(off * xp_ps));
  if (p == MAP_FAILED) return res_errno(res, sz, errno);
  struct xp_map *mp = &xp_c.procs[self].maps[m];
  *mp = (struct xp_map){.used = true, .addr = (uintptr_t)p, .pages = np, .pgoff = off, .shared = shared};
  mp->writable = strcmp(w[6], "rw") == 0;
  snprintf(res, sz, "ok");
}

/* "fork Q": the child becomes process Q with its parent's mappings. */
static void prim_fork(int self, char **w, int n, char *res, size_t sz) {
  uint64_t q;
  if (n != 2 || w[1][0] != 'P' || xp_num(w[1] + 1, &q) < 0 || q >= XP_MAX_PROCS) xp_die("bad fork");
  pid_t pid = fork();
  if (pid < 0) return res_errno(res, sz, errno);
  if (pid == 0) {
    memcpy(xp_c.procs[q].maps, xp_c.procs[self].maps, sizeof xp_c.procs[q].maps);
    xp_serve((int)q);
  }
  snprintf(res, sz, "ok");
}

/* A range of pages of a mapping: "M FIRST N" from word i. */
static bool range_of(int self, char **w, int n, int i, char **addr, size_t *len, struct xp_map **mp) {
  uint64_t first, np;
  struct xp_map *m = map_of(self, w, n, i);
  if (!m || parse_num(w, n, i + 1, &first) < 0 || parse_num(w, n, i + 2, &np) < 0 || first > m->pages ||
      np > m->pages - first)
    return false;
  *addr = (char *)(m->addr + first * xp_ps);
  *len = np * xp_ps;
  if (mp) *mp = m;
  return true;
}

static void result(char *res, size_t sz, int r) {
  if (r < 0)
    res_errno(res, sz, errno);
  else
    snprintf(res, sz, "ok");
}

/* The primitives on a range of a mapping: munmap, mprotect, madvise, msync, touch. */
static bool prim_range(int self, char **w, int n, char *res, size_t sz) {
  char *addr;
  size_t len;
  struct xp_map *m;
  if (strcmp(w[0], "munmap") == 0 || strcmp(w[0], "madvise") == 0 || strcmp(w[0], "msync") == 0) {
    if (n != 4 || !range_of(self, w, n, 1, &addr, &len, &m)) xp_die("bad %s", w[0]);
    if (w[0][1] == 'u') {
      result(res, sz, munmap(addr, len));
      /* What is left of it is read from /proc/PID/maps; a whole unmap forgets it. */
      if (len == m->pages * xp_ps) m->used = false;
    } else if (w[0][1] == 'a') {
      result(res, sz, madvise(addr, len, MADV_DONTNEED));
    } else {
      result(res, sz, msync(addr, len, MS_SYNC));
    }
    return true;
  }
  if (strcmp(w[0], "mprotect") == 0) {
    if (n != 5 || !range_of(self, w, n, 1, &addr, &len, NULL) || prot_of(w[4]) < 0) xp_die("bad mprotect");
    result(res, sz, mprotect(addr, len, prot_of(w[4])));
    return true;
  }
  if (strcmp(w[0], "touch") == 0) {
    if (n != 5 || !range_of(self, w, n, 1, &addr, &len, &m)) xp_die("bad touch");
    bool store = strcmp(w[4], "w") == 0;
    size_t first = (size_t)(addr - (char *)m->addr) / xp_ps;
    res[0] = '\0';
    for (size_t p = 0; p < len / xp_ps; p++) {
      char one[64];
      mem_access(m, addr + p * xp_ps, first + p, store, 2, one, sizeof one);
      if (strcmp(one, "ok") != 0 && one[0] != 'v') return snprintf(res, sz, "%s", one), true;
    }
    snprintf(res, sz, "ok");
    return true;
  }
  return false;
}

/* "mremap M NEWPAGES [ADDR]": grows, shrinks or moves a mapping (to ADDR if given). */
static void prim_mremap(int self, char **w, int n, char *res, size_t sz) {
  uint64_t np, to = 0;
  struct xp_map *m = map_of(self, w, n, 1);
  if (!m || (n != 3 && n != 4) || parse_num(w, n, 2, &np) < 0 || np == 0 || (n == 4 && parse_num(w, n, 3, &to) < 0))
    xp_die("bad mremap");
  int flags = MREMAP_MAYMOVE | (to ? MREMAP_FIXED : 0);
  void *p = mremap((void *)m->addr, m->pages * xp_ps, np * xp_ps, flags, (void *)(uintptr_t)to);
  if (p == MAP_FAILED) return res_errno(res, sz, errno);
  m->addr = (uintptr_t)p;
  m->pages = np;
  snprintf(res, sz, "ok");
}

/* "inval OFF LEN IMPL CACHE": the trigger of the series under test, on the file's path. */
static void prim_inval(char **w, int n, char *res, size_t sz) {
  char line[XP_LINE_MAX];
  if (n != 5) xp_die("bad inval");
  int len = snprintf(line, sizeof line, "%s %s %s %s %s\n", xp_c.file.path, w[1], w[2], w[3], w[4]);
  int fd = open("/sys/kernel/mm/invalidate_mmap_range/trigger", O_WRONLY | O_CLOEXEC);
  if (fd < 0) return res_errno(res, sz, errno);
  ssize_t r = write(fd, line, (size_t)len);
  int err = errno;
  close(fd);
  if (r < 0) return res_errno(res, sz, err);
  snprintf(res, sz, "ok");
}

/* Writes of whole pages of version v through a descriptor: the page cache (fd) or the other node's view. One
 * pwrite for them all: the oracle takes an operation as one step, and the kernel orders a write against a
 * truncation only at system calls (the inode's lock), so a pwrite a page would let a truncation in between. */
static void write_pages(int fd, uint64_t first, uint64_t np, unsigned v, char *res, size_t sz) {
  char *buf;
  if (np == 0 || np > 64 || posix_memalign((void **)&buf, 4096, (size_t)np * xp_ps) != 0)
    xp_die("bad write of %llu pages", (unsigned long long)np);
  for (uint64_t p = 0; p < np; p++) xp_fill(buf + p * xp_ps, v, (size_t)(first + p));
  ssize_t w = pwrite(fd, buf, (size_t)np * xp_ps, (off_t)(first * xp_ps));
  int err = errno;
  free(buf);
  if (w != (ssize_t)(np * xp_ps)) return w < 0 ? res_errno(res, sz, err) : (void)snprintf(res, sz, "short");
  snprintf(res, sz, "ok");
}

/* "stale FIRST N V": the other node writes the host file behind this node's page cache. */
static void prim_stale(char **w, int n, char *res, size_t sz) {
  uint64_t first, np, v;
  if (n != 4 || parse_num(w, n, 1, &first) < 0 || parse_num(w, n, 2, &np) < 0 || parse_num(w, n, 3, &v) < 0)
    xp_die("bad stale");
  if (!xp_c.file.other[0]) return (void)snprintf(res, sz, "ENOTSUP");
  int fd = open(xp_c.file.other, O_RDWR | O_CLOEXEC);
  if (fd < 0) return res_errno(res, sz, errno);
  write_pages(fd, first, np, (unsigned)v, res, sz);
  /* Its own cache must not answer a later read of the other view. */
  fsync(fd);
  posix_fadvise(fd, 0, 0, POSIX_FADV_DONTNEED);
  close(fd);
}

/* The primitives on the file: truncate, punch, pwrite, pread, fsync, close, unlink, umount. */
static bool prim_file(char **w, int n, char *res, size_t sz) {
  uint64_t a = 0, b = 0, v = 0;
  if (strcmp(w[0], "truncate") == 0) {
    if (n != 2 || parse_num(w, n, 1, &a) < 0) xp_die("bad truncate");
    result(res, sz, ftruncate(xp_fd, (off_t)(a * xp_ps)));
  } else if (strcmp(w[0], "punch") == 0) {
    if (n != 3 || parse_num(w, n, 1, &a) < 0 || parse_num(w, n, 2, &b) < 0) xp_die("bad punch");
    result(res, sz,
           fallocate(xp_fd, FALLOC_FL_PUNCH_HOLE | FALLOC_FL_KEEP_SIZE, (off_t)(a * xp_ps), (off_t)(b * xp_ps)));
  } else if (strcmp(w[0], "pwrite") == 0) {
    if (n != 4 || parse_num(w, n, 1, &a) < 0 || parse_num(w, n, 2, &b) < 0 || parse_num(w, n, 3, &v) < 0)
      xp_die("bad pwrite");
    write_pages(xp_fd, a, b, (unsigned)v, res, sz);
  } else if (strcmp(w[0], "pread") == 0) {
    if (n != 2 || parse_num(w, n, 1, &a) < 0) xp_die("bad pread");
    char *buf = scratch();
    ssize_t r = pread(xp_fd, buf, xp_ps, (off_t)(a * xp_ps));
    if (r < 0) return res_errno(res, sz, errno), true;
    if ((size_t)r < xp_ps) memset(buf + r, 0, xp_ps - (size_t)r);
    if (r == 0)
      snprintf(res, sz, "eof");
    else
      xp_token(buf, (size_t)a, res, sz);
  } else if (strcmp(w[0], "fsync") == 0) {
    result(res, sz, fsync(xp_fd));
  } else if (strcmp(w[0], "close") == 0) {
    result(res, sz, close(xp_fd));
    xp_fd = -1;
  } else if (strcmp(w[0], "unlink") == 0) {
    result(res, sz, unlink(xp_c.file.path));
  } else if (strcmp(w[0], "umount") == 0) {
    char dir[sizeof xp_c.file.path];
    snprintf(dir, sizeof dir, "%s", xp_c.file.path);
    *strrchr(dir, '/') = '\0';
    result(res, sz, xp_c.file.tmpfs ? umount2(dir, MNT_DETACH) : (errno = ENOTSUP, -1));
  } else {
    return false;
  }
  return true;
}

/* The primitives on one page of a mapping: read, write, gupread, gupwrite, dio. */
static bool prim_page(int self, char **w, int n, char *res, size_t sz) {
  bool store = strcmp(w[0], "write") == 0 || strcmp(w[0], "gupwrite") == 0;
  bool gup = strncmp(w[0], "gup", 3) == 0;
  if (!store && !gup && strcmp(w[0], "read") != 0 && strcmp(w[0], "dio") != 0) return false;
  struct xp_map *m = map_of(self, w, n, 1);
  size_t page;
  char *addr = m ? page_of(m, w, n, 2, &page) : NULL;
  uint64_t v = 0;
  if (!addr || (store ? n != 4 || parse_num(w, n, 3, &v) < 0 : n != 3)) {
    /* A mapping a concurrent munmap or mremap removed is a result of the interleaving, not a bad case. */
    if (!m) return snprintf(res, sz, "nomap"), true;
    xp_die("bad %s", w[0]);
  }
  if (strcmp(w[0], "dio") == 0)
    dio_read(m, addr, page, res, sz);
  else if (gup)
    gup_access(m, addr, page, store, (unsigned)v, res, sz);
  else
    mem_access(m, addr, page, store, (unsigned)v, res, sz);
  return true;
}

void xp_prim_run(int self, char **w, int n, char *res, size_t sz) {
  if (n < 1) xp_die("an empty primitive");
  if (strcmp(w[0], "map") == 0) return prim_map(self, w, n, res, sz);
  if (strcmp(w[0], "fork") == 0) return prim_fork(self, w, n, res, sz);
  if (strcmp(w[0], "mremap") == 0) return prim_mremap(self, w, n, res, sz);
  if (strcmp(w[0], "inval") == 0) return prim_inval(w, n, res, sz);
  if (strcmp(w[0], "stale") == 0) return prim_stale(w, n, res, sz);
  if (strcmp(w[0], "exit") == 0) {
    fflush(NULL);
    _exit(0);
  }
  if (prim_page(self, w, n, res, sz) || prim_range(self, w, n, res, sz) || prim_file(w, n, res, sz)) return;
  xp_die("unknown primitive %s", w[0]);
}

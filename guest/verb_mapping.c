// SPDX-License-Identifier: MIT
/* verb_mapping.c: memory mappings and their page states: mmap, munmap, mremap, msync, pages, pagemap, mincore, fmincore. */
#include "worker.h"

#include <errno.h>
#include <fcntl.h>
#include <stdlib.h>
#include <sys/mman.h>
#include <unistd.h>

int v_mmap(struct req *r) {
  char *path;
  off_t off;
  uint64_t len, addr = 0;
  int flags, prot;
  int e = arg_off(r, 1, "OFFSET", &off);
  if (e || (e = arg_u64(r, 2, "LEN", &len))) return e;
  if (umb_field_eq(r->arg[3], "shared"))
    flags = MAP_SHARED;
  else if (umb_field_eq(r->arg[3], "private"))
    flags = MAP_PRIVATE;
  else
    return bad(r, "MODE (shared or private)");
  if (umb_field_eq(r->arg[4], "r"))
    prot = PROT_READ;
  else if (umb_field_eq(r->arg[4], "rw"))
    prot = PROT_READ | PROT_WRITE;
  else
    return bad(r, "PROT (r or rw)");
  if (r->narg > 5) {
    if ((e = arg_u64(r, 5, "ADDR", &addr))) return e;
    if (addr == 0 || addr > UINTPTR_MAX) return bad(r, "ADDR");
    flags |= MAP_FIXED_NOREPLACE;
  }
  if (len == 0 || len > SIZE_MAX) return bad(r, "LEN");
  if ((e = arg_str(r, 0, "PATH", &path))) return e;
  int oflags = (flags & MAP_SHARED) && (prot & PROT_WRITE) ? O_RDWR : O_RDONLY;
  int fd = open_path(r, path, oflags);
  if (fd < 0) {
    free(path);
    return fd;
  }
  void *p = mmap((void *)(uintptr_t)addr, (size_t)len, prot, flags, fd, off);
  if (p == MAP_FAILED) {
    e = fail(r, errno, "mmap %s", path);
  } else if (addr && (uintptr_t)p != addr) {
    /* A kernel without MAP_FIXED_NOREPLACE treats ADDR as a hint. */
    munmap(p, (size_t)len);
    e = fail(r, EEXIST, "mmap %s: ADDR is taken", path);
  } else {
    e = umb_buf_printf(r->out, " 0x%lx", (unsigned long)(uintptr_t)p);
  }
  close(fd);
  free(path);
  return e;
}

int v_munmap(struct req *r) {
  uintptr_t a;
  uint64_t len;
  int e = arg_range(r, 0, &a, &len);
  if (e) return e;
  if (munmap((void *)a, (size_t)len) < 0) return fail(r, errno, "%s", "munmap");
  return 0;
}

/* Moves a range to NEWADDR, which must be free: an anonymous placeholder taken there with MAP_FIXED_NOREPLACE
 * first, so that MREMAP_FIXED replaces only the placeholder and never another mapping of this process. */
int v_mremap(struct req *r) {
  uintptr_t a;
  uint64_t len, to;
  int e = arg_range(r, 0, &a, &len);
  if (e || (e = arg_u64(r, 2, "NEWADDR", &to))) return e;
  if (to == 0 || to > UINTPTR_MAX || to % r->w->ps) return bad(r, "NEWADDR");
  void *hold =
      mmap((void *)(uintptr_t)to, (size_t)len, PROT_NONE, MAP_PRIVATE | MAP_ANONYMOUS | MAP_FIXED_NOREPLACE, -1, 0);
  if (hold == MAP_FAILED) return fail(r, errno, "%s", "mremap: NEWADDR");
  if ((uintptr_t)hold != to) {
    munmap(hold, (size_t)len);
    return fail(r, EEXIST, "%s", "mremap: NEWADDR is taken");
  }
  void *p = mremap((void *)a, (size_t)len, (size_t)len, MREMAP_MAYMOVE | MREMAP_FIXED, hold);
  if (p == MAP_FAILED) {
    e = fail(r, errno, "%s", "mremap");
    munmap(hold, (size_t)len);
    return e;
  }
  return umb_buf_printf(r->out, " 0x%lx", (unsigned long)(uintptr_t)p);
}

int v_msync(struct req *r) {
  uintptr_t a;
  uint64_t len;
  int e = arg_range(r, 0, &a, &len);
  if (e) return e;
  if (msync((void *)a, (size_t)len, MS_SYNC) < 0) return fail(r, errno, "%s", "msync");
  return 0;
}

/* Reads npages pagemap entries of this process starting at the page of addr. */
static int read_pagemap(struct req *r, uintptr_t addr, uint64_t npages, uint64_t *ent) {
  uint64_t first = addr / r->w->ps;
  if (npages > (UINT64_MAX / 8) - first || (first + npages) * 8 > (uint64_t)INT64_MAX) return bad(r, "range");
  int fd = open_path(r, "/proc/self/pagemap", O_RDONLY);
  if (fd < 0) return fd;
  size_t want = (size_t)npages * 8, got = 0;
  int e = 0;
  while (got < want) {
    ssize_t n = pread(fd, (char *)ent + got, want - got, (off_t)(first * 8 + got));
    if (n == -1 && errno == EINTR) continue;
    if (n < 0) {
      e = io_fail(r, n, "%s", "read /proc/self/pagemap");
      break;
    }
    if (n == 0) {
      e = bad(r, "range (beyond the address space)");
      break;
    }
    got += (size_t)n;
  }
  close(fd);
  return e;
}

static int pages_args(struct req *r, uintptr_t *a, uint64_t *npages, uint64_t max) {
  uint64_t addr;
  int e = arg_u64(r, 0, "ADDR", &addr);
  if (e || (e = arg_u64(r, 1, "NPAGES", npages))) return e;
  if (addr > UINTPTR_MAX) return bad(r, "ADDR");
  if (*npages < 1 || *npages > max) return bad(r, "NPAGES");
  *a = (uintptr_t)addr;
  return 0;
}

int v_pages(struct req *r) {
  uintptr_t a;
  uint64_t npages;
  int e = pages_args(r, &a, &npages, UMB_PAGES_MAX);
  if (e) return e;
  uint64_t *ent = malloc((size_t)npages * 8);
  if (!ent) return -ENOMEM;
  e = read_pagemap(r, a, npages, ent);
  if (!e) e = umb_buf_reserve(r->out, (size_t)npages + 1);
  if (!e) {
    umb_buf_append(r->out, " ", 1);
    for (uint64_t i = 0; i < npages; i++) {
      uint64_t x = ent[i];
      char c = '-';
      if (x >> 63 & 1)
        c = x >> 61 & 1 ? 'F' : 'A';
      else if (x >> 62 & 1)
        c = 'S';
      umb_buf_append(r->out, &c, 1);
    }
  }
  free(ent);
  return e;
}

int v_pagemap(struct req *r) {
  uintptr_t a;
  uint64_t npages;
  int e = pages_args(r, &a, &npages, UMB_PAGEMAP_MAX);
  if (e) return e;
  uint64_t *ent = malloc((size_t)npages * 8);
  if (!ent) return -ENOMEM;
  e = read_pagemap(r, a, npages, ent);
  for (uint64_t i = 0; !e && i < npages; i++) e = umb_buf_printf(r->out, " 0x%016lx", (unsigned long)ent[i]);
  free(ent);
  return e;
}

/* Appends the residency string of the npages pages at page-aligned p. */
static int add_mincore(struct req *r, void *p, uint64_t len, const char *what) {
  uint64_t npages = len / r->w->ps + (len % r->w->ps != 0);
  if (npages < 1 || npages > UMB_PAGES_MAX) return bad(r, "LEN");
  unsigned char *vec = malloc((size_t)npages);
  if (!vec) return -ENOMEM;
  int e = 0;
  if (mincore(p, (size_t)len, vec) < 0) e = fail(r, errno, "mincore %s", what);
  if (!e) e = umb_buf_reserve(r->out, (size_t)npages + 1);
  if (!e) {
    umb_buf_append(r->out, " ", 1);
    for (uint64_t i = 0; i < npages; i++) umb_buf_append(r->out, vec[i] & 1 ? "1" : "0", 1);
  }
  free(vec);
  return e;
}

int v_mincore(struct req *r) {
  uintptr_t a;
  uint64_t len;
  int e = arg_range(r, 0, &a, &len);
  if (e) return e;
  return add_mincore(r, (void *)a, len, "range");
}

int v_fmincore(struct req *r) {
  char *path;
  off_t off;
  uint64_t len;
  int e = arg_off(r, 1, "OFFSET", &off);
  if (e || (e = arg_u64(r, 2, "LEN", &len))) return e;
  uint64_t skew = (uint64_t)off % r->w->ps;
  if (len == 0 || len > UMB_PAGES_MAX * r->w->ps) return bad(r, "LEN");
  if ((e = arg_str(r, 0, "PATH", &path))) return e;
  int fd = open_path(r, path, O_RDONLY);
  if (fd < 0) {
    free(path);
    return fd;
  }
  size_t maplen = (size_t)(len + skew);
  void *p = mmap(NULL, maplen, PROT_READ, MAP_PRIVATE, fd, off - (off_t)skew);
  close(fd);
  if (p == MAP_FAILED) {
    e = fail(r, errno, "mmap %s", path);
  } else {
    e = add_mincore(r, p, maplen, path);
    munmap(p, maplen);
  }
  free(path);
  return e;
}

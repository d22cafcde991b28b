// SPDX-License-Identifier: MIT
/* failalloc.c: an LD_PRELOAD shim for regress.t: in the umlbed runner, one kind of allocation made by the runner's own code fails, as it may when memory runs out. */
#define _GNU_SOURCE
#include <errno.h>
#include <fcntl.h>
#include <link.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include <uv.h>

#include "output.h"

/* glibc's allocators under other names: dlsym(RTLD_NEXT) would itself call calloc. */
extern void *__libc_calloc(size_t n, size_t size);
extern void *__libc_realloc(void *p, size_t size);

/* The runner's own code: only its calls fail, not libuv's, Lua's or the loader's of the same size. */
static uintptr_t text_lo, text_hi;
/* FAILALLOC says which allocation fails:
 *   work   calloc(1, sizeof(uv_work_t)): the request that removes a run folder at the end of a run (the default);
 *   buf2m  realloc to 2 MiB: an argument buffer growing past 1 MiB (a guest call with a 1 MiB field);
 *   jobs3  realloc to three jobs: the run list growing to its third run. */
static enum { OFF, WORK, BUF2M, JOBS3 } mode;

/* The first object dl_iterate_phdr reports is the program itself. */
static int program_text(struct dl_phdr_info *info, size_t size, void *data) {
  (void)size;
  (void)data;
  for (int i = 0; i < info->dlpi_phnum; i++) {
    const ElfW(Phdr) *p = &info->dlpi_phdr[i];
    if (p->p_type != PT_LOAD || !(p->p_flags & PF_X)) continue;
    uintptr_t lo = info->dlpi_addr + p->p_vaddr, hi = lo + p->p_memsz;
    if (text_hi == 0 || lo < text_lo) text_lo = lo;
    if (hi > text_hi) text_hi = hi;
  }
  return 1;
}

/* Armed in the runner and its run processes only (the fake kernel is umlbed-test and keeps its memory). A run process
 * is the runner's program executed again through a descriptor (its name a number), "__run" its first argument;
 * glibc hands a constructor the program's arguments. */
__attribute__((constructor)) static void failalloc_init(int argc, char **argv) {
  int run_process = argc > 1 && argv != NULL && strcmp(argv[1], "__run") == 0;
  if (strcmp(program_invocation_short_name, "umlbed") != 0 && !run_process) return;
  dl_iterate_phdr(program_text, NULL);
  if (text_hi <= text_lo) return;
  const char *m = getenv("FAILALLOC");
  mode = m == NULL || !strcmp(m, "work") ? WORK : !strcmp(m, "buf2m") ? BUF2M : !strcmp(m, "jobs3") ? JOBS3 : OFF;
}

static int from_runner(uintptr_t from) { return from >= text_lo && from < text_hi; }

/* The test counts these lines: they prove the failure hit the runner. They go to the file FAILALLOC_LOG names (the
 * test's own record, apart from what the runner prints), else, and where a run process's walls refuse that file,
 * to standard error. */
static void *fail(const char *what) {
  char msg[128];
  size_t n = (size_t)snprintf(msg, sizeof msg, "failalloc: %s in the runner fails\n", what);
  const char *log = getenv("FAILALLOC_LOG");
  int fd = log ? open(log, O_WRONLY | O_CREAT | O_APPEND | O_CLOEXEC, 0644) : 2;
  if (fd < 0) fd = 2;
  if (fd >= 0) {
    ssize_t w = write(fd, msg, n < sizeof msg ? n : sizeof msg - 1);
    (void)w;
    if (fd != 2) close(fd);
  }
  errno = ENOMEM;
  return NULL;
}

void *calloc(size_t n, size_t size) {
  uintptr_t from = (uintptr_t)__builtin_extract_return_addr(__builtin_return_address(0));
  if (mode == WORK && n == 1 && size == sizeof(uv_work_t) && from_runner(from))
    return fail("calloc(1, sizeof(uv_work_t))");
  return __libc_calloc(n, size);
}

void *realloc(void *p, size_t size) {
  uintptr_t from = (uintptr_t)__builtin_extract_return_addr(__builtin_return_address(0));
  if (mode == BUF2M && size == (2u << 20) && from_runner(from)) return fail("realloc to 2 MiB");
  if (mode == JOBS3 && size == 3 * sizeof(job) && from_runner(from)) return fail("realloc to three jobs");
  return __libc_realloc(p, size);
}

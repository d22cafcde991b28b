/* failalloc.c: an LD_PRELOAD shim for regress.t (issue 8, bug 1): in the umlbed runner, calloc(1, sizeof(uv_work_t))
 * called from the runner's own code fails, as it may when memory runs out at the end of a scenario. */
#define _GNU_SOURCE
#include <errno.h>
#include <link.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include <uv.h>

/* glibc's calloc under another name: dlsym(RTLD_NEXT) would itself call calloc. */
extern void *__libc_calloc(size_t n, size_t size);

/* The runner's own code: only its calls fail, not libuv's, Lua's or the loader's of the same size. */
static uintptr_t text_lo, text_hi;
static int armed;

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

/* Armed in the runner only (the fake kernel is umlbed-test and keeps its memory). */
__attribute__((constructor)) static void failalloc_init(void) {
  if (strcmp(program_invocation_short_name, "umlbed") != 0) return;
  dl_iterate_phdr(program_text, NULL);
  armed = text_hi > text_lo;
}

void *calloc(size_t n, size_t size) {
  uintptr_t from = (uintptr_t)__builtin_extract_return_addr(__builtin_return_address(0));
  if (armed && n == 1 && size == sizeof(uv_work_t) && from >= text_lo && from < text_hi) {
    /* The test counts these lines: it proves the failure hit the runner. */
    static const char msg[] = "failalloc: calloc(1, sizeof(uv_work_t)) in the runner fails\n";
    ssize_t w = write(2, msg, sizeof msg - 1);
    (void)w;
    errno = ENOMEM;
    return NULL;
  }
  return __libc_calloc(n, size);
}

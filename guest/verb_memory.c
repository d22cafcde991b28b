// SPDX-License-Identifier: MIT
/* verb_memory.c: user memory, with faults caught: touch, peek, poke, faults, and the loops of race scenarios. */
#include "worker.h"

#include <errno.h>
#include <fcntl.h>
#include <linux/futex.h>
#include <setjmp.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/resource.h>
#include <sys/stat.h>
#include <sys/syscall.h>
#include <time.h>
#include <unistd.h>

#define LOOP_MAX ((uint64_t)1 << 32)

/*
 * The first page of a loop control file (loop CTL, loopwait, loopstop), mapped shared by every party, so a loop
 * polls its stop word with a plain load and a waiter sleeps on a futex: no iteration count or sleep stands in for
 * "the loops are running" or "stop now".
 */
struct loopctl {
  uint32_t stop;      /* Non-zero: every loop on this control returns. */
  uint32_t started;   /* Loops that have finished their first pass over their range. */
  uint32_t unstarted; /* Loops that ended before finishing a first pass (a fault, or stop was already set). */
  uint32_t gen;       /* Bumped (and futex-woken) after started or unstarted changed. */
};

bool umb_time_travel;

/* ---- guarded user-memory access: SIGSEGV/SIGBUS become EFAULT ---- */

static sigjmp_buf fault_jmp;
static volatile sig_atomic_t fault_armed;
/* The control page of the running loop verb, or NULL: OP_ACCESS then stops on its stop word. */
static struct loopctl *loop_ctl;
static void *volatile fault_addr;
static volatile int fault_sig;

static void on_fault(int sig, siginfo_t *si, void *uc) {
  (void)uc;
  if (!fault_armed) {
    /* A fault outside a guarded access is a bug: die of it, as the default action would. */
    signal(sig, SIG_DFL);
    return;
  }
  fault_armed = 0;
  fault_addr = si->si_addr;
  fault_sig = sig;
  siglongjmp(fault_jmp, 1);
}

void install_fault_handlers(void) {
  static char altstack[64 * 1024];
  stack_t ss = {.ss_sp = altstack, .ss_size = sizeof altstack};
  sigaltstack(&ss, NULL);
  struct sigaction sa = {.sa_sigaction = on_fault, .sa_flags = SA_SIGINFO | SA_ONSTACK};
  sigemptyset(&sa.sa_mask);
  sigaction(SIGSEGV, &sa, NULL);
  sigaction(SIGBUS, &sa, NULL);
}

/* One access per page overlapping [a, a + len): at a itself for the first page, at the page start after it. */
__attribute__((noinline, no_sanitize_address)) static void access_pages(uintptr_t a, uint64_t len, bool write,
                                                                        uintptr_t ps) {
  if (len == 0) return;
  uintptr_t end = a + len;
  for (uintptr_t p = a; p < end;) {
    volatile char *c = (volatile char *)p;
    char v = *c;
    if (write) *c = v;
    uintptr_t next = (p & ~(ps - 1)) + ps;
    if (next < p) break;
    p = next;
  }
}

__attribute__((noinline, no_sanitize_address)) static void copy_in(char *dst, uintptr_t src, size_t n) {
  const volatile char *s = (const volatile char *)src;
  for (size_t i = 0; i < n; i++) dst[i] = s[i];
}

__attribute__((noinline, no_sanitize_address)) static void copy_out(uintptr_t dst, const char *src, size_t n) {
  volatile char *d = (volatile char *)dst;
  for (size_t i = 0; i < n; i++) d[i] = src[i];
}

enum { OP_ACCESS, OP_PEEK, OP_POKE };

static long futex(uint32_t *word, int op, uint32_t val) { return syscall(SYS_futex, word, op, val, NULL, NULL, 0); }

/*
 * In time-travel mode a busy process is never preempted, and sched_yield() is no help: with the clock stopped,
 * every task looks equally owed. Blocking for the shortest time lets the others run and, once all are idle, lets
 * time move on to the next event.
 */
static void loop_pause(void) {
  struct timespec ns = {0, 1};
  nanosleep(&ns, NULL);
}

/* Counts one loop in *field and wakes whoever waits for the loops (shared futex: the waiter is another process). */
static void loopctl_count(struct loopctl *ctl, uint32_t *field) {
  __atomic_fetch_add(field, 1, __ATOMIC_SEQ_CST);
  __atomic_fetch_add(&ctl->gen, 1, __ATOMIC_SEQ_CST);
  futex(&ctl->gen, FUTEX_WAKE, INT32_MAX);
}

/* Runs one memory operation (count times for OP_ACCESS) with faults caught; returns 0 or -EFAULT. */
static int guarded(struct req *r, int op, uintptr_t a, uint64_t len, bool write, char *buf, uint64_t count,
                   uint64_t *iterations) {
  static volatile uint64_t done;
  done = 0;
  if (sigsetjmp(fault_jmp, 1)) {
    if (iterations) *iterations = done;
    snprintf(r->ctx, sizeof r->ctx, "%s at %p", fault_sig == SIGBUS ? "SIGBUS" : "SIGSEGV", (void *)fault_addr);
    return -EFAULT;
  }
  fault_armed = 1;
  switch (op) {
    case OP_ACCESS:
      while (done < count || (loop_ctl && count == 0)) {
        if (loop_ctl && __atomic_load_n(&loop_ctl->stop, __ATOMIC_RELAXED)) break;
        access_pages(a, len, write, r->w->ps);
        done = done + 1;
        if (loop_ctl && done == 1) loopctl_count(loop_ctl, &loop_ctl->started);
        if (loop_ctl && umb_time_travel) loop_pause();
      }
      break;
    case OP_PEEK:
      copy_in(buf, a, len);
      break;
    case OP_POKE:
      copy_out(a, buf, len);
      break;
  }
  fault_armed = 0;
  if (iterations) *iterations = done;
  return 0;
}

/* ---- verbs ---- */

int v_touch(struct req *r) {
  uintptr_t a;
  uint64_t len;
  bool write;
  int e = arg_range(r, 0, &a, &len);
  if (e || (e = arg_rw(r, 2, &write))) return e;
  return guarded(r, OP_ACCESS, a, len, write, NULL, 1, NULL);
}

/* Maps the first page of the loop control file path (a tmpfs file of at least one page) shared. */
static int map_loopctl(struct req *r, size_t i, struct loopctl **ctl) {
  char *path;
  int e = arg_str(r, i, "CTL", &path);
  if (e) return e;
  int fd = open_path(r, path, O_RDWR);
  free(path);
  if (fd < 0) return fd;
  struct stat st;
  if (fstat(fd, &st) < 0 || (uintptr_t)st.st_size < r->w->ps) {
    close(fd);
    return fail(r, EINVAL, "%s", "CTL is shorter than a page");
  }
  void *p = mmap(NULL, r->w->ps, PROT_READ | PROT_WRITE, MAP_SHARED, fd, 0);
  e = errno;
  close(fd);
  if (p == MAP_FAILED) return fail(r, e, "%s", "mmap CTL");
  *ctl = p;
  return 0;
}

int v_loop(struct req *r) {
  uintptr_t a;
  uint64_t len, count, done = 0;
  bool write;
  struct loopctl *ctl = NULL;
  int e = arg_range(r, 0, &a, &len);
  if (e || (e = arg_rw(r, 2, &write)) || (e = arg_u64(r, 3, "COUNT", &count))) return e;
  if (count > LOOP_MAX) return bad(r, "COUNT (at most 2^32)");
  if (r->narg > 4 && (e = map_loopctl(r, 4, &ctl))) return e;
  loop_ctl = ctl;
  e = guarded(r, OP_ACCESS, a, len, write, NULL, count, &done);
  if (ctl && done == 0) loopctl_count(ctl, &ctl->unstarted);
  loop_ctl = NULL;
  if (ctl) munmap(ctl, r->w->ps);
  if (e)
    snprintf(r->ctx + strlen(r->ctx), sizeof r->ctx - strlen(r->ctx), " in iteration %lu", (unsigned long)done);
  else
    e = umb_buf_printf(r->out, " %lu", (unsigned long)done);
  return e;
}

/* Waits until N loops on CTL have started or ended unstarted; replies how many of each. */
int v_loopwait(struct req *r) {
  struct loopctl *ctl;
  uint64_t n;
  int e = arg_u64(r, 1, "N", &n);
  if (e || (e = map_loopctl(r, 0, &ctl))) return e;
  for (;;) {
    uint32_t gen = __atomic_load_n(&ctl->gen, __ATOMIC_SEQ_CST);
    uint64_t seen =
        (uint64_t)__atomic_load_n(&ctl->started, __ATOMIC_SEQ_CST) + __atomic_load_n(&ctl->unstarted, __ATOMIC_SEQ_CST);
    if (seen >= n) break;
    /* EAGAIN: gen moved between the load and the wait; EINTR: a signal. Both look again. */
    futex(&ctl->gen, FUTEX_WAIT, gen);
  }
  e = umb_buf_printf(r->out, " %u %u", ctl->started, ctl->unstarted);
  munmap(ctl, r->w->ps);
  return e;
}

/* Sets the stop word of CTL: every loop on it returns after its current pass. */
int v_loopstop(struct req *r) {
  struct loopctl *ctl;
  int e = map_loopctl(r, 0, &ctl);
  if (e) return e;
  __atomic_store_n(&ctl->stop, 1, __ATOMIC_SEQ_CST);
  e = umb_buf_printf(r->out, " %u %u", ctl->started, ctl->unstarted);
  munmap(ctl, r->w->ps);
  return e;
}

int v_faults(struct req *r) {
  uintptr_t a;
  uint64_t len;
  bool write;
  int e = arg_range(r, 0, &a, &len);
  if (e || (e = arg_rw(r, 2, &write))) return e;
  /*
	 * Warm up everything the measured access uses (this function's stack, the access code's text page, the jump
	 * buffer), so that the only faults counted are the ones the range itself takes. A forked worker would
	 * otherwise take COW or text faults here on its first call.
	 */
  struct rusage ru[2];
  struct timespec t[2];
  volatile char warm = 0;
  getrusage(RUSAGE_SELF, &ru[0]);
  getrusage(RUSAGE_SELF, &ru[1]);
  /* The clock too: its first call faults in the vDSO's text and data pages. */
  clock_gettime(CLOCK_MONOTONIC, &t[0]);
  clock_gettime(CLOCK_MONOTONIC, &t[1]);
  guarded(r, OP_ACCESS, (uintptr_t)&warm, 1, write, NULL, 1, NULL);
  getrusage(RUSAGE_SELF, &ru[0]);
  clock_gettime(CLOCK_MONOTONIC, &t[0]);
  e = guarded(r, OP_ACCESS, a, len, write, NULL, 1, NULL);
  clock_gettime(CLOCK_MONOTONIC, &t[1]);
  getrusage(RUSAGE_SELF, &ru[1]);
  if (e) return e;
  /* The access's own time, faults included: what a refault costs without the protocol around it. */
  long long ns = (long long)(t[1].tv_sec - t[0].tv_sec) * 1000000000LL + (t[1].tv_nsec - t[0].tv_nsec);
  return umb_buf_printf(r->out, " %ld %ld %lld", ru[1].ru_minflt - ru[0].ru_minflt, ru[1].ru_majflt - ru[0].ru_majflt,
                        ns > 0 ? ns : 0);
}

int v_peek(struct req *r) {
  uintptr_t a;
  uint64_t len;
  int e = arg_range(r, 0, &a, &len);
  if (e) return e;
  if (len > UMB_DATA_MAX) return bad(r, "LEN (at most 1 MiB)");
  char *buf = malloc(len ? len : 1);
  if (!buf) return -ENOMEM;
  e = guarded(r, OP_PEEK, a, len, false, buf, 1, NULL);
  if (!e && !(e = umb_buf_puts(r->out, " "))) e = umb_pct_encode(r->out, buf, len);
  free(buf);
  return e;
}

int v_poke(struct req *r) {
  uint64_t a;
  umb_buf data = {0};
  int e = arg_u64(r, 0, "ADDR", &a);
  if (e || (e = arg_data(r, 1, &data))) goto out;
  size_t n = data.len;
  if (a > UINTPTR_MAX || n > UINTPTR_MAX - a) {
    e = bad(r, "range (it wraps)");
    goto out;
  }
  e = guarded(r, OP_POKE, (uintptr_t)a, n, true, umb_bytes(&data), 1, NULL);
out:
  umb_buf_free(&data);
  return e;
}

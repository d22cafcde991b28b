/* worker.c: the verbs of the protocol, executed in a worker process (or in the agent's hidden helper for PID 1). */
#include "worker.h"

#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <grp.h>
#include <linux/capability.h>
#include <linux/futex.h>
#include <limits.h>
#include <poll.h>
#include <sched.h>
#include <setjmp.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/klog.h>
#include <sys/ioctl.h>
#include <sys/mman.h>
#include <sys/resource.h>
#include <sys/socket.h>
#include <sys/stat.h>
#include <sys/syscall.h>
#include <sys/utsname.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#define TRIGGER_PATH "/sys/kernel/mm/invalidate_mmap_range/trigger"
#define STATS_PATH "/sys/kernel/mm/invalidate_mmap_range/stats"
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

/* ---- argument helpers ---- */

int bad(struct req *r, const char *what) {
  snprintf(r->ctx, sizeof r->ctx, "bad %s", what);
  return -EINVAL;
}

int arg_u64(struct req *r, size_t i, const char *what, uint64_t *v) {
  if (umb_field_num(r->arg[i], v) < 0) return bad(r, what);
  return 0;
}

int arg_off(struct req *r, size_t i, const char *what, off_t *v) {
  uint64_t x;
  if (umb_field_num(r->arg[i], &x) < 0 || x > (uint64_t)INT64_MAX) return bad(r, what);
  *v = (off_t)x;
  return 0;
}

int arg_str(struct req *r, size_t i, const char *what, char **s) {
  int e = umb_pct_decode_str(r->arg[i], s);
  if (e == -EINVAL) return bad(r, what);
  return e;
}

int arg_data(struct req *r, size_t i, umb_buf *b) {
  int e = umb_pct_decode_buf(r->arg[i].p, r->arg[i].n, b);
  if (e == -EINVAL) return bad(r, "DATA");
  return e;
}

/* A user address range [addr, addr + len) that does not wrap. */
int arg_range(struct req *r, size_t i, uintptr_t *addr, uint64_t *len) {
  uint64_t a;
  int e = arg_u64(r, i, "ADDR", &a);
  if (e == 0) e = arg_u64(r, i + 1, "LEN", len);
  if (e == 0 && (a > UINTPTR_MAX || *len > UINTPTR_MAX - a)) e = bad(r, "range (it wraps)");
  *addr = (uintptr_t)a;
  return e;
}

int arg_rw(struct req *r, size_t i, bool *write) {
  if (umb_field_eq(r->arg[i], "r"))
    *write = false;
  else if (umb_field_eq(r->arg[i], "w"))
    *write = true;
  else
    return bad(r, "access (r or w)");
  return 0;
}

int fail(struct req *r, int err, const char *fmt, const char *s) {
  snprintf(r->ctx, sizeof r->ctx, fmt, s);
  return -err;
}

int open_path(struct req *r, const char *path, int flags) {
  int fd = open(path, flags | O_CLOEXEC | O_NOCTTY);
  if (fd < 0) return fail(r, errno, "open %s", path);
  return fd;
}

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

int v_hello(struct req *r) {
  struct utsname u;
  uname(&u);
  int e = umb_buf_printf(r->out, " %d %lu ", UMB_PROTOCOL_VERSION, (unsigned long)r->w->ps);
  return e ? e : umb_pct_encode(r->out, u.release, strlen(u.release));
}

static int send_adopt(int chan, pid_t pid, int fd) {
  char line[64];
  int n = snprintf(line, sizeof line, "~adopt %d\n", (int)pid);
  struct iovec iov = {.iov_base = line, .iov_len = (size_t)n};
  union {
    char buf[CMSG_SPACE(sizeof(int))];
    struct cmsghdr align;
  } u;
  memset(&u, 0, sizeof u);
  struct msghdr mh = {.msg_iov = &iov, .msg_iovlen = 1, .msg_control = u.buf, .msg_controllen = sizeof u.buf};
  struct cmsghdr *c = CMSG_FIRSTHDR(&mh);
  c->cmsg_level = SOL_SOCKET;
  c->cmsg_type = SCM_RIGHTS;
  c->cmsg_len = CMSG_LEN(sizeof(int));
  memcpy(CMSG_DATA(c), &fd, sizeof fd);
  for (;;) {
    ssize_t s = sendmsg(chan, &mh, MSG_NOSIGNAL);
    if (s == n) return 0;
    if (s < 0 && errno == EINTR) continue;
    return s < 0 ? -errno : -EIO;
  }
}

/*
 * Makes n workers. Each is created with CLONE_PARENT so that it is a child of PID 1, which reaps it and reports its
 * exit status; otherwise it is an ordinary fork() of this process and inherits its mappings. Its channel's other end
 * goes to PID 1 in a "~adopt" line before the reply, so it is addressable once the reply arrives.
 */
static int do_fork(struct req *r, uint64_t n) {
  pid_t pids[UMB_FORK_MAX];
  size_t made = 0;
  int err = 0;
  for (; made < n; made++) {
    int sp[2];
    if (socketpair(AF_UNIX, SOCK_STREAM | SOCK_CLOEXEC, 0, sp) < 0) {
      err = fail(r, errno, "%s", "socketpair");
      break;
    }
    long pid = syscall(SYS_clone, CLONE_PARENT | SIGCHLD, NULL, NULL, NULL, NULL);
    if (pid < 0) {
      err = fail(r, errno, "%s", "clone");
      close(sp[0]);
      close(sp[1]);
      break;
    }
    if (pid == 0) {
      close(sp[0]);
      close(r->w->chan);
      r->w->chan = sp[1];
      r->w->role = UMB_ROLE_WORKER;
      r->after = AFTER_CHILD;
      return 0;
    }
    close(sp[1]);
    int e = send_adopt(r->w->chan, (pid_t)pid, sp[0]);
    close(sp[0]);
    if (e < 0) {
      kill((pid_t)pid, SIGKILL);
      err = fail(r, -e, "%s", "send channel to PID 1");
      break;
    }
    pids[made] = (pid_t)pid;
  }
  if (err) {
    /* All or nothing: the runner never learns these pids, so they must not live on. */
    for (size_t i = 0; i < made; i++) kill(pids[i], SIGKILL);
    return err;
  }
  for (size_t i = 0; i < made; i++) {
    int e = umb_buf_printf(r->out, " %d", (int)pids[i]);
    if (e) return e;
  }
  return 0;
}

int v_spawn(struct req *r) { return do_fork(r, 1); }

int v_fork(struct req *r) {
  uint64_t n;
  int e = arg_u64(r, 0, "N", &n);
  if (e) return e;
  if (n < 1 || n > UMB_FORK_MAX) return bad(r, "N (1..256)");
  return do_fork(r, n);
}

int v_exit(struct req *r) {
  uint64_t code = 0;
  if (r->narg > 0) {
    int e = arg_u64(r, 0, "CODE", &code);
    if (e) return e;
    if (code > 255) return bad(r, "CODE (0..255)");
  }
  r->after = AFTER_EXIT;
  r->exit_code = (int)code;
  return 0;
}

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

int v_setuid(struct req *r) {
  uint64_t uid;
  int e = arg_u64(r, 0, "UID", &uid);
  if (e) return e;
  if (uid >= UINT32_MAX) return bad(r, "UID");
  if (setgroups(0, NULL) < 0) return fail(r, errno, "%s", "setgroups");
  if (setresgid((gid_t)uid, (gid_t)uid, (gid_t)uid) < 0) return fail(r, errno, "%s", "setresgid");
  if (setresuid((uid_t)uid, (uid_t)uid, (uid_t)uid) < 0) return fail(r, errno, "%s", "setresuid");
  return 0;
}

/* Root without capabilities: the worker keeps uid 0 (so it may open root's 0200 files) but capable() fails. */
int v_capdrop(struct req *r) {
  struct __user_cap_header_struct h = {.version = _LINUX_CAPABILITY_VERSION_3, .pid = 0};
  struct __user_cap_data_struct d[_LINUX_CAPABILITY_U32S_3];
  memset(d, 0, sizeof d);
  if (syscall(SYS_capset, &h, d) < 0) return fail(r, errno, "%s", "capset");
  return 0;
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

/* The dispatch table: one function for each row of the protocol's verb table (protocol/verbs.h); a verb without
 * its v_ function does not compile. */
#define VERB_FN_(name, amin, amax, flags, nf, nb) [UMB_VERB_##name] = v_##name,
static int (*const verb_fn[UMB_NVERBS])(struct req *r) = {UMB_VERBS(VERB_FN_)};
#undef VERB_FN_

/* PID 1 hands "fork N" to its helper too: there it makes N fresh workers, like N spawns. */
static int check_role(struct req *r, const umb_verb *v) {
  if ((v->flags & UMB_VF_AGENT_ONLY) && r->w->role != UMB_ROLE_AGENT)
    return fail(r, EPERM, "%s is accepted by PID 1 only", v->name);
  if ((v->flags & (UMB_VF_MAPPING | UMB_VF_WORKER_ONLY)) && r->w->role == UMB_ROLE_AGENT)
    return fail(r, EPERM, "PID 1 does not accept %s: use a worker", v->name);
  return 0;
}

static void reply_header(umb_buf *b, const char *id, umb_field verb) {
  umb_buf_puts(b, id);
  umb_buf_puts(b, " ");
  if (umb_verb_name_ok(verb.p, verb.n))
    umb_buf_append(b, verb.p, verb.n);
  else
    umb_buf_puts(b, "error");
}

/* Executes one request line and writes its reply; returns AFTER_* for the command loop. */
static int handle_line(struct wctx *w, const char *line, size_t len, struct req *r, umb_buf *reply) {
  static umb_field toks[UMB_ARGS_MAX + 3];
  umb_buf fields = {0};
  char idbuf[24] = "0";
  umb_field verb = {"error", 5};
  const umb_verb *v = NULL;
  int n = umb_split(line, len, toks, UMB_ARGS_MAX + 3);
  int e = 0;
  memset(r, 0, sizeof *r);
  r->w = w;
  r->out = &fields;
  uint64_t id;
  /* The ID is taken even from a line that does not split, so that PID 1 can match the reply. */
  const char *sp = memchr(line, ' ', len);
  umb_field idtok = {line, sp ? (size_t)(sp - line) : len};
  if (umb_field_id(idtok, &id) == 0) snprintf(idbuf, sizeof idbuf, "%lu", (unsigned long)id);
  if (n >= 3 || n == -E2BIG) verb = toks[2];
  if (n == -E2BIG)
    e = fail(r, E2BIG, "%s", "too many fields");
  else if (n < 3 || idbuf[0] == '0')
    e = bad(r, "request (expected ID PID VERB ARG...)");
  else if (!(v = umb_verb_find(verb.p, verb.n)))
    e = fail(r, ENOSYS, "%s", "unknown verb");
  else if ((size_t)n - 3 < v->args_min || (size_t)n - 3 > v->args_max)
    e = bad(r, "argument count");
  else if (!(e = check_role(r, v))) {
    r->arg = toks + 3;
    r->narg = (size_t)n - 3;
    e = verb_fn[v - umb_verbs](r);
  }
  /* The verb table bounds every reply (protocol/verbs.h); one beyond the line limit would be a bug here, and the
   * runner could not read it. */
  if (e == 0 && UMB_HEAD_BYTES + fields.len + 1 > UMB_LINE_MAX) e = fail(r, E2BIG, "%s", "reply longer than a line");
  if (r->after == AFTER_CHILD) {
    umb_buf_free(&fields);
    return AFTER_CHILD;
  }
  umb_buf_reset(reply);
  reply_header(reply, idbuf, verb);
  if (e == 0) {
    umb_buf_puts(reply, " ok");
    umb_buf_append(reply, umb_bytes(&fields), fields.len);
  } else {
    const char *why = strerror(-e);
    char msg[UMB_ERRMSG_MAX + 1];
    if (r->ctx[0])
      snprintf(msg, sizeof msg, "%s: %s", r->ctx, why);
    else
      snprintf(msg, sizeof msg, "%s", why);
    umb_buf_printf(reply, " err %s ", umb_errname(-e));
    umb_pct_encode(reply, msg, strlen(msg));
    r->after = AFTER_NOTHING;
  }
  umb_buf_free(&fields);
  if (umb_buf_append(reply, "\n", 1) < 0) {
    /* Out of memory for the reply itself: answer with a fixed-size one. */
    char small[96];
    int k = snprintf(small, sizeof small, "%s error err ENOMEM -\n", idbuf);
    umb_buf_reset(reply);
    if (umb_buf_append(reply, small, (size_t)k) < 0) _exit(3);
  }
  if (umb_write_all(w->chan, umb_bytes(reply), reply->len) < 0) _exit(1); /* PID 1 is gone: nobody is left to serve. */
  if (reply->len > 65536) umb_buf_free(reply); /* Do not keep a large reply's memory around in every worker. */
  return r->after;
}

void umb_worker_main(int chan, enum umb_role role) {
  struct wctx w = {.chan = chan, .role = role, .ps = (uintptr_t)sysconf(_SC_PAGESIZE)};
  struct umb_queue in = {0};
  umb_buf reply = {0};
  struct req r;
  size_t scanned = 0;
  signal(SIGPIPE, SIG_IGN);
  signal(SIGCHLD, SIG_DFL);
  install_fault_handlers();
  sigset_t none;
  sigemptyset(&none);
  sigprocmask(SIG_SETMASK, &none, NULL);
  for (;;) {
    char *nl;
    while ((nl = memchr(umb_q_data(&in) + scanned, '\n', umb_q_size(&in) - scanned))) {
      char *line = umb_q_data(&in);
      size_t len = (size_t)(nl - line);
      int after = handle_line(&w, line, len, &r, &reply);
      umb_q_consume(&in, len + 1);
      scanned = 0;
      if (after == AFTER_EXIT) _exit(r.exit_code);
      if (after == AFTER_CHILD) {
        /* A new worker: the rest of the buffer was its parent's. */
        umb_q_clear(&in);
        umb_buf_free(&reply);
      }
    }
    scanned = umb_q_size(&in);
    if (scanned > UMB_LINE_MAX) _exit(2); /* PID 1 never forwards such a line. */
    if (umb_q_reserve(&in, 65536) < 0) _exit(3);
    ssize_t n = read(w.chan, in.b.data + in.b.len, 65536);
    if (n < 0 && errno == EINTR) continue;
    if (n <= 0) _exit(n == 0 ? 0 : 1);
    in.b.len += (size_t)n;
  }
}

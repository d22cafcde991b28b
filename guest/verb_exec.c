// SPDX-License-Identifier: MIT
/* verb_exec.c: exec and run: a program in a process group of its own, its output and status, a timeout. */
#include "worker.h"

#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <grp.h>
#include <poll.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/ioctl.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

static int status_field(umb_buf *b, int st) {
  if (WIFSIGNALED(st)) return umb_buf_printf(b, " signal:%d", WTERMSIG(st));
  return umb_buf_printf(b, " exit:%d", WEXITSTATUS(st));
}

/* What `run` adds to `exec`: a working directory, environment entries, a user (NULL, NULL, -1: none). */
struct exec_opts {
  const char *cwd;
  char **env;
  long long uid;
};

/* exec's environment; run's ENV entries are added to it. */
#define EXEC_PATH "PATH=/bin:/sbin:/usr/bin:/usr/sbin"
#define EXEC_HOME "HOME=/"

/* run's largest TIMEOUT_MS (about 24.8 days): a deadline in ms on the monotonic clock can never wrap. */
#define RUN_TIMEOUT_MAX 2147483647

/* The steps of the child between fork and execve; a failure reports its step and errno on the error pipe, so that
 * the reply names what failed (a bad CWD is "chdir CWD", not "execve PATH"). */
enum exec_step { STEP_CHDIR, STEP_SETGROUPS, STEP_SETRESGID, STEP_SETRESUID, STEP_EXECVE };

struct exec_failure {
  int step;
  int err;
};

static void __attribute__((noreturn)) child_fail(int errfd, int step) {
  struct exec_failure f = {step, errno};
  (void)!write(errfd, &f, sizeof f);
  _exit(127);
}

/* In the child: a process group of its own (so that a timeout can kill whatever it started), the options, stdout and
 * stderr to the pipe, default signals, then execve. */
static void __attribute__((noreturn)) exec_child(int outfd, int errfd, char **argv, const struct exec_opts *o) {
  static char *envp[] = {EXEC_PATH, EXEC_HOME, NULL};
  setpgid(0, 0);
  if (o && o->cwd && chdir(o->cwd) < 0) child_fail(errfd, STEP_CHDIR);
  if (o && o->uid >= 0) {
    if (setgroups(0, NULL) < 0) child_fail(errfd, STEP_SETGROUPS);
    if (setresgid((gid_t)o->uid, (gid_t)o->uid, (gid_t)o->uid) < 0) child_fail(errfd, STEP_SETRESGID);
    if (setresuid((uid_t)o->uid, (uid_t)o->uid, (uid_t)o->uid) < 0) child_fail(errfd, STEP_SETRESUID);
  }
  int null = open("/dev/null", O_RDONLY);
  if (null >= 0 && null != 0) {
    dup2(null, 0);
    close(null);
  } else if (null < 0) {
    close(0);
  }
  dup2(outfd, 1);
  dup2(outfd, 2);
  signal(SIGPIPE, SIG_DFL);
  signal(SIGSEGV, SIG_DFL);
  signal(SIGBUS, SIG_DFL);
  signal(SIGCHLD, SIG_DFL);
  sigset_t none;
  sigemptyset(&none);
  sigprocmask(SIG_SETMASK, &none, NULL);
  execve(argv[0], argv, o && o->env ? o->env : envp);
  child_fail(errfd, STEP_EXECVE);
}

/* The reply's message for a step that failed in the child. */
static int exec_failed(struct req *r, const struct exec_failure *f, char *const *argv, const struct exec_opts *o) {
  switch (f->step) {
    case STEP_CHDIR:
      return fail(r, f->err, "chdir %s", o->cwd);
    case STEP_SETGROUPS:
      return fail(r, f->err, "%s", "setgroups");
    case STEP_SETRESGID:
      snprintf(r->ctx, sizeof r->ctx, "setresgid %lld", o->uid);
      return -f->err;
    case STEP_SETRESUID:
      snprintf(r->ctx, sizeof r->ctx, "setresuid %lld", o->uid);
      return -f->err;
    default:
      return fail(r, f->err, "execve %s", argv[0]);
  }
}

/* Milliseconds on the monotonic clock. */
static long long mono_ms(void) {
  struct timespec t;
  clock_gettime(CLOCK_MONOTONIC, &t);
  return t.tv_sec * 1000LL + t.tv_nsec / 1000000;
}

/* Interrupts the wait of exec_common (a SIGCHLD whose action is the default, ignore, would not). */
static void on_exec_sigchld(int sig) { (void)sig; }

/* Whether the child has exited, without reaping it: its zombie keeps its pid, which is its process group's ID, from
 * being reused, so that a kill of the group can never reach another one. */
static bool child_exited(pid_t pid) {
  siginfo_t si;
  memset(&si, 0, sizeof si);
  while (waitid(P_PID, (id_t)pid, &si, WEXITED | WNOHANG | WNOWAIT) < 0)
    if (errno != EINTR) return true; /* Nothing to wait for: no reason to wait on. */
  return si.si_pid != 0;
}

/*
 * Whether a live process is left in process group pgid: 1, 0, or -1 when /proc cannot be read. A zombie is not live
 * (it has closed its files), unless other threads of it still run (a leader that ended before its threads).
 */
static int group_live(pid_t pgid) {
  DIR *d = opendir("/proc");
  if (!d) return -1;
  int live = 0;
  for (struct dirent *de; !live && (de = readdir(d));) {
    char *end;
    long n = strtol(de->d_name, &end, 10);
    if (*end || n <= 0) continue;
    char path[64], buf[512];
    snprintf(path, sizeof path, "/proc/%ld/stat", n);
    int fd = open(path, O_RDONLY | O_CLOEXEC);
    if (fd < 0) continue; /* It has gone since readdir. */
    ssize_t k = read(fd, buf, sizeof buf - 1);
    close(fd);
    if (k <= 0) continue;
    buf[k] = '\0';
    /* "PID (COMM) STATE PPID PGRP ... NUM_THREADS": COMM may hold anything, so the fields start after its last ')'. */
    char *p = strrchr(buf, ')');
    char state;
    int pgrp;
    long threads;
    if (!p || sscanf(p + 1, " %c %*d %d %*d %*d %*d %*u %*u %*u %*u %*u %*u %*u %*d %*d %*d %*d %ld", &state, &pgrp,
                     &threads) != 3)
      continue;
    if (pgrp == pgid && ((state != 'Z' && state != 'X') || threads > 1)) live = 1;
  }
  closedir(d);
  return live;
}

/* Appends bytes to the output, keeping only the first UMB_DATA_MAX. */
static int keep_output(umb_buf *out, const char *p, size_t n) {
  size_t keep = UMB_DATA_MAX - out->len;
  if (n < keep) keep = n;
  return keep ? umb_buf_append(out, p, keep) : 0;
}

/* Reads what the non-blocking pipe fd holds (at most a few chunks, so that the caller gets back to its checks).
 * Sets *eof at its end; returns 0 or -ENOMEM. */
static int read_output(int fd, umb_buf *out, bool *eof) {
  char chunk[16384];
  for (int i = 0; i < 16; i++) {
    ssize_t n = read(fd, chunk, sizeof chunk);
    if (n < 0 && errno == EINTR) continue;
    if (n < 0 && errno == EAGAIN) return 0;
    if (n <= 0) {
      *eof = true;
      return 0;
    }
    if (keep_output(out, chunk, (size_t)n) < 0) return -ENOMEM;
  }
  return 0;
}

/*
 * Once no process of the group is alive: reads exactly what the non-blocking pipe fd holds now (a writer outside the
 * group may go on writing, so this is no read to EOF), then sets *escaped unless the pipe is at EOF, i.e. unless the
 * group's own writers were its last. Returns 0 or -ENOMEM.
 */
static int drain_output(int fd, umb_buf *out, bool *escaped) {
  int left = 0;
  if (ioctl(fd, FIONREAD, &left) < 0) left = 0;
  char chunk[16384];
  for (;;) {
    size_t want = left > 0 ? ((size_t)left < sizeof chunk ? (size_t)left : sizeof chunk) : 1;
    ssize_t n = read(fd, chunk, want);
    if (n < 0 && errno == EINTR) continue;
    if (n == 0) return 0; /* EOF: nobody outside the group held the pipe. */
    if (n < 0) break;     /* EAGAIN: empty, and someone still holds it open. */
    if (keep_output(out, chunk, (size_t)n) < 0) return -ENOMEM;
    if (left <= 0) break; /* A byte written after the group had died: an outside writer. */
    left -= (int)n;
  }
  *escaped = true;
  return 0;
}

/* Group checks while a group outlives its program come at most this far apart (they start 1 ms apart and double). */
#define GROUP_SCAN_MAX_MS 100

/*
 * The wait of exec and run for the program pid, reading its output from the non-blocking pipe fd into output. It
 * ends at EOF on the output once the program has exited, as for a shell's command substitution. A process that left
 * the program's group (setsid, setpgid) may keep the pipe open for ever, so the wait also ends once the program has
 * exited and no live process is left in its group: the pipe's buffered bytes are read, the rest is not waited for
 * (*escaped). At the timeout the program and its group are killed (*timed_out), and the wait goes on until every one
 * of them is dead, so that "timeout" means nothing of the group runs any more. The wait is on events (output,
 * SIGCHLD, which wait_mask lets through, the deadline); only while a group outlives its exited program is /proc
 * looked at again after 1, 2, 4 ... 100 ms, since no event says that a process which is not the agent's child has
 * ended or left the group. Returns 0 or the first error; the program is not reaped.
 */
static int exec_wait(struct req *r, pid_t pid, int fd, const sigset_t *wait_mask, uint64_t timeout_ms, umb_buf *output,
                     bool *timed_out_p, bool *escaped_p) {
  int e = 0;
  long long now = mono_ms(), deadline = timeout_ms ? now + (long long)timeout_ms : 0, next_scan = 0;
  long long gap = 0;
  bool eof = false, exited = false, timed_out = false, escaped = false;
  for (;;) {
    if (!eof) {
      int k = read_output(fd, output, &eof);
      if (k && !e) e = k;
    }
    if (!exited) exited = child_exited(pid);
    if (exited && eof && !timed_out) break;
    now = mono_ms();
    if (deadline && !timed_out && now >= deadline) {
      /* The whole group, and the child itself in case it moved to another group. */
      kill(-pid, SIGKILL);
      kill(pid, SIGKILL);
      timed_out = true;
      next_scan = 0;
      gap = 0;
      continue;
    }
    /* Exited but not done: the output is still open, or the group's death after a kill is still to be seen. */
    if (exited && now >= next_scan) {
      int live = group_live(pid);
      if (live == 0) {
        if (!eof) {
          int k = drain_output(fd, output, &escaped);
          if (k && !e) e = k;
        }
        break;
      }
      gap = gap ? (gap * 2 > GROUP_SCAN_MAX_MS ? GROUP_SCAN_MAX_MS : gap * 2) : 1;
      next_scan = now + gap;
    }
    long long wait = -1;
    if (deadline && !timed_out) wait = deadline - now;
    if (exited && (wait < 0 || next_scan - now < wait)) wait = next_scan - now;
    struct timespec ts = {(time_t)(wait / 1000), (long)(wait % 1000) * 1000000};
    struct pollfd p = {.fd = eof ? -1 : fd, .events = POLLIN};
    if (ppoll(&p, 1, wait < 0 ? NULL : &ts, wait_mask) < 0 && errno != EINTR) {
      e = fail(r, errno, "%s", "ppoll");
      kill(-pid, SIGKILL);
      kill(pid, SIGKILL);
      break;
    }
  }
  *timed_out_p = timed_out;
  *escaped_p = escaped;
  return e;
}

/*
 * exec and run: argv from argument first, the options, a timeout in ms (0: none). The reply is the status (exit:N,
 * signal:N, or timeout when the program and its process group were killed at the timeout; "+escaped" appended when
 * the agent stopped reading a pipe that only processes outside the group held open) and the first MiB of the output.
 */
static int exec_common(struct req *r, size_t first, const struct exec_opts *o, uint64_t timeout_ms) {
  int e = 0;
  size_t argc = r->narg - first;
  char **argv = calloc(argc + 1, sizeof *argv);
  if (!argv) return -ENOMEM;
  for (size_t i = 0; i < argc && !e; i++) e = arg_str(r, first + i, i ? "ARG" : "PATH", &argv[i]);
  int out[2] = {-1, -1}, errp[2] = {-1, -1};
  if (!e && (pipe2(out, O_CLOEXEC) < 0 || pipe2(errp, O_CLOEXEC) < 0)) e = fail(r, errno, "%s", "pipe");
  /* Only the agent's end is non-blocking: the program's stays an ordinary pipe. */
  if (!e && fcntl(out[0], F_SETFL, O_NONBLOCK) < 0) e = fail(r, errno, "%s", "fcntl");
  /* SIGCHLD stays blocked except inside ppoll, so that the child's exit wakes the wait however late it comes. */
  sigset_t chld, saved_mask, wait_mask;
  sigemptyset(&chld);
  sigaddset(&chld, SIGCHLD);
  sigprocmask(SIG_BLOCK, &chld, &saved_mask);
  wait_mask = saved_mask;
  sigdelset(&wait_mask, SIGCHLD);
  struct sigaction sa = {.sa_handler = on_exec_sigchld, .sa_flags = SA_NOCLDSTOP}, saved_sa;
  sigemptyset(&sa.sa_mask);
  sigaction(SIGCHLD, &sa, &saved_sa);
  pid_t pid = -1;
  if (!e && (pid = fork()) < 0) e = fail(r, errno, "%s", "fork");
  if (pid == 0) exec_child(out[1], errp[1], argv, o);
  /* The child does this too; whichever comes first, the group exists before a kill at the deadline could miss it.
   * Once the child has called execve this fails (EACCES), and then the child has made its group itself. */
  if (pid > 0) setpgid(pid, pid);
  if (out[1] >= 0) close(out[1]);
  if (errp[1] >= 0) close(errp[1]);
  umb_buf output = {0};
  if (!e) {
    bool timed_out = false, escaped = false;
    e = exec_wait(r, pid, out[0], &wait_mask, timeout_ms, &output, &timed_out, &escaped);
    int st = 0;
    while (waitpid(pid, &st, 0) < 0 && errno == EINTR)
      ;
    struct exec_failure f;
    if (read(errp[0], &f, sizeof f) == (ssize_t)sizeof f) e = exec_failed(r, &f, argv, o);
    if (!e) e = timed_out ? umb_buf_puts(r->out, " timeout") : status_field(r->out, st);
    if (!e && escaped) e = umb_buf_puts(r->out, "+escaped");
    if (!e && !(e = umb_buf_puts(r->out, " "))) e = umb_pct_encode(r->out, umb_bytes(&output), output.len);
  }
  sigaction(SIGCHLD, &saved_sa, NULL);
  sigprocmask(SIG_SETMASK, &saved_mask, NULL);
  umb_buf_free(&output);
  if (out[0] >= 0) close(out[0]);
  if (errp[0] >= 0) close(errp[0]);
  for (size_t i = 0; i < argc; i++) free(argv[i]);
  free(argv);
  return e;
}

int v_exec(struct req *r) { return exec_common(r, 0, NULL, 0); }

/* run TIMEOUT_MS UID CWD ENV PATH [ARG...]: exec with options; "-" leaves UID, CWD or ENV as exec has them. ENV is
 * newline-separated NAME=VALUE entries added to exec's PATH and HOME (an entry of the same name replaces them). */
int v_run(struct req *r) {
  uint64_t timeout_ms, uid;
  struct exec_opts o = {NULL, NULL, -1};
  char *cwd = NULL, *env = NULL;
  int e = arg_u64(r, 0, "TIMEOUT_MS", &timeout_ms);
  if (e) return e;
  if (timeout_ms > RUN_TIMEOUT_MAX) return bad(r, "TIMEOUT_MS (at most " UMB_STR(RUN_TIMEOUT_MAX) ")");
  if (!umb_field_eq(r->arg[1], "-")) {
    if ((e = arg_u64(r, 1, "UID", &uid))) return e;
    if (uid >= UINT32_MAX) return bad(r, "UID");
    o.uid = (long long)uid;
  }
  if (!umb_field_eq(r->arg[2], "-") && (e = arg_str(r, 2, "CWD", &cwd))) return e;
  o.cwd = cwd;
  char *envp[UMB_RUN_ENV_MAX + 3];
  size_t ne = 0;
  if (!umb_field_eq(r->arg[3], "-") && (e = arg_str(r, 3, "ENV", &env))) {
    free(cwd);
    return e;
  }
  if (env) {
    int has_path = 0, has_home = 0;
    for (char *save = NULL, *t = strtok_r(env, "\n", &save); t && !e; t = strtok_r(NULL, "\n", &save)) {
      if (!strchr(t, '=') || *t == '=' || ne == UMB_RUN_ENV_MAX) {
        e = bad(r, ne == UMB_RUN_ENV_MAX ? "ENV (at most " UMB_STR(UMB_RUN_ENV_MAX) " entries)" : "ENV entry");
        break;
      }
      has_path |= !strncmp(t, "PATH=", 5);
      has_home |= !strncmp(t, "HOME=", 5);
      envp[ne++] = t;
    }
    if (!has_path) envp[ne++] = EXEC_PATH;
    if (!has_home) envp[ne++] = EXEC_HOME;
    envp[ne] = NULL;
    o.env = envp;
  }
  if (!e) e = exec_common(r, 4, &o, timeout_ms);
  free(cwd);
  free(env);
  return e;
}

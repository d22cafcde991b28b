// SPDX-License-Identifier: MIT
/* vm.c: one UML instance: spawn in its own process group, console scanning, protocol requests, kill and reap. */
#include "umlbed.h"
#include "path.h"
#include "reaper.h"
#include "wall.h"
#include "vmcmd.h"
#include "kns.h"

#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <sched.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/resource.h>
#include <sys/stat.h>
#include <sys/syscall.h>
#include <sys/wait.h>
#include <unistd.h>

/* How long to wait for a killed instance's processes to disappear before giving up. */
#define VM_GONE_POLL_MS 2
#define VM_GONE_LIMIT_MS 10000

struct umb_vm {
  uv_loop_t *loop;
  uv_process_t proc;
  uv_pipe_t con; /* Console (UML stdout/stderr) → runner. */
  uv_pipe_t tx;  /* Runner → guest (UML fd 3). */
  uv_pipe_t rx;  /* Guest (UML fd 4) → runner. */
  uv_timer_t gone_timer;
  int nhandles; /* Initialised handles not yet closed. */
  umb_vm_event_cb cb;
  void *data;
  void (*close_cb)(void *data);
  void *close_data;

  int pid;
  /* The process the run started (the wall, then the kernel or gdb), as a pidfd opened before it could be reaped: its
   * group, which the wall pins (no setsid, no setpgid), is what a kill ends. -1 where the host has no pidfd. */
  int pidfd;
  char shm[PATH_MAX]; /* Its tmpfs in the kernels' namespace (kns.h), given back when it is gone; "" without one. */
  int logfd;
  umb_scanner scan;
  umb_lines proto;
  umb_msg msg; /* The last reply parsed; its field array is reused. */
  umb_req *pending;
  uint64_t next_id;

  unsigned exited : 1, killed : 1, dead : 1, gone : 1, ready : 1, closing : 1, con_eof : 1, dead_reported : 1;
  /* The kernel is umlbed-test's fake UML (umb_vm_options.fake_uml), whose verbs are its own: no verb table check. */
  unsigned fake : 1;
  /* Under an interactive gdb the instance's group is the terminal's foreground (the wall's --foreground). */
  unsigned foreground : 1;
  const char *death;
  char death_text[512];
  long pagesize;
  char release[128];
  uint64_t exit_pid; /* The last "exited" event, for umb_vm_exited(). */
  char exit_status[32];
  uint64_t t_spawn, t_ready;
  uint64_t gone_started;
  char rbuf[65536];
};

typedef struct vm_write {
  uv_write_t w;
  umb_vm *vm;
  umb_buf line;
} vm_write;

static void vm_emit(umb_vm *vm, umb_vm_event ev) {
  if (vm->cb && !vm->closing) vm->cb(vm, ev, vm->data);
}

/* Completes every pending request with status; used on kill and on death. */
static void vm_fail_pending(umb_vm *vm, int status) {
  while (vm->pending) {
    umb_req *r = vm->pending;
    vm->pending = r->next;
    r->next = NULL;
    r->cb(r, status, NULL);
  }
}

static void vm_kill_group(umb_vm *vm);

/* DEAD is reported once the console has been read to its end, so excerpts are complete. */
static void vm_report_dead(umb_vm *vm) {
  if (vm->dead && !vm->dead_reported && (vm->con_eof || vm->gone)) {
    vm->dead_reported = 1;
    vm_emit(vm, UMB_VM_DEAD);
  }
}

static void vm_die(umb_vm *vm, const char *why) {
  if (vm->dead || vm->killed) return;
  vm->dead = 1;
  vm->death = why;
  vm_fail_pending(vm, -EPIPE);
  /* Whatever broke, the rest of the instance must not outlive it. */
  vm_kill_group(vm);
  vm_report_dead(vm);
}

static int group_alive(int pgid) {
  if (pgid <= 0) return 0;
  /* Reap zombies of the group that were reparented to us (we are a subreaper). */
  while (waitpid(-pgid, NULL, WNOHANG) > 0) {
  }
  return kill(-pgid, 0) == 0 || errno != ESRCH;
}

static void on_gone_timer(uv_timer_t *t);

/* The terminal's foreground back to this process's group (the runner's), which an interactive gdb's group had: a
 * Ctrl-C after it reaches the runner again. SIGTTOU, which a group in the background gets for this, is held. */
static void vm_reclaim_terminal(void) {
  sigset_t ttou, old;
  sigemptyset(&ttou);
  sigaddset(&ttou, SIGTTOU);
  sigprocmask(SIG_BLOCK, &ttou, &old);
  if (isatty(0)) tcsetpgrp(0, getpgrp());
  sigprocmask(SIG_SETMASK, &old, NULL);
}

static void vm_check_gone(umb_vm *vm) {
  if (vm->gone || !vm->exited || !vm->killed) return;
  int alive = group_alive(vm->pid);
  uint64_t now = uv_now(vm->loop);
  if (alive && now - vm->gone_started < VM_GONE_LIMIT_MS) {
    if (!uv_is_active((uv_handle_t *)&vm->gone_timer))
      uv_timer_start(&vm->gone_timer, on_gone_timer, VM_GONE_POLL_MS, VM_GONE_POLL_MS);
    return;
  }
  if (alive) fprintf(stderr, "umlbed: processes of group %d survived SIGKILL for %d ms\n", vm->pid, VM_GONE_LIMIT_MS);
  uv_timer_stop(&vm->gone_timer);
  vm->gone = 1;
  if (!alive) umb_reaper_del_group(vm->pid);
  if (vm->foreground) vm_reclaim_terminal();
  vm_report_dead(vm);
  vm_emit(vm, UMB_VM_GONE);
}

static void on_gone_timer(uv_timer_t *t) { vm_check_gone(t->data); }

static void on_proc_exit(uv_process_t *p, int64_t status, int sig) {
  umb_vm *vm = p->data;
  (void)status;
  (void)sig;
  vm->exited = 1;
  if (!vm->killed) {
    /* UML ended by itself: a panic exits, and so does poweroff. Either way the guest is gone. */
    vm_die(vm, vm->ready ? "UML exited" : "UML exited before the agent was ready");
  }
  vm_check_gone(vm);
}

static void on_alloc(uv_handle_t *h, size_t hint, uv_buf_t *buf) {
  umb_vm *vm = h->data;
  (void)hint;
  *buf = uv_buf_init(vm->rbuf, sizeof vm->rbuf);
}

static void on_con_read(uv_stream_t *s, ssize_t n, const uv_buf_t *buf) {
  umb_vm *vm = s->data;
  if (n > 0) {
    if (vm->logfd >= 0 && write(vm->logfd, buf->base, (size_t)n) < 0) {
      close(vm->logfd);
      vm->logfd = -1;
    }
    if (umb_scanner_feed(&vm->scan, buf->base, (size_t)n) != UMB_FIND_NONE) vm_emit(vm, UMB_VM_FINDING);
  } else if (n < 0) {
    uv_read_stop(s);
    vm->con_eof = 1;
    if (umb_scanner_finish(&vm->scan) != UMB_FIND_NONE) vm_emit(vm, UMB_VM_FINDING);
    vm_die(vm, "console closed");
    vm_report_dead(vm);
  }
}

/* An error reply with ID 0: the agent could not tell which request it answers (a line it could not parse, or one
 * over the line limit), so that request will never be answered. The run cannot go on: it ends as a protocol error,
 * with the agent's own words. */
static void vm_orphan_error(umb_vm *vm, const umb_msg *m) {
  char msg[256] = "-";
  if (m->nfields > 1) {
    char *f = m->fields[1];
    size_t n;
    if (umb_pct_decode(f, &n) == 0) snprintf(msg, sizeof msg, "%.*s", (int)n, f);
  }
  snprintf(vm->death_text, sizeof vm->death_text,
           "protocol error: the agent answered a request it could not attribute: %.32s %s: %s", m->verb, m->fields[0],
           msg);
  vm_die(vm, vm->death_text);
}

static int on_proto_line(void *arg, char *line, size_t len, int toolong) {
  umb_vm *vm = arg;
  umb_msg *m = &vm->msg;
  int rc = toolong ? -E2BIG : umb_msg_parse(line, len, m);
  if (rc == -ENOMEM) {
    vm_die(vm, "out of memory reading the protocol");
    return rc;
  }
  if (rc) {
    /* Before the agent is up, the tty may carry noise; afterwards garbage means a broken agent. */
    if (!vm->ready) return 0;
    vm_die(vm, rc == -E2BIG ? "protocol error: a line from the agent exceeds the protocol's line or field limit"
                            : "protocol error: unparsable line from the agent");
    return -EPROTO;
  }
  if (m->id == 0) {
    if (strcmp(m->verb, "ready") == 0 && m->ok && !vm->ready) {
      uint64_t ver = 0, ps = 0;
      if (m->nfields < 3 || umb_num_parse(m->fields[0], &ver) || umb_num_parse(m->fields[1], &ps) ||
          ver != UMB_PROTOCOL_VERSION) {
        vm_die(vm, "protocol error: bad ready event (version mismatch?)");
        return -EPROTO;
      }
      size_t n;
      if (umb_pct_decode(m->fields[2], &n) == 0) snprintf(vm->release, sizeof vm->release, "%s", m->fields[2]);
      vm->pagesize = (long)ps;
      vm->ready = 1;
      vm->t_ready = uv_hrtime();
      vm_emit(vm, UMB_VM_READY);
      return 0;
    }
    if (!vm->ready) return 0;
    /* A worker ended (the agent has reaped it, so its mm is gone): tell whoever waits for it. */
    if (strcmp(m->verb, "exited") == 0 && m->ok && m->nfields >= 2 && umb_num_parse(m->fields[0], &vm->exit_pid) == 0) {
      snprintf(vm->exit_status, sizeof vm->exit_status, "%s", m->fields[1]);
      vm_emit(vm, UMB_VM_EXITED);
      return 0;
    }
    if (!m->ok) {
      vm_orphan_error(vm, m);
      return -EPROTO;
    }
    /* Other events are not in protocol version 1; a later agent may send them. */
    return 0;
  }
  umb_req **pp = &vm->pending;
  while (*pp && (*pp)->id != m->id) pp = &(*pp)->next;
  if (*pp == NULL) {
    vm_die(vm, "protocol error: reply to an unknown request");
    return -EPROTO;
  }
  umb_req *r = *pp;
  *pp = r->next;
  r->next = NULL;
  r->cb(r, 0, m);
  return 0;
}

static void on_rx_read(uv_stream_t *s, ssize_t n, const uv_buf_t *buf) {
  umb_vm *vm = s->data;
  if (n > 0) {
    if (vm->dead || vm->killed) return;
    if (umb_lines_feed(&vm->proto, buf->base, (size_t)n, on_proto_line, vm) == -ENOMEM)
      vm_die(vm, "out of memory reading the protocol");
  } else if (n < 0) {
    uv_read_stop(s);
    vm_die(vm, "unexpected EOF on the protocol channel");
  }
}

static void on_write(uv_write_t *w, int status) {
  vm_write *vw = (vm_write *)w;
  umb_vm *vm = vw->vm;
  umb_buf_free(&vw->line);
  free(vw);
  if (status < 0 && status != UV_ECANCELED) vm_die(vm, "write to the agent failed");
}

int umb_vm_request(umb_vm *vm, umb_req *req, uint64_t pid, const char *verb, const char *args, umb_req_cb cb) {
  if (vm->dead || vm->killed || vm->closing) return -EPIPE;
  if (!vm->ready) return -EAGAIN;
  /* Refused here, the request is never sent: a bad one would have the agent answer EINVAL or ENOSYS anyway, and
   * a malformed field could split the line. */
  int rc = umb_request_check(pid, verb, args, !vm->fake);
  if (rc) return rc;
  vm_write *vw = calloc(1, sizeof *vw);
  if (vw == NULL) return -ENOMEM;
  uint64_t id = ++vm->next_id;
  rc = umb_buf_printf(&vw->line, "%llu %llu %s", (unsigned long long)id, (unsigned long long)pid, verb);
  if (rc == 0 && args && *args) rc = umb_buf_printf(&vw->line, " %s", args);
  if (rc == 0) rc = umb_buf_append(&vw->line, "\n", 1);
  if (rc == 0 && vw->line.len > UMB_LINE_MAX) rc = -E2BIG;
  if (rc) {
    umb_buf_free(&vw->line);
    free(vw);
    return rc;
  }
  vw->vm = vm;
  uv_buf_t b = uv_buf_init(vw->line.data, (unsigned)vw->line.len);
  rc = uv_write(&vw->w, (uv_stream_t *)&vm->tx, &b, 1, on_write);
  if (rc) {
    umb_buf_free(&vw->line);
    free(vw);
    return rc;
  }
  req->id = id;
  req->cb = cb;
  req->vm = vm;
  req->next = vm->pending;
  vm->pending = req;
  return 0;
}

#ifndef PIDFD_SIGNAL_PROCESS_GROUP
#define PIDFD_SIGNAL_PROCESS_GROUP (1U << 2) /* Linux 6.9 */
#endif

/* SIGKILL to the instance's process group: through the pidfd of the process this run started, which names that
 * group however long ago its leader was reaped (Linux 6.9); else by its number, which the kernel keeps for the group
 * while any member lives. Never by a number read from a file the kernel or the guest could write (UML's pid file). */
static void vm_kill_group(umb_vm *vm) {
  if (vm->killed) return;
  vm->killed = 1;
  vm->gone_started = uv_now(vm->loop);
  if (vm->pidfd < 0 || syscall(SYS_pidfd_send_signal, vm->pidfd, SIGKILL, NULL, PIDFD_SIGNAL_PROCESS_GROUP))
    uv_kill(-vm->pid, SIGKILL);
  if (!vm->exited) uv_kill(vm->pid, SIGKILL);
  vm_check_gone(vm);
}

void umb_vm_kill(umb_vm *vm) {
  vm_kill_group(vm);
  vm_fail_pending(vm, -ECANCELED);
}

static void on_handle_closed(uv_handle_t *h) {
  umb_vm *vm = h->data;
  if (--vm->nhandles > 0) return;
  void (*cb)(void *) = vm->close_cb;
  void *data = vm->close_data;
  umb_scanner_free(&vm->scan);
  umb_lines_free(&vm->proto);
  umb_msg_free(&vm->msg);
  if (vm->logfd >= 0) close(vm->logfd);
  if (vm->pidfd >= 0) close(vm->pidfd);
  if (vm->shm[0]) umb_kns_shm_put(vm->shm);
  free(vm);
  if (cb) cb(data);
}

static void vm_close_handles(umb_vm *vm) {
  uv_handle_t *hs[] = {(uv_handle_t *)&vm->proc, (uv_handle_t *)&vm->con, (uv_handle_t *)&vm->tx,
                       (uv_handle_t *)&vm->rx, (uv_handle_t *)&vm->gone_timer};
  for (size_t i = 0; i < sizeof hs / sizeof hs[0]; i++)
    if (hs[i]->data == vm && !uv_is_closing(hs[i])) uv_close(hs[i], on_handle_closed);
}

static void vm_close_when_gone(umb_vm *vm, umb_vm_event ev, void *data) {
  (void)data;
  if (ev == UMB_VM_GONE) {
    vm->closing = 1;
    vm_close_handles(vm);
  }
}

void umb_vm_close(umb_vm *vm, void (*close_cb)(void *data), void *data) {
  vm->close_cb = close_cb;
  vm->close_data = data;
  if (vm->gone) {
    vm->closing = 1;
    vm_close_handles(vm);
    return;
  }
  /* Wait for the processes first; events after this point only drive the close. */
  vm->cb = vm_close_when_gone;
  vm->data = NULL;
  umb_vm_kill(vm);
}

static int mkpipe(int fds[2]) { return uv_pipe(fds, 0, 0); }

/* The instance's folder: its console log, UML's uml_dir, UML's TMPDIR (unless /dev/shm). */
static int vm_prepare_dirs(umb_vm *vm, const umb_vm_options *opt) {
  char path[PATH_MAX];
  int rc = umb_path(path, sizeof path, "%s/console.log", opt->dir);
  if (rc) return rc;
  vm->logfd = open(path, O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC, 0644);
  if (vm->logfd < 0) return -errno;
  const char *sub[] = {"uml", "tmp"};
  for (size_t i = 0; i < 2; i++) {
    if ((rc = umb_path(path, sizeof path, "%s/%s", opt->dir, sub[i]))) return rc;
    if (mkdir(path, 0755) && errno != EEXIST) return -errno;
  }
  /* As root, the kernel runs as an unprivileged user (wall.h): its folders are that user's. */
  return umb_wall_hand_over(opt->dir, 1);
}

static void inherit(uv_stdio_container_t *s, int fd) {
  s->flags = UV_INHERIT_FD;
  s->data.fd = fd;
}

/* The instance's descriptors: its console, the agent's two serial pipes, and /dev/null. */
static int vm_build_stdio(umb_spawn_ctx *c, const umb_vm_options *opt) {
  int rc;
  if ((c->devnull = open("/dev/null", O_RDWR | O_CLOEXEC)) < 0) return -errno;
  if ((rc = mkpipe(c->con)) || (rc = mkpipe(c->tx)) || (rc = mkpipe(c->rx))) return rc;
  memset(c->stdio, 0, sizeof c->stdio);
  if (opt->gdb) {
    /* gdb talks to the user: the terminal when interactive, the runner's stderr in batch mode. */
    for (int i = 0; i < 3; i++) inherit(&c->stdio[i], opt->gdb_interactive ? i : (i == 0 ? c->devnull : 2));
    inherit(&c->stdio[5], c->devnull);
    inherit(&c->stdio[6], c->con[1]);
    c->nstdio = 7;
  } else {
    /* A pipe at EOF on stdin loses console output in UML, so stdin is /dev/null. */
    inherit(&c->stdio[0], c->devnull);
    inherit(&c->stdio[1], c->con[1]);
    inherit(&c->stdio[2], c->con[1]);
    c->nstdio = 5;
  }
  inherit(&c->stdio[3], c->tx[0]);
  inherit(&c->stdio[4], c->rx[1]);
  return 0;
}

/* uv_spawn, pinned to opt->cpu and without core dumps: the child inherits both at fork, so they are set only
 * around the call. */
static int vm_launch(umb_vm *vm, uv_loop_t *loop, const umb_vm_options *opt, umb_spawn_ctx *c) {
  uv_process_options_t po;
  memset(&po, 0, sizeof po);
  po.exit_cb = on_proc_exit;
  po.file = c->args[0];
  po.args = c->args;
  po.env = c->env;
  po.cwd = opt->dir;
  po.stdio = c->stdio;
  po.stdio_count = c->nstdio;
  /* Detached means setsid(): the instance is its own process group and can be killed as one. */
  po.flags = opt->gdb_interactive ? 0 : UV_PROCESS_DETACHED;
  cpu_set_t saved, one;
  int pinned = 0;
  if (opt->cpu >= 0 && sched_getaffinity(0, sizeof saved, &saved) == 0) {
    CPU_ZERO(&one);
    CPU_SET(opt->cpu, &one);
    pinned = sched_setaffinity(0, sizeof one, &one) == 0;
  }
  struct rlimit core, nocore;
  int gotcore = getrlimit(RLIMIT_CORE, &core) == 0;
  if (gotcore) {
    nocore = core;
    nocore.rlim_cur = 0;
    setrlimit(RLIMIT_CORE, &nocore);
  }
  vm->t_spawn = uv_hrtime();
  /* Born in the kernels' namespace (kns.h), where the host is read-only but the run's folders. */
  int rc = umb_kns_enter();
  if (rc == 0) {
    vm->proc.data = vm;
    /* The wall's socket to the helper is inherited by it alone: this spawn is the only one under way. */
    if (c->mapper >= 0) fcntl(c->mapper, F_SETFD, 0);
    rc = uv_spawn(loop, &vm->proc, &po);
    umb_kns_leave();
  }
  if (gotcore) setrlimit(RLIMIT_CORE, &core);
  if (pinned) sched_setaffinity(0, sizeof saved, &saved);
  if (rc) return rc;
  vm->pid = vm->proc.pid;
  /* Not reaped before the loop runs again: the pidfd names this child. */
  vm->pidfd = (int)syscall(SYS_pidfd_open, vm->pid, 0);
  /* Each instance is a group of its own: detached, or under interactive gdb the terminal's foreground group, which
   * the wall makes it (--foreground). */
  umb_reaper_add_group(vm->pid);
  return 0;
}

/* The runner's ends of the console and serial pipes on the loop; the instance's ends closed here. */
static void vm_attach(umb_vm *vm, uv_loop_t *loop, umb_spawn_ctx *c) {
  uv_pipe_init(loop, &vm->con, 0);
  uv_pipe_init(loop, &vm->tx, 0);
  uv_pipe_init(loop, &vm->rx, 0);
  uv_timer_init(loop, &vm->gone_timer);
  vm->con.data = vm->tx.data = vm->rx.data = vm->gone_timer.data = vm;
  vm->nhandles += 4;
  uv_pipe_open(&vm->con, c->con[0]);
  uv_pipe_open(&vm->tx, c->tx[1]);
  uv_pipe_open(&vm->rx, c->rx[0]);
  c->con[0] = c->tx[1] = c->rx[0] = -1;
  uv_read_start((uv_stream_t *)&vm->con, on_alloc, on_con_read);
  uv_read_start((uv_stream_t *)&vm->rx, on_alloc, on_rx_read);
}

int umb_vm_spawn(uv_loop_t *loop, const umb_vm_options *opt, umb_vm_event_cb cb, void *data, umb_vm **out) {
  /* The spawn execs this program (the wall) first: a kernel that is not there or not executable is said now, as the
   * spawn of the kernel itself would have said it. */
  if (access(opt->kernel, X_OK)) return -errno;
  umb_vm *vm = calloc(1, sizeof *vm);
  umb_spawn_ctx *c = calloc(1, sizeof *c);
  if (vm == NULL || c == NULL) {
    free(vm);
    free(c);
    return -ENOMEM;
  }
  c->devnull = c->con[0] = c->con[1] = c->tx[0] = c->tx[1] = c->rx[0] = c->rx[1] = c->mapper = -1;
  vm->loop = loop;
  vm->cb = cb;
  vm->data = data;
  vm->logfd = -1;
  vm->pidfd = -1;
  umb_scanner_init(&vm->scan);
  vm->scan.ignore = opt->ignore;
  /* At most UMB_LINE_MAX bytes with the newline. */
  vm->proto.max = UMB_LINE_MAX - 1;
  vm->fake = opt->fake_uml != 0;
  vm->foreground = opt->gdb_interactive != 0;
  /* This program again (umlbed __wall) builds the wall, then execs the kernel: through the descriptor opened when
   * this process started, not a path a run may have replaced since. */
  c->walled = 1;
  const char *prog = umb_wall_prog();
  int rc = prog && strlen(prog) < sizeof c->self ? 0 : -ENOENT;
  if (rc == 0) strcpy(c->self, prog);
  if (rc == 0) rc = vm_prepare_dirs(vm, opt);
  if (rc == 0) rc = umb_spawn_args(c, opt);
  if (rc == 0) rc = vm_build_stdio(c, opt);
  if (rc == 0) rc = umb_spawn_env(c, opt);
  snprintf(vm->shm, sizeof vm->shm, "%s", c->shm);
  if (rc == 0 && (rc = vm_launch(vm, loop, opt, c)) != 0 && vm->proc.data) {
    /* A failed uv_spawn still initialised the handle: free the vm in its close callback. */
    umb_spawn_ctx_close(c);
    free(c);
    vm->cb = NULL;
    vm->nhandles = 1;
    uv_close((uv_handle_t *)&vm->proc, on_handle_closed);
    return rc;
  }
  if (rc) {
    umb_spawn_ctx_close(c);
    free(c);
    if (vm->logfd >= 0) close(vm->logfd);
    umb_scanner_free(&vm->scan);
    if (vm->shm[0]) umb_kns_shm_put(vm->shm);
    free(vm);
    return rc;
  }
  vm->nhandles = 1;
  vm_attach(vm, loop, c);
  umb_spawn_ctx_close(c);
  free(c);
  *out = vm;
  return 0;
}

void umb_vm_drain_console(umb_vm *vm) {
  uv_os_fd_t fd;
  if (vm->con_eof || uv_is_closing((uv_handle_t *)&vm->con) || uv_fileno((uv_handle_t *)&vm->con, &fd)) return;
  for (;;) {
    ssize_t n = read(fd, vm->rbuf, sizeof vm->rbuf);
    if (n <= 0) break;
    if (vm->logfd >= 0 && write(vm->logfd, vm->rbuf, (size_t)n) < 0) {
      close(vm->logfd);
      vm->logfd = -1;
    }
    umb_scanner_feed(&vm->scan, vm->rbuf, (size_t)n);
  }
}

const umb_scanner *umb_vm_scanner(const umb_vm *vm) { return &vm->scan; }
int umb_vm_pid(const umb_vm *vm) { return vm->pid; }
int umb_vm_alive(const umb_vm *vm) { return vm->ready && !vm->dead && !vm->killed && !vm->exited; }
const char *umb_vm_death(const umb_vm *vm) { return vm->death; }
long umb_vm_pagesize(const umb_vm *vm) { return vm->pagesize; }
const char *umb_vm_release(const umb_vm *vm) { return vm->release; }
const char *umb_vm_exited(const umb_vm *vm, uint64_t *pid) {
  *pid = vm->exit_pid;
  return vm->exit_status;
}
double umb_vm_boot_ms(const umb_vm *vm) { return vm->ready ? (double)(vm->t_ready - vm->t_spawn) / 1e6 : -1; }

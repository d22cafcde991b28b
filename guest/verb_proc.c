// SPDX-License-Identifier: MIT
/* verb_proc.c: the worker process itself: hello, spawn, fork, exit, and dropping privileges (setuid, capdrop). */
#include "worker.h"

#include <errno.h>
#include <grp.h>
#include <linux/capability.h>
#include <sched.h>
#include <signal.h>
#include <stdio.h>
#include <string.h>
#include <sys/socket.h>
#include <sys/syscall.h>
#include <sys/utsname.h>
#include <unistd.h>

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

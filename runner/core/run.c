// SPDX-License-Identifier: MIT
/* run.c: one run of the engine core: its folder, its UML instances pinned to CPUs, crash and timeout policy, verdict. */
#include "run.h"
#include "runlink.h"
#include "runcov.h"
#include "path.h"
#include "reaper.h"
#include "wall.h"

#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <sched.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

/* After a fatal console finding, wait this long for the kernel to die before killing it. */
#define GRACE_MS 1000
#define EXCERPT_LINES 40

const char *umb_verdict_name(umb_verdict v) {
  switch (v) {
    case UMB_OK:
      return "ok";
    case UMB_SKIP:
      return "SKIP";
    case UMB_FAILED:
      return "FAILED";
    case UMB_CRASHED:
      return "CRASHED";
    case UMB_TIMEOUT:
      return "TIMEOUT";
    case UMB_ERROR:
      return "ERROR";
  }
  return "?";
}

/* A copy, never a hard link: the guest's root owns its /umlbed-agent and may change it (chmod, write), and that
 * must not reach the build tree or the next run. */
static int copy_file(const char *from, const char *to) {
  int in = open(from, O_RDONLY | O_CLOEXEC), out = -1, rc = 0;
  if (in < 0) return -errno;
  out = open(to, O_WRONLY | O_CREAT | O_EXCL | O_TRUNC | O_CLOEXEC, 0555);
  if (out < 0) {
    rc = -errno;
    close(in);
    return rc;
  }
  char buf[65536];
  ssize_t n;
  while ((n = read(in, buf, sizeof buf)) > 0)
    if (write(out, buf, (size_t)n) != n) {
      rc = -EIO;
      break;
    }
  if (n < 0) rc = -errno;
  close(in);
  close(out);
  return rc;
}

static int make_dirs(umb_run *r) {
  char path[PATH_MAX];
  int rc;
  if (r->cfg->rundir) {
    /* The supervisor's folder: it made and locked it before this process started, registered it with its reaper,
     * and removes or keeps it once this process is gone. */
    if ((rc = umb_path(r->dir, sizeof r->dir, "%s", r->cfg->rundir))) return rc;
  } else {
    if ((rc = umb_path(r->dir, sizeof r->dir, "%s/umlbed-%d-XXXXXX", r->cfg->tmpbase, umb_runner_pid(r->cfg))))
      return rc;
    /* Locked while it lives: another runner sharing TMPDIR, in any PID namespace, sees it is not stale. */
    r->dir_lock = umb_live_dir_make(r->cfg->tmpbase, r->dir);
    if (r->dir_lock < 0) {
      rc = r->dir_lock;
      r->dir[0] = '\0';
      return rc;
    }
    /* From here on, a runner that dies any death leaves the folder to the reaper. */
    umb_reaper_add_dir(r->dir);
  }
  if ((rc = umb_path(r->root, sizeof r->root, "%s/root", r->dir))) return rc;
  static const char *sub[] = {"", "/shared", "/proc", "/sys", "/dev", "/tmp"};
  for (size_t i = 0; i < sizeof sub / sizeof sub[0]; i++) {
    if ((rc = umb_path(path, sizeof path, "%s%s", r->root, sub[i]))) return rc;
    if (mkdir(path, 0755)) return -errno;
  }
  /* The guest's root is the agent's owner, so the shared folder must be writable by workers
   * that dropped root (setuid scenarios). */
  if ((rc = umb_path(path, sizeof path, "%s/shared", r->root))) return rc;
  chmod(path, 01777);
  if ((rc = umb_path(path, sizeof path, "%s/umlbed-agent", r->root))) return rc;
  rc = copy_file(r->cfg->agent, path);
  /* As root, the kernels run as an unprivileged user (wall.h), which must be able to write the guest's root. */
  if (rc == 0) rc = umb_wall_hand_over(r->root, 1);
  return rc ? rc : umb_run_cov_dir(r);
}

void umb_run_hold(umb_run *r) { r->nholds++; }

void umb_run_release(umb_run *r) {
  if (--r->nholds > 0) return;
  umb_result *res = &r->result;
  res->verdict = r->verdict;
  res->seconds = (double)(r->t_end - r->t_start) / 1e9;
  if (r->diag_dropped) {
    umb_buf_printf(&r->diag, "[... %zu more bytes of notes and failures dropped: the cap is %u KiB per run]\n",
                   r->diag_dropped, UMB_RUN_TEXT_MAX >> 10);
    r->diag_dropped = 0;
  }
  res->diag = r->diag.data;
  res->reason = r->reason;
  res->dir = r->kept ? r->dir : NULL;
  if (r->ops && r->ops->done) r->ops->done(r);
}

static void rm_work(uv_work_t *w) {
  umb_run *r = w->data;
  /* A supervisor's folder is its own to remove or keep. */
  if (!r->dir[0] || r->cfg->rundir) return;
  if (!r->kept) {
    umb_rm_tree(r->dir);
    return;
  }
  /* Kept on purpose: a later runner's clean-up of dead runners' folders must leave it. */
  if (r->dir_lock >= 0) umb_mark_kept(r->dir_lock);
}

static void rm_done(umb_run *r) {
  if (r->dir[0] && !r->cfg->rundir) umb_reaper_del_dir(r->dir);
  /* Removed (or marked kept): the lock has nothing left to keep alive. */
  if (r->dir_lock >= 0) close(r->dir_lock);
  r->dir_lock = -1;
  umb_run_release(r);
}

static void after_rm(uv_work_t *w, int status) {
  umb_run *r = w->data;
  (void)status;
  free(w);
  rm_done(r);
}

static void on_timer_closed(uv_handle_t *h) { umb_run_release(h->data); }

static void after_vms(umb_run *r) {
  r->nholds = 1; /* This function's own, released at its end. */
  /* The layer above lets go of the instances first (its objects may point to them). */
  if (r->ops && r->ops->closed) r->ops->closed(r);
  umb_run_cov_account(r);
  for (int i = 0; i < r->nvms; i++) {
    umb_run_vm *v = r->vms[i];
    if (v->cpu >= 0) umb_cpu_put(v->cpu);
    if (v->ops && v->ops->free_user) v->ops->free_user(v->user);
    free(v);
    r->vms[i] = NULL;
  }
  free(r->vms);
  r->vms = NULL;
  r->nvms = r->vms_cap = r->nlive = 0;
  r->t_end = uv_hrtime();
  r->kept = r->dir[0] && (r->cfg->keep || (!r->interrupted && r->verdict >= UMB_FAILED));
  r->nholds += 3;
  uv_close((uv_handle_t *)&r->timer, on_timer_closed);
  uv_close((uv_handle_t *)&r->grace, on_timer_closed);
  uv_close((uv_handle_t *)&r->flush, on_timer_closed);
  r->nholds++;
  uv_work_t *w = calloc(1, sizeof *w);
  if (w == NULL) {
    /* No memory for a work request: remove the folder on the loop thread instead. */
    uv_work_t now = {.data = r};
    rm_work(&now);
    rm_done(r);
  } else {
    w->data = r;
    if (uv_queue_work(r->loop, w, rm_work, after_rm)) {
      rm_work(w);
      after_rm(w, 0);
    }
  }
  umb_run_release(r);
}

static void on_vm_closed(void *data) {
  umb_run_vm *v = data;
  umb_run *r = v->run;
  v->vm = NULL;
  if (--r->nclosing == 0) after_vms(r);
}

static void append_excerpt(umb_run *r, umb_run_vm *v, const char *why) {
  umb_vm_drain_console(v->vm);
  const umb_scanner *s = umb_vm_scanner(v->vm);
  umb_buf_printf(&r->diag, "vm%d: %s", v->index, why);
  if (s->first != UMB_FIND_NONE)
    umb_buf_printf(&r->diag, " (%s at console line %zu)", umb_finding_name(s->first), s->first_lineno);
  umb_buf_printf(&r->diag, "\nconsole excerpt (%s/console.log):\n", v->dir);
  umb_scanner_excerpt(s, &r->diag, EXCERPT_LINES);
}

static void close_vms(umb_run *r);
static void on_flush_timeout(uv_timer_t *t);

static void on_flush_reply(umb_req *req, int status, umb_msg *reply) {
  /* The power-off itself is the answer: the instance's exit ends the wait (cov_flushed). */
  (void)req;
  (void)status;
  (void)reply;
}

/* --coverage, as the run ends: every live instance powers off, so that its kernel exits and libgcov writes the
 * data; killing it would lose everything. Returns 1 when the close waits for those exits, 0 to close now. */
static int cov_flush(umb_run *r) {
  if (r->cfg->coverage == NULL || r->interrupted) return 0;
  for (int i = 0; i < r->nvms; i++) {
    umb_run_vm *v = r->vms[i];
    if (v->vm == NULL || !umb_vm_alive(v->vm)) continue;
    v->expect_exit = 1;
    if (umb_vm_request(v->vm, &v->flush_req, 1, "poweroff", NULL, on_flush_reply) == 0) {
      v->flushing = 1;
      r->nflushing++;
    }
  }
  if (r->nflushing == 0) return 0;
  double scale = r->cfg->timeout_scale > 0 ? r->cfg->timeout_scale : 1;
  uv_timer_start(&r->flush, on_flush_timeout, (uint64_t)(UMB_RUN_FLUSH_LIMIT_S * 1000 * scale), 0);
  return 1;
}

/* An instance that was asked to power off has exited (or died): once the last has, the run closes. */
static void cov_flushed(umb_run_vm *v) {
  umb_run *r = v->run;
  if (!v->flushing) return;
  v->flushing = 0;
  if (--r->nflushing == 0) {
    uv_timer_stop(&r->flush);
    close_vms(r);
  }
}

/* Stops waiting for power-offs (a signal, or the limit): the instances still up are killed, their data lost. */
static void cov_abandon(umb_run *r, const char *why) {
  for (int i = 0; i < r->nvms; i++) {
    umb_run_vm *v = r->vms[i];
    if (!v->flushing) continue;
    v->flushing = 0;
    if (why) umb_buf_printf(&r->diag, "coverage: vm%d %s\n", v->index, why);
  }
  r->nflushing = 0;
  uv_timer_stop(&r->flush);
  close_vms(r);
}

static void on_flush_timeout(uv_timer_t *t) { cov_abandon(t->data, "did not power off in time: killed"); }

void umb_run_finish(umb_run *r, umb_verdict v, const char *fmt, ...) {
  if (r->finishing) return;
  r->finishing = 1;
  r->verdict = v;
  if (fmt) {
    char msg[4096];
    va_list ap;
    va_start(ap, fmt);
    vsnprintf(msg, sizeof msg, fmt, ap);
    va_end(ap);
    if (r->diag.len && r->diag.data[r->diag.len - 1] != '\n') umb_buf_append(&r->diag, "\n", 1);
    umb_buf_printf(&r->diag, "%s\n", msg);
    r->reason = strdup(msg);
  }
  uv_timer_stop(&r->timer);
  uv_timer_stop(&r->grace);
  umb_link_send("finishing %s", umb_verdict_name(v));
  if (r->ops && r->ops->finishing) r->ops->finishing(r);
  if (!cov_flush(r)) close_vms(r);
}

/* Closes (kills) every instance; after_vms() follows once all are closed. */
static void close_vms(umb_run *r) {
  r->nclosing = 1; /* Held until every vm close has been started. */
  for (int i = 0; i < r->nvms; i++) {
    if (r->vms[i]->vm == NULL) continue;
    r->nclosing++;
    umb_vm_close(r->vms[i]->vm, on_vm_closed, r->vms[i]);
  }
  if (--r->nclosing == 0) after_vms(r);
}

/* A note or failure line, within the run's text cap. */
static void add_text(umb_run *r, const char *text) {
  size_t n = strlen(text), room = r->diag.len < UMB_RUN_TEXT_MAX ? UMB_RUN_TEXT_MAX - r->diag.len : 0;
  if (r->diag_dropped || n + 1 > room) {
    /* What fits of the line that reaches the cap is kept; nothing after it. */
    if (!r->diag_dropped && room > 1) umb_buf_printf(&r->diag, "%.*s\n", (int)(room - 1), text);
    r->diag_dropped += n + 1 - (r->diag_dropped || room <= 1 ? 0 : room);
    return;
  }
  umb_buf_printf(&r->diag, "%s\n", text);
}

void umb_run_fail(umb_run *r, const char *text) {
  r->nfails++;
  add_text(r, text);
}

void umb_run_note(umb_run *r, const char *text) { add_text(r, text); }

int umb_run_check_kernels(umb_run *r) {
  for (int i = 0; i < r->nvms; i++) {
    umb_run_vm *v = r->vms[i];
    if (v->vm == NULL) continue;
    /* A warning printed during the last request may still sit in the console pipe. */
    umb_vm_drain_console(v->vm);
    const umb_scanner *s = umb_vm_scanner(v->vm);
    if (UMB_FINDING_FATAL(s->worst) || (s->worst != UMB_FIND_NONE && !r->allow_warnings)) {
      append_excerpt(r, v, "the kernel reported a problem");
      umb_run_finish(r, UMB_CRASHED, NULL);
      return 1;
    }
  }
  return 0;
}

static void on_timeout(uv_timer_t *t) {
  umb_run *r = t->data;
  for (int i = 0; i < r->nvms; i++)
    if (r->vms[i]->vm) append_excerpt(r, r->vms[i], "console at the timeout");
  umb_buf what = {0};
  if (r->ops && r->ops->timeout) r->ops->timeout(r, &what);
  umb_run_finish(r, UMB_TIMEOUT, "no verdict after %.1f s%s", r->timeout_s, what.data ? what.data : "");
  umb_buf_free(&what);
}

static void on_grace(uv_timer_t *t) {
  umb_run *r = t->data;
  if (r->crashed && r->crashed->vm) append_excerpt(r, r->crashed, "the kernel crashed");
  umb_run_finish(r, UMB_CRASHED, NULL);
}

/* A released instance's handles are closed: it holds no descriptor and no CPU any more. */
static void on_released(void *data) {
  umb_run_vm *v = data;
  v->vm = NULL;
  umb_cpu_put(v->cpu);
  v->cpu = -1;
  v->run->nlive--;
}

/* An instance the run's code killed, now gone: released unless its console holds a finding, which the end of the run
 * must still see (umb_run_check_kernels). */
static void release_if_clean(umb_run_vm *v) {
  umb_run *r = v->run;
  if (r->finishing || !v->expect_exit || v->flushing || v->released) return;
  umb_vm_drain_console(v->vm);
  if (umb_vm_scanner(v->vm)->worst != UMB_FIND_NONE) return;
  v->released = 1;
  umb_vm_close(v->vm, on_released, v);
}

static void on_vm_event(umb_vm *vm, umb_vm_event ev, void *data) {
  umb_run_vm *v = data;
  umb_run *r = v->run;
  const umb_run_vm_ops *ops = v->ops;
  switch (ev) {
    case UMB_VM_READY:
      if (r->result.nboot < UMB_RUN_VMS_MAX) r->result.boot_ms[r->result.nboot++] = umb_vm_boot_ms(vm);
      if (v->learn_lpj && r->cfg->lpj && r->cfg->lpj->value == 0) {
        umb_vm_drain_console(vm);
        const umb_scanner *s = umb_vm_scanner(vm);
        unsigned long lpj = s->log.data ? umb_lpj_parse(s->log.data, s->log.len) : 0;
        if (lpj) {
          r->cfg->lpj->value = lpj;
          r->cfg->lpj->learnt = 1;
          /* The runner keeps it, for the later runs' boots and its cache. */
          umb_link_send("lpj %lu", lpj);
        }
      }
      if (ops && ops->ready) ops->ready(v);
      break;
    case UMB_VM_FINDING:
      if (UMB_FINDING_FATAL(umb_vm_scanner(vm)->worst) && r->crashed == NULL && !r->finishing) {
        /* Let the kernel finish printing and die; the DEAD event usually comes first. */
        r->crashed = v;
        uv_timer_start(&r->grace, on_grace, GRACE_MS, 0);
      }
      break;
    case UMB_VM_EXITED:
      if (!r->finishing && ops && ops->exited) {
        uint64_t pid;
        const char *st = umb_vm_exited(vm, &pid);
        ops->exited(v, pid, st);
      }
      break;
    case UMB_VM_DEAD:
      if (r->finishing) {
        cov_flushed(v);
        break;
      }
      if (v->expect_exit && umb_vm_scanner(vm)->worst < UMB_FIND_BUG) {
        if (ops && ops->powered_off) ops->powered_off(v);
        if (ops && ops->exited) ops->exited(v, 0, NULL);
        break;
      }
      {
        /* A broken agent is an error of the test setup; a dying kernel is a crash. */
        const char *why = umb_vm_death(vm) ? umb_vm_death(vm) : "died";
        append_excerpt(r, v, why);
        umb_run_finish(r, strncmp(why, "protocol error", 14) ? UMB_CRASHED : UMB_ERROR, NULL);
      }
      break;
    case UMB_VM_GONE:
      v->gone = 1;
      if (r->finishing) cov_flushed(v);
      /* After a kill: no "exited" event will come any more. */
      if (!r->finishing && ops && ops->exited) ops->exited(v, 0, NULL);
      release_if_clean(v);
      break;
  }
}

int umb_run_vm_spawn(umb_run *r, const char *mem, const char *cmdline, int time_travel, int probe,
                     const umb_run_vm_ops *ops, void *user, umb_run_vm **out) {
  if (r->nlive == UMB_RUN_VMS_MAX) return -EMFILE;
  if (r->nvms == r->vms_cap) {
    int cap = r->vms_cap ? 2 * r->vms_cap : UMB_RUN_VMS_MAX;
    umb_run_vm **vms = realloc(r->vms, (size_t)cap * sizeof *vms);
    if (vms == NULL) return -ENOMEM;
    r->vms = vms;
    r->vms_cap = cap;
  }
  umb_run_vm *v = calloc(1, sizeof *v);
  if (v == NULL) return -ENOMEM;
  v->run = r;
  v->index = r->nvms;
  v->ops = ops;
  v->user = user;
  v->kernel = probe && r->cfg->probe_kernel ? r->cfg->probe_kernel : r->cfg->kernel;
  int rc = umb_path(v->dir, sizeof v->dir, "%s/vm%d", r->dir, v->index);
  if (rc == 0) rc = umb_path(v->root, sizeof v->root, "%s", r->root);
  if (rc == 0) rc = umb_path(v->shared, sizeof v->shared, "%s/shared", r->root);
  if (rc == 0 && mkdir(v->dir, 0755)) rc = -errno;
  if (rc) {
    free(v);
    return rc;
  }
  /* Pin to the least loaded allowed CPU (of every run of the runner): one instance per CPU makes faults much
   * faster. */
  v->cpu = umb_cpu_take();
  char umid[128];
  snprintf(umid, sizeof umid, "umlbed-%d-%p-%d", umb_runner_pid(r->cfg), (void *)r, v->index);
  char extra[4096];
  /* A command line cut short could end in half a word: too long is an error. */
  if (snprintf(extra, sizeof extra, "%s%s%s", r->cfg->cmdline ? r->cfg->cmdline : "",
               cmdline && r->cfg->cmdline ? " " : "", cmdline ? cmdline : "") >= (int)sizeof extra - 32)
    rc = -E2BIG;
  /* The delay-loop calibration is the first ~40 ms of every boot and measures the same host each time: once this
   * kernel has done it here, later boots are told the result (udelay() keeps its meaning). A command line that
   * sets lpj= itself is left alone; a time-travel boot's calibration measures simulated time, so it is not learnt. */
  umb_lpj *lpj = r->cfg->lpj;
  int tt = time_travel || r->cfg->time_travel;
  char gcov[PATH_MAX];
  if (rc == 0 && r->covdir[0] && (rc = umb_path(gcov, sizeof gcov, "%s/vm%d", r->covdir, v->index)) == 0) {
    /* The wall opens the kernel's gcov folder before the kernel runs: it must exist, and be the kernel's user's. */
    rc = mkdir(gcov, 0755) && errno != EEXIST ? -errno : umb_wall_hand_over(gcov, 0);
  }
  if (rc) {
    umb_rm_tree(v->dir);
    umb_cpu_put(v->cpu);
    free(v);
    return rc;
  }
  /* The calibration learnt is the run's kernel's: another kernel calibrates its own. */
  if (strcmp(v->kernel, r->cfg->kernel)) lpj = NULL;
  if (lpj && !strstr(extra, "lpj=")) {
    size_t len = strlen(extra);
    if (lpj->value)
      snprintf(extra + len, sizeof extra - len, "%slpj=%lu", len ? " " : "", lpj->value);
    else
      v->learn_lpj = !tt;
  }
  umb_vm_options o = {
      .kernel = v->kernel,
      .root = r->root,
      .dir = v->dir,
      .umid = umid,
      .mem = mem ? mem : r->cfg->mem,
      .cmdline = extra[0] ? extra : NULL,
      .time_travel = tt,
      .cpu = v->cpu,
      .gdb = r->cfg->gdb_script,
      .gdb_interactive = r->cfg->gdb_interactive,
      .ignore = r->cfg->ignore,
      .gcov_prefix = r->covdir[0] ? gcov : NULL,
      .gcov_strip = r->cfg->gcov_strip,
      .fake_uml = r->cfg->fake_uml,
  };
  rc = umb_vm_spawn(r->loop, &o, on_vm_event, v, &v->vm);
  if (rc) {
    /* Nothing started: the folder goes, so that the next spawn can take the same index. */
    umb_rm_tree(v->dir);
    umb_cpu_put(v->cpu);
    free(v);
    return rc;
  }
  r->vms[r->nvms++] = v;
  r->nlive++;
  *out = v;
  return 0;
}

void umb_run_vm_kill(umb_run_vm *v) {
  if (v->vm == NULL || v->run->finishing) return;
  v->expect_exit = 1;
  umb_vm_kill(v->vm);
}

void umb_run_vm_powering_off(umb_run_vm *v) { v->expect_exit = 1; }

int umb_run_vm_ending(const umb_run_vm *v) { return v->expect_exit; }

void umb_run_set_timeout(umb_run *r, double seconds) {
  r->timeout_s = seconds;
  uv_timer_stop(&r->timer);
  if (r->finishing) return;
  if (seconds > 0) uv_timer_start(&r->timer, on_timeout, (uint64_t)(seconds * 1000), 0);
  /* The supervisor kills a run process that is not done a little after this, whatever its code is doing. */
  umb_link_send("bound %.3f", seconds > 0 ? seconds : 0);
}

int umb_runner_pid(const umb_config *cfg) { return cfg->runner_pid > 0 ? cfg->runner_pid : (int)getpid(); }

int umb_run_start(umb_run *r, uv_loop_t *loop, const umb_config *cfg, const umb_run_ops *ops, void *user) {
  r->loop = loop;
  r->cfg = cfg;
  r->ops = ops;
  r->user = user;
  r->t_start = uv_hrtime();
  uv_timer_init(loop, &r->timer);
  uv_timer_init(loop, &r->grace);
  uv_timer_init(loop, &r->flush);
  r->timer.data = r->grace.data = r->flush.data = r;
  r->dir_lock = -1;
  int rc = make_dirs(r);
  if (rc)
    umb_run_finish(r, UMB_ERROR, "cannot prepare the run folder under %s: %s (agent %s)", cfg->tmpbase, strerror(-rc),
                   cfg->agent);
  return rc;
}

void umb_run_interrupt(umb_run *r) {
  if (r->finishing) {
    /* A signal during the power-offs of --coverage: stop waiting, the data of those still up is lost. */
    if (r->nflushing) {
      r->interrupted = 1;
      cov_abandon(r, "interrupted by a signal while powering off: killed");
    }
    return;
  }
  r->interrupted = 1;
  umb_run_finish(r, UMB_ERROR, "interrupted by a signal");
}

const umb_result *umb_run_result(const umb_run *r) { return &r->result; }

void umb_run_free(umb_run *r) {
  umb_buf_free(&r->diag);
  free(r->reason);
}

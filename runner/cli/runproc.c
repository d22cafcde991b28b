// SPDX-License-Identifier: MIT
/* runproc.c: starting a run process, answering its link, bounding it with one timer, and cleaning up after it. */
#include "runproc.h"

#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <stddef.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>
#include <sys/wait.h>
#include <unistd.h>

#include "runlink.h"
#include "reaper.h"
#include "runchild.h"
#include "path.h"
#include "wall.h"

/* How often and how long the groups of a killed run process are watched until they are gone. */
#define GONE_POLL_MS 10
#define GONE_LIMIT_MS 5000

/* Why the runner killed the run's process, if it did. */
typedef enum end_why { END_NONE = 0, END_BOUND, END_FINISH, END_STOP } end_why;

struct umb_runproc {
  uv_loop_t *loop;
  const umb_config *cfg;
  const umb_host_config *hcfg;
  job *j;
  void (*done_cb)(umb_runproc *p, void *data);
  void *data;
  uv_process_t proc;
  uv_pipe_t link;
  uv_timer_t timer; /* The bound: the deadline, the end after the verdict, or the stop after a signal. */
  uv_timer_t gone;  /* Watches the groups of a process that died before it released them. */
  int nhandles;
  umb_lines lines;
  char rbuf[65536];
  /* The run's folder, made and locked by the runner before the run process starts (dirfd holds the lock): the run
   * process works in it, and the runner removes or keeps it through dirfd once that process is gone. */
  char dir[PATH_MAX];
  int dirfd;
  int keep; /* The folder is to be kept (decided at the end, on the loop). */
  uv_work_t sweep;
  /* What the run process registered and has not released: its instances' groups, its CPUs. */
  int *groups;
  int ngroups;
  int *cpus;
  int ncpus;
  int exited, eof, result_done, finishing, stopping, ending;
  end_why killed;
  int64_t exit_status;
  int term_signal;
  int verdict_seen; /* A "finishing" line named the run's verdict (j->verdict). */
  double timeout_s; /* The last bound the run process gave (0: none). */
  uint64_t t_start, gone_started;
  char bad[160]; /* The first line the run process sent that is not the link's; reported if the run goes wrong. */
};

static double scale(const umb_runproc *p) { return p->cfg->timeout_scale > 0 ? p->cfg->timeout_scale : 1; }

static void on_timer(uv_timer_t *t) {
  umb_runproc *p = t->data;
  if (p->exited) return;
  p->killed = p->stopping ? END_STOP : p->finishing ? END_FINISH : END_BOUND;
  kill(p->proc.pid, SIGKILL);
}

/* The run's process must be done within seconds from now (0: no bound). */
static void arm(umb_runproc *p, double seconds) {
  uv_timer_stop(&p->timer);
  if (seconds > 0 && !p->exited) uv_timer_start(&p->timer, on_timer, (uint64_t)(seconds * 1000) + 1, 0);
}

static void on_closed(uv_handle_t *h) {
  umb_runproc *p = h->data;
  if (--p->nhandles == 0 && p->done_cb) p->done_cb(p, p->data);
}

static void close_all(umb_runproc *p) {
  uv_close((uv_handle_t *)&p->timer, on_closed);
  uv_close((uv_handle_t *)&p->gone, on_closed);
  if (p->proc.data) uv_close((uv_handle_t *)&p->proc, on_closed);
  if (p->link.data) uv_close((uv_handle_t *)&p->link, on_closed);
}

static void set_str(char **field, const char *v) {
  free(*field);
  *field = v ? strdup(v) : NULL;
}

/* Adds a line of the runner's own to the run's diagnostics. */
static void add_diag(job *j, const char *text) {
  size_t old = j->diag ? strlen(j->diag) : 0, n = strlen(text);
  char *d = realloc(j->diag, old + n + 2);
  if (d == NULL) return;
  if (old && d[old - 1] != '\n') d[old++] = '\n';
  memcpy(d + old, text, n);
  d[old + n] = '\n';
  d[old + n + 1] = '\0';
  j->diag = d;
}

/* The run's verdict when its own result did not come whole, or the runner had to kill its process. */
static void settle(umb_runproc *p) {
  job *j = p->j;
  char msg[1024];
  umb_verdict v;
  if (!p->result_done) j->seconds = (double)(uv_hrtime() - p->t_start) / 1e9;
  if (p->killed == END_BOUND) {
    v = UMB_TIMEOUT;
    snprintf(msg, sizeof msg,
             "no verdict %.1f s after the run's timeout of %.1f s, and its process did not answer: its code was stuck "
             "where Lua cannot stop it (a long C call such as a string match or blocking I/O, or a loop in a "
             "callback that cannot yield); the runner killed the process",
             UMB_RUNPROC_MARGIN_S * scale(p), p->timeout_s);
  } else if (p->killed == END_FINISH && !p->result_done) {
    v = UMB_TIMEOUT;
    snprintf(msg, sizeof msg,
             "the run's verdict was %s, but its process did not end within %.1f s of it (a finalizer or clean-up "
             "that never returned); the runner killed the process",
             umb_verdict_name(j->verdict), UMB_RUNPROC_FINISH_S * scale(p));
  } else if (p->stopping) {
    v = UMB_ERROR;
    snprintf(msg, sizeof msg, "interrupted by a signal%s",
             p->killed == END_STOP ? "; the run's process did not stop in time, and the runner killed it" : "");
  } else if (!p->result_done) {
    v = UMB_ERROR;
    if (p->term_signal)
      snprintf(msg, sizeof msg, "the run's process died of signal %d (%s) without a verdict", p->term_signal,
               strsignal(p->term_signal));
    else
      snprintf(msg, sizeof msg, "the run's process exited with status %d without a verdict", (int)p->exit_status);
    if (p->bad[0]) snprintf(msg + strlen(msg), sizeof msg - strlen(msg), " (it sent \"%s\")", p->bad);
  } else if (!p->killed && (p->exit_status || p->term_signal)) {
    /* The run's result came, but its process then failed (a sanitizer's or valgrind's finding at exit, a crash in
     * the runner's own clean-up): a fault of the runner must not pass unseen. */
    v = UMB_ERROR;
    snprintf(msg, sizeof msg, "the run's process failed after its verdict (%s %d)",
             p->term_signal ? "signal" : "exit status", p->term_signal ? p->term_signal : (int)p->exit_status);
  } else {
    if (p->killed == END_FINISH)
      add_diag(j, "note: the run's process did not exit after sending its result; the runner killed it");
    return;
  }
  /* A stop that came after the run's own verdict does not change it. */
  if (p->stopping && p->result_done && p->killed != END_STOP) return;
  j->verdict = v;
  set_str(&j->reason, msg);
  add_diag(j, msg);
}

/* Off the loop: whatever still works in the run's folder is killed (looked for below the runner, a subreaper),
 * then the folder is kept (marked) or emptied and removed, all through its descriptor: nothing the run wrote there
 * is followed or opened. */
static void sweep_work(uv_work_t *w) {
  umb_runproc *p = w->data;
  umb_sweep_below(p->dir, getpgrp());
  if (p->keep) {
    umb_mark_kept(p->dirfd);
  } else {
    umb_rm_inside(p->dirfd);
    umb_rm_tree(p->dir);
  }
}

static void after_sweep(uv_work_t *w, int status) {
  umb_runproc *p = w->data;
  (void)status;
  if (p->dirfd >= 0) {
    umb_reaper_del_dir(p->dir);
    close(p->dirfd);
    p->dirfd = -1;
  }
  for (int i = 0; i < p->ngroups; i++) umb_reaper_del_group(p->groups[i]);
  for (int i = 0; i < p->ncpus; i++) umb_cpu_put_local(p->cpus[i]);
  p->ncpus = 0;
  close_all(p);
}

static void end_now(umb_runproc *p) {
  settle(p);
  if (p->dirfd < 0) {
    after_sweep(&p->sweep, 0);
    return;
  }
  /* A failed run's folder is kept, as is every one with --keep; a stopped run's goes. */
  p->keep = p->cfg->keep || (!p->stopping && p->j->verdict >= UMB_FAILED);
  if (p->keep && p->j->dir == NULL) set_str(&p->j->dir, p->dir);
  p->sweep.data = p;
  if (uv_queue_work(p->loop, &p->sweep, sweep_work, after_sweep)) {
    sweep_work(&p->sweep);
    after_sweep(&p->sweep, 0);
  }
}

static int group_alive(int pgid) {
  /* Its processes are reparented to the runner (a subreaper) once the run's process is gone: reap them. */
  while (waitpid(-pgid, NULL, WNOHANG) > 0) {
  }
  return kill(-pgid, 0) == 0 || errno != ESRCH;
}

static void on_gone(uv_timer_t *t) {
  umb_runproc *p = t->data;
  int alive = 0;
  for (int i = 0; i < p->ngroups; i++) alive |= group_alive(p->groups[i]);
  if (alive && uv_now(p->loop) - p->gone_started < GONE_LIMIT_MS) return;
  if (alive) fprintf(stderr, "umlbed: a killed run's instances survived SIGKILL for %d ms\n", GONE_LIMIT_MS);
  uv_timer_stop(t);
  end_now(p);
}

/* The process has exited and its link is read to the end: whatever it left registered goes now. */
static void maybe_end(umb_runproc *p) {
  if (!p->exited || !p->eof || p->ending) return;
  p->ending = 1;
  uv_timer_stop(&p->timer);
  if (p->ngroups == 0) {
    end_now(p);
    return;
  }
  /* A group whose leader is gone or left the run's folder may belong to someone else by now. */
  const char *dirs[] = {p->dir};
  for (int i = 0; i < p->ngroups; i++)
    if (umb_reaper_group_in(p->groups[i], dirs, 1)) kill(-p->groups[i], SIGKILL);
  p->gone_started = uv_now(p->loop);
  uv_timer_start(&p->gone, on_gone, 0, GONE_POLL_MS);
}

static void on_exit_cb(uv_process_t *h, int64_t status, int sig) {
  umb_runproc *p = h->data;
  p->exited = 1;
  p->exit_status = status;
  p->term_signal = sig;
  maybe_end(p);
}

static void on_written(uv_write_t *w, int status) {
  (void)status;
  free(w);
}

/* Sends text to the run's process; the write request and the bytes are one allocation. */
static void send_text(umb_runproc *p, const char *text, size_t n) {
  uv_write_t *w = malloc(sizeof *w + n);
  if (w == NULL) return;
  memcpy(w + 1, text, n);
  uv_buf_t b = uv_buf_init((char *)(w + 1), (unsigned)n);
  if (uv_write(w, (uv_stream_t *)&p->link, &b, 1, on_written)) free(w);
}

static int add_int(int **a, int *n, int v) {
  int *x = realloc(*a, sizeof(int) * (size_t)(*n + 1));
  if (x == NULL) return -ENOMEM;
  x[(*n)++] = v;
  *a = x;
  return 0;
}

static void del_int(int *a, int *n, int v) {
  for (int i = 0; i < *n; i++)
    if (a[i] == v) {
      a[i] = a[--*n];
      return;
    }
}

/* A field of the result record. Its text fields may hold any bytes but NUL (umb_link_parse checked). */
static void on_result(umb_runproc *p, const umb_link_msg *m) {
  job *j = p->j;
  switch (m->key) {
    case UMB_LK_RES_end:
      /* The verdict came once, on the "finishing" line: a record without one is no result. */
      p->result_done = p->verdict_seen;
      break;
    case UMB_LK_RES_seconds:
      j->seconds = m->num;
      break;
    case UMB_LK_RES_boot:
      if (j->nboot < UMB_RUN_VMS_MAX) j->boot_ms[j->nboot++] = m->num;
      break;
    case UMB_LK_RES_cov_written:
      j->cov_written = (int)m->i;
      break;
    case UMB_LK_RES_cov_lost:
      j->cov_lost = (int)m->i;
      break;
    case UMB_LK_RES_diag:
      set_str(&j->diag, m->val);
      break;
    case UMB_LK_RES_reason:
      set_str(&j->reason, m->val);
      break;
    case UMB_LK_RES_prints:
      set_str(&j->prints, m->val);
      break;
    case UMB_LK_RES_metrics:
      set_str(&j->metrics, m->val);
      break;
    case UMB_LK_RES_coverage:
      set_str(&j->coverage, m->val);
      break;
  }
}

/* An instance's group: only one whose leader works in this run's folder is killed for it, here or by the reaper. */
static void on_group(umb_runproc *p, int add, int pgid) {
  const char *dirs[] = {p->dir};
  if (add) {
    if (umb_reaper_group_in(pgid, dirs, 1) && add_int(&p->groups, &p->ngroups, pgid) == 0) umb_reaper_add_group(pgid);
    return;
  }
  int had = p->ngroups;
  del_int(p->groups, &p->ngroups, pgid);
  if (p->ngroups < had) umb_reaper_del_group(pgid);
}

static void on_cpu_ask(umb_runproc *p) {
  int cpu = umb_cpu_take_local();
  if (cpu >= 0 && add_int(&p->cpus, &p->ncpus, cpu)) {
    umb_cpu_put_local(cpu);
    cpu = -1;
  }
  char answer[32];
  send_text(p, answer, (size_t)snprintf(answer, sizeof answer, "%s %d\n", umb_link_word(UMB_LM_CPU), cpu));
}

static void on_finishing(umb_runproc *p, umb_verdict v) {
  if (p->verdict_seen) return;
  p->verdict_seen = 1;
  p->finishing = 1;
  p->j->verdict = v;
  /* --coverage: the instances power off to write their data, within the run's flush limit. */
  double flush = p->cfg->coverage ? UMB_RUN_FLUSH_LIMIT_S : 0;
  if (!p->stopping) arm(p, (UMB_RUNPROC_FINISH_S + flush) * scale(p));
}

/* One line from the run process, read only through the link's table (umb_link_parse): a run process may send any
 * bytes, and nothing here follows a path or a number it gave without checking it. */
static int on_line(void *arg, char *line, size_t len, int toolong) {
  umb_runproc *p = arg;
  umb_link_msg m;
  if (toolong || umb_link_parse(line, len, UMB_LINK_OUT, &m)) {
    if (!p->bad[0])
      snprintf(p->bad, sizeof p->bad, "%.*s%s", (int)(len < 100 ? len : 100), line, len > 100 ? "..." : "");
    return 0;
  }
  switch (m.msg) {
    case UMB_LM_RES:
      on_result(p, &m);
      break;
    case UMB_LM_GROUP_ADD:
    case UMB_LM_GROUP_DEL:
      on_group(p, m.msg == UMB_LM_GROUP_ADD, (int)m.i);
      break;
    case UMB_LM_CPU_ASK:
      on_cpu_ask(p);
      break;
    case UMB_LM_CPU_PUT: {
      int had = p->ncpus;
      del_int(p->cpus, &p->ncpus, (int)m.i);
      if (p->ncpus < had) umb_cpu_put_local((int)m.i);
      break;
    }
    case UMB_LM_BOUND:
      p->timeout_s = m.num;
      if (!p->finishing && !p->stopping) arm(p, m.num > 0 ? m.num + UMB_RUNPROC_MARGIN_S * scale(p) : 0);
      break;
    case UMB_LM_FINISHING:
      on_finishing(p, (umb_verdict)m.i);
      break;
    case UMB_LM_LPJ:
      if (p->cfg->lpj && p->cfg->lpj->value == 0) {
        p->cfg->lpj->value = (unsigned long)m.i;
        p->cfg->lpj->learnt = 1;
      }
      break;
  }
  return 0;
}

static void on_alloc(uv_handle_t *h, size_t hint, uv_buf_t *buf) {
  umb_runproc *p = h->data;
  (void)hint;
  *buf = uv_buf_init(p->rbuf, sizeof p->rbuf);
}

static void on_read(uv_stream_t *s, ssize_t n, const uv_buf_t *buf) {
  umb_runproc *p = s->data;
  if (n > 0 && umb_lines_feed(&p->lines, buf->base, (size_t)n, on_line, p) == 0) return;
  if (n == 0) return;
  if (n > 0) fprintf(stderr, "umlbed: out of memory reading a run process's link\n");
  umb_lines_flush(&p->lines, on_line, p);
  uv_read_stop(s);
  p->eof = 1;
  maybe_end(p);
}

int umb_runproc_config(umb_buf *b, const umb_host_config *hcfg, const char *file, const char *name, int combo,
                       const char *dir) {
  const umb_config *c = hcfg->core;
  int rc = 0;
#define STR(k, v) rc |= umb_link_rec_str(b, UMB_LM_CFG, UMB_LK_CFG_##k, (v))
#define NUM(k, v) rc |= umb_link_rec_num(b, UMB_LM_CFG, UMB_LK_CFG_##k, (double)(v))
  STR(kernel, c->kernel);
  STR(probe_kernel, c->probe_kernel);
  STR(agent, c->agent);
  STR(tmpbase, c->tmpbase);
  STR(dir, dir);
  STR(mem, c->mem);
  STR(cmdline, c->cmdline);
  STR(gdb_script, c->gdb_script);
  STR(variant, c->variant);
  STR(release, c->release);
  STR(generation, c->generation);
  STR(coverage, c->coverage);
  for (int i = 0; c->ignore && c->ignore[i]; i++) STR(ignore, c->ignore[i]);
  for (int i = 0; hcfg->params && hcfg->params[i]; i++) STR(param, hcfg->params[i]);
  NUM(timeout, c->timeout_s);
  NUM(timeout_scale, c->timeout_scale);
  if (c->lpj) NUM(lpj, c->lpj->value);
  NUM(time_travel, c->time_travel);
  NUM(keep, c->keep);
  NUM(timeout_given, c->timeout_given);
  NUM(gdb_interactive, c->gdb_interactive);
  NUM(unsafe_lua, hcfg->unsafe_lua);
  NUM(lua_memory, hcfg->lua_memory);
  NUM(gcov_strip, c->gcov_strip);
  NUM(runner_pid, umb_runner_pid(c));
  NUM(fake_uml, c->fake_uml);
  STR(file, file);
  STR(name, name);
  NUM(combo, combo);
#undef STR
#undef NUM
  rc |= umb_link_rec_end(b, UMB_LM_CFG);
  return rc ? -ENOMEM : 0;
}

/* The run's folder, made and locked before anything of the run starts, and registered with the reaper: the run
 * process is told its name, and may write nowhere else on the host (runchild.c). */
static int make_dir(umb_runproc *p) {
  int rc = umb_path(p->dir, sizeof p->dir, "%s/umlbed-%d-XXXXXX", p->cfg->tmpbase, umb_runner_pid(p->cfg));
  if (rc) return rc;
  p->dirfd = umb_live_dir_make(p->cfg->tmpbase, p->dir);
  if (p->dirfd < 0) {
    rc = p->dirfd;
    p->dirfd = -1;
    p->dir[0] = '\0';
    return rc;
  }
  umb_reaper_add_dir(p->dir);
  return 0;
}

static int spawn(umb_runproc *p) {
  int sv[2];
  if (socketpair(AF_UNIX, SOCK_STREAM | SOCK_CLOEXEC, 0, sv)) return -errno;
  /* The runner's own program, through the descriptor it opened at its start (wall.h). */
  const char *exe = umb_wall_self();
  if (exe == NULL) {
    close(sv[0]);
    close(sv[1]);
    return UV_ENOENT;
  }
  char runner[24];
  snprintf(runner, sizeof runner, "%d", (int)getpid());
  char *args[] = {(char *)exe, "__run", runner, NULL};
  /* The run process gets its link and a place for what it prints: not the reaper's pipe, not the TAP stream and
   * not the runner's input (a terminal where a user types), but for an interactive gdb's own terminal. It closes
   * anything else it inherited. */
  uv_stdio_container_t stdio[4] = {
      {.flags = p->cfg->gdb_interactive ? UV_INHERIT_FD : UV_IGNORE, .data.fd = 0},
      {.flags = UV_INHERIT_FD, .data.fd = p->cfg->gdb_interactive ? 1 : 2},
      {.flags = UV_INHERIT_FD, .data.fd = 2},
      {.flags = UV_INHERIT_FD, .data.fd = sv[1]},
  };
  uv_process_options_t o = {
      .exit_cb = on_exit_cb,
      .file = exe,
      .args = args,
      .stdio = stdio,
      .stdio_count = 4,
  };
  p->proc.data = p;
  p->nhandles++;
  int rc = uv_spawn(p->loop, &p->proc, &o);
  close(sv[1]);
  if (rc) {
    close(sv[0]);
    return rc;
  }
  uv_pipe_init(p->loop, &p->link, 0);
  p->link.data = p;
  p->nhandles++;
  if ((rc = uv_pipe_open(&p->link, sv[0])) != 0) {
    close(sv[0]);
    return rc;
  }
  umb_buf b = {0};
  if ((rc = umb_runproc_config(&b, p->hcfg, p->j->file, p->j->name, p->j->combo, p->dir)) == 0)
    send_text(p, b.data, b.len);
  umb_buf_free(&b);
  if (rc == 0) rc = uv_read_start((uv_stream_t *)&p->link, on_alloc, on_read);
  return rc;
}

umb_runproc *umb_runproc_start(uv_loop_t *loop, const umb_host_config *hcfg, job *j,
                               void (*done_cb)(umb_runproc *p, void *data), void *data) {
  umb_runproc *p = calloc(1, sizeof *p);
  if (p == NULL) return NULL;
  const umb_config *cfg = hcfg->core;
  p->loop = loop;
  p->cfg = cfg;
  p->hcfg = hcfg;
  p->j = j;
  p->done_cb = done_cb;
  p->data = data;
  p->lines.max = 64u << 20; /* The result record's longest line: 16 MiB of metrics, percent-encoded. */
  p->t_start = uv_hrtime();
  p->timeout_s = cfg->timeout_s;
  uv_timer_init(loop, &p->timer);
  uv_timer_init(loop, &p->gone);
  p->timer.data = p->gone.data = p;
  p->nhandles = 2;
  p->dirfd = -1;
  char msg[PATH_MAX + 128];
  int rc = make_dir(p);
  if (rc)
    snprintf(msg, sizeof msg, "cannot make the run folder under %s: %s", cfg->tmpbase, strerror(-rc));
  else if ((rc = spawn(p)) != 0)
    snprintf(msg, sizeof msg, "cannot start the run's process: %s", uv_strerror(rc));
  if (rc) {
    if (p->exited || !p->proc.pid) {
      /* Nothing runs: the run ends with this error, from the loop. */
      p->exited = p->eof = p->ending = 1;
      j->verdict = UMB_ERROR;
      set_str(&j->reason, msg);
      add_diag(j, msg);
      if (p->dirfd >= 0) {
        umb_rm_inside(p->dirfd);
        umb_rm_tree(p->dir);
        umb_reaper_del_dir(p->dir);
        close(p->dirfd);
        p->dirfd = -1;
      }
      close_all(p);
    } else {
      /* It runs, but cannot be talked to: it is ended, and its end reported. */
      snprintf(p->bad, sizeof p->bad, "%.150s", msg);
      kill(p->proc.pid, SIGKILL);
      p->eof = 1;
    }
    return p;
  }
  /* Loading the file is bounded by the default timeout until the run process says what the scenario's is. */
  arm(p, cfg->timeout_s > 0 ? cfg->timeout_s + UMB_RUNPROC_MARGIN_S * scale(p) : 0);
  return p;
}

void umb_runproc_signal(umb_runproc *p, int sig) {
  if (p->stopping || p->ending) return;
  p->stopping = 1;
  if (!p->exited) kill(p->proc.pid, sig);
  arm(p, UMB_RUNPROC_STOP_S * scale(p));
}

void umb_runproc_free(umb_runproc *p) {
  umb_lines_free(&p->lines);
  free(p->groups);
  free(p->cpus);
  free(p);
}

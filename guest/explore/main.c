// SPDX-License-Identifier: MIT
/* main.c: umlbed-explore, the guest side of the explorer: sets up a case, runs its tasks under a schedule, prints the state. */
#include "xp.h"

#include <ctype.h>
#include <errno.h>
#include <fcntl.h>
#include <poll.h>
#include <signal.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mount.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <unistd.h>

/*
 * umlbed-explore [-t] [-d DIR] (-s SCHEDULE | -o ORDER) DIRECTIVE...
 *
 * Each DIRECTIVE is one argument:
 *   file host|tmp PAGES       the file under test: on hostfs (a second mount of the same folder is the other node)
 *                             or on a tmpfs of its own; PAGES pages, page i holding version 0 of page i
 *   proc PN                   a new process N (a server that opens the file)
 *   do PN PRIM...             process N runs a primitive now, as set-up: anything but ok or a data token fails
 *   task PN PRIM... [; PRIM]  a task of the concurrent part (at most 4, one process each)
 * -s PRIO,PRIO.../STEP:PRIO,...  runs the tasks at once, SCHED_FIFO at these initial priorities, the kernel changing
 *                             the running task's priority at each STEP (/sys/kernel/umlbed_explore/)
 * -o T.P,T.P,...              runs the tasks' primitives one after another in this order instead
 * -t                          prints the kernel's trace of the schedule
 * Exit 0 with the state on stdout; 2 when the explorer itself failed, 3 when the set-up did.
 */

#include <time.h>

size_t xp_ps;

/* With UMLBED_EXPLORE_TIMING set, each phase's end on stderr, in milliseconds from the start: where a run's time
 * goes. */
void xp_phase(const char *what) {
  static struct timespec t0;
  struct timespec now;
  if (!getenv("UMLBED_EXPLORE_TIMING")) return;
  clock_gettime(CLOCK_MONOTONIC, &now);
  if (!t0.tv_sec) t0 = now;
  fprintf(stderr, "phase %s %.1f ms\n", what, (now.tv_sec - t0.tv_sec) * 1e3 + (now.tv_nsec - t0.tv_nsec) / 1e6);
}
struct xp_case xp_c;
int xp_ctl_fd = -1;

_Noreturn void xp_die(const char *fmt, ...) {
  va_list ap;
  va_start(ap, fmt);
  fprintf(stderr, "umlbed-explore: ");
  vfprintf(stderr, fmt, ap);
  fputc('\n', stderr);
  va_end(ap);
  fflush(NULL);
  _exit(2);
}

int xp_split(char *line, char **words, int max) {
  int n = 0;
  for (char *p = strtok(line, " \t"); p; p = strtok(NULL, " \t")) {
    if (n == max) return -1;
    words[n++] = p;
  }
  return n;
}

int xp_num(const char *s, uint64_t *v) {
  char *end;
  if (!*s || *s == '-') return errno = EINVAL, -1;
  errno = 0;
  unsigned long long x = strtoull(s, &end, 0);
  if (errno || *end) return errno = EINVAL, -1;
  *v = x;
  return 0;
}

static int proc_of(const char *w) {
  uint64_t p;
  if (w[0] != 'P' || xp_num(w + 1, &p) < 0 || p >= XP_MAX_PROCS) xp_die("bad process %s", w);
  return (int)p;
}

static void write_file(const char *path, const char *text) {
  int fd = open(path, O_WRONLY | O_CLOEXEC);
  if (fd < 0) xp_die("open %s: %s", path, strerror(errno));
  ssize_t n = write(fd, text, strlen(text));
  if (n != (ssize_t)strlen(text)) xp_die("write %s (%s): %s", path, text, strerror(errno));
  close(fd);
}

/*
 * Writeback only where a task or the set-up asks for it (fsync, msync, a direct I/O, the other node's write), never
 * by the kernel's flusher on its own. The flusher wakes on a timer (dirty_writeback_centisecs after a device's first
 * dirty inode) and then writes a device's pages back once they pass its share of the background threshold, a share
 * that follows the device's recent writeback over time: which page is clean when a task reaches it would depend on
 * the host's clock, and a run could not be replayed. So the limits are out of reach (64 GiB, half of it for the
 * background) and the timer an hour away. Setting the timer wakes the flusher once; a timer a device already had
 * (5 s after the agent's last write) stays pending, so a byte is dirtied and sync() makes the flusher run now:
 * both are spent before the case is set up.
 */
static void quiet_flusher(const char *dir) {
  char path[160];
  write_file("/proc/sys/vm/dirty_bytes", "68719476736");
  write_file("/proc/sys/vm/dirty_background_bytes", "34359738368");
  write_file("/proc/sys/vm/dirty_writeback_centisecs", "360000");
  snprintf(path, sizeof path, "%s-flush", dir);
  int fd = open(path, O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC, 0600);
  if (fd < 0 || write(fd, "", 1) != 1) xp_die("%s: %s", path, strerror(errno));
  close(fd);
  sync();
  unlink(path);
}

/* The kernel lets user space write ten lines to /dev/kmsg in five seconds and drops the rest. A run's name there is
 * how a run that brought the kernel down is found (uml-kernel/explore-historic.sh reads it from the console), and a
 * batch names more runs than ten: every line goes through. */
static void kmsg_unlimited(void) { write_file("/proc/sys/kernel/printk_devkmsg", "on\n"); }

/* "file host|tmp PAGES": the folder, the mounts and the file at version 0. */
static void make_file(const char *path, char **w, int n) {
  char dir[128];
  snprintf(dir, sizeof dir, "%s", path);
  uint64_t pages;
  if (n != 3 || xp_num(w[2], &pages) < 0) xp_die("bad file");
  struct xp_file *f = &xp_c.file;
  char sub[200];
  f->pages = pages;
  f->tmpfs = strcmp(w[1], "tmp") == 0;
  if (mkdir(dir, 0755) < 0 && errno != EEXIST) xp_die("mkdir %s: %s", dir, strerror(errno));
  if (f->tmpfs) {
    snprintf(sub, sizeof sub, "%s/tmp", dir);
    if (mkdir(sub, 0755) < 0 || mount("tmpfs", sub, "tmpfs", 0, NULL) < 0) xp_die("tmpfs %s: %s", sub, strerror(errno));
    snprintf(f->path, sizeof f->path, "%s/data", sub);
  } else {
    /* The other node: the same host folder through a hostfs mount of its own, with a page cache of its own. */
    snprintf(sub, sizeof sub, "%s/other", dir);
    if (mkdir(sub, 0755) < 0 || mount("none", sub, "hostfs", 0, "/") < 0) xp_die("hostfs %s: %s", sub, strerror(errno));
    snprintf(f->path, sizeof f->path, "%s/data", dir);
    snprintf(f->other, sizeof f->other, "%s/other%s/data", dir, dir);
  }
  int fd = open(f->path, O_RDWR | O_CREAT | O_TRUNC | O_CLOEXEC, 0644);
  if (fd < 0) xp_die("create %s: %s", f->path, strerror(errno));
  char *buf = malloc(xp_ps);
  if (!buf) xp_die("out of memory");
  for (size_t i = 0; i < pages; i++) {
    xp_fill(buf, 0, i);
    if (pwrite(fd, buf, xp_ps, (off_t)(i * xp_ps)) != (ssize_t)xp_ps) xp_die("fill: %s", strerror(errno));
  }
  free(buf);
  if (fsync(fd) < 0) xp_die("fsync: %s", strerror(errno));
  xp_ctl_fd = fd;
}

/* A primitive a process reported: a fork's child greets the controller before anything else is sent to it. */
static void after_prim(int p, char *const *w, int n, const char *res) {
  if (n == 2 && strcmp(w[0], "fork") == 0 && strcmp(res, "ok") == 0) {
    int q = proc_of(w[1]);
    xp_c.procs[q].used = true;
    memcpy(xp_c.procs[q].maps, xp_c.procs[p].maps, sizeof xp_c.procs[q].maps);
    xp_greet(q);
  }
}

/* "do PN PRIM...": one primitive, now; the set-up fails unless it did what it says. */
static void set_up(char **w, int n) {
  char res[XP_LINE_MAX], line[XP_LINE_MAX] = "";
  if (n < 3) xp_die("bad do");
  int p = proc_of(w[1]);
  if (!xp_c.procs[p].used || xp_c.procs[p].gone) xp_die("do: no process P%d", p);
  for (int i = 2; i < n; i++) {
    size_t len = strlen(line);
    snprintf(line + len, sizeof line - len, "%s%s", i > 2 ? " " : "", w[i]);
  }
  xp_send(p, "%s", line);
  if (strcmp(w[2], "exit") == 0) {
    xp_reply(p, res, sizeof res);
    return;
  }
  if (!xp_reply(p, res, sizeof res) || (strcmp(res, "ok") != 0 && res[0] != 'v'))
    fprintf(stderr, "umlbed-explore: set-up: P%d %s: %s\n", p, line, res), exit(3);
  after_prim(p, w + 2, n - 2, res);
}

/* "task PN PRIM... [; PRIM...]". */
static void add_task(char **w, int n) {
  if (xp_c.ntasks == XP_MAX_TASKS || n < 3) xp_die("bad task");
  struct xp_task *t = &xp_c.tasks[xp_c.ntasks];
  t->proc = proc_of(w[1]);
  for (int i = 0; i < xp_c.ntasks; i++) {
    if (xp_c.tasks[i].proc == t->proc) xp_die("two tasks of P%d", t->proc);
  }
  for (int i = 2; i < n; i++) {
    if (strcmp(w[i], ";") == 0) continue;
    if (i == 2 || strcmp(w[i - 1], ";") == 0) {
      if (t->nprims == XP_MAX_PRIMS) xp_die("a task has at most %d primitives", XP_MAX_PRIMS);
      t->nprims++;
    }
    struct xp_prim *pr = &t->prims[t->nprims - 1];
    if (pr->nwords == XP_WORDS_MAX) xp_die("a primitive too long");
    pr->words[pr->nwords++] = w[i];
  }
  xp_c.ntasks++;
}

static void directive(const char *dir, char *arg) {
  char *w[XP_WORDS_MAX * XP_MAX_PRIMS + 4];
  int n = xp_split(arg, w, (int)(sizeof w / sizeof w[0]));
  if (n <= 0) xp_die("an empty or too long directive");
  if (strcmp(w[0], "file") == 0) {
    if (xp_ctl_fd >= 0) xp_die("two files");
    make_file(dir, w, n);
  } else if (xp_ctl_fd < 0) {
    xp_die("the file comes first");
  } else if (strcmp(w[0], "proc") == 0 && n == 2) {
    xp_proc_start(proc_of(w[1]));
  } else if (strcmp(w[0], "do") == 0) {
    set_up(w, n);
  } else if (strcmp(w[0], "task") == 0) {
    add_task(w, n);
  } else {
    xp_die("unknown directive %s", w[0]);
  }
}

/* The case's file and mounts go once its state is printed, so that a guest that runs many cases keeps its memory
 * (a tmpfs file of thousands of pages would stay in it): the file, the tmpfs or the other node's mount, the folder.
 * Lazy unmounts: a process that has not ended yet may still map the file. */
static void clean_up(const char *dir) {
  char sub[160];
  struct xp_file *f = &xp_c.file;
  close(xp_ctl_fd);
  unlink(f->path);
  snprintf(sub, sizeof sub, "%s/%s", dir, f->tmpfs ? "tmp" : "other");
  umount2(sub, MNT_DETACH);
  rmdir(sub);
  rmdir(dir);
}

/* A task's primitives as one line, joined by " ; ". */
static void task_line(const struct xp_task *t, int only, char *line, size_t size) {
  line[0] = '\0';
  for (int i = 0; i < t->nprims; i++) {
    if (only >= 0 && i != only) continue;
    for (int j = 0; j < t->prims[i].nwords; j++) {
      size_t len = strlen(line);
      snprintf(line + len, size - len, "%s%s", len ? " " : "", t->prims[i].words[j]);
    }
    if (only < 0 && i + 1 < t->nprims) strncat(line, " ;", size - strlen(line) - 1);
  }
}

static bool is_exit(const struct xp_task *t, int i) { return strcmp(t->prims[i].words[0], "exit") == 0; }

/* Waits for task i's reply, or its process's end when its last primitive is an exit. */
static void task_result(int i, char *res, size_t size) {
  const struct xp_task *t = &xp_c.tasks[i];
  if (!xp_reply(t->proc, res, size)) snprintf(res, size, "%s", is_exit(t, t->nprims - 1) ? "exited" : "died");
}

/* Runs the tasks' primitives one at a time in the order "T.P,T.P,...". */
static void run_order(char *order, char results[][XP_LINE_MAX]) {
  for (char *tp = strtok(order, ","); tp; tp = strtok(NULL, ",")) {
    unsigned ti, pi;
    char line[XP_LINE_MAX], res[XP_LINE_MAX];
    if (sscanf(tp, "%u.%u", &ti, &pi) != 2 || ti >= (unsigned)xp_c.ntasks || pi >= (unsigned)xp_c.tasks[ti].nprims)
      xp_die("bad order element %s", tp);
    const struct xp_task *t = &xp_c.tasks[ti];
    task_line(t, (int)pi, line, sizeof line);
    /* The series' call gets its PTEs before and after: what its contract says of each page is checked alone. */
    bool inval = strcmp(t->prims[pi].words[0], "inval") == 0;
    char tag[32];
    snprintf(tag, sizeof tag, "%u.%u:before", ti, pi);
    if (inval) xp_snap(tag);
    xp_send(t->proc, "%s", line);
    bool replied = xp_reply(t->proc, res, sizeof res);
    snprintf(tag, sizeof tag, "%u.%u:after", ti, pi);
    if (inval) xp_snap(tag);
    if (!replied) snprintf(res, sizeof res, "%s", is_exit(t, (int)pi) ? "exited" : "died");
    after_prim(t->proc, t->prims[pi].words, t->prims[pi].nwords, res);
    size_t len = strlen(results[ti]);
    snprintf(results[ti] + len, XP_LINE_MAX - len, "%s%s", len ? " ; " : "", res);
  }
}

/* Reads a whole sysfs or proc file into a string the caller frees. */
static char *slurp(const char *path) {
  int fd = open(path, O_RDONLY | O_CLOEXEC);
  if (fd < 0) xp_die("open %s: %s", path, strerror(errno));
  size_t cap = 1 << 16, len = 0;
  char *s = malloc(cap);
  for (;;) {
    if (!s) xp_die("out of memory");
    if (len + 4096 > cap) s = realloc(s, cap *= 2);
    if (!s) xp_die("out of memory");
    ssize_t n = read(fd, s + len, cap - len - 1);
    if (n < 0 && errno == EINTR) continue;
    if (n < 0) xp_die("read %s: %s", path, strerror(errno));
    if (n == 0) break;
    len += (size_t)n;
  }
  close(fd);
  s[len] = '\0';
  return s;
}

/* The edges of each primitive from the trace's marks: "edge T.P BEGIN END" (END "-" for a process that exited). */
static void print_edges(const char *trace) {
  unsigned long begin[XP_MAX_TASKS][XP_MAX_PRIMS] = {{0}}, end[XP_MAX_TASKS][XP_MAX_PRIMS] = {{0}};
  int nb[XP_MAX_TASKS] = {0}, ne[XP_MAX_TASKS] = {0};
  for (const char *l = trace; l && *l; l = strchr(l, '\n') ? strchr(l, '\n') + 1 : NULL) {
    unsigned long step;
    unsigned task;
    char what[16];
    if (sscanf(l, "%lu %u mark %15s", &step, &task, what) != 3 || task >= (unsigned)xp_c.ntasks) continue;
    if (strcmp(what, "begin") == 0 && nb[task] < XP_MAX_PRIMS) begin[task][nb[task]++] = step;
    if (strcmp(what, "end") == 0 && ne[task] < XP_MAX_PRIMS) end[task][ne[task]++] = step;
  }
  for (int t = 0; t < xp_c.ntasks; t++) {
    for (int p = 0; p < xp_c.tasks[t].nprims; p++) {
      if (p >= ne[t])
        printf("edge %d.%d %lu -\n", t, p, begin[t][p]);
      else
        printf("edge %d.%d %lu %lu\n", t, p, begin[t][p], end[t][p]);
    }
  }
}

/* Runs the tasks at once under the schedule "PRIO,PRIO.../STEP:PRIO,...". */
static void run_schedule(char *sched, bool trace, char results[][XP_LINE_MAX]) {
  char start[XP_LINE_MAX] = "", line[XP_LINE_MAX];
  char *changes = strchr(sched, '/');
  if (changes) *changes++ = '\0';
  char *prio = strtok(sched, ",");
  for (int i = 0; i < xp_c.ntasks; i++) {
    const struct xp_task *t = &xp_c.tasks[i];
    uint64_t pr;
    if (!prio || xp_num(prio, &pr) < 0 || pr < 1 || pr > 99) xp_die("bad schedule: a priority per task");
    task_line(t, -1, line, sizeof line);
    xp_send(t->proc, "arm %s", line);
    xp_set_fifo(t->proc, (int)pr);
    size_t len = strlen(start);
    snprintf(start + len, sizeof start - len, "%s%d", i ? "," : "", (int)xp_c.procs[t->proc].pid);
    prio = strtok(NULL, ",");
  }
  if (changes && *changes) {
    for (char *c = changes; *c; c++) {
      if (*c == ',') *c = ' ';
    }
    size_t len = strlen(start);
    snprintf(start + len, sizeof start - len, " %s", changes);
  }
  xp_phase("armed");
  write_file("/sys/kernel/umlbed_explore/start", start);
  xp_phase("started");
  /* The tasks go: the highest priority first, the controller (not real-time) only once they all wait or end. */
  close(xp_go[1]);
  for (int i = 0; i < xp_c.ntasks; i++) task_result(i, results[i], XP_LINE_MAX);
  xp_phase("results");
  write_file("/sys/kernel/umlbed_explore/stop", "stop");
  xp_phase("stopped");
  for (int i = 0; i < xp_c.ntasks; i++) xp_set_other(xp_c.tasks[i].proc);
  for (int i = 0; i < xp_c.ntasks; i++) {
    const struct xp_task *t = &xp_c.tasks[i];
    char copy[XP_LINE_MAX], *save = NULL;
    memcpy(copy, results[i], sizeof copy);
    copy[sizeof copy - 1] = '\0';
    char *res = strtok_r(copy, ";", &save);
    for (int p = 0; p < t->nprims && res; p++, res = strtok_r(NULL, ";", &save)) {
      while (*res == ' ') res++;
      char *end = res + strlen(res);
      while (end > res && end[-1] == ' ') *--end = '\0';
      after_prim(t->proc, t->prims[p].words, t->prims[p].nwords, res);
    }
  }
  char *steps = slurp("/sys/kernel/umlbed_explore/steps");
  char *tr = slurp("/sys/kernel/umlbed_explore/trace");
  printf("steps %s", steps);
  print_edges(tr);
  if (trace) printf("trace\n%send trace\n", tr);
  free(steps);
  free(tr);
}

/* One run of the case in this process: set it up in dir, run the tasks by mode ('s': a schedule, 'o': an order),
 * print the state, clean up. Exit 0; 2 or 3 (xp_die, a set-up that failed) from inside. */
static int run_case(const char *dir, char mode, char *arg, bool trace, int ndirs, char **dirs) {
  static char results[XP_MAX_TASKS][XP_LINE_MAX];
  xp_phase("start");
  int klog = xp_klog_mark();
  xp_procs_init();
  for (int i = 0; i < ndirs; i++) {
    directive(dir, dirs[i]);
    xp_phase("directive");
  }
  if (xp_c.ntasks == 0) xp_die("no task");
  if (mode == 's')
    run_schedule(arg, trace, results);
  else
    run_order(arg, results);
  xp_phase("tasks");
  for (int i = 0; i < xp_c.ntasks; i++) printf("result T%d %s\n", i, results[i]);
  xp_state_print();
  xp_phase("state");
  for (int p = 0; p < XP_MAX_PROCS; p++) {
    if (xp_c.procs[p].used && !xp_c.procs[p].gone) xp_send(p, "quit");
  }
  fflush(stdout);
  /* Each process's end, its mm torn down, before the kernel is asked again: the guest program's time limit bounds
   * a teardown that hangs. */
  for (int p = 0; p < XP_MAX_PROCS; p++) {
    struct pollfd pf = {.fd = xp_c.procs[p].pidfd, .events = POLLIN};
    if (!xp_c.procs[p].used || pf.fd < 0) continue;
    while (poll(&pf, 1, -1) < 0) {
      if (errno != EINTR) xp_die("poll: %s", strerror(errno));
    }
  }
  clean_up(dir);
  xp_kernel_after();
  xp_klog_since(klog);
  fflush(stdout);
  xp_phase("clean-up");
  return 0;
}

/* The runs of a batch, each in a child of its own (a fresh case: processes, pipes, file, folder), one after another;
 * each state follows a line "run N MODE ARG" and ends with "end run N STATUS". The batch stops at a run that did not
 * exit 0: what comes after it would not be comparable. */
int main(int argc, char **argv) {
  char dir[256] = "";
  char *modes[64], *args[64];
  int nruns = 0, opt;
  bool trace = false;
  while ((opt = getopt(argc, argv, "td:s:o:")) != -1) {
    if (opt == 't') {
      trace = true;
    } else if (opt == 'd') {
      snprintf(dir, sizeof dir, "%s", optarg);
    } else if ((opt == 's' || opt == 'o') && nruns < 64) {
      modes[nruns] = opt == 's' ? "s" : "o";
      args[nruns++] = optarg;
    } else {
      xp_die("usage: umlbed-explore [-t] [-d DIR] (-s SCHEDULE | -o ORDER)... DIRECTIVE...");
    }
  }
  if (nruns == 0) xp_die("at least one -s SCHEDULE or -o ORDER (64 at most)");
  /* A schedule is priorities and changes: one that is not fails here, before a case's processes exist that its
   * run would leave waiting. */
  for (int r = 0; r < nruns; r++) {
    const char *a = args[r];
    if (modes[r][0] == 's' && (!isdigit((unsigned char)a[0]) || strspn(a, "0123456789,/:") != strlen(a)))
      xp_die("bad schedule '%s': PRIO,PRIO.../STEP:PRIO,...", args[r]);
  }
  if (!dir[0]) snprintf(dir, sizeof dir, "/xp-%d", (int)getpid());
  if (strlen(dir) > 64) xp_die("-d DIR: at most 64 bytes");
  xp_ps = (size_t)sysconf(_SC_PAGESIZE);
  quiet_flusher(dir);
  kmsg_unlimited();
  setvbuf(stdout, NULL, _IOFBF, 1 << 16);
  /* Each run is named in the kernel's log before it starts: a run that brings the kernel down ends this program's
   * output with it, and the console then says which run it was. */
  int kmsg = open("/dev/kmsg", O_WRONLY | O_CLOEXEC);
  if (kmsg < 0) xp_die("open /dev/kmsg: %s", strerror(errno));
  for (int r = 0; r < nruns; r++) {
    printf("run %d %s %s\n", r, modes[r], args[r]);
    fflush(stdout);
    /* One write() of the whole line: glibc's dprintf() first seeks the descriptor (SEEK_CUR), which /dev/kmsg
     * refuses (EINVAL), and then writes nothing. */
    char line[256];
    int len = snprintf(line, sizeof line, "<4>umlbed-explore: run -%s %s\n", modes[r], args[r]);
    size_t size = (size_t)len < sizeof line ? (size_t)len : sizeof line - 1;
    if (len < 0 || write(kmsg, line, size) != (ssize_t)size) xp_die("write /dev/kmsg: %s", strerror(errno));
    pid_t pid = fork();
    if (pid < 0) xp_die("fork: %s", strerror(errno));
    if (pid == 0) {
      char sub[128];
      snprintf(sub, sizeof sub, "%s-%d", dir, r);
      /* Every process of the case is followed through its pidfd; none is waited for. */
      signal(SIGCHLD, SIG_IGN);
      _exit(run_case(sub, modes[r][0], args[r], trace, argc - optind, argv + optind));
    }
    int st;
    while (waitpid(pid, &st, 0) < 0) {
      if (errno != EINTR) xp_die("waitpid: %s", strerror(errno));
    }
    int code = WIFEXITED(st) ? WEXITSTATUS(st) : 128 + WTERMSIG(st);
    printf("end run %d %d\n", r, code);
    fflush(stdout);
    /* A set-up the kernel refused (3) is the case's, the same for every run: the batch says so once. */
    if (code != 0) return code;
  }
  return 0;
}

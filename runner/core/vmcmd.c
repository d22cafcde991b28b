// SPDX-License-Identifier: MIT
/* vmcmd.c: the command line and environment that boot one UML instance: the wall and gdb in front, its memory. */
#include "vmcmd.h"
#include "kns.h"
#include "path.h"

#include <errno.h>
#include <linux/magic.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/statfs.h>
#include <unistd.h>

/* N, NK, NM or NG as bytes in *bytes, up to UMB_MEM_MAX; 0 or -EINVAL. */
static int mem_parse(const char *mem, unsigned long long *bytes) {
  char *end;
  errno = 0;
  unsigned long long v = strtoull(mem, &end, 10);
  if (end == mem || *mem < '0' || *mem > '9' || errno) return -EINVAL;
  unsigned long long mult = 1;
  if (*end == 'K' || *end == 'k')
    mult = 1ull << 10, end++;
  else if (*end == 'M' || *end == 'm')
    mult = 1ull << 20, end++;
  else if (*end == 'G' || *end == 'g')
    mult = 1ull << 30, end++;
  if (*end || v > (UMB_MEM_MAX / mult)) return -EINVAL;
  *bytes = v * mult;
  return 0;
}

/* Where UML makes its memory file: a tmpfs with room for it (twice over) when the host has one at /dev/shm, else
 * the instance's own folder. On tmpfs the guest's memory is plain shared memory; on a disk filesystem every page
 * of it is a page of a file there (UML warns "tempdir ... is not on tmpfs"). UML opens the file O_TMPFILE: it has
 * no name, and goes with the last descriptor, however the instance ends. */
static void mem_dir(const umb_vm_options *opt, char *out, size_t size) {
  struct statfs fs;
  unsigned long long need = 0;
  mem_parse(opt->mem ? opt->mem : "64M", &need);
  need *= 2;
  if (statfs("/dev/shm", &fs) == 0 && fs.f_type == TMPFS_MAGIC && access("/dev/shm", W_OK | X_OK) == 0 &&
      (unsigned long long)fs.f_bavail * (unsigned long long)fs.f_bsize >= need)
    snprintf(out, size, "TMPDIR=/dev/shm");
  else
    umb_path(out, size, "TMPDIR=%s/tmp", opt->dir);
}

int umb_mem_bytes(const char *mem, unsigned long long *bytes) { return mem_parse(mem, bytes); }

int umb_mem_check(const char *mem) {
  unsigned long long bytes;
  return mem_parse(mem, &bytes) == 0 && bytes >= UMB_MEM_MIN ? 0 : -EINVAL;
}

void umb_spawn_ctx_close(umb_spawn_ctx *c) {
  int *fds[] = {&c->devnull, &c->con[0], &c->con[1], &c->tx[0], &c->tx[1], &c->rx[0], &c->rx[1], &c->mapper};
  for (size_t i = 0; i < sizeof fds / sizeof fds[0]; i++) {
    if (*fds[i] >= 0) close(*fds[i]);
    *fds[i] = -1;
  }
  free(c->extra);
  c->extra = NULL;
}

#define WALL_ROOT_FD "7"
#define WALL_DIR_FD "8"
#define WALL_GCOV_FD "9"

/* The largest guest memory the command line asks for (its last mem= wins, but any may be the largest). */
static unsigned long long mem_most(const umb_vm_options *opt) {
  unsigned long long most = 0, b;
  if (mem_parse(opt->mem ? opt->mem : "64M", &b) == 0) most = b;
  const char *p = opt->cmdline;
  while (p && (p = strstr(p, "mem=")) != NULL) {
    if ((p == opt->cmdline || p[-1] == ' ' || p[-1] == '\t' || p[-1] == '\n')) {
      char word[32];
      size_t n = strcspn(p + 4, " \t\n");
      if (n < sizeof word) {
        memcpy(word, p + 4, n);
        word[n] = '\0';
        if (mem_parse(word, &b) == 0 && b > most) most = b;
      }
    }
    p += 4;
  }
  return most;
}

/* The wall's part: the folders it opens as descriptors, what it execs, and the length of any file the kernel
 * writes: its memory file is the guest's memory (the wall turns off the heap's randomisation, whose gap UML would
 * add to it); the GiB and 64 MiB over are for the files the guest writes through hostfs. */
static int vm_build_wall(umb_spawn_ctx *c, const umb_vm_options *opt) {
  int rc;
  umb_wall_spec *w = &c->wall;
  w->fd[0] = atoi(WALL_ROOT_FD);
  w->fd_path[0] = opt->root;
  w->fd[1] = atoi(WALL_DIR_FD);
  w->fd_path[1] = opt->dir;
  w->nfds = 2;
  if (opt->gcov_prefix) {
    w->fd[2] = atoi(WALL_GCOV_FD);
    w->fd_path[2] = opt->gcov_prefix;
    w->nfds = 3;
  }
  w->exec = opt->gdb ? NULL : opt->kernel;
  w->uid = umb_wall_owner();
  if (w->uid >= 0) snprintf(c->uid, sizeof c->uid, "%d", w->uid);
  w->debug = opt->gdb != NULL;
  w->foreground = opt->gdb_interactive;
  /* The wall's user namespace gets its ids from the kernels' namespace's helper (kns.h). */
  w->mapper = -1;
  if (!w->debug && umb_kns_active()) {
    if ((c->mapper = umb_kns_mapper()) < 0) return c->mapper;
    w->mapper = c->mapper;
    snprintf(c->mapperarg, sizeof c->mapperarg, "%d", c->mapper);
  }
  w->ns = umb_wall_ns();
  snprintf(c->ns, sizeof c->ns, "%d", w->ns);
  w->fsize = mem_most(opt) + (1ull << 30) + (64ull << 20);
  snprintf(c->fsize, sizeof c->fsize, "%llu", w->fsize);
  for (int i = 0; i < w->nfds; i++)
    if ((rc = umb_path(c->fdarg[i], sizeof c->fdarg[i], "%d=%s", w->fd[i], w->fd_path[i]))) return rc;
  return 0;
}

/* The kernel's command line: gdb's in front when asked, the fixed part, then the caller's options. */
int umb_spawn_args(umb_spawn_ctx *c, const umb_vm_options *opt) {
  int rc = 0;
  /* Every boot passes here: a word past the allow-list or a umid that is a path never reaches the kernel, whoever
   * checked it before. */
  if (umb_umid_check(opt->umid) || umb_cmdline_check(opt->cmdline, NULL, 0)) return -EINVAL;
  /* Walled, the kernel reaches its two folders through descriptors the wall opens (it may drop to a uid that could
   * not walk the folders above them): ROOT is /proc/self/fd/7, the instance's folder /proc/self/fd/8. Under gdb,
   * which keeps the uid and opens descriptors of its own, they keep their paths. */
  int byfd = c->walled && !opt->gdb;
  const char *root = byfd ? "/proc/self/fd/" WALL_ROOT_FD : opt->root;
  const char *dir = byfd ? "/proc/self/fd/" WALL_DIR_FD : opt->dir;
  /* hostfs=ROOT jails every hostfs mount in the guest to the run's root folder: the root file system is ROOT/ and
   * a guest's own "mount -t hostfs none /mnt -o /" sees that same folder, not the host's /. */
  if ((rc = umb_path(c->jail, sizeof c->jail, "hostfs=%s", root)) ||
      (rc = umb_path(c->umid, sizeof c->umid, "umid=%s", opt->umid)) ||
      (rc = umb_path(c->umldir, sizeof c->umldir, "uml_dir=%s/uml", dir)) ||
      (rc = umb_path(c->memarg, sizeof c->memarg, "mem=%s", opt->mem ? opt->mem : "64M")))
    return rc;
  if (c->walled && (rc = vm_build_wall(c, opt))) return rc;
  if (c->walled && c->self[0]) {
    /* The runner's spawn has no hook between fork and exec: this same program builds the wall, then execs. */
    const char *pre[] = {c->self,
                         "__wall",
                         "--fd",
                         c->fdarg[0],
                         "--fd",
                         c->fdarg[1],
                         c->wall.nfds > 2 ? "--fd" : NULL,
                         c->wall.nfds > 2 ? c->fdarg[2] : NULL,
                         "--fsize",
                         c->fsize,
                         "--ns",
                         c->ns,
                         c->wall.mapper >= 0 ? "--mapper" : NULL,
                         c->wall.mapper >= 0 ? c->mapperarg : NULL,
                         opt->gdb_interactive ? "--foreground" : NULL,
                         c->wall.uid >= 0 ? "--uid" : NULL,
                         c->wall.uid >= 0 ? c->uid : NULL,
                         opt->gdb ? "--debug" : "--exec",
                         opt->gdb ? NULL : opt->kernel,
                         "--"};
    for (size_t i = 0; i < sizeof pre / sizeof pre[0]; i++)
      if (pre[i]) c->args[c->nargs++] = (char *)pre[i];
  }
  if (opt->gdb) {
    if ((rc = umb_path(c->gdbx, sizeof c->gdbx, "%s", opt->gdb))) return rc;
    const char *gdb[] = {"gdb", "-q", "-nx", opt->gdb_interactive ? NULL : "-batch", "-x", c->gdbx, "--args"};
    for (size_t i = 0; i < sizeof gdb / sizeof gdb[0]; i++)
      if (gdb[i]) c->args[c->nargs++] = (char *)gdb[i];
  }
  /* Under gdb, fds 0-2 belong to gdb; the console uses fds 5 and 6 instead. */
  const char *fixed[] = {opt->kernel,
                         c->memarg,
                         "root=/dev/root",
                         "rootfstype=hostfs",
                         "rootflags=/",
                         c->jail,
                         "rw",
                         "init=/umlbed-agent",
                         opt->gdb ? "con0=fd:5,fd:6" : "con0=fd:0,fd:1",
                         "con=null",
                         "ssl=null",
                         "ssl0=fd:3,fd:4",
                         c->umid,
                         c->umldir,
                         opt->time_travel ? "time-travel=inf-cpu" : NULL};
  for (size_t i = 0; i < sizeof fixed / sizeof fixed[0]; i++)
    if (fixed[i]) c->args[c->nargs++] = (char *)fixed[i];
  /* The mutate tool's choice of a mutant of its schema kernel, after the fixed part: no caller's word may name it. */
  if ((rc = umb_mutant_arg(c->mutant, sizeof c->mutant))) return rc;
  if (c->mutant[0]) c->args[c->nargs++] = c->mutant;
  if (opt->cmdline) {
    if ((c->extra = strdup(opt->cmdline)) == NULL) return -ENOMEM;
    for (char *save = NULL, *tok = strtok_r(c->extra, " \t\n", &save); tok; tok = strtok_r(NULL, " \t\n", &save)) {
      if (c->nargs >= UMB_VM_ARGS_MAX) return -E2BIG;
      c->args[c->nargs++] = tok;
    }
  }
  c->args[c->nargs] = NULL;
  return 0;
}

/* The runner's environment, but for UML's TMPDIR (its memory file) and libgcov's prefix. */
int umb_spawn_env(umb_spawn_ctx *c, const umb_vm_options *opt) {
  int rc;
  /* Walled, UML's memory file goes to /dev/shm only when that is private to the run (umb_wall_private_ns), else
   * to the instance's tmp/: never to the host's /dev/shm, where the kernel could see and write other programs'
   * files. */
  int byfd = c->walled && !opt->gdb;
  /* In the kernels' namespace (kns.h), the instance's tmp/ is a tmpfs of its own, as large as its memory and
   * 64 MiB more. */
  if (c->walled && umb_kns_active() && c->shm[0] == '\0') {
    int uid = umb_wall_owner() >= 0 ? UMB_WALL_UID : (int)geteuid();
    if ((rc = umb_path(c->shm, sizeof c->shm, "%s/tmp", opt->dir)) ||
        (rc = umb_kns_shm(mem_most(opt) + (64ull << 20), uid, c->shm))) {
      c->shm[0] = '\0';
      return rc;
    }
  }
  if (c->walled && !c->shm[0] && (umb_wall_ns() & UMB_WALL_NS_SHM))
    snprintf(c->tmpdir, sizeof c->tmpdir, "TMPDIR=/dev/shm");
  else if (byfd)
    snprintf(c->tmpdir, sizeof c->tmpdir, "TMPDIR=/proc/self/fd/" WALL_DIR_FD "/tmp");
  else if (c->walled)
    umb_path(c->tmpdir, sizeof c->tmpdir, "TMPDIR=%s/tmp", opt->dir);
  else
    mem_dir(opt, c->tmpdir, sizeof c->tmpdir);
  /* Even without --coverage, a gcov kernel must not write into its build tree: its data goes to its own folder. */
  if (opt->gcov_prefix)
    rc = umb_path(c->gcov_prefix, sizeof c->gcov_prefix, "GCOV_PREFIX=%s",
                  byfd ? "/proc/self/fd/" WALL_GCOV_FD : opt->gcov_prefix);
  else
    rc = umb_path(c->gcov_prefix, sizeof c->gcov_prefix, "GCOV_PREFIX=%s/gcov",
                  byfd ? "/proc/self/fd/" WALL_DIR_FD : opt->dir);
  if (rc) return rc;
  snprintf(c->gcov_strip, sizeof c->gcov_strip, "GCOV_PREFIX_STRIP=%d", opt->gcov_strip);
  extern char **environ;
  int n = 0;
  for (char **e = environ; *e && n < 250; e++)
    if (strncmp(*e, "TMPDIR=", 7) != 0 && strncmp(*e, "GCOV_PREFIX", 11) != 0) c->env[n++] = *e;
  c->env[n++] = c->tmpdir;
  c->env[n++] = c->gcov_prefix;
  c->env[n++] = c->gcov_strip;
  c->env[n] = NULL;
  return 0;
}

int umb_vm_command_make(const umb_vm_options *opt, int walled, umb_vm_command *cmd) {
  umb_spawn_ctx *c = calloc(1, sizeof *c);
  if (c == NULL) return -ENOMEM;
  c->devnull = c->con[0] = c->con[1] = c->tx[0] = c->tx[1] = c->rx[0] = c->rx[1] = c->mapper = -1;
  c->walled = walled;
  char path[PATH_MAX];
  int rc = 0;
  const char *sub[] = {"uml", "tmp"};
  for (size_t i = 0; i < 2 && rc == 0; i++) {
    rc = umb_path(path, sizeof path, "%s/%s", opt->dir, sub[i]);
    if (rc == 0 && mkdir(path, 0755) && errno != EEXIST) rc = -errno;
  }
  if (rc == 0) rc = umb_spawn_args(c, opt);
  if (rc == 0) rc = umb_spawn_env(c, opt);
  if (rc) {
    umb_spawn_ctx_close(c);
    free(c);
    return rc;
  }
  cmd->argv = c->args;
  cmd->envp = c->env;
  cmd->wall = walled ? &c->wall : NULL;
  cmd->priv = c;
  return 0;
}

void umb_vm_command_free(umb_vm_command *cmd) {
  if (cmd->priv) umb_spawn_ctx_close(cmd->priv);
  free(cmd->priv);
  cmd->priv = NULL;
}

// SPDX-License-Identifier: MIT
/* gdb.c: umlbed run --gdb: the script that hands UML's own signals through and loads the kernel's gdb helpers. */
#include "gdb.h"
#include "path.h"
#include "reaper.h"

#include <libgen.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <unistd.h>

/* The script's folder ("" before umb_gdb_script, or when it could not be made). */
static char gdbdir[PATH_MAX];

const char *umb_gdb_script(const char *tmpbase, const char *kernel, char **breaks, int nbreaks, int interactive) {
  if (umb_path(gdbdir, sizeof gdbdir, "%s/umlbed-gdb-XXXXXX", tmpbase) || mkdtemp(gdbdir) == NULL) {
    gdbdir[0] = '\0';
    return NULL;
  }
  umb_reaper_add_dir(gdbdir);
  static char path[PATH_MAX];
  FILE *f = umb_path(path, sizeof path, "%s/script.gdb", gdbdir) ? NULL : fopen(path, "we");
  if (f == NULL) return NULL;
  /* UML uses these signals for its own work (page faults, timers, IO, IPIs). */
  fprintf(f,
          "set pagination off\nset confirm off\nset breakpoint pending on\n"
          "handle SIGSEGV nostop noprint pass\nhandle SIGUSR1 nostop noprint pass\n"
          "handle SIGIO nostop noprint pass\nhandle SIGALRM nostop noprint pass\n"
          "handle SIGVTALRM nostop noprint pass\nhandle SIGWINCH nostop noprint pass\n"
          "handle SIGCHLD nostop noprint pass\nhandle SIGTERM nostop noprint pass\n"
          "handle SIGUSR2 nostop noprint pass\nhandle SIGPIPE nostop noprint pass\n"
          /* UML forks helpers it ptraces itself; gdb stays with the kernel process. */
          "set follow-fork-mode parent\nset detach-on-fork on\n");
  /* The kernel's own helpers (lx-dmesg, lx-ps, lx-symbols, ...; docs/gdb.md), when its objtree has them. They
   * look for the image as vmlinux, which the objtree has beside linux: the same file under the name they know. */
  char kdir[PATH_MAX], py[PATH_MAX], vmlinux[PATH_MAX];
  snprintf(kdir, sizeof kdir, "%s", kernel);
  dirname(kdir);
  if (!umb_path(py, sizeof py, "%s/vmlinux-gdb.py", kdir) && !umb_path(vmlinux, sizeof vmlinux, "%s/vmlinux", kdir) &&
      access(py, R_OK) == 0 && access(vmlinux, R_OK) == 0)
    fprintf(f, "add-auto-load-safe-path %s\nsymbol-file %s\nsource %s\n", kdir, vmlinux, py);
  else
    fprintf(stderr,
            "umlbed: no lx- gdb helpers: %s has no vmlinux and vmlinux-gdb.py (an installed umlbed has "
            "none)\n",
            kdir);
  for (int i = 0; i < nbreaks; i++) {
    fprintf(f, "break %s\n", breaks[i]);
    if (!interactive) fprintf(f, "commands\nbt 12\ncontinue\nend\n");
  }
  fprintf(f, "run\n");
  fclose(f);
  return path;
}

void umb_gdb_remove(void) {
  if (!gdbdir[0]) return;
  char path[PATH_MAX];
  if (umb_path(path, sizeof path, "%s/script.gdb", gdbdir) == 0) unlink(path);
  rmdir(gdbdir);
  umb_reaper_del_dir(gdbdir);
}

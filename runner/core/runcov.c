// SPDX-License-Identifier: MIT
/* runcov.c: a run's coverage folder (--coverage): named after the run before it boots, counted after it ends. */
#include "runcov.h"
#include "path.h"
#include "reaper.h"
#include "wall.h"

#include <dirent.h>
#include <errno.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

/* --coverage: the run's folder under cfg->coverage, named after the run, with its name in a file "label". It is
 * not the run folder: it outlives the run, and only the kernels write there (libgcov, on the host side). */
int umb_run_cov_dir(umb_run *r) {
  if (r->cfg->coverage == NULL) return 0;
  char name[96];
  const char *l = r->label ? r->label : "run";
  size_t n = 0;
  for (; *l && n < sizeof name - 1; l++) {
    int plain = (*l >= 'a' && *l <= 'z') || (*l >= 'A' && *l <= 'Z') || (*l >= '0' && *l <= '9') || *l == '-';
    name[n++] = plain ? *l : '_';
  }
  name[n] = '\0';
  int rc = umb_path(r->covdir, sizeof r->covdir, "%s/%s-XXXXXX", r->cfg->coverage, name);
  if (rc) return rc;
  if (mkdtemp(r->covdir) == NULL) {
    r->covdir[0] = '\0';
    return -errno;
  }
  char path[PATH_MAX];
  if ((rc = umb_path(path, sizeof path, "%s/label", r->covdir))) return rc;
  FILE *f = fopen(path, "we");
  if (f == NULL) return -errno;
  fprintf(f, "%s\n", r->label ? r->label : "run");
  return fclose(f) ? -errno : umb_wall_hand_over(r->covdir, 1);
}

/* How many .gcda files lie under dir (its subfolders included). */
static int count_gcda(const char *dir) {
  DIR *d = opendir(dir);
  if (d == NULL) return 0;
  int n = 0;
  for (struct dirent *e; (e = readdir(d));) {
    if (e->d_name[0] == '.') continue;
    size_t len = strlen(e->d_name);
    char path[PATH_MAX];
    if (umb_path(path, sizeof path, "%s/%s", dir, e->d_name)) continue;
    if (e->d_type == DT_DIR)
      n += count_gcda(path);
    else if (len > 5 && !strcmp(e->d_name + len - 5, ".gcda"))
      n++;
  }
  closedir(d);
  return n;
}

/* After the instances are gone: which of them left gcov data, and a note for each that did not. */
void umb_run_cov_account(umb_run *r) {
  if (!r->covdir[0]) return;
  if (r->interrupted) {
    /* A run cut short by a signal leaves nothing behind, its partial data included. */
    umb_rm_tree(r->covdir);
    r->covdir[0] = '\0';
    return;
  }
  r->result.coverage = r->covdir;
  for (int i = 0; i < r->nvms; i++) {
    char path[PATH_MAX];
    int n = umb_path(path, sizeof path, "%s/vm%d", r->covdir, r->vms[i]->index) ? 0 : count_gcda(path);
    if (n > 0) {
      r->result.cov_written++;
      /* A failed run says whether its coverage survived: a panic exits UML normally, a kill does not. */
      if (r->verdict >= UMB_FAILED)
        umb_buf_printf(&r->diag, "coverage: vm%d wrote its gcov data all the same (%d files)\n", r->vms[i]->index, n);
    } else {
      r->result.cov_lost++;
      umb_buf_printf(&r->diag, "coverage: vm%d wrote no gcov data (it did not exit by itself: killed or hung)\n",
                     r->vms[i]->index);
    }
  }
}

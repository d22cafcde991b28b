// SPDX-License-Identifier: MIT
/* plan.c: finding scenario files, listing their runs, and keeping one shard's share of them. */
#include "plan.h"

#include <dirent.h>
#include <errno.h>
#include <fnmatch.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

#include "describe.h"
#include "path.h"

static int add_file(char ***files, int *n, const char *path) {
  char **f = realloc(*files, sizeof(char *) * (size_t)(*n + 1));
  if (f == NULL) return -ENOMEM;
  *files = f;
  if ((f[*n] = strdup(path)) == NULL) return -ENOMEM;
  (*n)++;
  return 0;
}

static int cmp_str(const void *a, const void *b) { return strcmp(*(char *const *)a, *(char *const *)b); }

/* The *.lua files of folder dir, sorted. */
static int collect_dir(const char *dir, char ***files, int *nfiles) {
  DIR *d = opendir(dir);
  if (d == NULL) {
    fprintf(stderr, "umlbed: %s: %s\n", dir, strerror(errno));
    return -1;
  }
  int first = *nfiles, rc = 0;
  size_t dl = strlen(dir);
  for (struct dirent *e; rc == 0 && (e = readdir(d));) {
    size_t len = strlen(e->d_name);
    if (len < 5 || strcmp(e->d_name + len - 4, ".lua") || e->d_name[0] == '.') continue;
    char path[PATH_MAX];
    rc = umb_path(path, sizeof path, "%s%s%s", dir, dl && dir[dl - 1] == '/' ? "" : "/", e->d_name);
    struct stat st;
    if (rc == 0 && stat(path, &st)) rc = -errno;
    /* A FIFO named *.lua would hang whoever loads it: only regular files are scenarios. */
    if (rc == 0 && !S_ISREG(st.st_mode)) {
      fprintf(stderr, "umlbed: %s: not a regular file\n", path);
      closedir(d);
      return -1;
    }
    if (rc == 0) rc = add_file(files, nfiles, path);
    if (rc) fprintf(stderr, "umlbed: %s/%s: %s\n", dir, e->d_name, strerror(-rc));
  }
  closedir(d);
  if (*nfiles > first) qsort(*files + first, (size_t)(*nfiles - first), sizeof(char *), cmp_str);
  return rc ? -1 : 0;
}

int umb_plan_collect(char **args, int nargs, char ***files, int *nfiles) {
  for (int i = 0; i < nargs; i++) {
    struct stat st;
    if (stat(args[i], &st)) {
      fprintf(stderr, "umlbed: %s: %s\n", args[i], strerror(errno));
      return -1;
    }
    if (S_ISDIR(st.st_mode)) {
      if (collect_dir(args[i], files, nfiles)) return -1;
    } else if (!S_ISREG(st.st_mode)) {
      /* A FIFO would hang the loading of the file, /dev/zero fill the Lua state: only regular files are scenarios. */
      fprintf(stderr, "umlbed: %s: not a regular file or folder\n", args[i]);
      return -1;
    } else if (add_file(files, nfiles, args[i])) {
      fprintf(stderr, "umlbed: %s: %s\n", args[i], strerror(ENOMEM));
      return -1;
    }
  }
  return 0;
}

/* A new job at the end of the plan, zeroed, or NULL when out of memory. */
static job *add_job(umb_plan *p) {
  job *j = realloc(p->jobs, sizeof(job) * (size_t)(p->njobs + 1));
  if (j == NULL) return NULL;
  p->jobs = j;
  j = &p->jobs[p->njobs++];
  memset(j, 0, sizeof *j);
  return j;
}

static void free_job(job *j) {
  free(j->file);
  free(j->name);
  free(j->diag);
  free(j->coverage);
  free(j->metrics);
  free(j->reason);
  free(j->prints);
  free(j->dir);
  free(j->broken);
}

/* A file that did not load: one job, an ERROR with its message, unless the filter leaves the file out. */
static int add_broken(umb_plan *p, const char *file, char *err, const char *filter) {
  fprintf(stderr, "umlbed: %s\n", err ? err : file);
  if (filter && fnmatch(filter, file, 0)) {
    free(err);
    return 0;
  }
  job *j = add_job(p);
  if (j == NULL) {
    free(err);
    return -ENOMEM;
  }
  j->file = strdup(file);
  j->name = strdup(file);
  j->broken = err ? err : strdup("cannot load the scenario");
  return j->file && j->name && j->broken ? 0 : -ENOMEM;
}

int umb_plan_describe(umb_plan *p, char **files, int nfiles, const char *filter, const umb_host_config *cfg) {
  int bad = 0;
  for (int i = 0; i < nfiles; i++) {
    char *name, *err, **combos;
    int n, rc = umb_describe_isolated(files[i], cfg, &name, &combos, &n, &err);
    if (rc == -EINTR) return rc;
    if (rc) {
      bad = 1;
      if ((rc = add_broken(p, files[i], err, filter))) return rc;
      continue;
    }
    for (int c = 0; c < n; c++) {
      if (rc || (filter && fnmatch(filter, combos[c], 0) && fnmatch(filter, files[i], 0) && fnmatch(filter, name, 0))) {
        /* Left out by the filter, or nothing more is added after running out of memory. */
        free(combos[c]);
        continue;
      }
      job *j = add_job(p);
      if (j == NULL || (j->file = strdup(files[i])) == NULL) {
        free(combos[c]);
        rc = -ENOMEM;
        continue;
      }
      j->name = combos[c];
      j->combo = c;
    }
    free(combos);
    free(name);
    if (rc) return rc;
  }
  return bad;
}

int umb_plan_shard(umb_plan *p, umb_shard *s, const char *durations) {
  char *mine = calloc((size_t)p->njobs + 1, 1), err[512] = "";
  p->all = calloc((size_t)p->njobs + 1, sizeof *p->all);
  if (mine == NULL || p->all == NULL) {
    free(mine);
    fprintf(stderr, "umlbed: %s\n", strerror(ENOMEM));
    return -ENOMEM;
  }
  int rc = umb_shard_deal(p->jobs, p->njobs, s, durations, mine, err, sizeof err);
  if (rc) {
    fprintf(stderr, "umlbed: %s\n", err[0] ? err : strerror(-rc));
    free(mine);
    return rc;
  }
  int kept = 0;
  for (int i = 0; i < p->njobs; i++) {
    if ((p->all[p->nall] = umb_shard_key(p->jobs[i].file, p->jobs[i].name)) == NULL) rc = -ENOMEM;
    p->nall += p->all[p->nall] != NULL;
    if (mine[i])
      p->jobs[kept++] = p->jobs[i];
    else
      free_job(&p->jobs[i]);
  }
  p->njobs = kept;
  free(mine);
  if (rc) fprintf(stderr, "umlbed: %s\n", strerror(-rc));
  return rc;
}

void umb_plan_free(umb_plan *p) {
  for (int i = 0; i < p->njobs; i++) free_job(&p->jobs[i]);
  free(p->jobs);
  for (int i = 0; i < p->nall; i++) free(p->all[i]);
  free(p->all);
  memset(p, 0, sizeof *p);
}

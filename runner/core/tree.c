// SPDX-License-Identifier: MIT
/* tree.c: removing a folder's tree through descriptors, following no link and opening nothing that can block. */
#include "reaper.h"

#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

/* A folder's entries are read in chunks of this many bytes (getdents64). */
#define TREE_BUF 8192

/* One folder on the way down: who it is (to check the way back up), where its listing goes on after the child
 * being emptied, and that child's name. */
typedef struct level {
  dev_t dev;
  ino_t ino;
  off_t resume;
  char child[NAME_MAX + 1];
} level;

/* Opens name beneath dirfd as a folder: never through a link, never blocking (a FIFO is not a folder anyway). */
static int open_dir(int dirfd, const char *name) {
  return openat(dirfd, name, O_RDONLY | O_DIRECTORY | O_NOFOLLOW | O_NONBLOCK | O_CLOEXEC);
}

/* Whether the entry is a folder (d_type, or lstat's answer where the file system gives none). */
static int is_dir(int dirfd, const struct dirent64 *e) {
  if (e->d_type != DT_UNKNOWN) return e->d_type == DT_DIR;
  struct stat st;
  return fstatat(dirfd, e->d_name, &st, AT_SYMLINK_NOFOLLOW) == 0 && S_ISDIR(st.st_mode);
}

/* Grows the stack of levels to hold depth + 1. */
static int reserve(level **st, size_t *cap, size_t depth) {
  if (depth < *cap) return 0;
  size_t n = *cap ? *cap * 2 : 16;
  level *s = realloc(*st, n * sizeof *s);
  if (s == NULL) return -ENOMEM;
  *st = s;
  *cap = n;
  return 0;
}

/*
 * Empties the folder open as top, depth first, holding one descriptor at a time whatever the depth: it goes down
 * into a child by its descriptor, and back up through "..", which is never a link; a ".." that is not the folder it
 * came from (a child moved away meanwhile) ends the walk, so nothing outside top is ever reached. top stays open.
 */
int umb_rm_inside(int top) {
  level *st = NULL;
  size_t cap = 0, depth = 0;
  char *buf = malloc(TREE_BUF);
  struct stat s;
  int fd = dup(top), rc = 0;
  if (buf == NULL || fd < 0 || fstat(fd, &s) || reserve(&st, &cap, 0)) {
    rc = -ENOMEM;
    goto out;
  }
  st[0] = (level){s.st_dev, s.st_ino, 0, ""};
  lseek(fd, 0, SEEK_SET);
  for (;;) {
    ssize_t n = getdents64(fd, buf, TREE_BUF);
    int down = 0;
    for (ssize_t off = 0; n > 0 && off < n && !down;) {
      struct dirent64 *e = (struct dirent64 *)(buf + off);
      off += e->d_reclen;
      if (!strcmp(e->d_name, ".") || !strcmp(e->d_name, "..")) continue;
      if (!is_dir(fd, e)) {
        unlinkat(fd, e->d_name, 0);
        continue;
      }
      if (unlinkat(fd, e->d_name, AT_REMOVEDIR) == 0 || errno != ENOTEMPTY) continue;
      int child = open_dir(fd, e->d_name);
      if (child < 0 || fstat(child, &s) || reserve(&st, &cap, depth + 1)) {
        rc = child < 0 ? -errno : -ENOMEM;
        if (child >= 0) close(child);
        continue;
      }
      st[depth].resume = e->d_off;
      snprintf(st[depth].child, sizeof st[depth].child, "%s", e->d_name);
      st[++depth] = (level){s.st_dev, s.st_ino, 0, ""};
      close(fd);
      fd = child;
      down = 1;
    }
    if (down) continue;
    if (n < 0) rc = -errno;
    if (n > 0) continue;
    if (depth == 0) break;
    int up = open_dir(fd, "..");
    depth--;
    if (up < 0 || fstat(up, &s) || s.st_dev != st[depth].dev || s.st_ino != st[depth].ino) {
      if (up >= 0) close(up);
      rc = -ESTALE;
      break;
    }
    close(fd);
    fd = up;
    unlinkat(fd, st[depth].child, AT_REMOVEDIR);
    lseek(fd, st[depth].resume, SEEK_SET);
  }
out:
  if (fd >= 0) close(fd);
  free(buf);
  free(st);
  return rc;
}

void umb_rm_tree(const char *dir) {
  /* The folder's own name is opened beneath its parent without following a link; everything below through
   * descriptors. */
  char parent[PATH_MAX];
  const char *slash = strrchr(dir, '/');
  if (slash == NULL || (size_t)(slash - dir) >= sizeof parent || slash[1] == '\0') return;
  memcpy(parent, dir, (size_t)(slash - dir));
  parent[slash - dir] = '\0';
  int pfd = open(parent[0] ? parent : "/", O_RDONLY | O_DIRECTORY | O_CLOEXEC);
  if (pfd < 0) return;
  umb_rm_at(pfd, slash + 1);
  close(pfd);
}

void umb_rm_at(int dirfd, const char *name) {
  int fd = open_dir(dirfd, name);
  if (fd < 0) {
    /* Not a folder (or gone): the name itself. */
    unlinkat(dirfd, name, 0);
    return;
  }
  umb_rm_inside(fd);
  close(fd);
  unlinkat(dirfd, name, AT_REMOVEDIR);
}

int umb_mark_kept(int dirfd) {
  /* Made beneath the folder's descriptor: never through a link, never waiting on a FIFO, and whatever else was
   * there under that name (a file made in the run folder by what ran in it) is removed first. */
  for (int tries = 0; tries < 2; tries++) {
    int fd = openat(dirfd, UMB_KEPT_MARK, O_WRONLY | O_CREAT | O_EXCL | O_NOFOLLOW | O_NONBLOCK | O_CLOEXEC, 0644);
    if (fd >= 0) {
      close(fd);
      return 0;
    }
    if (errno != EEXIST) return -errno;
    struct stat st;
    if (fstatat(dirfd, UMB_KEPT_MARK, &st, AT_SYMLINK_NOFOLLOW) == 0 && S_ISREG(st.st_mode) && st.st_nlink == 1)
      return 0;
    umb_rm_at(dirfd, UMB_KEPT_MARK);
  }
  return -EEXIST;
}

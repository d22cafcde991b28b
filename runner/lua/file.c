// SPDX-License-Identifier: MIT
/* file.c: the umlbed.file object: a file in the shared folder, read and written from the host side too. */
#include <errno.h>
#include <limits.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <linux/openat2.h>
#include <sys/stat.h>
#include <sys/syscall.h>
#include <unistd.h>

#include "lumlbed.h"
#include "path.h"

/*
 * Opens NAME in the shared folder from the host without following any symbolic link: the guest's root owns
 * that folder and could plant a link (even replace shared/ by one) that would make the host-side API read or
 * write anywhere the runner can. Resolved beneath the run's root folder, which the guest cannot replace.
 * Nor does it block on what the guest put there: it opens without waiting (a FIFO's open would wait for a peer
 * forever) and refuses anything but a regular file, -ESPIPE (-EISDIR for a folder); O_PATH opens are not checked.
 */
int umb_shared_open(umb_run_vm *svm, const char *name, int flags, mode_t mode) {
  int root = open(svm->root, O_PATH | O_DIRECTORY | O_CLOEXEC);
  if (root < 0) return -errno;
  char rel[PATH_MAX];
  int rc = umb_path(rel, sizeof rel, "shared/%s", name);
  if (rc) {
    close(root);
    return rc;
  }
  int io = !(flags & O_PATH);
  struct open_how how = {.flags = (uint64_t)(flags | O_CLOEXEC | (io ? O_NONBLOCK : 0)),
                         .mode = mode,
                         .resolve = RESOLVE_BENEATH | RESOLVE_NO_SYMLINKS | RESOLVE_NO_MAGICLINKS};
  long fd = syscall(SYS_openat2, root, rel, &how, sizeof how);
  int err = errno;
  close(root);
  /* ENXIO: a FIFO without a reader or a socket, opened for writing. */
  if (fd < 0) return err == ENXIO ? -ESPIPE : -err;
  struct stat st;
  if (io && (fstat((int)fd, &st) || !S_ISREG(st.st_mode))) {
    err = S_ISDIR(st.st_mode) ? EISDIR : ESPIPE;
    close((int)fd);
    return -err;
  }
  return (int)fd;
}

/* nil, err for a failed open of f: what is not a regular file is said to be so. */
static int open_failed(lua_State *L, int err, const umb_lfile *f) {
  if (err == -ESPIPE || err == -EISDIR)
    return umb_lua_fail(L, err, lua_pushfstring(L, "%s: not a regular file (the guest replaced it)", f->hpath));
  return umb_lua_fail(L, err, f->hpath);
}

umb_lfile *umb_lua_push_file(lua_State *L, int vmidx, umb_run_vm *svm, const char *name, uint64_t size) {
  vmidx = lua_absindex(L, vmidx);
  umb_lfile *f = lua_newuserdatauv(L, sizeof *f, 1);
  memset(f, 0, sizeof *f);
  f->svm = svm;
  f->size = size;
  /* vm:file checked the name (under 250 bytes): these fit, and a path that would not is refused, never cut. */
  if (umb_path(f->name, sizeof f->name, "%s", name) || umb_path(f->gpath, sizeof f->gpath, "/shared/%s", name) ||
      umb_path(f->hpath, sizeof f->hpath, "%s/%s", svm->shared, name))
    luaL_error(L, "a shared file's path is too long");
  luaL_setmetatable(L, UMB_FILE_MT);
  lua_pushvalue(L, vmidx);
  lua_setiuservalue(L, -2, 1);
  return f;
}

umb_lfile *umb_lua_test_file(lua_State *L, int idx) { return luaL_testudata(L, idx, UMB_FILE_MT); }

static umb_lfile *checkfile(lua_State *L, int idx) { return luaL_checkudata(L, idx, UMB_FILE_MT); }

/* f:read(offset, length) -> bytes, read on the host: what another cluster node sees on disk.
 * These are small blocking calls on a local file, which the loop can afford. */
static int file_read(lua_State *L) {
  umb_lfile *f = checkfile(L, 1);
  lua_Integer off = luaL_optinteger(L, 2, 0);
  lua_Integer len = luaL_optinteger(L, 3, (lua_Integer)f->size - off);
  luaL_argcheck(L, off >= 0, 2, "offset must not be negative");
  luaL_argcheck(L, len >= 0 && len <= (1 << 26), 3, "length between 0 and 64 MiB");
  int fd = umb_shared_open(f->svm, f->name, O_RDONLY, 0);
  if (fd < 0) return open_failed(L, fd, f);
  luaL_Buffer b;
  char *p = luaL_buffinitsize(L, &b, (size_t)len);
  ssize_t n = pread(fd, p, (size_t)len, (off_t)off);
  int err = errno;
  close(fd);
  if (n < 0) return umb_lua_fail(L, -err, f->hpath);
  luaL_pushresultsize(&b, (size_t)n);
  return 1;
}

/* f:write(offset, bytes) -> bytes written, on the host behind the guest's page cache. */
static int file_write(lua_State *L) {
  umb_lfile *f = checkfile(L, 1);
  lua_Integer off = luaL_checkinteger(L, 2);
  size_t len;
  const char *d = luaL_checklstring(L, 3, &len);
  luaL_argcheck(L, off >= 0, 2, "offset must not be negative");
  int fd = umb_shared_open(f->svm, f->name, O_WRONLY, 0);
  if (fd < 0) return open_failed(L, fd, f);
  ssize_t n = pwrite(fd, d, len, (off_t)off);
  int err = errno;
  close(fd);
  if (n < 0) return umb_lua_fail(L, -err, f->hpath);
  if ((uint64_t)off + (uint64_t)n > f->size) f->size = (uint64_t)off + (uint64_t)n;
  lua_pushinteger(L, n);
  return 1;
}

/* f:truncate(size) -> true, on the host. */
static int file_truncate(lua_State *L) {
  umb_lfile *f = checkfile(L, 1);
  lua_Integer size = luaL_checkinteger(L, 2);
  luaL_argcheck(L, size >= 0, 2, "size must not be negative");
  int fd = umb_shared_open(f->svm, f->name, O_WRONLY, 0);
  if (fd < 0) return open_failed(L, fd, f);
  int rc = ftruncate(fd, (off_t)size) ? -errno : 0;
  close(fd);
  if (rc) return umb_lua_fail(L, rc, f->hpath);
  f->size = (uint64_t)size;
  lua_pushboolean(L, 1);
  return 1;
}

/* f:size() -> the current size on the host. */
static int file_size(lua_State *L) {
  umb_lfile *f = checkfile(L, 1);
  struct stat st;
  int fd = umb_shared_open(f->svm, f->name, O_PATH, 0);
  if (fd < 0) return open_failed(L, fd, f);
  int rc = fstat(fd, &st) ? -errno : 0;
  close(fd);
  if (rc) return umb_lua_fail(L, rc, f->hpath);
  f->size = (uint64_t)st.st_size;
  lua_pushinteger(L, (lua_Integer)st.st_size);
  return 1;
}

/* f:cached([offset, length]) -> "1100": page-cache residency in the file's vm (agent fmincore). */
static int file_cached(lua_State *L) {
  umb_lfile *f = checkfile(L, 1);
  lua_Integer off = luaL_optinteger(L, 2, 0);
  lua_Integer len = luaL_optinteger(L, 3, (lua_Integer)f->size - off);
  luaL_argcheck(L, off >= 0 && len > 0, 3, "a non-empty range");
  umb_buf b = {0};
  umb_args_str(&b, f->gpath, strlen(f->gpath));
  umb_args_num(&b, (uint64_t)off);
  umb_args_num(&b, (uint64_t)len);
  return umb_lua_call(L, f->svm, 1, "fmincore", &b, umb_conv_states, 0);
}

static int file_tostring(lua_State *L) {
  umb_lfile *f = checkfile(L, 1);
  lua_pushfstring(L, "umlbed.file %s (%d bytes)", f->gpath, (int)f->size);
  return 1;
}

static int file_get(lua_State *L) {
  umb_lfile *f = checkfile(L, 1);
  const char *k = luaL_checkstring(L, 2);
  if (!strcmp(k, "name"))
    lua_pushstring(L, f->name);
  else if (!strcmp(k, "path"))
    lua_pushstring(L, f->gpath);
  else if (!strcmp(k, "hostpath"))
    lua_pushstring(L, f->hpath);
  else if (!strcmp(k, "length"))
    lua_pushinteger(L, (lua_Integer)f->size);
  else if (!strcmp(k, "vm"))
    lua_getiuservalue(L, 1, 1);
  else
    lua_pushnil(L);
  return 1;
}

void umb_lua_open_file(lua_State *L) {
  static const luaL_Reg methods[] = {{"read", file_read}, {"write", file_write},   {"truncate", file_truncate},
                                     {"size", file_size}, {"cached", file_cached}, {NULL, NULL}};
  static const luaL_Reg meta[] = {{"__tostring", file_tostring}, {NULL, NULL}};
  umb_lua_newclass(L, UMB_FILE_MT, methods, meta, file_get);
}

// SPDX-License-Identifier: MIT
/* vm.c: the umlbed.vm object: one booted UML instance, its agent (PID 1) and its sysfs trigger. */
#include <elf.h>
#include <errno.h>
#include <limits.h>
#include <fcntl.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "lumlbed.h"
#include "path.h"
#include "wall.h"

void umb_lua_push_vm(lua_State *L, umb_run_vm *svm) {
  umb_lvm *v = lua_newuserdatauv(L, sizeof *v, 0);
  v->svm = svm;
  luaL_setmetatable(L, UMB_VM_MT);
}

static umb_lvm *checklvm(lua_State *L, int idx) { return luaL_checkudata(L, idx, UMB_VM_MT); }

/* vm:spawn() -> proc: a fresh worker process. */
static int conv_spawn(lua_State *L, int base, int n, lua_Integer arg) {
  uint64_t pid;
  (void)arg;
  if (n < 1 || umb_num_parse(lua_tostring(L, base), &pid)) return umb_lua_fail(L, -EPROTO, "bad spawn reply");
  umb_lua_push_proc(L, 1, umb_lua_check_vm(L, 1), pid);
  return 1;
}

static int vm_spawn(lua_State *L) {
  umb_run_vm *svm = umb_lua_check_vm(L, 1);
  return umb_lua_call(L, svm, 1, "spawn", NULL, conv_spawn, 0);
}

/* vm:file(name [, size]) -> file in the shared folder; with size it is created (or truncated). */
static int conv_file(lua_State *L, int base, int n, lua_Integer size) {
  (void)base, (void)n;
  umb_lua_push_file(L, 1, umb_lua_check_vm(L, 1), lua_tostring(L, 2), (uint64_t)size);
  return 1;
}

static int vm_file(lua_State *L) {
  umb_run_vm *svm = umb_lua_check_vm(L, 1);
  size_t nlen;
  const char *name = luaL_checklstring(L, 2, &nlen);
  /* The trigger takes the file's guest path as one blank-separated field (docs/lua-vm.md): a name with a blank or
   * a control character would be a file that vm:invalidate cannot name. */
  int plain = *name && nlen == strlen(name) && nlen < 250 && strcmp(name, ".") && strcmp(name, "..");
  for (size_t i = 0; plain && i < nlen; i++) plain = name[i] != '/' && (unsigned char)name[i] > 0x20 && name[i] != 0x7f;
  luaL_argcheck(L, plain, 2,
                "a plain file name in the shared folder (no '/', blank, control character or NUL, under 250 bytes)");
  if (lua_isnoneornil(L, 3)) {
    char path[PATH_MAX];
    struct stat st;
    if (umb_path(path, sizeof path, "%s/%s", svm->shared, name)) return umb_lua_fail(L, -ENAMETOOLONG, name);
    int fd = umb_shared_open(svm, name, O_PATH, 0);
    if (fd < 0) return umb_lua_fail(L, fd, path);
    int rc = fstat(fd, &st) ? -errno : 0;
    close(fd);
    if (rc) return umb_lua_fail(L, rc, path);
    lua_settop(L, 2);
    return conv_file(L, 3, 0, (lua_Integer)st.st_size);
  }
  lua_Integer size = luaL_checkinteger(L, 3);
  luaL_argcheck(L, size >= 0, 3, "size must not be negative");
  lua_settop(L, 2);
  umb_buf b = {0};
  char gpath[PATH_MAX];
  if (umb_path(gpath, sizeof gpath, "/shared/%s", name)) return umb_lua_fail(L, -ENAMETOOLONG, name);
  umb_args_str(&b, gpath, strlen(gpath));
  umb_args_num(&b, (uint64_t)size);
  return umb_lua_call(L, svm, 1, "create", &b, conv_file, size);
}

/* vm:invalidate{file=, offset=, length=, impl=, cache=} writes the sysfs trigger (from PID 1's helper). */
static int vm_invalidate(lua_State *L) {
  umb_run_vm *svm = umb_lua_check_vm(L, 1);
  umb_buf b = {0};
  umb_lua_invalidate_args(L, 2, &b);
  lua_settop(L, 1);
  return umb_lua_call(L, svm, 1, "trigger", &b, umb_conv_true, 0);
}

/* vm:trigger(text) -> bytes written: a raw write to the trigger, for malformed input tests. */
static int vm_trigger(lua_State *L) {
  umb_run_vm *svm = umb_lua_check_vm(L, 1);
  size_t n;
  const char *s = luaL_checklstring(L, 2, &n);
  umb_buf b = {0};
  umb_args_str(&b, s, n);
  return umb_lua_call(L, svm, 1, "trigger", &b, umb_conv_num, 0);
}

/* vm:stats() -> {name = value}: the trigger's stats file. */
static int conv_stats(lua_State *L, int base, int n, lua_Integer arg) {
  (void)arg;
  lua_createtable(L, 0, n);
  for (int i = 0; i < n; i++) {
    umb_lua_pushdecoded(L, base + i);
    const char *kv = lua_tostring(L, -1);
    const char *eq = strchr(kv, '=');
    if (eq == NULL) eq = strchr(kv, ' ');
    if (eq) {
      lua_pushlstring(L, kv, (size_t)(eq - kv));
      lua_pushstring(L, eq + 1);
      if (lua_stringtonumber(L, eq + 1)) lua_remove(L, -2);
      lua_settable(L, -4);
    }
    lua_pop(L, 1);
  }
  return 1;
}

static int vm_stats(lua_State *L) { return umb_lua_call(L, umb_lua_check_vm(L, 1), 1, "stats", NULL, conv_stats, 0); }

/* vm:tainted() -> integer from /proc/sys/kernel/tainted. */
static int conv_tainted(lua_State *L, int base, int n, lua_Integer arg) {
  (void)arg;
  if (n < 1) return umb_lua_fail(L, -EPROTO, "missing field");
  umb_lua_pushdecoded(L, base);
  lua_Integer v = 0;
  sscanf(lua_tostring(L, -1), "%lld", (long long *)&v);
  lua_pushinteger(L, v);
  return 1;
}

static int vm_tainted(lua_State *L) {
  umb_buf b = {0};
  umb_args_str(&b, "/proc/sys/kernel/tainted", 24);
  return umb_lua_call(L, umb_lua_check_vm(L, 1), 1, "readfile", &b, conv_tainted, 0);
}

static int vm_klog(lua_State *L) { return umb_lua_call(L, umb_lua_check_vm(L, 1), 1, "klog", NULL, umb_conv_str, 0); }

/* vm:readfile(path) / vm:writefile(path, data) run in the agent. */
static int vm_readfile(lua_State *L) {
  umb_run_vm *svm = umb_lua_check_vm(L, 1);
  size_t n;
  const char *p = luaL_checklstring(L, 2, &n);
  umb_buf b = {0};
  umb_args_str(&b, p, n);
  if (!lua_isnoneornil(L, 3)) umb_args_num(&b, (uint64_t)luaL_checkinteger(L, 3));
  return umb_lua_call(L, svm, 1, "readfile", &b, umb_conv_str, 0);
}

static int vm_writefile(lua_State *L) {
  umb_run_vm *svm = umb_lua_check_vm(L, 1);
  size_t n, m;
  const char *p = luaL_checklstring(L, 2, &n);
  const char *d = luaL_checklstring(L, 3, &m);
  umb_buf b = {0};
  umb_args_str(&b, p, n);
  umb_args_str(&b, d, m);
  return umb_lua_call(L, svm, 1, "writefile", &b, umb_conv_num, 0);
}

/* The largest program vm:install copies: a static test binary is a few MiB; a copy must stay short of any deadline. */
#define UMB_INSTALL_MAX (64u << 20)

/* Copies host file `host` into the guest's root at absolute path `guest`, mode 0555, making the folders; 0 or -errno.
 * The root is shared with the guest, which may have put symbolic links there: every component is opened without
 * following one, so the copy never lands outside the root. The host file must be a regular file (-ESPIPE for a
 * FIFO, socket or device, -EISDIR for a folder), opened without waiting, of at most UMB_INSTALL_MAX bytes
 * (-EFBIG). */
static int install_file(const umb_run_vm *svm, const char *host, const char *guest) {
  int in = open(host, O_RDONLY | O_CLOEXEC | O_NONBLOCK);
  if (in < 0) return errno == ENXIO ? -ESPIPE : -errno;
  struct stat st;
  int bad = fstat(in, &st)                        ? -errno
            : S_ISDIR(st.st_mode)                 ? -EISDIR
            : !S_ISREG(st.st_mode)                ? -ESPIPE
            : st.st_size > (off_t)UMB_INSTALL_MAX ? -EFBIG
                                                  : 0;
  if (bad) {
    close(in);
    return bad;
  }
  int dir = open(svm->root, O_RDONLY | O_DIRECTORY | O_CLOEXEC | O_NOFOLLOW), rc = 0;
  char comp[4096];
  const char *p = guest + 1;
  while (dir >= 0 && strchr(p, '/')) {
    size_t n = (size_t)(strchr(p, '/') - p);
    if (n >= sizeof comp) {
      rc = -ENAMETOOLONG;
      break;
    }
    memcpy(comp, p, n);
    comp[n] = '\0';
    if (mkdirat(dir, comp, 0755) < 0 && errno != EEXIST) {
      rc = -errno;
      break;
    }
    int next = openat(dir, comp, O_RDONLY | O_DIRECTORY | O_CLOEXEC | O_NOFOLLOW);
    if (next < 0) rc = -errno;
    /* As root, the guest's kernel runs as an unprivileged user (wall.h): the folders it gets are that user's. */
    else if (umb_wall_owner() >= 0 && fchown(next, (uid_t)umb_wall_owner(), (gid_t)umb_wall_owner()) < 0)
      rc = -errno;
    close(dir);
    dir = next;
    p += n + 1;
  }
  if (dir < 0 && !rc) rc = -errno;
  int out = -1;
  if (!rc) {
    unlinkat(dir, p, 0);
    out = openat(dir, p, O_WRONLY | O_CREAT | O_EXCL | O_NOFOLLOW | O_CLOEXEC, 0555);
    if (out < 0)
      rc = -errno;
    else if (umb_wall_owner() >= 0 && fchown(out, (uid_t)umb_wall_owner(), (gid_t)umb_wall_owner()) < 0)
      rc = -errno;
  }
  char buf[65536];
  ssize_t n;
  /* The copy's own errors are named (ENOSPC, EIO), not all said to be EIO. */
  while (!rc && (n = read(in, buf, sizeof buf)) != 0) {
    if (n < 0) {
      rc = -errno;
      break;
    }
    for (ssize_t done = 0, w; done < n; done += w)
      if ((w = write(out, buf + done, (size_t)(n - done))) < 0) {
        rc = -errno;
        break;
      }
  }
  if (out >= 0) close(out);
  if (dir >= 0) close(dir);
  close(in);
  return rc;
}

/* vm:install(host_path [, guest_path]): copies a host program into the guest's root, read-only (0555), at guest_path
 * (default /bin/NAME); returns the guest path. */
static int vm_install(lua_State *L) {
  umb_run_vm *svm = umb_lua_check_vm(L, 1);
  const char *host = luaL_checkstring(L, 2);
  const char *base = strrchr(host, '/');
  base = base ? base + 1 : host;
  const char *guest = luaL_optstring(L, 3, lua_pushfstring(L, "/bin/%s", base));
  if (guest[0] != '/' || strstr(guest, "/../") || strstr(guest, "/./") || strstr(guest, "//") ||
      (strlen(guest) >= 3 && !strcmp(guest + strlen(guest) - 3, "/..")) || guest[strlen(guest) - 1] == '/')
    return luaL_argerror(L, 3, "an absolute guest path without '..', '.' or empty components");
  if (!*base) return luaL_argerror(L, 2, "a file");
  int rc = install_file(svm, host, guest);
  if (rc == -ESPIPE || rc == -EISDIR)
    return umb_lua_fail(L, rc, lua_pushfstring(L, "install: %s -> %s: not a regular file", host, guest));
  if (rc == -EFBIG)
    return umb_lua_fail(
        L, rc, lua_pushfstring(L, "install: %s -> %s: larger than %d MiB", host, guest, (int)(UMB_INSTALL_MAX >> 20)));
  if (rc) return umb_lua_fail(L, rc, lua_pushfstring(L, "install: %s -> %s: %s", host, guest, strerror(-rc)));
  lua_pushstring(L, guest);
  return 1;
}

/* 1 if the ELF file at path asks for no program interpreter (it runs in a guest without a C library), 0 if it does,
 * -errno if it cannot be read or is not a 64-bit ELF file. */
static int elf_is_static(const char *path) {
  int fd = open(path, O_RDONLY | O_CLOEXEC | O_NONBLOCK);
  if (fd < 0) return -errno;
  Elf64_Ehdr eh;
  int rc = -ENOEXEC;
  if (pread(fd, &eh, sizeof eh, 0) == (ssize_t)sizeof eh && !memcmp(eh.e_ident, ELFMAG, SELFMAG) &&
      eh.e_ident[EI_CLASS] == ELFCLASS64 && eh.e_phentsize == sizeof(Elf64_Phdr)) {
    rc = 1;
    for (unsigned i = 0; i < eh.e_phnum; i++) {
      Elf64_Phdr ph;
      if (pread(fd, &ph, sizeof ph, (off_t)(eh.e_phoff + i * sizeof ph)) != (ssize_t)sizeof ph) {
        rc = -ENOEXEC;
        break;
      }
      if (ph.p_type == PT_INTERP) rc = 0;
    }
  }
  close(fd);
  return rc;
}

static int conv_shell(lua_State *L, int base, int n, lua_Integer arg) {
  (void)arg;
  if (n < 2) return umb_lua_fail(L, -EPROTO, "bad exec reply");
  if (strcmp(lua_tostring(L, base), "exit:0")) {
    umb_lua_pushdecoded(L, base + 1);
    return umb_lua_fail(
        L, -ENOEXEC,
        lua_pushfstring(L, "shell: busybox --install -s /bin: %s: %s", lua_tostring(L, base), lua_tostring(L, -1)));
  }
  lua_pushliteral(L, "/bin/sh");
  return 1;
}

/* vm:shell([host_busybox]) -> "/bin/sh": stages Debian's busybox-static as /bin/busybox with its applets (sh, cat,
 * grep, ...) linked in /bin, so that wrapper scripts, system() and popen() work in the guest. Another static busybox
 * may be named, here or in $UMLBED_BUSYBOX. */
static int vm_shell(lua_State *L) {
  umb_run_vm *svm = umb_lua_check_vm(L, 1);
  const char *host = luaL_optstring(L, 2, getenv("UMLBED_BUSYBOX"));
  if (!host || !*host) host = "/bin/busybox";
  int st = elf_is_static(host);
  if (st == -ENOENT)
    return umb_lua_fail(L, st, lua_pushfstring(L, "shell: %s: not found (Debian package busybox-static)", host));
  if (st < 0) return umb_lua_fail(L, st, lua_pushfstring(L, "shell: %s: %s", host, strerror(-st)));
  if (!st)
    return umb_lua_fail(L, -ENOEXEC,
                        lua_pushfstring(L,
                                        "shell: %s is dynamically linked: the guest has no C library "
                                        "(install busybox-static, not busybox)",
                                        host));
  int rc = install_file(svm, host, "/bin/busybox");
  if (rc) return umb_lua_fail(L, rc, lua_pushfstring(L, "shell: %s -> /bin/busybox: %s", host, strerror(-rc)));
  umb_buf b = {0};
  umb_args_str(&b, "/bin/busybox", strlen("/bin/busybox"));
  umb_args_str(&b, "--install", strlen("--install"));
  umb_args_str(&b, "-s", 2);
  umb_args_str(&b, "/bin", 4);
  return umb_lua_call(L, svm, 1, "exec", &b, conv_shell, 0);
}

static int vm_run(lua_State *L) { return umb_lua_run(L, umb_lua_check_vm(L, 1), 1); }

static int vm_exec(lua_State *L) {
  umb_run_vm *svm = umb_lua_check_vm(L, 1);
  luaL_checkstring(L, 2);
  return umb_lua_exec(L, svm, 1);
}

static int vm_insmod(lua_State *L) {
  umb_run_vm *svm = umb_lua_check_vm(L, 1);
  size_t n, m;
  const char *p = luaL_checklstring(L, 2, &n);
  const char *params = luaL_optlstring(L, 3, NULL, &m);
  umb_buf b = {0};
  umb_args_str(&b, p, n);
  if (params) umb_args_str(&b, params, m);
  return umb_lua_call(L, svm, 1, "insmod", &b, umb_conv_true, 0);
}

static int vm_rmmod(lua_State *L) {
  umb_run_vm *svm = umb_lua_check_vm(L, 1);
  size_t n;
  const char *p = luaL_checklstring(L, 2, &n);
  umb_buf b = {0};
  umb_args_str(&b, p, n);
  return umb_lua_call(L, svm, 1, "rmmod", &b, umb_conv_true, 0);
}

/* vm:poweroff(): an orderly shutdown; the instance's exit is then not a crash. */
static int vm_poweroff(lua_State *L) {
  umb_run_vm *svm = umb_lua_check_vm(L, 1);
  umb_run_vm_powering_off(svm);
  return umb_lua_call(L, svm, 1, "poweroff", NULL, umb_conv_true, 0);
}

/* vm:request(pid, verb, field...) -> the raw reply fields (strings, still encoded; true if none), for verbs
 * the object API does not cover. Arguments are sent as given; encode strings with
 * umlbed.encode. */
static int conv_raw(lua_State *L, int base, int n, lua_Integer arg) {
  (void)arg;
  if (n == 0) {
    lua_pushboolean(L, 1);
    return 1;
  }
  for (int i = 0; i < n; i++) lua_pushvalue(L, base + i);
  return n;
}

/* A protocol field: non-empty, no blank, newline or other control byte (they would split or end the line). */
static void check_word(lua_State *L, int i) {
  size_t n;
  const char *s = luaL_checklstring(L, i, &n);
  int ok = n > 0;
  for (size_t k = 0; ok && k < n; k++) ok = (unsigned char)s[k] > 0x20 && s[k] != 0x7f;
  luaL_argcheck(L, ok, i, "a protocol field: non-empty, no blank or control character (umlbed.encode it)");
}

static int vm_request(lua_State *L) {
  umb_run_vm *svm = umb_lua_check_vm(L, 1);
  lua_Integer pid = luaL_checkinteger(L, 2);
  luaL_argcheck(L, pid >= 1 && pid <= INT32_MAX, 2, "a guest PID");
  check_word(L, 3);
  const char *verb = lua_tostring(L, 3);
  /* Check every field before building the line: a raise would leak the buffer. */
  for (int i = 4; i <= lua_gettop(L); i++) check_word(L, i);
  umb_buf b = {0};
  for (int i = 4; i <= lua_gettop(L); i++) umb_args_word(&b, lua_tostring(L, i));
  /* The verb string stays on the Lua stack while the request is in flight. */
  return umb_lua_call(L, svm, (uint64_t)pid, verb, &b, conv_raw, 0);
}

/* vm:kill(): kill the instance now (also what __close and __gc do). */
static int vm_kill(lua_State *L) {
  umb_lvm *v = checklvm(L, 1);
  if (v->svm) umb_run_vm_kill(v->svm);
  return 0;
}

/* A vm the scenario dropped mid-run is killed; at the run's end the core closes every vm itself. */
static int vm_gc(lua_State *L) { return vm_kill(L); }

/* A boot in flight: the task waiting for the agent's ready event, and the vm userdata it gets then. */
typedef struct lboot {
  umb_task *task;
  umb_run_vm *svm;
  int vmref; /* Registry reference of the vm userdata. */
} lboot;

static int boot_cont(lua_State *L, int status, lua_KContext k) {
  lboot *c = (lboot *)k;
  (void)status;
  lua_rawgeti(L, LUA_REGISTRYINDEX, c->vmref);
  luaL_unref(L, LUA_REGISTRYINDEX, c->vmref);
  umb_lua_vmstate(c->svm)->waiter = NULL;
  free(c);
  return 1;
}

/* The instance is ready, or powered off as asked: a boot waiting for it goes on. */
static void lvm_wake(umb_run_vm *svm) {
  lboot *c = umb_lua_vmstate(svm)->waiter;
  if (c) umb_task_wake(c->task, 0);
}

static void lvm_free(void *user) {
  umb_lvmstate *st = user;
  free(st->waiter);
  free(st);
}

static const umb_run_vm_ops lvm_ops = {
    .ready = lvm_wake, .exited = umb_lua_vm_exited, .powered_off = lvm_wake, .free_user = lvm_free};

int umb_lua_boot(lua_State *L, int optidx) {
  umb_task *task = umb_lua_check_task_ctx(L);
  umb_scen *sc = task->sc;
  const char *mem = NULL, *cmdline = NULL;
  int tt = 0, probe = 0;
  if (!lua_isnoneornil(L, optidx)) {
    luaL_checktype(L, optidx, LUA_TTABLE);
    /* A misspelt option would otherwise boot with its default and no word said. */
    lua_pushnil(L);
    while (lua_next(L, optidx)) {
      lua_pop(L, 1);
      const char *k = lua_type(L, -1) == LUA_TSTRING ? lua_tostring(L, -1) : NULL;
      if (k == NULL || (strcmp(k, "mem") && strcmp(k, "cmdline") && strcmp(k, "time_travel") && strcmp(k, "probe")))
        return luaL_argerror(L, optidx,
                             lua_pushfstring(L, "unknown boot option %s%s%s (known: mem, cmdline, time_travel, probe)",
                                             k ? "'" : "a key of type ", k ? k : luaL_typename(L, -1), k ? "'" : ""));
    }
    lua_getfield(L, optidx, "mem");
    mem = luaL_optstring(L, -1, NULL);
    if (mem && umb_mem_check(mem)) return umb_lua_fail(L, -EINVAL, "mem wants a size from 32M to 64G, such as 64M");
    lua_getfield(L, optidx, "cmdline");
    cmdline = luaL_optstring(L, -1, NULL);
    /* Only the allow-list: hostfs=, uml_dir= or a mem= past the range would move the jail or the instance's
     * files out of the run folder, or take the host's memory. */
    char why[512];
    if (umb_cmdline_check(cmdline, why, sizeof why)) return luaL_argerror(L, optidx, why);
    lua_getfield(L, optidx, "time_travel");
    tt = lua_toboolean(L, -1);
    lua_pop(L, 1);
    /* The run's probe kernel (umlbed run --probe-variant), which the runner chose: a scenario names no binary. */
    lua_getfield(L, optidx, "probe");
    probe = lua_toboolean(L, -1);
    lua_pop(L, 1);
    /* mem and cmdline stay on the stack so their strings live until the spawn. */
  }
  umb_run_vm *svm;
  umb_lvmstate *st = calloc(1, sizeof *st);
  if (st == NULL) return luaL_error(L, "out of memory");
  int rc = umb_run_vm_spawn(&sc->run, mem, cmdline, tt, probe, &lvm_ops, st, &svm);
  if (rc) {
    free(st);
    return umb_lua_fail(L, rc, "cannot start UML");
  }
  lboot *c = calloc(1, sizeof *c);
  if (c == NULL) return luaL_error(L, "out of memory");
  c->task = task;
  c->svm = svm;
  umb_lua_push_vm(L, svm);
  c->vmref = luaL_ref(L, LUA_REGISTRYINDEX);
  umb_lua_vmstate(svm)->waiter = c;
  task->pending_what = "the agent's ready event";
  return lua_yieldk(L, 0, (lua_KContext)c, boot_cont);
}

static int vm_tostring(lua_State *L) {
  umb_lvm *v = checklvm(L, 1);
  lua_pushfstring(L, "umlbed.vm %d (%s)", v->svm ? v->svm->index : -1, v->svm && v->svm->vm ? "running" : "closed");
  return 1;
}

static int vm_get(lua_State *L) {
  umb_lvm *v = checklvm(L, 1);
  const char *k = luaL_checkstring(L, 2);
  umb_run_vm *s = v->svm;
  if (!strcmp(k, "index"))
    lua_pushinteger(L, s->index);
  else if (!strcmp(k, "dir"))
    lua_pushstring(L, s->dir);
  else if (!strcmp(k, "shared"))
    lua_pushstring(L, s->shared);
  else if (!strcmp(k, "console"))
    lua_pushfstring(L, "%s/console.log", s->dir);
  else if (!strcmp(k, "cpu"))
    lua_pushinteger(L, s->cpu);
  else if (!strcmp(k, "kernel"))
    lua_pushstring(L, s->kernel);
  else if (!strcmp(k, "agent"))
    lua_pushstring(L, s->run->cfg->agent);
  else if (!strcmp(k, "variant"))
    lua_pushstring(L, strcmp(s->kernel, s->run->cfg->kernel) ? NULL : s->run->cfg->variant); /* nil when NULL */
  else if (!strcmp(k, "probe"))
    lua_pushboolean(L, strcmp(s->kernel, s->run->cfg->kernel) != 0);
  else if (s->vm && !strcmp(k, "pagesize"))
    lua_pushinteger(L, umb_vm_pagesize(s->vm));
  else if (s->vm && !strcmp(k, "release"))
    lua_pushstring(L, umb_vm_release(s->vm));
  else if (s->vm && !strcmp(k, "boot_ms"))
    lua_pushnumber(L, umb_vm_boot_ms(s->vm));
  else if (s->vm && !strcmp(k, "pid"))
    lua_pushinteger(L, umb_vm_pid(s->vm));
  else
    lua_pushnil(L);
  return 1;
}

void umb_lua_open_vm(lua_State *L) {
  static const luaL_Reg methods[] = {{"spawn", vm_spawn},
                                     {"file", vm_file},
                                     {"invalidate", vm_invalidate},
                                     {"trigger", vm_trigger},
                                     {"stats", vm_stats},
                                     {"tainted", vm_tainted},
                                     {"klog", vm_klog},
                                     {"readfile", vm_readfile},
                                     {"writefile", vm_writefile},
                                     {"exec", vm_exec},
                                     {"run", vm_run},
                                     {"install", vm_install},
                                     {"shell", vm_shell},
                                     {"insmod", vm_insmod},
                                     {"rmmod", vm_rmmod},
                                     {"poweroff", vm_poweroff},
                                     {"request", vm_request},
                                     {"kill", vm_kill},
                                     {"loopctl", umb_lua_vm_loopctl},
                                     {NULL, NULL}};
  static const luaL_Reg meta[] = {{"__gc", vm_gc}, {"__close", vm_gc}, {"__tostring", vm_tostring}, {NULL, NULL}};
  umb_lua_newclass(L, UMB_VM_MT, methods, meta, vm_get);
}

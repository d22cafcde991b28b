// SPDX-License-Identifier: MIT
/* pack.c: running from a pack: unpack, check the manifest and the runtime libraries, run the pack's own runner. */
#include "pack.h"
#include "args.h"
#include "child.h"
#include "reaper.h"
#include "path.h"

#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

const char *umb_pack_id(const char *build, char *buf, size_t size) {
  char path[PATH_MAX];
  if (umb_path(path, sizeof path, "%s/../MANIFEST", build)) return NULL;
  FILE *f = fopen(path, "re");
  if (f == NULL) return NULL;
  char line[256];
  const char *id = NULL;
  if (fgets(line, sizeof line, f) && !strncmp(line, "id ", 3)) {
    line[strcspn(line, "\n")] = '\0';
    snprintf(buf, size, "%s", line + 3);
    id = buf;
  }
  fclose(f);
  return id;
}

/* The runtime libraries the pack's runner lacks on this machine, with the Debian packages that have them. */
static int missing_libraries(const char *runner) {
  char cmd[4400];
  snprintf(cmd, sizeof cmd, "ldd '%s' 2>&1", runner);
  FILE *p = popen(cmd, "re");
  if (p == NULL) return 0;
  static const char *const pkgs[][2] = {
      {"libuv", "libuv1"}, {"liblua5.4", "liblua5.4-0"}, {"libjansson", "libjansson4"}};
  char line[1024];
  int missing = 0;
  while (fgets(line, sizeof line, p)) {
    if (!strstr(line, "not found")) continue;
    char lib[256] = "";
    sscanf(line, " %255s", lib);
    const char *pkg = "?";
    for (size_t i = 0; i < sizeof pkgs / sizeof pkgs[0]; i++)
      if (!strncmp(lib, pkgs[i][0], strlen(pkgs[i][0]))) pkg = pkgs[i][1];
    fprintf(stderr, "umlbed: the pack's runner needs %s, which this machine lacks (Debian package %s)\n", lib, pkg);
    missing++;
  }
  pclose(p);
  if (missing)
    fprintf(stderr, "umlbed: install the runtime libraries: apt-get install libuv1 liblua5.4-0 libjansson4\n");
  return missing;
}

int umb_pack_main(int argc, char **argv) {
  const char *pack = NULL;
  char **args = calloc((size_t)argc + 4, sizeof *args);
  char dir[4096] = "", tmp[4096] = "", runner[4200], scen[4200], manifest[4200];
  int tmp_lock = -1, runner_fd = -1;
  int k = 0, status = 2, files = 0;
  if (args == NULL) return 2;
  args[k++] = runner;
  for (int i = 1; i < argc; i++) {
    if (!strcmp(argv[i], "--pack") && i + 1 < argc) {
      pack = argv[++i];
      continue;
    }
    if (!strncmp(argv[i], "--pack=", 7)) {
      pack = argv[i] + 7;
      continue;
    }
    args[k++] = argv[i];
    /* An argument that is a file or folder on disk is a scenario argument: no default folder then. An option's
     * value is none (--kernel PATH). */
    struct stat st;
    if (i >= 2 && argv[i][0] != '-' && stat(argv[i], &st) == 0 && !umb_cli_takes_value(argv[i - 1])) files++;
  }
  struct stat st;
  if (pack == NULL || stat(pack, &st)) {
    fprintf(stderr, "umlbed: --pack %s: %s\n", pack ? pack : "(none)",
            pack ? strerror(errno) : "wants a file or folder");
    goto out;
  }
  if (S_ISDIR(st.st_mode)) {
    if (umb_path(dir, sizeof dir, "%s", pack)) {
      fprintf(stderr, "umlbed: --pack %s: %s\n", pack, strerror(ENAMETOOLONG));
      goto out;
    }
  } else {
    /* A tarball from make pack: into a folder of its own under TMPDIR, removed afterwards. */
    const char *t = getenv("TMPDIR");
    tmp_lock = umb_path(tmp, sizeof tmp, "%s/umlbed-pack-%d-XXXXXX", t && *t ? t : "/tmp", (int)getpid());
    /* Locked while it lives, like a run folder: the stale clean-up of another runner leaves it alone. */
    if (tmp_lock == 0) tmp_lock = umb_live_dir_make(t && *t ? t : "/tmp", tmp);
    if (tmp_lock < 0) {
      fprintf(stderr, "umlbed: --pack: cannot make a folder under %s: %s\n", t && *t ? t : "/tmp", strerror(-tmp_lock));
      tmp[0] = '\0';
      goto out;
    }
    char *tar[] = {"tar", "-xzf", (char *)pack, "-C", tmp, NULL};
    if (umb_child_run(tar)) {
      fprintf(stderr, "umlbed: --pack %s: not a pack tarball (tar failed)\n", pack);
      goto out;
    }
    if (umb_path(dir, sizeof dir, "%s/umlbed-pack", tmp)) goto out;
  }
  if (umb_path(manifest, sizeof manifest, "%s/MANIFEST", dir) ||
      umb_path(runner, sizeof runner, "%s/build/runner/umlbed", dir) ||
      umb_path(scen, sizeof scen, "%s/scenarios", dir)) {
    fprintf(stderr, "umlbed: --pack %s: %s\n", pack, strerror(ENAMETOOLONG));
    goto out;
  }
  if (access(manifest, R_OK) || access(runner, X_OK)) {
    fprintf(stderr, "umlbed: --pack %s: no MANIFEST or runner inside (make pack writes one)\n", pack);
    goto out;
  }
  if (missing_libraries(runner)) goto out;
  if (!files && k > 1 && (!strcmp(args[1], "run") || !strcmp(args[1], "list"))) args[k++] = scen;
  args[k] = NULL;
  /* Opened before anything of a scenario runs, and executed through that descriptor: the pack's runner is what was
   * unpacked, whatever replaced the file since. The runs it starts may write in their own folders only, not in the
   * unpacked pack beside them (runchild.c), and it starts its own processes through its own descriptor (wall.h). */
  runner_fd = open(runner, O_RDONLY | O_CLOEXEC);
  if (runner_fd < 0) {
    fprintf(stderr, "umlbed: --pack %s: %s: %s\n", pack, runner, strerror(errno));
    goto out;
  }
  status = umb_child_run_fd(runner_fd, args);
out:
  if (runner_fd >= 0) close(runner_fd);
  if (tmp[0]) umb_rm_tree(tmp);
  if (tmp_lock >= 0) close(tmp_lock);
  free(args);
  return status;
}

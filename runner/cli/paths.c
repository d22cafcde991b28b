// SPDX-License-Identifier: MIT
/* paths.c: the build folder beside the binary, the kernel and agent a command line chooses, the host's caches. */
#include "paths.h"
#include "path.h"

#include <dirent.h>
#include <errno.h>
#include <libgen.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

/* What a --variant name may hold (a folder name under BUILD/kernel/). */
#define UMB_VARIANT_CHARS "abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ0123456789_.-"

char *umb_build_dir(void) {
  char exe[PATH_MAX];
  ssize_t n = readlink("/proc/self/exe", exe, sizeof exe - 1);
  if (n <= 0) return strdup(".");
  exe[n] = '\0';
  /* BUILD/runner/umlbed (or BUILD/runner-san/umlbed): BUILD is two levels up. */
  return strdup(dirname(dirname(exe)));
}

/* Whether bdir is an installed runner's (make install writes BUILD/install.info) rather than a checkout's build. */
static int installed(const char *bdir) {
  char info[PATH_MAX];
  return !umb_path(info, sizeof info, "%s/install.info", bdir) && !access(info, F_OK);
}

/* The folder of the host's caches: BUILD in a build tree; for an installed runner (BUILD/install.info, written by
 * make install), whose BUILD may belong to root, $XDG_CACHE_HOME/umlbed or ~/.cache/umlbed, made if missing.
 * "" when there is none. */
static const char *cache_dir(const char *bdir) {
  static char dir[PATH_MAX];
  if (dir[0]) return dir;
  if (!installed(bdir)) {
    snprintf(dir, sizeof dir, "%s", bdir);
    return dir;
  }
  const char *xdg = getenv("XDG_CACHE_HOME"), *home = getenv("HOME");
  int rc = -1;
  if (xdg && *xdg)
    rc = umb_path(dir, sizeof dir, "%s/umlbed", xdg);
  else if (home && *home)
    rc = umb_path(dir, sizeof dir, "%s/.cache/umlbed", home);
  if (rc) {
    dir[0] = '\0';
    return dir;
  }
  char parent[PATH_MAX];
  snprintf(parent, sizeof parent, "%s", dir);
  mkdir(dirname(parent), 0700);
  if (mkdir(dir, 0700) && errno != EEXIST) dir[0] = '\0';
  return dir;
}

int umb_data_dir(char *out, size_t size, const char *bdir) {
  char dir[PATH_MAX], real[PATH_MAX];
  /* PREFIX/lib/umlbed is BUILD: the data is in PREFIX/share/umlbed. */
  if (umb_path(dir, sizeof dir, installed(bdir) ? "%s/../../share/umlbed" : "%s/..", bdir)) return -ENAMETOOLONG;
  /* The folder by its own name where it exists, so that messages and help texts show no "..". */
  return umb_path(out, size, "%s", realpath(dir, real) ? real : dir) ? -ENAMETOOLONG : 0;
}

int umb_cache_file(char *out, size_t size, const char *bdir, const char *env, const char *name) {
  const char *val = getenv(env);
  /* A path too long to hold is no cache. */
  const char *dir = val ? val : cache_dir(bdir);
  if (!*dir || umb_path(out, size, "%s%s%s", dir, val ? "" : "/", val ? "" : name)) {
    out[0] = '\0';
    return -1;
  }
  return 0;
}

int umb_variant_info(const char *dir, char *gen, size_t gsize, char *base, size_t bsize) {
  char path[PATH_MAX], line[256];
  if (umb_path(path, sizeof path, "%s/variant.info", dir)) return -1;
  FILE *f = fopen(path, "re");
  if (f == NULL) return -1;
  gen[0] = base[0] = '\0';
  while (fgets(line, sizeof line, f)) {
    line[strcspn(line, "\n")] = '\0';
    if (!strncmp(line, "generation ", 11)) snprintf(gen, gsize, "%.60s", line + 11);
    if (!strncmp(line, "base ", 5)) snprintf(base, bsize, "%.120s", line + 5);
  }
  fclose(f);
  return gen[0] && base[0] ? 0 : -1;
}

/* --generation GEN: the built kernel of variant NAME (or named NAME) whose variant.info says GEN; the generations
 * come from the build, not from this program. 0 with out (PATH_MAX bytes) set, or -1 after a message. */
static int generation_kernel(umb_cli_args *a, const char *name, char *out) {
  char kdir[PATH_MAX], gens[512] = "";
  if (umb_path(kdir, sizeof kdir, "%s/kernel", a->bdir)) return -1;
  DIR *d = opendir(kdir);
  int found = 0;
  for (struct dirent *e; d && !found && (e = readdir(d));) {
    char vdir[PATH_MAX], gen[64], base[128];
    if (e->d_name[0] == '.' || umb_path(vdir, sizeof vdir, "%s/%s", kdir, e->d_name) ||
        umb_variant_info(vdir, gen, sizeof gen, base, sizeof base))
      continue;
    if (!strstr(gens, gen) && strlen(gens) + strlen(gen) + 3 < sizeof gens)
      snprintf(gens + strlen(gens), sizeof gens - strlen(gens), "%s%s", gens[0] ? ", " : "", gen);
    if (!strcmp(gen, a->generation) && (!strcmp(base, name) || !strcmp(e->d_name, name)))
      found = !umb_path(out, PATH_MAX, "%s/%s/obj/linux", kdir, e->d_name);
  }
  if (d) closedir(d);
  if (!found)
    fprintf(stderr, "umlbed: --generation %s: no built kernel of variant %s in that generation (built: %s)\n",
            a->generation, name, gens[0] ? gens : "none");
  return found ? 0 : -1;
}

int umb_engine_paths(umb_cli_args *a) {
  const char *variant = a->variant, *kernel = a->kernel ? a->kernel : getenv("UMLBED_KERNEL");
  if (variant && (!*variant || *variant == '.' || strspn(variant, UMB_VARIANT_CHARS) != strlen(variant))) {
    fprintf(stderr, "umlbed: --variant wants a name such as full or gpl-only\n");
    return -1;
  }
  if (a->generation) {
    if (a->kernel && !variant) {
      fprintf(stderr, "umlbed: --generation chooses a built variant; it does not go with --kernel\n");
      return -1;
    }
    /* $UMLBED_KERNEL names one binary; --generation asks for the build's own. */
    if (generation_kernel(a, variant ? variant : "full", a->kpath)) return -1;
    kernel = a->kpath;
    variant = NULL;
  } else if (variant || kernel == NULL) {
    if (umb_path(a->kpath, sizeof a->kpath, "%s/kernel/%s/obj/linux", a->bdir, variant ? variant : "full")) {
      fprintf(stderr, "umlbed: the kernel's path is too long\n");
      return -1;
    }
    kernel = a->kpath;
  }
  a->kernel = kernel;
  a->variant = variant;
  /* The probe kernel is a variant of the same build (and generation), never a path: a scenario that boots it
   * gets one of the build's kernels, as with --variant. */
  if (a->probe_variant) {
    const char *p = a->probe_variant;
    if (!*p || *p == '.' || strspn(p, UMB_VARIANT_CHARS) != strlen(p)) {
      fprintf(stderr, "umlbed: --probe-variant wants a name such as full or full-6.12\n");
      return -1;
    }
    if (a->generation ? generation_kernel(a, p, a->ppath)
                      : umb_path(a->ppath, sizeof a->ppath, "%s/kernel/%s/obj/linux", a->bdir, p)) {
      if (!a->generation) fprintf(stderr, "umlbed: the probe kernel's path is too long\n");
      return -1;
    }
  }
  a->agent = a->agent ? a->agent : getenv("UMLBED_AGENT");
  if (a->agent == NULL) {
    if (umb_path(a->apath, sizeof a->apath, "%s/guest/umlbed-agent", a->bdir)) {
      fprintf(stderr, "umlbed: the agent's path is too long\n");
      return -1;
    }
    a->agent = a->apath;
  }
  return 0;
}

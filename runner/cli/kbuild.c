// SPDX-License-Identifier: MIT
/* kbuild.c: umlbed kbuild: a built variant's objtree, ARCH=um, release and generation, for a module's Makefile. */
#include "kbuild.h"
#include "args.h"
#include "path.h"
#include "paths.h"

#include <dirent.h>
#include <libgen.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

/* The variants of BUILD/kernel/ that have an objtree to build modules against, as "full, gpl-only, ...". */
static void built_objtrees(const char *bdir, char *out, size_t size) {
  char kdir[PATH_MAX];
  DIR *d = umb_path(kdir, sizeof kdir, "%s/kernel", bdir) ? NULL : opendir(kdir);
  for (struct dirent *e; d && (e = readdir(d));) {
    char sym[PATH_MAX];
    if (e->d_name[0] == '.' || umb_path(sym, sizeof sym, "%s/%s/obj/Module.symvers", kdir, e->d_name) ||
        access(sym, R_OK))
      continue;
    size_t len = strlen(out);
    snprintf(out + len, size - len, "%s%s", len ? ", " : "", e->d_name);
  }
  if (d) closedir(d);
}

/* KEY's value alone is for a Makefile's $(shell ...). The objtree is the build's: an installed umlbed has none. */
int umb_kbuild_main(int argc, char **argv) {
  static const char *const keys[] = {"kdir", "arch", "release", "generation", "variant", "make", NULL};
  umb_cli_args a = {.cmd = argv[1]};
  const char *key = NULL;
  int status = 2;
  static const char kusage[] =
      "usage: umlbed kbuild [--variant NAME] [--generation GEN] [KEY]\n"
      "KEY: kdir, arch, release, generation, variant or make\n";
  for (int i = 2; i < argc; i++) {
    const char *why = NULL;
    if (!strcmp(argv[i], "--help") || !strcmp(argv[i], "-h")) {
      fputs(kusage, stdout);
      return 0;
    } else if (!strcmp(argv[i], "--variant") || !strcmp(argv[i], "--generation")) {
      if (i + 1 < argc) {
        *(argv[i][2] == 'v' ? &a.variant : &a.generation) = argv[i + 1];
        i++;
      } else
        why = argv[i][2] == 'v' ? "--variant needs a NAME" : "--generation needs a GEN";
    } else if (argv[i][0] == '-') {
      why = "unknown option";
    } else if (key) {
      why = "one KEY at most";
    } else {
      key = argv[i];
    }
    if (why) {
      fprintf(stderr, "umlbed kbuild: %s: %s\n%s", argv[i], why, kusage);
      return 2;
    }
  }
  int known = key == NULL;
  for (int i = 0; key && keys[i]; i++) known |= !strcmp(key, keys[i]);
  if (!known) {
    fprintf(stderr, "umlbed kbuild: no key %s (kdir, arch, release, generation, variant, make)\n", key);
    return 2;
  }
  a.bdir = umb_build_dir();
  if (a.bdir == NULL || umb_engine_paths(&a)) goto out;
  char kdir[PATH_MAX], vdir[PATH_MAX], path[PATH_MAX], release[128] = "", gen[64], base[128];
  snprintf(kdir, sizeof kdir, "%s", a.kernel);
  dirname(kdir);
  snprintf(vdir, sizeof vdir, "%s", kdir);
  dirname(vdir);
  FILE *f = umb_path(path, sizeof path, "%s/include/config/kernel.release", kdir) ? NULL : fopen(path, "re");
  if (f && fgets(release, sizeof release, f)) release[strcspn(release, "\n")] = '\0';
  if (f) fclose(f);
  if (umb_path(path, sizeof path, "%s/Module.symvers", kdir) || access(path, R_OK) || !release[0] ||
      umb_variant_info(vdir, gen, sizeof gen, base, sizeof base)) {
    char built[1024] = "";
    built_objtrees(a.bdir, built, sizeof built);
    fprintf(stderr,
            "umlbed kbuild: %s is not a built kernel objtree (built: %s; uml-kernel/build.sh VARIANT builds "
            "one, an installed umlbed has none)\n",
            kdir, built[0] ? built : "none");
    goto out;
  }
  const char *vname = strrchr(vdir, '/') ? strrchr(vdir, '/') + 1 : vdir;
  char make[PATH_MAX + 64];
  snprintf(make, sizeof make, "make -C %s M=$PWD ARCH=um modules", kdir);
  const char *vals[] = {kdir, "um", release, gen, vname, make};
  for (int i = 0; keys[i]; i++) {
    if (key == NULL)
      printf("%s %s\n", keys[i], vals[i]);
    else if (!strcmp(key, keys[i]))
      printf("%s\n", vals[i]);
  }
  status = 0;
out:
  free(a.bdir);
  return status;
}

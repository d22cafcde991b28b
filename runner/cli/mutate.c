// SPDX-License-Identifier: MIT
/* mutate.c: umlbed mutate: hands the command line to uml-kernel/mutate.pl beside this runner's build folder. */
#include "mutate.h"
#include "path.h"
#include "paths.h"

#include <errno.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

/* The driver is in the source tree, which mutation testing needs anyway (the series, the scenarios, a kernel tree
 * to mutate): an installed umlbed has none. */
int umb_mutate_main(int argc, char **argv) {
  char *bdir = umb_build_dir();
  char script[PATH_MAX];
  (void)argc;
  if (bdir == NULL || umb_path(script, sizeof script, "%s/../uml-kernel/mutate.pl", bdir)) {
    fprintf(stderr, "umlbed mutate: no path to the driver\n");
    free(bdir);
    return 2;
  }
  if (access(script, X_OK)) {
    fprintf(stderr, "umlbed mutate: %s: %s (mutation testing runs in a checkout of umlbed)\n", script, strerror(errno));
    free(bdir);
    return 2;
  }
  /* The driver builds and runs with this runner's build folder unless the caller names another. */
  if (setenv("BUILD", bdir, 0)) {
    fprintf(stderr, "umlbed mutate: setenv: %s\n", strerror(errno));
    free(bdir);
    return 2;
  }
  free(bdir);
  argv[1] = script;
  execv(script, argv + 1);
  fprintf(stderr, "umlbed mutate: %s: %s\n", script, strerror(errno));
  return 2;
}

// SPDX-License-Identifier: MIT
/* hostilemod.c: the C module hostile-require.lua tries to require: its constructor leaves a mark (HOSTILE_MARK) if it ever runs. */
#include <fcntl.h>
#include <stdlib.h>
#include <unistd.h>
__attribute__((constructor)) static void mark(void) {
  const char *p = getenv("HOSTILE_MARK");
  if (p) close(open(p, O_WRONLY | O_CREAT, 0644));
}

/* SPDX-License-Identifier: MIT */
/* pack.h: umlbed run --pack FILE|DIR: run from a pack made by make pack (scripts/pack.sh), not from a build folder. */
#ifndef UMLBED_PACK_H
#define UMLBED_PACK_H

#include <stddef.h>

/* argv with a --pack option: unpacks FILE (or takes DIR), checks the pack and the runtime libraries its runner
 * needs, and runs that runner with the other arguments (the pack's scenarios/ when no FILE or DIR is given).
 * Returns the exit status. */
int umb_pack_main(int argc, char **argv);
/* The id of the pack this runner belongs to (BUILD/../MANIFEST's "id" line), copied to buf; NULL if none. */
const char *umb_pack_id(const char *build, char *buf, size_t size);

#endif

/* SPDX-License-Identifier: MIT */
/* gdb.h: umlbed run --gdb: the gdb script that runs the kernel, in a private folder removed at exit. */
#ifndef UMLBED_GDB_H
#define UMLBED_GDB_H

/* Writes the script that runs kernel under gdb, breaking at breaks[0..nbreaks) (in batch mode, not interactive:
 * a backtrace at each, then on), into a new folder under tmpbase that the reaper removes if this runner dies.
 * Returns the script's path (static storage), or NULL with errno set. */
const char *umb_gdb_script(const char *tmpbase, const char *kernel, char **breaks, int nbreaks, int interactive);
/* Removes the script and its folder, if umb_gdb_script made one. */
void umb_gdb_remove(void);

#endif

/* SPDX-License-Identifier: MIT */
/* runcmd.h: umlbed run, list and fuzz: the options checked, the plan made, then run N at a time (or listed). */
#ifndef UMLBED_RUNCMD_H
#define UMLBED_RUNCMD_H

/* argv[1] is "run", "list" or "fuzz". Returns the exit status: 0 every run ok or skipped, 1 some failed, 2 usage or
 * setup error, 128 + the signal that stopped the runner. Call once per process. */
int umb_runcmd_main(int argc, char **argv);

#endif

/* SPDX-License-Identifier: MIT */
/* boot.h: umlbed boot: one kernel booted exactly as the runner boots it, on the caller's descriptors. */
#ifndef UMLBED_BOOT_H
#define UMLBED_BOOT_H

/* umlbed boot --root DIR --dir DIR [--kernel PATH] [--mem SIZE] [--cmdline STR] [--umid ID] [--time-travel]
 * [--print]: execs the kernel with the runner's command line and environment (core's umb_vm_command_make):
 * the caller's descriptors 0 and 1 are the console, 3 and 4 the agent's serial line, DIR/umlbed-agent its init.
 * With --print, prints the command line instead, one argument a line. Returns only on failure (2). */
int umb_boot_main(int argc, char **argv);

#endif

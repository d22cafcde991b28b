/* SPDX-License-Identifier: MIT */
/* commands.h: the commands of umlbed (run, list, fuzz, bench, ...): one table, for dispatch and for the usage text. */
#ifndef UMLBED_COMMANDS_H
#define UMLBED_COMMANDS_H

#include <stdio.h>

/* Prints the usage text: every command's synopsis, then the options of run, list and fuzz. */
void umb_usage(FILE *f);
/* Runs the command that argv[1] names (with --help or -h: the usage text on stdout; with no command: on stderr).
 * Returns the exit status. */
int umb_command_main(int argc, char **argv);

#endif

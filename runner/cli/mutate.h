/* SPDX-License-Identifier: MIT */
/* mutate.h: umlbed mutate: mutation testing of the series, run by the driver of the source tree (docs/mutate.md). */
#ifndef UMLBED_MUTATE_H
#define UMLBED_MUTATE_H

/* umlbed mutate ARGS; argv[1] is "mutate". Execs uml-kernel/mutate.pl of the source tree that holds BUILD with
 * ARGS, BUILD in its environment unless the caller set one. Returns only on failure (2, after a message). */
int umb_mutate_main(int argc, char **argv);

#endif

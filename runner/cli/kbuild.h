/* SPDX-License-Identifier: MIT */
/* kbuild.h: umlbed kbuild: what an out-of-tree module is built with against one of the build's kernels. */
#ifndef UMLBED_KBUILD_H
#define UMLBED_KBUILD_H

/* umlbed kbuild [--variant NAME | --generation GEN [--variant NAME]] [KEY]; argv[1] is "kbuild". Prints the
 * "KEY VALUE" lines (kdir, arch, release, generation, variant, make) or KEY's value alone. Returns the exit status:
 * 0, or 2 after a message (bad arguments, no built objtree). */
int umb_kbuild_main(int argc, char **argv);

#endif

/* SPDX-License-Identifier: MIT */
/* explore.h: umlbed explore, the explorer's command: campaigns and replays of scenarios/explore.lua (umlbed.explore). */
#ifndef UMLBED_EXPLORE_H
#define UMLBED_EXPLORE_H

/* umlbed explore [--seed S] [--cases N] [--seconds S] ... [run options]; argv[1] is "explore". Returns the exit
 * status of the umlbed run it starts (0: nothing found, 1: a finding), 2 for a usage error. */
int umb_explore_main(int argc, char **argv);

#endif

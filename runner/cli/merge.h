/* SPDX-License-Identifier: MIT */
/* merge.h: umlbed merge: the JSON reports of all shards of one run list joined into one report, checked complete. */
#ifndef UMLBED_MERGE_H
#define UMLBED_MERGE_H

/* umlbed merge [--json FILE] [--junit FILE] SHARD.json...; argv[1] is "merge". Returns the exit status: 0 every run
 * ran once and passed, 1 some run failed, 2 a run is missing or doubled, the shards disagree, or bad input. */
int umb_merge_main(int argc, char **argv);

#endif

/* SPDX-License-Identifier: MIT */
/* verbs.h: the protocol's verb table as one X-macro list; the agent's dispatch and the runner's request check come from it. */
#ifndef UMB_VERBS_H
#define UMB_VERBS_H

/*
 * X(name, args_min, args_max, flags, reply_fields, reply_bytes), one line per verb of protocol version 1
 * (docs/protocol.md has what each does):
 *   args_min, args_max  arguments after "ID PID VERB";
 *   flags               UMB_VF_* (which processes accept it);
 *   reply_fields        the most fields its ok reply has after "ID VERB ok";
 *   reply_bytes         the most bytes of those fields, the space before each included.
 * The last two are bounds the agent keeps (see its limits below); umb_proto.h derives the protocol's field and line
 * limits from them, so a new verb with a larger reply raises the limits instead of breaking the runner's parser.
 */
#define UMB_VERBS(X)                                                                \
  X(hello, 0, 0, 0, 3, 2 * UMB_NUM_BYTES + UMB_PCT_BYTES(UMB_RELEASE_MAX))          \
  X(spawn, 0, 0, UMB_VF_AGENT_ONLY, 1, UMB_NUM_BYTES)                               \
  X(fork, 1, 1, 0, UMB_FORK_MAX, UMB_FORK_MAX *UMB_NUM_BYTES)                       \
  X(exit, 0, 1, UMB_VF_WORKER_ONLY, 0, 0)                                           \
  X(create, 2, 2, 0, 0, 0)                                                          \
  X(pread, 3, 3, 0, 1, UMB_PCT_BYTES(UMB_DATA_MAX))                                 \
  X(pwrite, 3, 3, 0, 1, UMB_NUM_BYTES)                                              \
  X(fsync, 1, 1, 0, 0, 0)                                                           \
  X(unlink, 1, 1, 0, 0, 0)                                                          \
  X(punch, 3, 3, 0, 0, 0)                                                           \
  X(mmap, 5, 6, UMB_VF_MAPPING, 1, UMB_NUM_BYTES)                                   \
  X(munmap, 2, 2, UMB_VF_MAPPING, 0, 0)                                             \
  X(mremap, 3, 3, UMB_VF_MAPPING, 1, UMB_NUM_BYTES)                                 \
  X(msync, 2, 2, UMB_VF_MAPPING, 0, 0)                                              \
  X(touch, 3, 3, UMB_VF_MAPPING, 0, 0)                                              \
  X(peek, 2, 2, UMB_VF_MAPPING, 1, UMB_PCT_BYTES(UMB_DATA_MAX))                     \
  X(poke, 2, 2, UMB_VF_MAPPING, 0, 0)                                               \
  X(faults, 3, 3, UMB_VF_MAPPING, 3, 3 * UMB_NUM_BYTES)                             \
  X(pages, 2, 2, UMB_VF_MAPPING, 1, 1 + UMB_PAGES_MAX)                              \
  X(pagemap, 2, 2, UMB_VF_MAPPING, UMB_PAGEMAP_MAX, UMB_PAGEMAP_MAX *UMB_NUM_BYTES) \
  X(mincore, 2, 2, UMB_VF_MAPPING, 1, 1 + UMB_PAGES_MAX)                            \
  X(fmincore, 3, 3, 0, 1, 1 + UMB_PAGES_MAX)                                        \
  X(loop, 4, 5, UMB_VF_MAPPING, 1, UMB_NUM_BYTES)                                   \
  X(loopwait, 2, 2, 0, 2, 2 * UMB_NUM_BYTES)                                        \
  X(loopstop, 1, 1, 0, 2, 2 * UMB_NUM_BYTES)                                        \
  X(readfile, 1, 2, 0, 1, UMB_PCT_BYTES(UMB_DATA_MAX))                              \
  X(writefile, 2, 2, 0, 1, UMB_NUM_BYTES)                                           \
  X(trigger, 1, 1, 0, 1, UMB_NUM_BYTES)                                             \
  X(failwrite, 3, 3, 0, 2, 2 * UMB_NUM_BYTES)                                       \
  X(stats, 0, 0, 0, UMB_STATS_MAX, UMB_STATS_MAX + 3 * UMB_DATA_MAX)                \
  X(setuid, 1, 1, UMB_VF_WORKER_ONLY, 0, 0)                                         \
  X(capdrop, 0, 0, UMB_VF_WORKER_ONLY, 0, 0)                                        \
  X(insmod, 1, 2, UMB_VF_AGENT_ONLY, 0, 0)                                          \
  X(rmmod, 1, 1, UMB_VF_AGENT_ONLY, 0, 0)                                           \
  X(exec, 1, UMB_ARGS_MAX, 0, 2, UMB_NUM_BYTES + UMB_PCT_BYTES(UMB_DATA_MAX))       \
  X(run, 5, UMB_ARGS_MAX, 0, 2, UMB_NUM_BYTES + UMB_PCT_BYTES(UMB_DATA_MAX))        \
  X(klog, 0, 0, 0, 1, UMB_PCT_BYTES(UMB_DATA_MAX))                                  \
  X(poweroff, 0, 0, UMB_VF_AGENT_ONLY, 0, 0)

#endif

/* SPDX-License-Identifier: MIT */
/* describe.h: listing a scenario file's runs in a process of its own, so that no file can hang or crash the runner. */
#ifndef UMLBED_DESCRIBE_H
#define UMLBED_DESCRIBE_H

#include <signal.h>

#include "scenario.h"

/* umb_scen_describe() of file with cfg's parameters, sandbox, memory cap and load deadline, in a forked process
 * that is killed UMB_RUNPROC_MARGIN_S (scaled) after the deadline: a file whose top-level code never returns to
 * Lua's control (a pcall loop, a long C call) is an error naming the file, not a hang. Call before any thread
 * exists (fork). Returns 0, -EINVAL with *err set (malloc'd), or -EINTR after a stop signal. */
/* Set by the stop-signal handler the runner has while it plans (umb_describe_stop_handler): a describe under way
 * is ended at once, and returns -EINTR. */
extern volatile sig_atomic_t umb_describe_stopped;
void umb_describe_stop_handler(int sig);
int umb_describe_isolated(const char *file, const umb_host_config *cfg, char **name, char ***combos, int *ncombos,
                          char **err);

#endif

/* SPDX-License-Identifier: MIT */
/* child.h: the CLI's helper commands (tar, perl, a pack's runner): run one and wait for its exit status. */
#ifndef UMLBED_CHILD_H
#define UMLBED_CHILD_H

/* Runs argv (NULL-terminated, searched in PATH) and waits. Meanwhile SIGINT, SIGTERM and SIGHUP sent to this
 * process are passed on to the child, which ends and cleans up on its own (a terminal's SIGINT reaches it twice;
 * the runner takes the first). Returns its exit status, 128 + a signal that killed it, 127 when it could not be
 * run, 2 when it could not be started. */
int umb_child_run(char **argv);
/* The same, executing the program open as exec_fd (argv[0] is only its name). */
int umb_child_run_fd(int exec_fd, char **argv);

#endif

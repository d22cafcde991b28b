/* child.h: the CLI's helper commands (tar, perl, a pack's runner): run one and wait for its exit status. */
#ifndef UMLBED_CHILD_H
#define UMLBED_CHILD_H

/* Runs argv (NULL-terminated, searched in PATH) and waits. SIGINT and SIGTERM are ignored here meanwhile: they
 * reach the child, which is in the same process group, and it ends and cleans up on its own. Returns its exit
 * status, 128 + a signal that killed it, 127 when it could not be run, 2 when it could not be started. */
int umb_child_run(char **argv);

#endif

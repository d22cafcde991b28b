// SPDX-License-Identifier: MIT
/* child.c: running a helper command to its end, with the stop signals passed on to it. */
#include "child.h"

#include <errno.h>
#include <signal.h>
#include <stdio.h>
#include <string.h>
#include <sys/wait.h>
#include <unistd.h>

static const int forwarded[] = {SIGINT, SIGTERM, SIGHUP};
#define NFORWARDED (sizeof forwarded / sizeof forwarded[0])

static volatile sig_atomic_t child_pid;

/* A stop signal sent to this process alone (kill PID, a closed terminal) must reach the child, which cleans up. */
static void forward(int sig) {
  int saved = errno;
  if (child_pid > 0) kill((pid_t)child_pid, sig);
  errno = saved;
}

int umb_child_run(char **argv) { return umb_child_run_fd(-1, argv); }

int umb_child_run_fd(int exec_fd, char **argv) {
  struct sigaction fw = {.sa_handler = forward, .sa_flags = SA_RESTART}, old[NFORWARDED];
  sigemptyset(&fw.sa_mask);
  sigset_t block, prev;
  sigemptyset(&block);
  for (size_t i = 0; i < NFORWARDED; i++) sigaddset(&block, forwarded[i]);
  /* Blocked until child_pid is set, so no signal falls between the fork and the handler's knowing the child. */
  sigprocmask(SIG_BLOCK, &block, &prev);
  for (size_t i = 0; i < NFORWARDED; i++) sigaction(forwarded[i], &fw, &old[i]);
  pid_t pid = fork();
  if (pid == 0) {
    for (size_t i = 0; i < NFORWARDED; i++) sigaction(forwarded[i], &old[i], NULL);
    sigprocmask(SIG_SETMASK, &prev, NULL);
    extern char **environ;
    if (exec_fd >= 0)
      fexecve(exec_fd, argv, environ);
    else
      execvp(argv[0], argv);
    fprintf(stderr, "umlbed: %s: %s\n", argv[0], strerror(errno));
    _exit(127);
  }
  child_pid = pid;
  sigprocmask(SIG_SETMASK, &prev, NULL);
  int st = 0, rc = 2;
  if (pid > 0) {
    while (waitpid(pid, &st, 0) < 0 && errno == EINTR) {
    }
    rc = WIFEXITED(st) ? WEXITSTATUS(st) : 128 + WTERMSIG(st);
  } else {
    fprintf(stderr, "umlbed: fork: %s\n", strerror(errno));
  }
  sigprocmask(SIG_BLOCK, &block, NULL);
  child_pid = 0;
  for (size_t i = 0; i < NFORWARDED; i++) sigaction(forwarded[i], &old[i], NULL);
  sigprocmask(SIG_SETMASK, &prev, NULL);
  return rc;
}

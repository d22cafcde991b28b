/* child.c: running a helper command to its end, with the terminal's stop signals left to it. */
#include "child.h"

#include <errno.h>
#include <signal.h>
#include <stdio.h>
#include <string.h>
#include <sys/wait.h>
#include <unistd.h>

int umb_child_run(char **argv) {
  struct sigaction ign = {.sa_handler = SIG_IGN}, oint, oterm;
  sigaction(SIGINT, &ign, &oint);
  sigaction(SIGTERM, &ign, &oterm);
  pid_t pid = fork();
  if (pid == 0) {
    sigaction(SIGINT, &oint, NULL);
    sigaction(SIGTERM, &oterm, NULL);
    execvp(argv[0], argv);
    fprintf(stderr, "umlbed: %s: %s\n", argv[0], strerror(errno));
    _exit(127);
  }
  int st = 0, rc = 2;
  if (pid > 0) {
    while (waitpid(pid, &st, 0) < 0 && errno == EINTR) {
    }
    rc = WIFEXITED(st) ? WEXITSTATUS(st) : 128 + WTERMSIG(st);
  } else {
    fprintf(stderr, "umlbed: fork: %s\n", strerror(errno));
  }
  sigaction(SIGINT, &oint, NULL);
  sigaction(SIGTERM, &oterm, NULL);
  return rc;
}

/* SPDX-License-Identifier: MIT */
/* tap.h: the one TAP harness of the C tests: a task list of test functions, one result each; CHECK records and goes on. */
#ifndef UMLBED_TAP_H
#define UMLBED_TAP_H

#include <stdio.h>

/* Failed checks in the task that runs now. */
static int tap_failures;

#define CHECK(cond)                                                       \
  do {                                                                    \
    if (!(cond)) {                                                        \
      printf("#   %s:%d: check failed: %s\n", __FILE__, __LINE__, #cond); \
      tap_failures++;                                                     \
    }                                                                     \
  } while (0)

typedef struct tap_task {
  const char *name;
  void (*fn)(void);
} tap_task;

/* Runs each task in order, one TAP result each, after the plan; returns the exit status (1 if any failed). */
static inline int tap_run(const tap_task *tasks, int n) {
  int bad = 0;
  printf("1..%d\n", n);
  for (int i = 0; i < n; i++) {
    tap_failures = 0;
    tasks[i].fn();
    printf("%s %d - %s\n", tap_failures ? "not ok" : "ok", i + 1, tasks[i].name);
    fflush(stdout);
    bad += tap_failures != 0;
  }
  return bad ? 1 : 0;
}

#endif

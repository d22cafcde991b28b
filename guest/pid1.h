/* SPDX-License-Identifier: MIT */
/* pid1.h: what PID 1's files share: the table of workers (children.c), its modes and output (out.c), boot (boot.c). */
#ifndef UMB_PID1_H
#define UMB_PID1_H

#include "agent.h"

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <sys/types.h>

#define SERIAL_PATH "/dev/ttyS0"
#define READ_CHUNK 65536

/* A request sent to a worker and not answered yet, kept so that a dead worker's requests get ECHILD. */
struct pending {
  uint64_t id;
  char verb[16];
};

/* A worker as PID 1 sees it: its channel, its queues and its unanswered requests. */
struct worker {
  pid_t pid; /* The real pid. */
  pid_t key; /* The protocol's pid: 1 for the helper that executes PID 1's requests. */
  int fd;    /* The channel; -1 once closed. */
  bool eof;  /* The channel reached EOF: the worker is dying, its reap is pending. */
  struct umb_queue in, out;
  size_t scanned; /* Bytes of in known to hold no newline. */
  struct pending *q;
  size_t qhead, qlen, qcap;
  int *rfds; /* Channels received by SCM_RIGHTS, not yet claimed by an "~adopt" line. */
  size_t nrfds;
};

/* ---- children.c: the workers, their pending requests, their ends ---- */

extern struct worker **workers;
extern size_t nworkers;
/* Requests outstanding over all workers. */
extern size_t outstanding;
/* SIGCHLD wakes the poll loop through this pipe (UML test kernels are built without signalfd). */
extern int chld_pipe[2];

struct worker *find_key(pid_t key);
void free_worker(struct worker *w);
bool id_outstanding(uint64_t id);
int push_pending(struct worker *w, uint64_t id, umb_field verb);
int spawn_helper(void);
void flush_worker(struct worker *w);
size_t read_worker(struct worker *w, size_t limit);
void on_sigchld(int sig);
void reap(void);

/* ---- out.c: PID 1's modes and its output, which main.c, children.c and boot.c all use ---- */

/* Bytes for the runner, written out on its line by main.c's poll loop. */
extern struct umb_queue ser_out;
/* --stdio on the host: stdin and stdout instead of the serial line, nothing mounted, no poweroff. */
extern bool stdio_mode;
/* Set once a poweroff is answered or the agent ends: the poll loop stops and no helper is started again. */
extern bool shutting_down;

/* A line on the console (stderr). */
void logmsg(const char *fmt, ...) __attribute__((format(printf, 1, 2)));
/* Queues bytes for the runner; an error reply, built from its parts. */
void out_add(const void *p, size_t n);
void emit_err(uint64_t id, const char *verb, const char *ename, const char *msg);
int set_nonblock(int fd);

/* ---- boot.c ---- */

/* Mounts, a console, the boot options, then the serial line in raw mode: returns its fd, or -errno (logged). */
int boot(void);

#endif

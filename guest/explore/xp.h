/* SPDX-License-Identifier: MIT */
/* xp.h: the explorer's shared declarations: a case (file, processes, mappings, tasks), its processes and its state. */
#ifndef UMB_XP_H
#define UMB_XP_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <sys/types.h>

#define XP_MAX_PROCS 8
#define XP_MAX_MAPS 8
#define XP_MAX_TASKS 4
#define XP_MAX_PRIMS 2
#define XP_WORDS_MAX 16
#define XP_LINE_MAX 512

/* One primitive operation as its words ("read M0 3"); the process that runs it parses them again. */
struct xp_prim {
  int nwords;
  char *words[XP_WORDS_MAX];
};

/* A task of the concurrent part: one process runs its primitives one after another. */
struct xp_task {
  int proc;
  int nprims;
  struct xp_prim prims[XP_MAX_PRIMS];
};

/* A mapping of the file as its process made it; a child of a fork has its parent's. */
struct xp_map {
  bool used;
  uintptr_t addr;
  size_t pages;
  size_t pgoff;
  bool shared;
  bool writable;
};

/* The file under test and the two views of it. */
struct xp_file {
  bool tmpfs;      /* on the guest's tmpfs (hole punching), else on hostfs (a second node can write it) */
  size_t pages;    /* its size at creation */
  char path[512];  /* the path every process opens */
  char other[512]; /* the same host file through a second hostfs mount: the other node's view ("" on tmpfs) */
};

/* A process of the case: a server that runs the primitives the controller sends it. */
struct xp_proc {
  bool used;
  bool gone; /* it ran an exit, or died */
  pid_t pid;
  int pidfd;
  struct xp_map maps[XP_MAX_MAPS];
};

struct xp_case {
  struct xp_file file;
  struct xp_proc procs[XP_MAX_PROCS];
  int ntasks;
  struct xp_task tasks[XP_MAX_TASKS];
};

/* The page size, the file and the case, for every process (a server is a fork of the controller). */
extern size_t xp_ps;
extern struct xp_case xp_c;

/* With UMLBED_EXPLORE_TIMING set, the end of a phase on stderr (main.c). */
void xp_phase(const char *what);
/* Reports a failure of the explorer itself (not of the kernel under test) and exits 2. */
_Noreturn void xp_die(const char *fmt, ...) __attribute__((format(printf, 1, 2)));
/* Splits a line into words in place (blanks); returns the count, or -1 past max. */
int xp_split(char *line, char **words, int max);
/* A decimal or 0x number word, or -1 (and errno EINVAL) if it is not one. */
int xp_num(const char *s, uint64_t *v);

/* The content of page i of the file at version v: a header naming both, then a fill byte of the pair. */
void xp_fill(char *page, unsigned v, size_t i);
/* The token of a page's bytes read where file page i is expected: "vN", "vN@K" (the page of another offset),
 * "z" (zeros), or "h" and a hash. */
void xp_token(const char *page, size_t i, char *tok, size_t toksz);

/* The start barrier: every armed process reads it; the controller closes its write end. */
extern int xp_go[2];
/* The current process's descriptor of the file. */
extern int xp_fd;

/* proc.c: the processes and the line channel to each. */
void xp_procs_init(void);
int xp_proc_start(int p);
/* Reads process p's greeting (a fork's child greets once it runs) and opens its pidfd. */
void xp_greet(int p);
void xp_send(int p, const char *fmt, ...) __attribute__((format(printf, 2, 3)));
/* Reads one reply line of process p; false at EOF or when it is gone (its pidfd says so). */
bool xp_reply(int p, char *line, size_t size);
void xp_set_fifo(int p, int prio);
void xp_set_other(int p);
/* The child's side: serves process p's channel until told to stop. */
_Noreturn void xp_serve(int p);

/* prim.c: allocates the buffers a primitive uses, so that none is allocated during the concurrent part. */
void xp_prefault_buffers(void);
/* prim.c: runs one primitive in the current process; the result token goes in res. */
void xp_prim_run(int self, char **words, int n, char *res, size_t ressz);

/* state.c: the final state of every process, the page cache and the file, on stdout. */
void xp_state_print(void);
/* The kernel's report state again ("kernel-after ..."), once the case's processes have ended: a report of their
 * teardown (an invalidation that met an exit) comes after the state. */
void xp_kernel_after(void);
/* The kernel's log from now on: a descriptor of /dev/kmsg at its end. A lockdep RCU report ("suspicious RCU usage")
 * neither taints nor turns lockdep off, so the log is where the kernel says so. */
int xp_klog_mark(void);
/* The first warning or worse the kernel logged since the mark ("klog LEVEL TEXT"), if any; closes fd. */
void xp_klog_since(int fd);
/* The PTEs of every VMA of the file of every process, as "snap TAG PGOFF PERMS Pn START PTES" lines. */
void xp_snap(const char *tag);

#endif

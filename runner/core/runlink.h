/* SPDX-License-Identifier: MIT */
/* runlink.h: a run process's line to the runner that started it, and the host CPUs that runs share. */
#ifndef UMLBED_RUNLINK_H
#define UMLBED_RUNLINK_H

#include <sched.h>
#include <stddef.h>

/*
 * Each scenario run is a process of its own (a "run process"), started and watched by the runner (its
 * supervisor), so that nothing a scenario's code does in C can stop the runner from enforcing a deadline or a
 * signal: the supervisor can always kill the run process and clean up after it. The link between them is a socket;
 * its messages are the table of protocol/run-link.h (docs/protocol.md, "The run link"), and umb_link_parse() is the
 * one reader of every line on it, on both sides. The core sends its facts as they arise: an instance's process
 * group (G+ / G-), a CPU asked for and given back (cpu? / cpu-), the run's bound, its verdict once decided
 * (finishing), the kernel's delay-loop calibration (lpj).
 *
 * Without a link (a runner that runs its scenarios itself, or the unit tests) every call here is local: CPUs come
 * from this process's own table and the lines go nowhere.
 */

#include "run-link.h"
#include "umb_proto.h"

/* One line of the link, parsed: its message (UMB_LM_*), and its field by kind: i (UMB_LF_INT, and the verdict's
 * umb_verdict for UMB_LF_VERDICT), num (UMB_LF_NUM), or a record's key (UMB_LK_*) and decoded value (val, vlen
 * bytes, NUL-terminated, for UMB_LF_STR; i or num for a key of those kinds). */
typedef struct umb_link_msg {
  int msg;
  int key;
  long long i;
  double num;
  char *val;
  size_t vlen;
} umb_link_msg;

/* Parses line (len bytes, no newline; decoded in place) as a message of one of the directions in dirs
 * (UMB_LINK_* bits). 0, or -EINVAL when it is no such message or its field is not what the table says. */
int umb_link_parse(char *line, size_t len, int dirs, umb_link_msg *m);

/* The word of message msg ("cfg", "G+", ...). */
const char *umb_link_word(int msg);

/* Appends a record line "WORD KEY VALUE\n" of message msg with the n bytes of val percent-encoded; 0 or -ENOMEM.
 * The _str form adds nothing for a NULL string (the reader keeps its default). */
int umb_link_rec_bytes(umb_buf *b, int msg, int key, const char *val, size_t n);
int umb_link_rec_str(umb_buf *b, int msg, int key, const char *val);
/* A number, written so that it reads back exactly; the _end form is the record's last line. */
int umb_link_rec_num(umb_buf *b, int msg, int key, double v);
int umb_link_rec_end(umb_buf *b, int msg);

/* Makes fd this process's link to its supervisor (a connected socket; blocking). */
void umb_link_attach(int fd);
/* Whether this process is a run process. */
int umb_link_active(void);
/* Sends one line (a newline is added); a failed write is ignored, since the supervisor then is gone and this
 * process dies with it. */
void umb_link_send(const char *fmt, ...) __attribute__((format(printf, 1, 2)));

/* Writes n bytes to the supervisor whole (a record of the CLI's); 0 or a negative errno. */
int umb_link_write(const void *p, size_t n);

/* A host CPU for a new instance, the least loaded of those this process may run on (across every run process of
 * the supervisor when linked), or -1; give it back with umb_cpu_put. */
int umb_cpu_take(void);
void umb_cpu_put(int cpu);
/* The least loaded allowed CPU, taken from the local table (what a supervisor answers "cpu?" with); of equally
 * loaded ones, the CPU this process runs on. */
int umb_cpu_take_local(void);
/* The choice itself: of the CPUs in allowed, one with the lowest load[] (CPU_SETSIZE entries); of those, here if it is
 * one (the CPU the caller runs on, or -1), else the lowest numbered. -1 when allowed is empty. */
int umb_cpu_pick(const cpu_set_t *allowed, const int *load, int here);
void umb_cpu_put_local(int cpu);

#endif

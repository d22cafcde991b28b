/* SPDX-License-Identifier: MIT */
/* umlbed.h: the runner's contract: protocol codec, console scanner, UML instances and scenario runs. */
#ifndef UMLBED_H
#define UMLBED_H

#include <stddef.h>
#include <stdint.h>
#include <uv.h>

#include "umb_proto.h"

/* ---- Replies (the protocol itself, buffers and the field codec are protocol/umb_proto.h). ---- */

/* A parsed reply or event. verb and fields point into the line that was parsed; fields is a heap array that
 * umb_msg_parse grows on demand (up to UMB_FIELDS_MAX) and reuses: start from a zeroed struct, and umb_msg_free
 * releases it. */
#define UMB_MSG_FIELDS_MAX UMB_FIELDS_MAX
typedef struct umb_msg {
  uint64_t id;
  const char *verb;
  int ok;      /* 1 for "ok", 0 for "err". */
  int nfields; /* Fields after ok/err; for err: ENAME MESSAGE. */
  char **fields;
  size_t fields_cap;
} umb_msg;

/* Split a reply line (without its newline) in place. Returns 0, -EINVAL if the line is not "ID VERB ok|err
 * FIELD...", -E2BIG if it has more than UMB_FIELDS_MAX fields, or -ENOMEM. */
int umb_msg_parse(char *line, size_t len, umb_msg *m);
void umb_msg_free(umb_msg *m);

/* Splits a byte stream into lines. Lines longer than max are cut at max bytes and flagged. */
typedef struct umb_lines {
  umb_buf buf;
  size_t max;
  int overflow; /* The current line has exceeded max and is being discarded. */
} umb_lines;

/* Called once per complete line (without the newline, NUL-terminated in place). A
 * truncated line is reported with toolong set. Return nonzero to stop feeding. */
typedef int (*umb_line_cb)(void *arg, char *line, size_t len, int toolong);
/* Feed bytes; returns what the last callback returned, or -ENOMEM. */
int umb_lines_feed(umb_lines *l, const char *p, size_t n, umb_line_cb cb, void *arg);
/* Report a final unterminated line, if any. */
int umb_lines_flush(umb_lines *l, umb_line_cb cb, void *arg);
void umb_lines_free(umb_lines *l);

/* ---- Console scanner. ---- */

typedef enum umb_finding {
  UMB_FIND_NONE = 0,
  UMB_FIND_WARNING, /* "WARNING:" (the kernel keeps running). */
  UMB_FIND_LOCKDEP, /* Lockdep: "possible circular locking" and other "WARNING: possible". */
  UMB_FIND_BUG,     /* "BUG:" */
  UMB_FIND_OOPS,    /* "Oops" */
  UMB_FIND_PANIC,   /* "Kernel panic" */
} umb_finding;

/* Whether a finding means the kernel is dead or dying (as opposed to a warning). */
#define UMB_FINDING_FATAL(f) ((f) >= UMB_FIND_BUG)

/* Scans a console stream line by line and keeps it for excerpts. */
typedef struct umb_scanner {
  umb_lines lines;
  umb_buf log; /* The most recent complete lines, at most about log_max bytes (older ones dropped). */
  size_t log_max;
  size_t nlines;
  umb_buf recent; /* The last few lines, for the context before a finding. */
  size_t nrecent;
  umb_buf found;       /* The first finding with a few lines before and after it, kept however long the console. */
  size_t found_more;   /* Lines still to add to found. */
  umb_finding first;   /* First finding (NONE if none). */
  umb_finding worst;   /* Most severe finding. */
  size_t first_lineno; /* 1-based line number of the first finding. */
  const char *const *ignore; /* NULL-terminated substrings: warnings whose line matches are not findings. */
  size_t nignored;           /* Warnings ignored that way. */
} umb_scanner;

void umb_scanner_init(umb_scanner *s);
/* Feed console bytes. Returns the most severe finding in these bytes (NONE if none). */
umb_finding umb_scanner_feed(umb_scanner *s, const char *p, size_t n);
/* Treat a final unterminated line as complete (call at EOF). */
umb_finding umb_scanner_finish(umb_scanner *s);
/* Classify one console line. Only kernel messages count, which carry printk's "[  seconds.micros] " stamp:
 * text a guest program writes to /dev/console does not. */
umb_finding umb_scanner_classify(const char *line);
const char *umb_finding_name(umb_finding f);
/* Append an excerpt to out: a few lines before the first finding and up to max_lines
 * from it, or the last max_lines lines when there is no finding. */
int umb_scanner_excerpt(const umb_scanner *s, umb_buf *out, size_t max_lines);
void umb_scanner_free(umb_scanner *s);

/* ---- UML instances. ---- */

typedef struct umb_vm umb_vm;
typedef struct umb_req umb_req;

/* Completion of a request. status is 0 with reply set, or a negative errno with reply NULL
 * (-ECANCELED when the vm was closed, -EPIPE when the guest went away). */
typedef void (*umb_req_cb)(umb_req *req, int status, umb_msg *reply);

struct umb_req {
  uint64_t id;
  umb_req_cb cb;
  void *data; /* For the caller. */
  umb_vm *vm;
  umb_req *next;
};

typedef enum umb_vm_event {
  UMB_VM_READY,   /* The agent sent "ready". */
  UMB_VM_FINDING, /* The console scanner found something; see umb_vm_scanner(). */
  UMB_VM_DEAD,    /* UML exited, or a protocol stream ended or broke, without umb_vm_kill(). */
  UMB_VM_GONE,    /* Every process of the instance has exited after umb_vm_kill() or death. */
  UMB_VM_EXITED,  /* The agent's "exited" event: a worker ended and was reaped; see umb_vm_exited(). */
} umb_vm_event;

typedef void (*umb_vm_event_cb)(umb_vm *vm, umb_vm_event ev, void *data);

typedef struct umb_vm_options {
  const char *kernel; /* Path to the UML binary. */
  const char *root;   /* Hostfs root folder (absolute). */
  const char *dir;    /* This instance's own folder: console.log, uml/, tmp/ (absolute). */
  const char *umid;
  const char *mem;           /* e.g. "64M" */
  const char *cmdline;       /* Extra kernel command line, split at spaces (may be NULL). */
  int time_travel;           /* Add time-travel=inf-cpu. */
  int cpu;                   /* Host CPU to pin to, or -1. */
  const char *gdb;           /* If set: run the kernel under this gdb script (batch mode). */
  int gdb_interactive;       /* gdb keeps the terminal. */
  const char *const *ignore; /* Console warnings that are not findings (see umb_scanner). */
  /* A gcov kernel (CONFIG_GCOV) writes its .gcda files here when it exits, its build path's first gcov_strip
   * components replaced (libgcov's GCOV_PREFIX and GCOV_PREFIX_STRIP); NULL: the instance's folder. */
  const char *gcov_prefix;
  int gcov_strip;
  /* The kernel is the runner's tests' fake UML (umlbed-test), whose agent has verbs of its own: requests are not
   * checked against the protocol's verb table. Only the runner's own tests set it (umlbed run --fake-uml). */
  int fake_uml;
} umb_vm_options;

/* Spawn a UML instance. On success *out is set and cb gets its events; on failure
 * (negative errno) nothing was started and cb is never called. */
int umb_vm_spawn(uv_loop_t *loop, const umb_vm_options *opt, umb_vm_event_cb cb, void *data, umb_vm **out);

/* The command line and environment umb_vm_spawn starts an instance with (descriptors 0 and 1 the console, 3 and 4
 * the agent's serial line): what a harness that drives a kernel itself (umlbed boot) runs, so that every boot is
 * the runner's, with its hostfs jail. Makes opt->dir's uml/ and tmp/. 0 or a negative errno; on success free it
 * with umb_vm_command_free. */
struct umb_wall_spec;
typedef struct umb_vm_command {
  char *const *argv;
  char *const *envp;
  const struct umb_wall_spec *wall; /* With walled: what umb_wall_exec builds around the exec (wall.h). */
  void *priv;
} umb_vm_command;
/* walled: the command names the instance's folders as the wall's descriptors (/proc/self/fd/N), for a caller that
 * execs it with umb_wall_exec; else by their paths, for one that starts the kernel itself (gdb --args). */
int umb_vm_command_make(const umb_vm_options *opt, int walled, umb_vm_command *cmd);
void umb_vm_command_free(umb_vm_command *cmd);
/* Send "ID PID VERB ARGS" (args already encoded, may be NULL). On success req->cb is called
 * exactly once; on failure (negative errno) never. */
int umb_vm_request(umb_vm *vm, umb_req *req, uint64_t pid, const char *verb, const char *args, umb_req_cb cb);
/* Kill the instance's process group; pending requests complete with -ECANCELED. The
 * UMB_VM_GONE event follows once every process has exited. Idempotent. */
void umb_vm_kill(umb_vm *vm);
/* Release the instance after UMB_VM_GONE (or kill it first if needed); close_cb (may be NULL)
 * runs when all handles are closed, after which the vm must not be used. */
void umb_vm_close(umb_vm *vm, void (*close_cb)(void *data), void *data);

/* Read and scan whatever console output is already in the pipe, without waiting and without
 * events. Output the kernel wrote before the agent's last reply is then in the scanner. */
void umb_vm_drain_console(umb_vm *vm);
const umb_scanner *umb_vm_scanner(const umb_vm *vm);
/* Guest memory a umlbed kernel boots with: below 32 MiB the 6.1 kernels panic at boot (node memory map). */
#define UMB_MEM_MIN (32ull << 20)
#define UMB_MEM_MAX (64ull << 30)
/* 0 if mem (N, NK, NM or NG) is a guest memory size from UMB_MEM_MIN to UMB_MEM_MAX, else -EINVAL. */
int umb_mem_check(const char *mem);
/* The bytes of mem (N, NK, NM or NG, up to UMB_MEM_MAX) in *bytes; 0 or -EINVAL. */
int umb_mem_bytes(const char *mem, unsigned long long *bytes);
/* 0 if every word of cmdline (split at blanks, as the instance gets it) is an option a scenario or a caller may add
 * to a boot: mem=SIZE (umb_mem_check's range), kmemleak=on|off, time-travel, time-travel=inf-cpu,
 * time-travel-start=N, lpj=N, umlbed.fault_around_bytes=N, quiet, or UMLBED_NAME=VALUE for the init's environment.
 * Anything else (hostfs=, uml_dir=, root=, init=, umid=, con=, ubd...) could move the jail, the instance's files or
 * its devices out of the run folder: -EINVAL, with a message naming the option in why (size bytes). */
int umb_cmdline_check(const char *cmdline, char *why, size_t size);
/* The mutate tool's switch of its schema kernel (every mutant of the series in one kernel, docs/mutate.md):
 * umlbed_mutant=N into buf (size bytes) when UMLBED_MUTANT=N (1 to 999999999) is in the runner's environment, the
 * empty string when it is not; -EINVAL, with a message on stderr, for any other value. The allow-list refuses
 * umlbed_mutant= in any command line a caller or a scenario gives: only the mutate tool's environment sets it. */
int umb_mutant_arg(char *buf, size_t size);
/* The longest umid: UML keeps it in 64 bytes with its NUL. */
#define UMB_UMID_MAX 63
/* 0 if umid is one safe file name (letters, digits, '.', '_', '-'; not starting with '.', no "..", at most
 * UMB_UMID_MAX bytes), else -EINVAL: UML makes uml_dir/UMID/ of it. */
int umb_umid_check(const char *umid);
/* 0 if path is an executable regular file that is a UML kernel (an ELF file with UML's .uml.setup.init section),
 * else a negative errno: -EINVAL not a regular file, -EACCES not executable, -ENOEXEC not a UML kernel. Reads a
 * few KiB, never blocks on a FIFO. */
int umb_uml_kernel_check(const char *path);
int umb_vm_pid(const umb_vm *vm);
/* 1 while the agent is up and the instance has neither died nor been killed. */
int umb_vm_alive(const umb_vm *vm);
/* Why the vm died, or NULL; valid as long as the vm. */
const char *umb_vm_death(const umb_vm *vm);
/* The agent's ready event: page size and kernel release. */
long umb_vm_pagesize(const umb_vm *vm);
const char *umb_vm_release(const umb_vm *vm);
/* During UMB_VM_EXITED: the worker's PID in *pid and its STATUS ("exit:N" or "signal:N"). */
const char *umb_vm_exited(const umb_vm *vm, uint64_t *pid);
/* Monotonic time (ms) from spawn to the ready event, or -1. */
double umb_vm_boot_ms(const umb_vm *vm);

#endif

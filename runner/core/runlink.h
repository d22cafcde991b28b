/* runlink.h: a run process's line to the runner that started it, and the host CPUs that runs share. */
#ifndef UMLBED_RUNLINK_H
#define UMLBED_RUNLINK_H

#include <stddef.h>

/*
 * Each scenario run is a process of its own (a "run process"), started and watched by the runner (its
 * supervisor), so that nothing a scenario's code does in C can stop the runner from enforcing a deadline or a
 * signal: the supervisor can always kill the run process and clean up after it. For that it must know what the run
 * process started. The core tells it over the link, one line per fact, as the facts arise:
 *
 *   G+ PGID / G- PGID     a UML instance's process group is live / gone (as the reaper's registrations);
 *   D+ PATH / D- PATH     a run folder is live / removed;
 *   cpu?                  asks for a host CPU to pin an instance to; the supervisor answers "cpu N" (-1: none);
 *   cpu- N                gives that CPU back;
 *   bound S               the run's verdict is due within S seconds from now (0: no bound, as with --timeout 0);
 *   finishing VERDICT     the verdict is decided; only clean-up is left;
 *   lpj N                 the kernel's delay-loop calibration on this host, learnt from a boot.
 *
 * Without a link (a runner that runs its scenarios itself, or the unit tests) every call here is local: CPUs come
 * from this process's own table and the lines go nowhere.
 */

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
/* The least loaded allowed CPU, taken from the local table (what a supervisor answers "cpu?" with). */
int umb_cpu_take_local(void);
void umb_cpu_put_local(int cpu);

#endif

/* SPDX-License-Identifier: MIT */
/* runchild.h: the run process's entry point: one scenario run in a process of its own, under the runner's watch. */
#ifndef UMLBED_RUNCHILD_H
#define UMLBED_RUNCHILD_H

/* The one descriptor a run process gets from its runner beside stdio: the link (a socket: the configuration record
 * in, runlink.h's lines and the result record out). The runner checks each registration on it before it passes it
 * on to its reaper, whose pipe no run process holds. */
#define UMB_RUN_LINK_FD 3

/* umlbed __run RUNNER_PID: reads the configuration record, runs the scenario run it names, sends the
 * result record, and exits 0 (2 on a bad start; the runner then reports the run as one without a verdict). */
int umb_runchild_main(int argc, char **argv);
/* umlbed __describe RUNNER_PID: reads a configuration record naming a scenario file, describes it (its name and
 * runs) inside the same walls as a run process's but writing nowhere, and sends the desc record (protocol/run-link.h);
 * exits 0 (2 on a bad start). */
int umb_describe_main(int argc, char **argv);

#endif

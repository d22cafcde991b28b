/* SPDX-License-Identifier: MIT */
/* bench.h: umlbed bench, the benchmark command: runs bench/scenarios/ at -j 1 and hands the JSON to bench/report.pl. */
#ifndef UMLBED_BENCH_H
#define UMLBED_BENCH_H

/* umlbed bench [--out DIR] [run options] [FILE|DIR]... or umlbed bench --compare OLD.json NEW.json; argv[1] is
 * "bench". Returns the exit status. */
int umb_bench_main(int argc, char **argv);

#endif

// SPDX-License-Identifier: MIT
/* commands.c: the table of umlbed's commands: which function runs each, and its line of the usage text. */
#include "commands.h"
#include "bench.h"
#include "boot.h"
#include "explore.h"
#include "kbuild.h"
#include "merge.h"
#include "mutate.h"
#include "pack.h"
#include "runchild.h"
#include "runcmd.h"
#include "wall.h"

#include <string.h>

/* One command: argv[1] is its name; fn gets the whole argv and returns the exit status. help is its synopsis after
 * "umlbed " in the usage text, NULL for the runner's internal commands. */
typedef struct umb_command {
  const char *name;
  int (*fn)(int argc, char **argv);
  const char *help;
} umb_command;

/* In the usage text's order. A command may have several synopses: the first row of a name is the one run. */
static const umb_command commands[] = {
    {"run", umb_runcmd_main, "run [options] [FILE|DIR]..."},
    {"list", umb_runcmd_main, "list [--filter GLOB] [--param KEY=VALUE]... [FILE|DIR]..."},
    {"run", umb_runcmd_main, "run --gdb [--break SYMBOL]... FILE"},
    {"fuzz", umb_runcmd_main, "fuzz [--seed S] [--steps N] [--runs K] [options] [FILE]"},
    {"bench", umb_bench_main, "bench [--out DIR] [options] [FILE|DIR]...   (umlbed bench --help)"},
    {"explore", umb_explore_main,
     "explore [--seed S] [--cases N|--seconds S] [--case N --schedule SCHED] [options]   (umlbed explore --help)"},
    {"merge", umb_merge_main, "merge [--json FILE] [--junit FILE] [--subtest NAME] SHARD.json... | REPORT.json"},
    {"boot", umb_boot_main, "boot --root DIR --dir DIR [--kernel PATH] ...   (umlbed boot --help)"},
    {"mutate", umb_mutate_main,
     "mutate list|run|report [--gen GEN] [--all] [--diff REV] [--shard K/N] ...   (docs/mutate.md)"},
    {"kbuild", umb_kbuild_main,
     "kbuild [--variant NAME] [--generation GEN] [KEY]   (how to build a module against a kernel)"},
    /* The runner's own: a spawn through the wall (wall.h), a run process and a describing process (runchild.h). */
    {"__wall", umb_wall_main, NULL},
    {"__run", umb_runchild_main, NULL},
    {"__describe", umb_describe_main, NULL},
};
#define NCOMMANDS (sizeof commands / sizeof commands[0])

/* What follows the synopses: the options of run, list and fuzz, the environment, the exit statuses. */
static const char *usage_options =
    "\n"
    "Runs Lua scenarios, each in its own User-Mode Linux instance, and prints TAP.\n"
    "Without FILE or DIR, runs ./scenarios.\n"
    "\n"
    "options:\n"
    "  --kernel PATH     UML kernel binary (default: $UMLBED_KERNEL, else\n"
    "                    BUILD/kernel/full/obj/linux, BUILD being the folder above\n"
    "                    the one holding this umlbed binary)\n"
    "  --variant NAME    use BUILD/kernel/NAME/obj/linux (full, gpl-only, broken-...)\n"
    "  --generation GEN  the kernel generation (as uml-kernel/generations/ names them):\n"
    "                    the built variant NAME (--variant, default full) of GEN\n"
    "  --probe-variant NAME  a second built variant (of the same generation) that a\n"
    "                    scenario boots with t:vm{probe = true}: the base kernel\n"
    "                    an explorer campaign reads its points from (default: the\n"
    "                    run's kernel)\n"
    "  --agent PATH      guest agent (default: $UMLBED_AGENT, else BUILD/guest/umlbed-agent)\n"
    "  -j, --jobs N|auto run N scenarios at once; auto (the default) starts with one\n"
    "                    and adds more only while measured throughput rises by 10%,\n"
    "                    up to the CPUs umlbed may run on (auto:N: up to N)\n"
    "  --filter GLOB     only scenarios whose name or file matches GLOB\n"
    "  --timeout S       per-scenario timeout in seconds (default 60; 0 = none)\n"
    "  --mem SIZE        guest memory (default 64M)\n"
    "  --cmdline STR     extra kernel command line for every instance\n"
    "  --time-travel     boot with time-travel=inf-cpu (deterministic time)\n"
    "  --junit FILE      write a JUnit XML report\n"
    "  --json FILE       write a JSON report\n"
    "  --subtest NAME    print the TAP as a subtest named NAME of an outer TAP stream\n"
    "                    (KTAP's nested tests): every line indented by four spaces;\n"
    "                    the outer stream writes the result line after it\n"
    "  --keep            keep every run folder (failed runs are always kept)\n"
    "  --ignore-warning TEXT  console warnings (WARNING:, lockdep) on lines containing\n"
    "                    TEXT are not findings; repeatable (at most 63)\n"
    "  --param KEY=VALUE set the scenario parameter p.KEY to VALUE (a number if it\n"
    "                    reads as one): replaces KEY's list in the matrix, or adds KEY;\n"
    "                    repeat KEY for several values (one run each)\n"
    "  --shard K/N       run shard K of N: the full list (the same on every machine) is\n"
    "                    dealt longest run first to the least loaded shard; without\n"
    "                    it, GitLab's CI_NODE_INDEX/CI_NODE_TOTAL, Kubernetes'\n"
    "                    JOB_COMPLETION_INDEX with UMLBED_SHARD_TOTAL, or Slurm's\n"
    "                    SLURM_ARRAY_TASK_ID/_COUNT choose it (umlbed merge joins them)\n"
    "  --durations FILE  deal shards by the runs' seconds in FILE (a --json report)\n"
    "                    instead of by count\n"
    "  --pack FILE|DIR   run from a pack (make pack): its runner, kernels, agent and\n"
    "                    scenarios; this machine needs only libuv1, liblua5.4-0 and\n"
    "                    libjansson4\n"
    "  --coverage[=DIR]  for a gcov kernel (variant coverage): each run's instances\n"
    "                    power off at the end and write their gcov data to a folder of\n"
    "                    their own under DIR (default ./umlbed-coverage); runs add up,\n"
    "                    so remove DIR to start afresh (make coverage reports on it)\n"
    "  --unsafe-lua      give scenarios all of Lua's libraries (os.exit, os.execute,\n"
    "                    io.popen, debug, binary chunks): off by default, see SECURITY\n"
    "  --lua-memory MIB  the memory one scenario's Lua state may hold (default 512; 0: no\n"
    "                    cap): past it the run is an ERROR naming the cap\n"
    "  --gdb             run the kernel under gdb (one FILE; batch mode unless stdin is a terminal)\n"
    "  --break SYMBOL    with --gdb: break at SYMBOL (in batch mode: print a backtrace and go on;\n"
    "                    at most 64)\n"
    "  --batch           with --gdb: batch mode even on a terminal\n"
    "  -h, --help        this text\n"
    "\n"
    "umlbed fuzz runs FILE (default scenarios/model-fuzz.lua) once per seed, as\n"
    "  umlbed run --timeout 0 --param seed=S ... --param seed=S+K-1 --param steps=N FILE\n"
    "  --seed S          first seed (default: from the clock; printed as a TAP comment)\n"
    "  --steps N         steps per run (default: the scenario's)\n"
    "  --runs K          seeds S, S+1, ..., S+K-1 (default 1)\n"
    "  --timeout, -j and the other run options apply (the timeout is off unless given)\n"
    "\n"
    "environment: UMLBED_KERNEL, UMLBED_AGENT (see above); UMLBED_JOBS (-j's default);\n"
    "UMLBED_TIMEOUT_SCALE (multiplies the default and each scenario's own timeout, not --timeout);\n"
    "UMLBED_JOBS_VERBOSE (-j auto prints its decisions); UMLBED_JOBS_CACHE (where -j auto\n"
    "keeps what it measured, default BUILD/jobs-auto.cache; empty: nowhere); UMLBED_LPJ_CACHE\n"
    "(the kernel's delay-loop calibration on this host, passed to later boots as lpj=, and\n"
    "its release; default BUILD/lpj.cache; empty: this run only)\n"
    "\n"
    "exit status: 0 all scenarios ok or skipped, 1 some failed, 2 usage or setup error,\n"
    "128 + the signal when stopped by one (130 SIGINT, 143 SIGTERM, 129 SIGHUP).\n";

void umb_usage(FILE *f) {
  int first = 1;
  for (size_t i = 0; i < NCOMMANDS; i++) {
    if (commands[i].help == NULL) continue;
    fprintf(f, "%s %s\n", first ? "usage: umlbed" : "       umlbed", commands[i].help);
    first = 0;
  }
  fputs(usage_options, f);
}

/* A command line that names a pack is the pack's own runner's to run (pack.h). */
static int wants_pack(int argc, char **argv) {
  for (int i = 2; i < argc; i++)
    if (!strcmp(argv[i], "--pack") || !strncmp(argv[i], "--pack=", 7)) return 1;
  return 0;
}

int umb_command_main(int argc, char **argv) {
  /* What the runner starts of its own is executed through this descriptor (wall.h), opened before anything else:
   * a pack's runner replaced on disk by a run is never what runs next. The runner's own processes (__run, ...)
   * close what they inherited first, and open it then. */
  if (argc >= 2 && strncmp(argv[1], "__", 2)) umb_wall_self_open();
  if (argc < 2 || !strcmp(argv[1], "--help") || !strcmp(argv[1], "-h")) {
    umb_usage(argc < 2 ? stderr : stdout);
    return argc < 2 ? 2 : 0;
  }
  const umb_command *c = NULL;
  for (size_t i = 0; i < NCOMMANDS && c == NULL; i++)
    if (!strcmp(argv[1], commands[i].name)) c = &commands[i];
  /* run, list and fuzz run from a pack, and so does a command this runner does not know: the pack's runner,
   * perhaps a newer one, answers it. The other commands never take --pack. */
  if ((c == NULL || c->fn == umb_runcmd_main) && wants_pack(argc, argv)) return umb_pack_main(argc, argv);
  if (c == NULL) {
    fprintf(stderr, "umlbed: unknown command '%s'\n", argv[1]);
    umb_usage(stderr);
    return 2;
  }
  return c->fn(argc, argv);
}

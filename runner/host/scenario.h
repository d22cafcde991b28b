/* SPDX-License-Identifier: MIT */
/* scenario.h: the Lua host's contract with the layer above: scenario runs, listings and the module it is given. */
#ifndef UMLBED_SCENARIO_H
#define UMLBED_SCENARIO_H

#include <signal.h>
#include <stddef.h>

#include "run.h"

/* A scenario run: its Lua state and tasks on top of one run of the core (opaque here; hostlua.h has its layout). */
typedef struct umb_scen umb_scen;

/* What the host adds to the core's settings: how scenario code runs. */
typedef struct umb_host_config {
  const umb_config *core;
  int unsafe_lua;            /* --unsafe-lua: no sandbox. */
  const char *const *params; /* --param KEY=VALUE overrides of the matrix, NULL-terminated (or NULL). */
  size_t lua_memory;         /* --lua-memory: the bytes one scenario's Lua state may hold (0: no cap). */
} umb_host_config;

/* The default of --lua-memory, in MiB. */
#define UMB_LUA_MEMORY_DEFAULT_MIB 512
/* Combinations one matrix may have. */
#define UMB_MATRIX_MAX 65536

/* The Lua module every scenario's state opens as "umlbed" (the bindings, a layer above the host, which the layer
 * above both registers once before any scenario is loaded), and how to push a scenario's expectations object. */
struct lua_State;
typedef struct umb_host_module {
  int (*open)(struct lua_State *L);
  void (*push_t)(struct lua_State *L);
} umb_host_module;
void umb_host_register(const umb_host_module *m);

/* What a finished scenario leaves. */
typedef struct umb_scen_result {
  const umb_result *run; /* Verdict, time, diagnostics, kept folder, boot times. */
  const char *prints;    /* What the scenario print()ed, one line per call (NULL if nothing). */
  /* Its t:metric() samples, one per line: NAME TAB VALUE TAB UNIT, then TAB KEY=STRING or TAB KEY#NUMBER per label
   * (NULL if none). */
  const char *metrics;
} umb_scen_result;

/* Describe a scenario file: fills *name and the display names of every matrix combination (malloc'd), loading
 * the file under cfg's sandbox, parameters and memory cap, bounded by cfg->core->timeout_s. Returns 0, or -EINVAL
 * with *err set (malloc'd). */
int umb_scen_describe(const char *file, const umb_host_config *cfg, char **name, char ***combos, int *ncombos,
                      char **err);
/* Set (to the signal number) by a stop signal's handler, before the event loop hears of it: the deadline hook
 * stops busy Lua code with it. */
extern volatile sig_atomic_t umb_stop_signal;
/* Check one --param argument: returns 0 for KEY=VALUE with KEY a Lua identifier, else -EINVAL. */
int umb_param_check(const char *param);
/* The variant NAME of a kernel path .../kernel/NAME/obj/linux, copied to buf; NULL otherwise. */
const char *umb_kernel_variant(const char *kernel, char *buf, size_t size);

/* A scenario run of matrix combination combo of file, shown as name; done_cb runs exactly once, from the loop,
 * when its verdict is final and everything it started is gone. NULL when out of memory. */
umb_scen *umb_scen_new(uv_loop_t *loop, const umb_host_config *cfg, const char *file, const char *name, int combo,
                       void (*done_cb)(umb_scen *sc, void *data), void *data);
/* Start it. Returns 0 or a negative errno (then the verdict is ERROR and done_cb is still called). */
int umb_scen_start(umb_scen *sc);
/* Stop a running scenario early (signal): verdict ERROR, folders removed. */
void umb_scen_interrupt(umb_scen *sc);
/* Valid in done_cb and until umb_scen_free. */
const umb_scen_result *umb_scen_get_result(const umb_scen *sc);
void umb_scen_free(umb_scen *sc);

#endif

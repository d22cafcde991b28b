/* SPDX-License-Identifier: MIT */
/* host.h: what the Lua host's own files (load.c, sched.c, scenario.c) share; not for the bindings or the CLI. */
#ifndef UMLBED_HOST_H
#define UMLBED_HOST_H

#include "hostlua.h"

/* Lua instructions between two looks at the deadline and at a stop signal. */
#define HOOK_COUNT 100000

/* A Lua state for scenario file `file`: the sandbox unless unsafe, require from the file's folder, the registered
 * umlbed module, its allocations counted in *mem and refused past mem->cap (0: no cap). NULL when out of memory. */
lua_State *umb_host_new_state(int unsafe, const char *file, umb_lua_mem *mem);
/* Loads a scenario file and leaves its table on the stack, --param overrides applied; returns 0 or -EINVAL
 * (message pushed). */
int umb_host_load_table(lua_State *L, const char *file, const char *const *params);
/* Pushes the parameter table of matrix combination combo of the table at tidx and writes "k=v, ..." to label
 * (may be NULL). Returns the number of combinations, or -EINVAL with a message pushed instead. */
int umb_host_matrix_combo(lua_State *L, int tidx, int combo, umb_buf *label);
/* Raises the matrix error on top, naming the file and the matrix's line. */
int umb_host_matrix_error(lua_State *L, const char *file);
/* Installs the deadline and stop-signal hook on a thread of the scenario. */
void umb_host_set_hook(lua_State *co);
/* Scenario code raised msg and the run ends: TIMEOUT when the deadline stopped it, an ERROR naming the memory cap
 * when its Lua state reached it, else an ERROR with msg. */
void umb_scen_lua_failed(umb_scen *sc, const char *msg);
/* The run function and every task have ended: the scenario's verdict (sched.c). */
void umb_host_finish_returned(umb_scen *sc);
/* The module the layer above registered (umb_host_register); NULL before. */
const umb_host_module *umb_host_module_get(void);

#endif

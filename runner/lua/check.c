// SPDX-License-Identifier: MIT
/* check.c: the checks of a vm or a proc argument, which the objects made from them (mappings, loop controls) use. */
#include "lumlbed.h"

/* Apart from vm.c and proc.c, which call down into mapping.c and loopctl.c, so that those never call back up. */

umb_run_vm *umb_lua_check_vm(lua_State *L, int idx) {
  umb_lvm *v = luaL_checkudata(L, idx, UMB_VM_MT);
  if (v->svm == NULL) luaL_argerror(L, idx, "the vm is closed");
  return v->svm;
}

umb_lproc *umb_lua_check_proc(lua_State *L, int idx) { return luaL_checkudata(L, idx, UMB_PROC_MT); }

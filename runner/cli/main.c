// SPDX-License-Identifier: MIT
/* main.c: the umlbed program: the bindings registered with the Lua host, then argv[1]'s command (commands.c). */
#include "commands.h"
#include "luamod.h"
#include "scenario.h"

int main(int argc, char **argv) {
  /* The host opens the bindings in every scenario's state; it knows them only through this registration. */
  umb_host_register(&umb_lua_module);
  return umb_command_main(argc, argv);
}

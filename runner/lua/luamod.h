/* SPDX-License-Identifier: MIT */
/* luamod.h: the umlbed Lua module as the layer above it sees it: what it registers with the host. */
#ifndef UMLBED_LUAMOD_H
#define UMLBED_LUAMOD_H

#include "scenario.h"

/* luaopen_umlbed and the expectations object's constructor, for umb_host_register(). */
extern const umb_host_module umb_lua_module;

#endif

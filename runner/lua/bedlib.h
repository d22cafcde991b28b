/* SPDX-License-Identifier: MIT */
/* bedlib.h: the bed library's Lua files, compiled into the runner and preloaded as "umlbed.NAME". */
#ifndef UMLBED_BEDLIB_H
#define UMLBED_BEDLIB_H

#include <stddef.h>

typedef struct {
  const char *name;      /* The module name a scenario requires: "umlbed.bed". */
  const char *chunkname; /* "@runner/lua/lua/umlbed/bed.lua": errors name the source file and line. */
  const char *text;
  size_t len;
} umb_lua_embedded;

/* The generated table (runner/lua/embed.sh), ended by a zeroed entry. */
extern const umb_lua_embedded umb_lua_embedded_files[];

#endif

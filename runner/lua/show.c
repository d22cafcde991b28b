// SPDX-License-Identifier: MIT
/* show.c: how a failed expectation shows its values: quoted strings, tables, the diff of expected against seen. */
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "lumlbed.h"

/* How much of a value a failure message shows. */
#define SHOW_BYTES 160
#define SHOW_DEPTH 4
/* Strings longer than this (or with a newline) are compared by their first differing offset. */
#define SHORT_STRING 64
#define CONTEXT_BEFORE 16
#define CONTEXT_AFTER 32

/* Append the top string to the string at acc, popping it. */
static void append(lua_State *L, int acc) {
  lua_pushvalue(L, acc);
  lua_insert(L, -2);
  lua_concat(L, 2);
  lua_replace(L, acc);
}

/* Push s[0..n) in double quotes, with C escapes for quotes, backslashes and bytes that are not printable ASCII. */
static void push_quoted(lua_State *L, const char *s, size_t n, int open_start, int open_end) {
  luaL_Buffer b;
  luaL_buffinit(L, &b);
  if (open_start) luaL_addstring(&b, "...");
  luaL_addchar(&b, '"');
  for (size_t i = 0; i < n; i++) {
    unsigned char c = (unsigned char)s[i];
    char esc[8];
    if (c == '"' || c == '\\') {
      luaL_addchar(&b, '\\');
      luaL_addchar(&b, (char)c);
    } else if (c == '\n') {
      luaL_addstring(&b, "\\n");
    } else if (c == '\t') {
      luaL_addstring(&b, "\\t");
    } else if (c < 0x20 || c >= 0x7f) {
      static const char hex[] = "0123456789abcdef";
      esc[0] = '\\', esc[1] = 'x', esc[2] = hex[c >> 4], esc[3] = hex[c & 15], esc[4] = 0;
      luaL_addstring(&b, esc);
    } else {
      luaL_addchar(&b, (char)c);
    }
  }
  luaL_addchar(&b, '"');
  if (open_end) luaL_addstring(&b, "...");
  luaL_pushresult(&b);
}

static int is_identifier(const char *s, size_t n) {
  if (n == 0 || (s[0] >= '0' && s[0] <= '9')) return 0;
  for (size_t i = 0; i < n; i++)
    if (!(s[i] == '_' || (s[i] >= 'a' && s[i] <= 'z') || (s[i] >= 'A' && s[i] <= 'Z') || (s[i] >= '0' && s[i] <= '9')))
      return 0;
  return 1;
}

static void push_value(lua_State *L, int idx, int depth);

/* Push a key as it appears in a path: .name, [3] or ["odd key"]. */
static void push_key(lua_State *L, int idx) {
  idx = lua_absindex(L, idx);
  size_t n = 0;
  const char *s = lua_type(L, idx) == LUA_TSTRING ? lua_tolstring(L, idx, &n) : NULL;
  if (s && is_identifier(s, n)) {
    lua_pushfstring(L, ".%s", lua_tostring(L, idx));
    return;
  }
  lua_pushliteral(L, "[");
  push_value(L, idx, SHOW_DEPTH);
  lua_pushliteral(L, "]");
  lua_concat(L, 3);
}

/* Whether key k (at idx) of a table was already visited as part of its sequence 1..seqlen. */
static int in_sequence(lua_State *L, int idx, lua_Unsigned seqlen) {
  if (!lua_isinteger(L, idx)) return 0;
  lua_Integer i = lua_tointeger(L, idx);
  return i >= 1 && (lua_Unsigned)i <= seqlen;
}

/* Push a table as {v1, v2, k = v}: the sequence first, then the other keys; cut at SHOW_BYTES. */
static void push_table(lua_State *L, int idx, int depth) {
  idx = lua_absindex(L, idx);
  if (depth >= SHOW_DEPTH) {
    lua_pushliteral(L, "{...}");
    return;
  }
  luaL_checkstack(L, 10, "table too deep to show");
  lua_pushliteral(L, "{");
  int acc = lua_gettop(L), first = 1;
  lua_Unsigned seqlen = lua_rawlen(L, idx);
  for (lua_Unsigned i = 1; i <= seqlen; i++) {
    if (lua_rawlen(L, acc) > SHOW_BYTES) break;
    if (!first) {
      lua_pushliteral(L, ", ");
      append(L, acc);
    }
    first = 0;
    lua_rawgeti(L, idx, (lua_Integer)i);
    push_value(L, -1, depth + 1);
    lua_remove(L, -2);
    append(L, acc);
  }
  lua_pushnil(L);
  while (lua_next(L, idx)) {
    if (in_sequence(L, -2, seqlen)) {
      lua_pop(L, 1);
      continue;
    }
    if (lua_rawlen(L, acc) > SHOW_BYTES) {
      lua_pop(L, 2);
      lua_pushliteral(L, ", ...");
      append(L, acc);
      break;
    }
    if (!first) {
      lua_pushliteral(L, ", ");
      append(L, acc);
    }
    first = 0;
    push_key(L, -2);
    /* .name is shown as name = v, [k] as [k] = v. */
    if (lua_tostring(L, -1)[0] == '.') {
      lua_pushstring(L, lua_tostring(L, -1) + 1);
      lua_remove(L, -2);
    }
    lua_pushliteral(L, " = ");
    push_value(L, -3, depth + 1);
    lua_concat(L, 3);
    append(L, acc);
    lua_pop(L, 1);
  }
  lua_pushliteral(L, "}");
  append(L, acc);
}

/* Push a readable rendering of the value at idx: strings quoted and escaped, tables with their contents. */
static void push_value(lua_State *L, int idx, int depth) {
  idx = lua_absindex(L, idx);
  size_t n;
  switch (lua_type(L, idx)) {
    case LUA_TSTRING: {
      const char *s = lua_tolstring(L, idx, &n);
      push_quoted(L, s, n > SHOW_BYTES ? SHOW_BYTES : n, 0, n > SHOW_BYTES);
      if (n > SHOW_BYTES) {
        lua_pushfstring(L, " (%I bytes)", (lua_Integer)n);
        lua_concat(L, 2);
      }
      return;
    }
    case LUA_TTABLE:
      push_table(L, idx, depth);
      return;
    default:
      luaL_tolstring(L, idx, NULL);
  }
}

/* Deep equality: tables are equal when every key has equal values in both. */
int umb_lua_deep_equal(lua_State *L, int a, int b, int depth) {
  a = lua_absindex(L, a);
  b = lua_absindex(L, b);
  if (lua_type(L, a) != LUA_TTABLE || lua_type(L, b) != LUA_TTABLE || depth > 20) return lua_compare(L, a, b, LUA_OPEQ);
  if (lua_rawequal(L, a, b)) return 1;
  luaL_checkstack(L, 6, "tables too deep to compare");
  lua_pushnil(L);
  while (lua_next(L, a)) {
    lua_pushvalue(L, -2);
    lua_gettable(L, b);
    int eq = umb_lua_deep_equal(L, -2, -1, depth + 1);
    lua_pop(L, 2);
    if (!eq) {
      lua_pop(L, 1);
      return 0;
    }
  }
  /* Keys only in b make the tables differ too. */
  lua_pushnil(L);
  while (lua_next(L, b)) {
    lua_pop(L, 1);
    lua_pushvalue(L, -1);
    lua_gettable(L, a);
    int missing = lua_isnil(L, -1);
    lua_pop(L, 1);
    if (missing) {
      lua_pop(L, 1);
      return 0;
    }
  }
  return 1;
}

typedef struct diffstate {
  int acc;   /* Stack index of the message built so far. */
  int lines; /* Lines added; past UMB_LUA_SHOW_LINES only "..." is added, once. */
} diffstate;

static void diff_line(lua_State *L, diffstate *d, int path, int e, int s) {
  if (d->lines++ >= UMB_LUA_SHOW_LINES) {
    if (d->lines == UMB_LUA_SHOW_LINES + 1) {
      lua_pushliteral(L, "\n    ...");
      append(L, d->acc);
    }
    return;
  }
  lua_pushliteral(L, "\n    ");
  lua_pushvalue(L, path);
  lua_pushliteral(L, " expected ");
  push_value(L, e, 0);
  lua_pushliteral(L, ", seen ");
  push_value(L, s, 0);
  lua_concat(L, 6);
  append(L, d->acc);
}

static void diff_tables(lua_State *L, diffstate *d, int path, int e, int s, int depth);

/* Compare key k (top of the stack) of e and s; differing leaves become lines under path .. key. */
static void diff_key(lua_State *L, diffstate *d, int path, int e, int s, int depth) {
  int k = lua_gettop(L);
  lua_pushvalue(L, k);
  lua_gettable(L, e);
  lua_pushvalue(L, k);
  lua_gettable(L, s);
  int ev = k + 1, sv = k + 2;
  if (!umb_lua_deep_equal(L, ev, sv, 0)) {
    lua_pushvalue(L, path);
    push_key(L, k);
    lua_concat(L, 2);
    int sub = lua_gettop(L);
    if (lua_istable(L, ev) && lua_istable(L, sv) && depth < SHOW_DEPTH)
      diff_tables(L, d, sub, ev, sv, depth + 1);
    else
      diff_line(L, d, sub, ev, sv);
  }
  lua_settop(L, k);
}

/* Lines for every key whose values differ: keys of e (its sequence first), then keys only in s. */
static void diff_tables(lua_State *L, diffstate *d, int path, int e, int s, int depth) {
  luaL_checkstack(L, 12, "tables too deep to compare");
  lua_Unsigned elen = lua_rawlen(L, e), slen = lua_rawlen(L, s);
  for (lua_Unsigned i = 1; i <= elen; i++) {
    lua_pushinteger(L, (lua_Integer)i);
    diff_key(L, d, path, e, s, depth);
    lua_pop(L, 1);
  }
  lua_pushnil(L);
  while (lua_next(L, e)) {
    lua_pop(L, 1);
    if (!in_sequence(L, -1, elen)) diff_key(L, d, path, e, s, depth);
  }
  for (lua_Unsigned i = 1; i <= slen; i++) {
    lua_rawgeti(L, e, (lua_Integer)i);
    int missing = lua_isnil(L, -1);
    lua_pop(L, 1);
    if (missing) {
      lua_pushinteger(L, (lua_Integer)i);
      diff_key(L, d, path, e, s, depth);
      lua_pop(L, 1);
    }
  }
  lua_pushnil(L);
  while (lua_next(L, s)) {
    lua_pop(L, 1);
    if (in_sequence(L, -1, slen)) continue;
    lua_pushvalue(L, -1);
    lua_gettable(L, e);
    int missing = lua_isnil(L, -1);
    lua_pop(L, 1);
    if (missing) diff_key(L, d, path, e, s, depth);
  }
}

/* Push the failure text of expected e against seen s (which differ), after "what: ". */
void umb_lua_push_mismatch(lua_State *L, int e, int s, const char *what) {
  e = lua_absindex(L, e);
  s = lua_absindex(L, s);
  if (what)
    lua_pushfstring(L, "%s: ", what);
  else
    lua_pushliteral(L, "");
  int acc = lua_gettop(L);
  size_t ne = 0, ns = 0;
  if (lua_istable(L, e) && lua_istable(L, s)) {
    lua_pushliteral(L, "tables differ");
    append(L, acc);
    diffstate d = {acc, 0};
    lua_pushliteral(L, "");
    diff_tables(L, &d, lua_gettop(L), e, s, 0);
    lua_pop(L, 1);
    return;
  }
  if (lua_type(L, e) == LUA_TSTRING && lua_type(L, s) == LUA_TSTRING) {
    const char *a = lua_tolstring(L, e, &ne), *b = lua_tolstring(L, s, &ns);
    if (ne > SHORT_STRING || ns > SHORT_STRING || memchr(a, '\n', ne) || memchr(b, '\n', ns)) {
      size_t at = 0;
      while (at < ne && at < ns && a[at] == b[at]) at++;
      size_t from = at > CONTEXT_BEFORE ? at - CONTEXT_BEFORE : 0;
      lua_pushfstring(L, "strings differ at offset %I (0-based; %I bytes expected, %I seen)", (lua_Integer)at,
                      (lua_Integer)ne, (lua_Integer)ns);
      append(L, acc);
      const char *label[2] = {"\n    expected ", "\n    seen     "};
      const char *str[2] = {a, b};
      size_t len[2] = {ne, ns};
      for (int i = 0; i < 2; i++) {
        size_t to = at + CONTEXT_AFTER < len[i] ? at + CONTEXT_AFTER : len[i];
        lua_pushstring(L, label[i]);
        if (from < len[i])
          push_quoted(L, str[i] + from, to - from, from > 0, to < len[i]);
        else
          lua_pushliteral(L, "(ends before)");
        lua_concat(L, 2);
        append(L, acc);
      }
      return;
    }
  }
  lua_pushliteral(L, "expected ");
  push_value(L, e, 0);
  lua_pushliteral(L, ", seen ");
  push_value(L, s, 0);
  lua_concat(L, 4);
  append(L, acc);
}

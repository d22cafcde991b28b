// SPDX-License-Identifier: MIT
/* t.c: the umlbed.t object: expectations (like EXPECT_*: record file:line, go on), requirements (ASSERT_*: FAILED). */
#include <errno.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "lumlbed.h"

typedef struct umb_lt {
  umb_scen *sc;
} umb_lt;

void umb_lua_push_t(lua_State *L) {
  umb_lt *t = lua_newuserdatauv(L, sizeof *t, 1);
  t->sc = umb_scen_from_lua(L);
  luaL_setmetatable(L, UMB_T_MT);
  lua_newtable(L);
  lua_setiuservalue(L, -2, 1);
}

static umb_lt *checkt(lua_State *L) { return luaL_checkudata(L, 1, UMB_T_MT); }

/* Record a failure: "file:line: text", the line being the scenario's call of the expectation. */
static void record(lua_State *L, umb_lt *t, const char *text) {
  luaL_where(L, 1);
  lua_pushstring(L, text);
  lua_concat(L, 2);
  if (t->sc) umb_scen_fail(t->sc, lua_tostring(L, -1));
  lua_pop(L, 1);
}

static int abort_tostring(lua_State *L) {
  lua_pushliteral(L, "t:require/t:assert_* failed: the scenario ends FAILED");
  return 1;
}

/* End the scenario FAILED (the failure is already recorded): the scheduler recognises the error table by the
 * abort mark, from the run function or any task. Its __tostring says what happened if a pcall catches it. */
static int abort_scenario(lua_State *L) {
  lua_newtable(L);
  lua_pushboolean(L, 1);
  lua_rawsetp(L, -2, umb_scen_abort_mark());
  if (luaL_newmetatable(L, "umlbed.abort")) {
    lua_pushcfunction(L, abort_tostring);
    lua_setfield(L, -2, "__tostring");
  }
  lua_setmetatable(L, -2);
  return lua_error(L);
}

/* t:eq(expected, seen [, what]) and t:assert_eq(...): deep equality, a diff on failure. */
static int check_eq(lua_State *L, int fatal) {
  umb_lt *t = checkt(L);
  luaL_checkany(L, 3);
  const char *what = luaL_optstring(L, 4, NULL);
  int ok = umb_lua_deep_equal(L, 2, 3, 0);
  if (!ok) {
    umb_lua_push_mismatch(L, 2, 3, what);
    record(L, t, lua_tostring(L, -1));
    if (fatal) return abort_scenario(L);
  }
  lua_pushboolean(L, ok);
  return 1;
}

static int t_eq(lua_State *L) { return check_eq(L, 0); }
static int t_assert_eq(lua_State *L) { return check_eq(L, 1); }

/* t:expect(cond [, what]) -> cond and t:assert_true(cond [, what]) -> cond. cond may be the results of a call
 * returning nil, err: then err is shown too. */
static int check_true(lua_State *L, int fatal) {
  umb_lt *t = checkt(L);
  luaL_checkany(L, 2);
  if (!lua_toboolean(L, 2)) {
    const char *what = luaL_optstring(L, 3, fatal ? "assertion failed" : "expectation failed");
    lua_pushstring(L, what);
    if (lua_type(L, 2) == LUA_TBOOLEAN)
      lua_pushliteral(L, " (false)");
    else
      lua_pushliteral(L, " (nil)");
    lua_concat(L, 2);
    record(L, t, lua_tostring(L, -1));
    if (fatal) return abort_scenario(L);
  }
  lua_pushvalue(L, 2);
  return 1;
}

static int t_expect(lua_State *L) { return check_true(L, 0); }
static int t_assert_true(lua_State *L) { return check_true(L, 1); }

/* t:require(cond, fmt, ...) -> cond: without cond, records string.format(fmt, ...) and ends the scenario FAILED.
 * t:require(call(...)) with a call returning nil, err records err, as Lua's assert would show it. */
static int t_require(lua_State *L) {
  umb_lt *t = checkt(L);
  luaL_checkany(L, 2);
  if (lua_toboolean(L, 2)) {
    lua_settop(L, 2);
    return 1;
  }
  int n = lua_gettop(L);
  if (n < 3 || lua_isnil(L, 3)) {
    lua_pushliteral(L, "requirement failed");
  } else if (n == 3 || lua_type(L, 3) != LUA_TSTRING) {
    luaL_tolstring(L, 3, NULL);
  } else {
    /* string.format of the standard library; a message that does not format (an err with a '%') is shown as is. */
    lua_getfield(L, LUA_REGISTRYINDEX, LUA_LOADED_TABLE);
    lua_getfield(L, -1, "string");
    lua_getfield(L, -1, "format");
    lua_remove(L, -2);
    lua_remove(L, -2);
    for (int i = 3; i <= n; i++) lua_pushvalue(L, i);
    if (lua_pcall(L, n - 2, 1, 0) != LUA_OK || !lua_isstring(L, -1)) {
      lua_pop(L, 1);
      lua_pushvalue(L, 3);
    }
  }
  record(L, t, lua_tostring(L, -1));
  return abort_scenario(L);
}

static const char *state_name(char c) {
  switch (c) {
    case '-':
      return "not present";
    case 'F':
      return "present, file-backed";
    case 'A':
      return "present, anonymous (COW copy)";
    case 'S':
      return "swapped";
    case '.':
      return "anything";
  }
  return "?";
}

/* Compare page states; '.' in want matches anything. Records a per-page diff on a mismatch; returns whether equal. */
static int compare_pages(lua_State *L, umb_lt *t, const char *want, const char *seen, const char *what) {
  size_t nw = strlen(want), ns = strlen(seen);
  int ok = ns == nw;
  for (size_t i = 0; ok && i < nw; i++)
    if (want[i] != '.' && want[i] != seen[i]) ok = 0;
  if (!ok) {
    luaL_Buffer b;
    luaL_buffinit(L, &b);
    lua_pushfstring(L, "%s: pages expected \"%s\", seen \"%s\"", what, want, seen);
    luaL_addvalue(&b);
    if (ns != nw) {
      lua_pushfstring(L, " (%d pages expected, %d seen)", (int)nw, (int)ns);
      luaL_addvalue(&b);
    }
    int shown = 0;
    for (size_t i = 0; i < nw && i < ns; i++) {
      if (want[i] == '.' || want[i] == seen[i]) continue;
      if (shown++ == UMB_LUA_SHOW_LINES) {
        luaL_addstring(&b, "\n    ...");
        break;
      }
      lua_pushfstring(L, "\n    page %d: expected %c %s, seen %c %s", (int)i, want[i], state_name(want[i]), seen[i],
                      state_name(seen[i]));
      luaL_addvalue(&b);
    }
    luaL_pushresult(&b);
    record(L, t, lua_tostring(L, -1));
    lua_pop(L, 1);
  }
  return ok;
}

/* After m:pages() returned (stack: t, want, m, what, fatal, results...): compare, or record why there are no states. */
static int pages_done(lua_State *L, int status, lua_KContext fatal) {
  (void)status;
  umb_lt *t = checkt(L);
  const char *what = luaL_optstring(L, 4, "page states");
  int ok;
  if (lua_type(L, 6) == LUA_TSTRING) {
    ok = compare_pages(L, t, lua_tostring(L, 2), lua_tostring(L, 6), what);
  } else {
    lua_pushfstring(L, "%s: cannot read the page states: %s", what, lua_tostring(L, 7) ? lua_tostring(L, 7) : "?");
    record(L, t, lua_tostring(L, -1));
    ok = 0;
  }
  if (!ok && fatal) return abort_scenario(L);
  lua_pushboolean(L, ok);
  return 1;
}

/* t:pages(want, mapping|states [, what]) and t:assert_pages(...): page states against want; '.' matches any. */
static int check_pages(lua_State *L, int fatal) {
  umb_lt *t = checkt(L);
  if (luaL_testudata(L, 2, UMB_MAP_MT))
    return luaL_argerror(L, 2, "the expected states come first: t:pages(want, m, what)");
  luaL_checkstring(L, 2);
  const char *what = luaL_optstring(L, 4, "page states");
  if (luaL_testudata(L, 3, UMB_MAP_MT)) {
    /* The mapping's own pages() call (a guest call that yields), then the comparison. */
    lua_settop(L, 4);
    lua_pushboolean(L, fatal);
    lua_getfield(L, 3, "pages");
    lua_pushvalue(L, 3);
    lua_callk(L, 1, 2, fatal, pages_done);
    return pages_done(L, LUA_OK, fatal);
  }
  if (lua_type(L, 3) != LUA_TSTRING) {
    lua_pushfstring(L, "%s: seen %s instead of page states", what, luaL_tolstring(L, 3, NULL));
    record(L, t, lua_tostring(L, -1));
    if (fatal) return abort_scenario(L);
    lua_pushboolean(L, 0);
    return 1;
  }
  int ok = compare_pages(L, t, lua_tostring(L, 2), lua_tostring(L, 3), what);
  if (!ok && fatal) return abort_scenario(L);
  lua_pushboolean(L, ok);
  return 1;
}

static int t_pages(lua_State *L) { return check_pages(L, 0); }
static int t_assert_pages(lua_State *L) { return check_pages(L, 1); }

/* t:fail(msg): an unconditional failure. */
static int t_fail(lua_State *L) {
  umb_lt *t = checkt(L);
  lua_pushfstring(L, "%s", luaL_optstring(L, 2, "failed"));
  record(L, t, lua_tostring(L, -1));
  return 0;
}

/* t:note(msg): a diagnostic line in the report (not a failure). */
static int t_note(lua_State *L) {
  umb_lt *t = checkt(L);
  const char *msg = luaL_checkstring(L, 2);
  if (t->sc) umb_scen_note(t->sc, lua_pushfstring(L, "note: %s", msg));
  return 0;
}

/* A metric's name, unit or label: printable, without the separators of its line (tab, newline, '=', '#'). */
static int metric_word(const char *s, int allow_empty) {
  if (!*s && !allow_empty) return 0;
  for (; *s; s++)
    if ((unsigned char)*s < 0x20 || *s == 0x7f || *s == '=' || *s == '#') return 0;
  return 1;
}

static int cmp_str(const void *a, const void *b) { return strcmp(*(const char *const *)a, *(const char *const *)b); }

#define METRIC_LABELS_MAX 32

/* t:metric(name, value, unit [, labels]): one benchmark sample, reported in the JSON (umlbed bench plots them).
 * labels is a table of string keys to strings, numbers or booleans, e.g. {impl = "seed", sharers = 16}. */
static int t_metric(lua_State *L) {
  umb_lt *t = checkt(L);
  const char *name = luaL_checkstring(L, 2);
  lua_Number v = luaL_checknumber(L, 3);
  const char *unit = luaL_checkstring(L, 4);
  if (!metric_word(name, 0)) return luaL_argerror(L, 2, "a name: printable, no '=' or '#'");
  if (!isfinite(v)) return luaL_argerror(L, 3, "a finite number");
  if (!metric_word(unit, 1)) return luaL_argerror(L, 4, "a unit: printable, no '=' or '#'");
  /* Slot 5 is the labels (or nil), whatever the buffer pushes above it. */
  lua_settop(L, 5);
  luaL_Buffer b;
  luaL_buffinit(L, &b);
  char num[64];
  snprintf(num, sizeof num, "%.17g", (double)v);
  luaL_addstring(&b, name);
  luaL_addchar(&b, '\t');
  luaL_addstring(&b, num);
  luaL_addchar(&b, '\t');
  luaL_addstring(&b, unit);
  if (!lua_isnoneornil(L, 5)) {
    luaL_checktype(L, 5, LUA_TTABLE);
    /* Labels in key order, so that equal samples give equal lines. */
    const char *keys[METRIC_LABELS_MAX];
    int nkeys = 0;
    lua_pushnil(L);
    while (lua_next(L, 5)) {
      lua_pop(L, 1);
      if (lua_type(L, -1) != LUA_TSTRING || !metric_word(lua_tostring(L, -1), 0))
        return luaL_argerror(L, 5, "labels' keys must be names: printable, no '=' or '#'");
      if (nkeys == METRIC_LABELS_MAX) return luaL_argerror(L, 5, "at most 32 labels");
      keys[nkeys++] = lua_tostring(L, -1);
    }
    qsort(keys, (size_t)nkeys, sizeof keys[0], cmp_str);
    for (int i = 0; i < nkeys; i++) {
      lua_getfield(L, 5, keys[i]);
      int ty = lua_type(L, -1);
      const char *val;
      char sep = '=';
      if (ty == LUA_TNUMBER) {
        lua_Number x = lua_tonumber(L, -1);
        if (!isfinite(x)) return luaL_argerror(L, 5, "a label's number must be finite");
        if (lua_isinteger(L, -1))
          snprintf(num, sizeof num, "%lld", (long long)lua_tointeger(L, -1));
        else
          snprintf(num, sizeof num, "%.17g", (double)x);
        val = num;
        sep = '#';
      } else if (ty == LUA_TBOOLEAN) {
        val = lua_toboolean(L, -1) ? "true" : "false";
      } else if (ty == LUA_TSTRING && metric_word(lua_tostring(L, -1), 1)) {
        val = lua_tostring(L, -1);
      } else {
        return luaL_argerror(L, 5, "labels' values must be numbers, booleans or printable strings");
      }
      /* The buffer may only be added to with the stack as it left it: copy the value out and pop it first. */
      char vbuf[256];
      if (snprintf(vbuf, sizeof vbuf, "%s", val) >= (int)sizeof vbuf)
        return luaL_argerror(L, 5, "a label's value is longer than 255 bytes");
      lua_pop(L, 1);
      luaL_addchar(&b, '\t');
      luaL_addstring(&b, keys[i]);
      luaL_addchar(&b, sep);
      luaL_addstring(&b, vbuf);
    }
  }
  luaL_pushresult(&b);
  if (t->sc) {
    int rc = umb_scen_metric(t->sc, lua_tostring(L, -1));
    if (rc == -E2BIG) return luaL_error(L, "t:metric: more than %d MiB of samples in one run", UMB_METRICS_MAX >> 20);
    if (rc) return luaL_error(L, "t:metric: %s", strerror(-rc));
  }
  return 0;
}

/* t:skip(reason): stop the scenario and report it skipped. */
static int t_skip(lua_State *L) {
  checkt(L);
  const char *why = luaL_optstring(L, 2, "skipped");
  lua_newtable(L);
  lua_pushstring(L, why);
  lua_rawsetp(L, -2, umb_scen_skip_mark());
  return lua_error(L);
}

/* t:vm{mem=, cmdline=, time_travel=} -> vm once its agent is ready. */
static int t_vm(lua_State *L) {
  checkt(L);
  return umb_lua_boot(L, 2);
}

static int t_get(lua_State *L) {
  umb_lt *t = checkt(L);
  const char *k = luaL_checkstring(L, 2);
  if (t->sc && !strcmp(k, "name"))
    lua_pushstring(L, t->sc->name);
  else if (t->sc && !strcmp(k, "file"))
    lua_pushstring(L, t->sc->file);
  else if (t->sc && !strcmp(k, "failures"))
    lua_pushinteger(L, t->sc->run.nfails);
  else {
    lua_getiuservalue(L, 1, 1);
    lua_pushvalue(L, 2);
    lua_rawget(L, -2);
  }
  return 1;
}

static int t_set(lua_State *L) {
  checkt(L);
  lua_getiuservalue(L, 1, 1);
  lua_pushvalue(L, 2);
  lua_pushvalue(L, 3);
  lua_rawset(L, -3);
  return 0;
}

/* t:remaining() -> seconds left before the scenario's timeout, or nil when it has none. Lets a scenario that
 * can do more or less work (a fuzzer shrinking a failure) stop in time on a host of any speed. */
static int t_remaining(lua_State *L) {
  luaL_checkudata(L, 1, UMB_T_MT);
  umb_scen *sc = umb_scen_from_lua(L);
  if (sc == NULL || sc->deadline == 0) {
    lua_pushnil(L);
    return 1;
  }
  uint64_t now = uv_hrtime();
  lua_pushnumber(L, now >= sc->deadline ? 0.0 : (double)(sc->deadline - now) / 1e9);
  return 1;
}

void umb_lua_open_t(lua_State *L) {
  static const luaL_Reg methods[] = {{"remaining", t_remaining},
                                     {"eq", t_eq},
                                     {"expect", t_expect},
                                     {"pages", t_pages},
                                     {"require", t_require},
                                     {"assert_eq", t_assert_eq},
                                     {"assert_true", t_assert_true},
                                     {"assert_pages", t_assert_pages},
                                     {"fail", t_fail},
                                     {"note", t_note},
                                     {"metric", t_metric},
                                     {"skip", t_skip},
                                     {"vm", t_vm},
                                     {"go", umb_lua_t_go},
                                     {NULL, NULL}};
  static const luaL_Reg meta[] = {{"__newindex", t_set}, {NULL, NULL}};
  umb_lua_newclass(L, UMB_T_MT, methods, meta, t_get);
}

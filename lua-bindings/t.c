/* t.c: the umlbed.t object: expectations that record failures with file:line and let the scenario go on. */
#include <errno.h>
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

/* Record a failure: "file:line: what" with the scenario line that called the expectation. */
static void record(lua_State *L, umb_lt *t, const char *what) {
  luaL_where(L, 1);
  lua_pushstring(L, what);
  lua_concat(L, 2);
  if (t->sc) umb_scen_fail(t->sc, lua_tostring(L, -1));
  lua_pop(L, 1);
}

static int deep_equal(lua_State *L, int a, int b, int depth) {
  a = lua_absindex(L, a);
  b = lua_absindex(L, b);
  if (lua_type(L, a) != LUA_TTABLE || lua_type(L, b) != LUA_TTABLE || depth > 20) return lua_compare(L, a, b, LUA_OPEQ);
  if (lua_rawequal(L, a, b)) return 1;
  lua_pushnil(L);
  while (lua_next(L, a)) {
    lua_pushvalue(L, -2);
    lua_gettable(L, b);
    int eq = deep_equal(L, -2, -1, depth + 1);
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

/* t:eq(got, want [, msg]) -> boolean. */
static int t_eq(lua_State *L) {
  umb_lt *t = checkt(L);
  luaL_checkany(L, 3);
  const char *msg = luaL_optstring(L, 4, "values differ");
  if (t->sc) t->sc->nchecks++;
  int ok = deep_equal(L, 2, 3, 0);
  if (!ok) {
    const char *got = luaL_tolstring(L, 2, NULL);
    const char *want = luaL_tolstring(L, 3, NULL);
    lua_pushfstring(L, "%s: got %s, want %s", msg, got, want);
    record(L, t, lua_tostring(L, -1));
  }
  lua_pushboolean(L, ok);
  return 1;
}

/* t:expect(cond [, msg]) -> cond: cond may be the results of a call returning nil, err. */
static int t_expect(lua_State *L) {
  umb_lt *t = checkt(L);
  luaL_checkany(L, 2);
  if (t->sc) t->sc->nchecks++;
  if (!lua_toboolean(L, 2)) {
    const char *msg = luaL_optstring(L, 3, "expectation failed");
    lua_pushfstring(L, "%s", msg);
    record(L, t, lua_tostring(L, -1));
  }
  lua_pushvalue(L, 2);
  return 1;
}

static const char *state_name(char c) {
  switch (c) {
    case '-': return "not present";
    case 'F': return "present, file-backed";
    case 'A': return "present, anonymous (COW copy)";
    case 'S': return "swapped";
    case '.': return "anything";
  }
  return "?";
}

/* Compare page states; '.' in want matches anything. Pushes a boolean. */
static int compare_pages(lua_State *L, umb_lt *t, const char *got, const char *want, const char *msg) {
  size_t ng = strlen(got), nw = strlen(want);
  int ok = ng == nw;
  for (size_t i = 0; ok && i < nw; i++)
    if (want[i] != '.' && want[i] != got[i]) ok = 0;
  if (!ok) {
    luaL_Buffer b;
    luaL_buffinit(L, &b);
    lua_pushfstring(L, "%s: pages \"%s\", want \"%s\"", msg, got, want);
    luaL_addvalue(&b);
    if (ng != nw) {
      lua_pushfstring(L, " (%d pages, want %d)", (int)ng, (int)nw);
      luaL_addvalue(&b);
    }
    int shown = 0;
    for (size_t i = 0; i < nw && i < ng; i++) {
      if (want[i] == '.' || want[i] == got[i]) continue;
      if (shown++ == 16) {
        luaL_addstring(&b, "\n    ...");
        break;
      }
      lua_pushfstring(L, "\n    page %d: %c %s, want %c %s", (int)i, got[i], state_name(got[i]), want[i],
                      state_name(want[i]));
      luaL_addvalue(&b);
    }
    luaL_pushresult(&b);
    record(L, t, lua_tostring(L, -1));
    lua_pop(L, 1);
  }
  lua_pushboolean(L, ok);
  return 1;
}

static int conv_pages(lua_State *L, int base, int n, lua_Integer arg) {
  (void)arg;
  if (n < 1) return umb_lua_fail(L, -EPROTO, "missing field");
  umb_lua_pushstates(L, base);
  return compare_pages(L, checkt(L), lua_tostring(L, -1), lua_tostring(L, 3), luaL_optstring(L, 4, "page states"));
}

/* t:pages(mapping|states, want [, msg]) -> boolean, with a per-page diff on failure. */
static int t_pages(lua_State *L) {
  umb_lt *t = checkt(L);
  luaL_checkstring(L, 3);
  luaL_optstring(L, 4, NULL);
  if (t->sc) t->sc->nchecks++;
  umb_lmap *m = luaL_testudata(L, 2, UMB_MAP_MT);
  if (m) {
    long ps = m->svm->vm ? umb_vm_pagesize(m->svm->vm) : 4096;
    umb_buf b = {0};
    umb_args_num(&b, m->addr);
    umb_args_num(&b, (m->len + (uint64_t)ps - 1) / (uint64_t)ps);
    lua_settop(L, 4);
    return umb_lua_call(L, m->svm, m->pid, "pages", &b, conv_pages, 0);
  }
  if (!lua_isstring(L, 2)) {
    lua_pushfstring(L, "%s: got %s instead of page states", luaL_optstring(L, 4, "page states"),
                    luaL_tolstring(L, 2, NULL));
    record(L, t, lua_tostring(L, -1));
    lua_pushboolean(L, 0);
    return 1;
  }
  return compare_pages(L, t, lua_tostring(L, 2), lua_tostring(L, 3), luaL_optstring(L, 4, "page states"));
}

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
  if (t->sc) umb_buf_printf(&t->sc->diag, "note: %s\n", msg);
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
  if (t->sc && !strcmp(k, "name")) lua_pushstring(L, t->sc->name);
  else if (t->sc && !strcmp(k, "file")) lua_pushstring(L, t->sc->file);
  else if (t->sc && !strcmp(k, "failures")) lua_pushinteger(L, t->sc->nfails);
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
  static const luaL_Reg methods[] = {{"remaining", t_remaining}, {"eq", t_eq},     {"expect", t_expect}, {"pages", t_pages}, {"fail", t_fail},
                                     {"note", t_note}, {"skip", t_skip},     {"vm", t_vm},       {"go", umb_lua_t_go},
                                     {NULL, NULL}};
  static const luaL_Reg meta[] = {{"__newindex", t_set}, {NULL, NULL}};
  umb_lua_newclass(L, UMB_T_MT, methods, meta, t_get);
}

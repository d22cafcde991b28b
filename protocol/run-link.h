/* SPDX-License-Identifier: MIT */
/* run-link.h: the run link's message table: what the runner, its run processes and its describing processes say. */
#ifndef UMB_LINK_H
#define UMB_LINK_H

/*
 * The run link is a socket between the runner (trusted) and one process it started to run scenario code (not
 * trusted): a run process (umlbed __run) or a describing process (umlbed __describe). Each message is one line,
 * "WORD" or "WORD FIELD"; docs/protocol.md ("The run link") says what each means. The runner reads every line
 * through umb_link_parse (runner/core/runlink.h), which checks its word, its direction and its field against this
 * table, and acts on none it did not check: a run process may send any bytes.
 *
 * X(ID, word, direction, field, min, max), one line per message:
 *   direction  UMB_LINK_IN: runner to run or describing process; UMB_LINK_OUT: run process to runner;
 *              UMB_LINK_DESC: describing process to runner;
 *   field      UMB_LF_NONE: the word alone; UMB_LF_INT: a whole number in [min, max]; UMB_LF_NUM: a number >= 0;
 *              UMB_LF_VERDICT: a verdict's name (ok, SKIP, FAILED, CRASHED, TIMEOUT, ERROR); UMB_LF_RECORD:
 *              "KEY VALUE", KEY one of the message's keys below, VALUE percent-encoded (docs/protocol.md's codec,
 *              "-" for empty).
 */
#define UMB_LINK_MESSAGES(X)                                        \
  X(CFG, "cfg", UMB_LINK_IN, UMB_LF_RECORD, 0, 0)                   \
  X(CPU, "cpu", UMB_LINK_IN, UMB_LF_INT, -1, UMB_LINK_CPU_MAX)      \
  X(GROUP_ADD, "G+", UMB_LINK_OUT, UMB_LF_INT, 2, INT32_MAX)        \
  X(GROUP_DEL, "G-", UMB_LINK_OUT, UMB_LF_INT, 2, INT32_MAX)        \
  X(CPU_ASK, "cpu?", UMB_LINK_OUT, UMB_LF_NONE, 0, 0)               \
  X(CPU_PUT, "cpu-", UMB_LINK_OUT, UMB_LF_INT, 0, UMB_LINK_CPU_MAX) \
  X(BOUND, "bound", UMB_LINK_OUT, UMB_LF_NUM, 0, 0)                 \
  X(FINISHING, "finishing", UMB_LINK_OUT, UMB_LF_VERDICT, 0, 0)     \
  X(LPJ, "lpj", UMB_LINK_OUT, UMB_LF_INT, 1, INT64_MAX)             \
  X(RES, "res", UMB_LINK_OUT, UMB_LF_RECORD, 0, 0)                  \
  X(DESC, "desc", UMB_LINK_DESC, UMB_LF_RECORD, 0, 0)

/* The highest CPU number a "cpu" answer may name (CPU_SETSIZE - 1). */
#define UMB_LINK_CPU_MAX 1023

/*
 * The keys of each record, X(MESSAGE, key, kind, min, max): kind as a message's field (UMB_LF_NONE for "end",
 * whose value is "-"), plus UMB_LF_STR, any bytes but NUL. A record ends with its "end" key; a key may come more
 * than once only where the reader collects a list (cfg's ignore and param, res's boot, desc's combo).
 */
#define UMB_LINK_KEYS(X)                        \
  X(CFG, kernel, UMB_LF_STR, 0, 0)              \
  X(CFG, probe_kernel, UMB_LF_STR, 0, 0)        \
  X(CFG, agent, UMB_LF_STR, 0, 0)               \
  X(CFG, tmpbase, UMB_LF_STR, 0, 0)             \
  X(CFG, dir, UMB_LF_STR, 0, 0)                 \
  X(CFG, mem, UMB_LF_STR, 0, 0)                 \
  X(CFG, cmdline, UMB_LF_STR, 0, 0)             \
  X(CFG, gdb_script, UMB_LF_STR, 0, 0)          \
  X(CFG, variant, UMB_LF_STR, 0, 0)             \
  X(CFG, release, UMB_LF_STR, 0, 0)             \
  X(CFG, generation, UMB_LF_STR, 0, 0)          \
  X(CFG, coverage, UMB_LF_STR, 0, 0)            \
  X(CFG, ignore, UMB_LF_STR, 0, 0)              \
  X(CFG, param, UMB_LF_STR, 0, 0)               \
  X(CFG, file, UMB_LF_STR, 0, 0)                \
  X(CFG, name, UMB_LF_STR, 0, 0)                \
  X(CFG, timeout, UMB_LF_NUM, 0, 0)             \
  X(CFG, timeout_scale, UMB_LF_NUM, 0, 0)       \
  X(CFG, lpj, UMB_LF_INT, 0, INT64_MAX)         \
  X(CFG, time_travel, UMB_LF_INT, 0, 1)         \
  X(CFG, keep, UMB_LF_INT, 0, 1)                \
  X(CFG, timeout_given, UMB_LF_INT, 0, 1)       \
  X(CFG, gdb_interactive, UMB_LF_INT, 0, 1)     \
  X(CFG, unsafe_lua, UMB_LF_INT, 0, 1)          \
  X(CFG, lua_memory, UMB_LF_INT, 0, INT64_MAX)  \
  X(CFG, gcov_strip, UMB_LF_INT, 0, 4096)       \
  X(CFG, runner_pid, UMB_LF_INT, 2, INT32_MAX)  \
  X(CFG, fake_uml, UMB_LF_INT, 0, 1)            \
  X(CFG, combo, UMB_LF_INT, 0, INT32_MAX)       \
  X(CFG, end, UMB_LF_NONE, 0, 0)                \
  X(RES, seconds, UMB_LF_NUM, 0, 0)             \
  X(RES, diag, UMB_LF_STR, 0, 0)                \
  X(RES, reason, UMB_LF_STR, 0, 0)              \
  X(RES, prints, UMB_LF_STR, 0, 0)              \
  X(RES, metrics, UMB_LF_STR, 0, 0)             \
  X(RES, boot, UMB_LF_NUM, 0, 0)                \
  X(RES, coverage, UMB_LF_STR, 0, 0)            \
  X(RES, cov_written, UMB_LF_INT, 0, INT32_MAX) \
  X(RES, cov_lost, UMB_LF_INT, 0, INT32_MAX)    \
  X(RES, end, UMB_LF_NONE, 0, 0)                \
  X(DESC, name, UMB_LF_STR, 0, 0)               \
  X(DESC, combo, UMB_LF_STR, 0, 0)              \
  X(DESC, err, UMB_LF_STR, 0, 0)                \
  X(DESC, end, UMB_LF_NONE, 0, 0)

enum { UMB_LINK_IN = 1, UMB_LINK_OUT = 2, UMB_LINK_DESC = 4 };
enum { UMB_LF_NONE, UMB_LF_INT, UMB_LF_NUM, UMB_LF_VERDICT, UMB_LF_RECORD, UMB_LF_STR };

#define UMB_LINK_MSG_ENUM_(id, word, dir, field, min, max) UMB_LM_##id,
enum { UMB_LINK_MESSAGES(UMB_LINK_MSG_ENUM_) UMB_NLINK_MSGS };
#undef UMB_LINK_MSG_ENUM_
#define UMB_LINK_KEY_ENUM_(msg, key, kind, min, max) UMB_LK_##msg##_##key,
enum { UMB_LINK_KEYS(UMB_LINK_KEY_ENUM_) UMB_NLINK_KEYS };
#undef UMB_LINK_KEY_ENUM_

#endif

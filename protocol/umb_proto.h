/* SPDX-License-Identifier: MIT */
/* umb_proto.h: the runner ↔ guest agent protocol (docs/protocol.md), compiled into both: limits, verbs, errno names, codec. */
#ifndef UMB_PROTO_H
#define UMB_PROTO_H

#include <assert.h>
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#define UMB_PROTOCOL_VERSION 1

/* ---- Limits. Each is a promise of the agent and an assumption of the runner. ---- */

/* One message, newline included. */
#define UMB_LINE_MAX ((size_t)4 << 20)
/* Largest byte buffer one reply carries (pread, peek, readfile, exec's output, klog, stats); encoded at most 3x. */
#define UMB_DATA_MAX ((size_t)1 << 20)
/* Most pages one pages/mincore/fmincore reply describes (one character each). */
#define UMB_PAGES_MAX ((size_t)1 << 20)
/* Most raw pagemap entries in one reply (one field each). */
#define UMB_PAGEMAP_MAX ((size_t)1 << 17)
/* Most children one fork makes. */
#define UMB_FORK_MAX 256
/* Most arguments of one request after ID PID VERB (exec's argument vector). */
#define UMB_ARGS_MAX 1024
/* Most NAME=VALUE entries of run's ENV field. */
#define UMB_RUN_ENV_MAX 64
/* Most lines of the trigger's stats file that one stats reply carries (a field each). */
#define UMB_STATS_MAX 1024
/* Most bytes of an error reply's MESSAGE before encoding. */
#define UMB_ERRMSG_MAX 512
/* Most bytes of a kernel release string (struct utsname's field, NUL excluded). */
#define UMB_RELEASE_MAX 64
/* The largest PID a request may address (1 is the agent). */
#define UMB_PID_MAX INT32_MAX
/* Most bytes of a verb the agent echoes back in a reply ([a-z0-9_-]); others are answered as "error". */
#define UMB_VERB_NAME_MAX 32

/* Sizes of reply fields, the space before each included: a number (decimal or 0x and 16 hex digits), a
 * percent-encoded buffer of n bytes. */
#define UMB_NUM_BYTES 21
#define UMB_PCT_BYTES(n) (1 + 3 * (size_t)(n))
/* "ID VERB ok" or "ID VERB err". */
#define UMB_HEAD_BYTES (19 + 1 + UMB_VERB_NAME_MAX + 4)
/* " ENAME MESSAGE" of an error reply. */
#define UMB_ERR_BYTES (1 + 16 + UMB_PCT_BYTES(UMB_ERRMSG_MAX))

/* ---- The verb table (verbs.h). ---- */

enum {
  UMB_VF_AGENT_ONLY = 1,  /* Only PID 1 accepts it. */
  UMB_VF_MAPPING = 2,     /* PID 1 refuses it, so that the agent never holds user mappings. */
  UMB_VF_WORKER_ONLY = 4, /* PID 1 refuses it: it would end or weaken the agent itself. */
};

#include "verbs.h"

/* UMB_VERB_hello, ...: a verb's index in umb_verbs. */
#define UMB_VERB_ENUM_(name, amin, amax, flags, nf, nb) UMB_VERB_##name,
enum umb_verb_index { UMB_VERBS(UMB_VERB_ENUM_) UMB_NVERBS };
#undef UMB_VERB_ENUM_

typedef struct umb_verb {
  const char *name;
  uint16_t args_min, args_max;
  uint8_t flags;
} umb_verb;

extern const umb_verb umb_verbs[UMB_NVERBS];

/* The verb named by the n bytes at s, or NULL. */
const umb_verb *umb_verb_find(const char *s, size_t n);
/* Whether a verb token is safe to echo back in a reply: [a-z0-9_-], 1 to UMB_VERB_NAME_MAX bytes. */
bool umb_verb_name_ok(const char *s, size_t n);
/*
 * Checks a request before it is sent: PID is 1..UMB_PID_MAX, VERB and ARGS (the encoded arguments separated by single
 * spaces, or NULL) are non-empty fields of bytes 0x21..0x7e, at most UMB_ARGS_MAX arguments, and (if table is set)
 * VERB is in the table and takes that many arguments. Returns 0 or -EINVAL.
 */
int umb_request_check(uint64_t pid, const char *verb, const char *args, bool table);

/*
 * The field limit: the most fields after "ID VERB ok|err" in any message, derived from the verb table (the size of
 * a union of one char array per verb is the largest of them). The runner's parser accepts this many and no more.
 */
#define UMB_VERB_FIELDS_(name, amin, amax, flags, nf, nb) char name[(nf) + 1];
#define UMB_VERB_BYTES_(name, amin, amax, flags, nf, nb) char name[(nb) + 1];
union umb_fields_max_ {
  UMB_VERBS(UMB_VERB_FIELDS_)
  char err_[2 + 1];    /* ENAME MESSAGE */
  char ready_[3 + 1];  /* 0 ready ok VERSION PAGESIZE RELEASE */
  char exited_[2 + 1]; /* 0 exited ok PID STATUS */
};
union umb_bytes_max_ {
  UMB_VERBS(UMB_VERB_BYTES_)
  char err_[UMB_ERR_BYTES + 1];
  char ready_[2 * UMB_NUM_BYTES + UMB_PCT_BYTES(UMB_RELEASE_MAX) + 1];
  char exited_[2 * UMB_NUM_BYTES + 1];
};
#undef UMB_VERB_FIELDS_
#undef UMB_VERB_BYTES_
#define UMB_FIELDS_MAX (sizeof(union umb_fields_max_) - 1)
#define UMB_REPLY_BYTES_MAX (sizeof(union umb_bytes_max_) - 1)

/* The largest legal reply fits one line, and the largest pagemap reply is within the field limit. */
static_assert(UMB_HEAD_BYTES + UMB_REPLY_BYTES_MAX + 1 <= UMB_LINE_MAX, "a legal reply is longer than a line");
static_assert(UMB_FIELDS_MAX >= UMB_PAGEMAP_MAX && UMB_FIELDS_MAX >= UMB_FORK_MAX, "the field limit is too small");
static_assert(UMB_FIELDS_MAX >= UMB_ARGS_MAX, "a request may have more fields than a message");
static_assert(UMB_ARGS_MAX <= UINT16_MAX, "args_max is 16 bits");

/* ---- Growable byte buffer. ---- */

/* A growable buffer, NUL-terminated after every umb_buf_* call that adds bytes; data is NULL until the first. A
 * zeroed struct is an empty buffer. */
typedef struct umb_buf {
  char *data;
  size_t len;
  size_t cap;
  int err; /* Sticky: -ENOMEM once an addition failed, so a builder of many calls checks once at the end. */
} umb_buf;

/* Makes room for extra more bytes and a NUL after len (data is then not NULL); returns 0 or -ENOMEM. */
int umb_buf_reserve(umb_buf *b, size_t extra);
/* Appends bytes; returns 0 or -ENOMEM (the buffer is unchanged on failure). */
int umb_buf_append(umb_buf *b, const void *p, size_t n);
int umb_buf_puts(umb_buf *b, const char *s);
/* Appends formatted text; returns 0, -EINVAL or -ENOMEM. */
int umb_buf_printf(umb_buf *b, const char *fmt, ...) __attribute__((format(printf, 2, 3)));
void umb_buf_reset(umb_buf *b);
void umb_buf_free(umb_buf *b);

/* ---- Fields (docs/protocol.md, "Encoding of fields"). ---- */

/* One field of a line: not NUL-terminated. */
typedef struct umb_field {
  const char *p;
  size_t n;
} umb_field;

/*
 * Splits a line (without its newline) at single spaces into f[0..max) (f may be NULL to count only). Returns the
 * number of fields, -EINVAL for an empty line or an empty field (two spaces, a leading or trailing space), -E2BIG
 * for more than max fields.
 */
int umb_split(const char *line, size_t len, umb_field *f, size_t max);
bool umb_field_eq(umb_field f, const char *s);

/* Appends the percent-encoding of p[0..n) as one field: bytes 0x21..0x7e but % stand for themselves, others are
 * %XX (upper-case hex); the empty string is "-" and a lone "-" is "%2D". Returns 0 or -ENOMEM. */
int umb_pct_encode(umb_buf *b, const void *p, size_t n);
/* Decodes the field s[0..n) into out (at most n bytes; out may be s), setting *outn. Returns 0, or -EINVAL for a
 * malformed escape or a raw byte outside 0x21..0x7e. */
int umb_pct_decode_to(const char *s, size_t n, char *out, size_t *outn);
/* Decodes a NUL-terminated field in place (NUL-terminating the result); sets *n to the decoded length. */
int umb_pct_decode(char *tok, size_t *n);
/* Decodes the field s[0..n), appending to out; returns 0, -EINVAL or -ENOMEM. */
int umb_pct_decode_buf(const char *s, size_t n, umb_buf *out);

/* A number: unsigned decimal or 0x/0X hex, no sign, no overflow. Returns 0 or -EINVAL. */
int umb_num_parse_n(const char *s, size_t n, uint64_t *v);
int umb_num_parse(const char *s, uint64_t *v);
/* A request ID: decimal 1..2^63-1 without leading zeros, so that it reads back the same; 0 or -EINVAL. */
int umb_id_parse(const char *s, size_t n, uint64_t *v);

/* ---- Errno names: one table for both directions. ---- */

/* "EINVAL" for EINVAL or -EINVAL; "E<n>" for a number the table lacks (in a static buffer). */
const char *umb_errname(int err);
/* The errno for a name ("EINVAL", or "E<n>" as umb_errname writes it), or 0. */
int umb_errno_from_name(const char *name);

#endif

/* agent.h: internal interfaces shared by the guest agent's dispatcher (main.c), workers (worker.c) and codec. */
#ifndef UMB_AGENT_H
#define UMB_AGENT_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <sys/types.h>

/* Protocol constants; docs/protocol.md is the contract behind each of them. */
#define UMB_PROTO_VERSION 1
#define UMB_LINE_MAX ((size_t)4 << 20)      /* One message, newline included. */
#define UMB_DATA_MAX ((size_t)1 << 20)      /* Largest byte buffer a reply carries (encoded: at most 3x). */
#define UMB_PAGES_MAX ((uint64_t)1 << 20)   /* Most pages one pages/mincore/fmincore reply describes. */
#define UMB_PAGEMAP_MAX ((uint64_t)1 << 17) /* Most raw pagemap entries in one reply (19 bytes each). */
#define UMB_FORK_MAX 256
#define UMB_TOKENS_MAX 1024                 /* Fields in one request, exec's arguments included. */

/* The hidden worker that executes requests addressed to PID 1 has this role; it refuses mapping verbs. */
enum umb_role { UMB_ROLE_WORKER, UMB_ROLE_AGENT };

/* A growable byte buffer; live bytes are p[off, len). A zeroed struct is an empty buffer. */
struct umb_buf {
	char *p;
	size_t off, len, cap;
};

/* Makes room for extra more bytes after len; returns 0 or -ENOMEM. */
int umb_buf_reserve(struct umb_buf *b, size_t extra);
int umb_buf_add(struct umb_buf *b, const void *p, size_t n);
int umb_buf_adds(struct umb_buf *b, const char *s);
int umb_buf_addf(struct umb_buf *b, const char *fmt, ...) __attribute__((format(printf, 2, 3)));
/* Appends n bytes percent-encoded as one protocol field (the empty string is "-"). */
int umb_buf_add_pct(struct umb_buf *b, const void *p, size_t n);
/* Drops n bytes from the front. */
void umb_buf_consume(struct umb_buf *b, size_t n);
static inline size_t umb_buf_size(const struct umb_buf *b) { return b->len - b->off; }
/* Never NULL, so that an empty buffer can go to memchr or memcpy. */
static inline char *umb_buf_data(const struct umb_buf *b) { return b->p ? b->p + b->off : (char *)""; }
static inline void umb_buf_clear(struct umb_buf *b) { b->off = b->len = 0; }
void umb_buf_free(struct umb_buf *b);

/* One field of a request: not NUL-terminated. */
struct umb_tok {
	const char *p;
	size_t n;
};

/*
 * Splits a line (without its newline) at single spaces. Returns the number of fields, -EINVAL for an empty line or
 * an empty field (two spaces, leading or trailing space), -E2BIG for more than max fields.
 */
int umb_split(const char *line, size_t len, struct umb_tok *toks, size_t max);
bool umb_tok_eq(struct umb_tok t, const char *s);
/* Unsigned decimal or 0x hex, no sign, no overflow; returns 0 or -EINVAL. */
int umb_parse_u64(struct umb_tok t, uint64_t *v);
/* A request ID: decimal 1..2^63-1 without leading zeros, so that it reads back the same; 0 or -EINVAL. */
int umb_parse_id(struct umb_tok t, uint64_t *v);
/* Decodes a percent-encoded field, appending to out; returns 0, -EINVAL or -ENOMEM. */
int umb_pct_decode(struct umb_tok t, struct umb_buf *out);
/* Decodes into a NUL-terminated string; a decoded NUL byte is -EINVAL. The caller frees *s. */
int umb_pct_decode_str(struct umb_tok t, char **s);
/* A verb token that is safe to echo back in an error reply ([a-z0-9_-], at most 32 bytes). */
bool umb_verb_printable(struct umb_tok t);
/* errno name ("ENOENT") for a positive errno value. */
const char *umb_errname(int err);

/* Verb table lookup: returns true for a verb of protocol version 1. */
bool umb_verb_known(struct umb_tok verb);

/*
 * Writes all of n bytes to a blocking fd, retrying on EINTR; returns 0 or -errno.
 */
int umb_write_all(int fd, const void *p, size_t n);

/*
 * Runs the command loop of a worker on channel fd chan, never returning. Requests arrive as protocol lines; replies
 * go back on the same channel, preceded by "~adopt PID" lines (with the new channel attached by SCM_RIGHTS) for each
 * process that fork or spawn creates.
 */
void umb_worker_main(int chan, enum umb_role role) __attribute__((noreturn));

/*
 * The kernel runs in UML time-travel mode: guest time stands still while a CPU is busy, so no timer tick ever
 * preempts a process that does not enter the kernel. Loops on a loop control then sleep 1 ns after each pass, or
 * they would starve the processes that are to stop them. Set by PID 1 from /proc/cmdline before any worker exists.
 */
extern bool umb_time_travel;

#endif

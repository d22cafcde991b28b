/* runrec.h: the records a runner and its run processes exchange: "TAG KEY VALUE" lines, values percent-encoded. */
#ifndef UMLBED_RUNREC_H
#define UMLBED_RUNREC_H

#include <stddef.h>

#include "umb_proto.h"

/* Appends "TAG KEY VALUE\n" with the value's n bytes percent-encoded (any bytes, NUL included); 0 or -ENOMEM. */
int umb_rec_bytes(umb_buf *b, const char *tag, const char *key, const char *val, size_t n);
/* The same for a string; a NULL string adds nothing (the reader keeps its default). */
int umb_rec_str(umb_buf *b, const char *tag, const char *key, const char *val);
/* A number, written so that it reads back exactly. */
int umb_rec_num(umb_buf *b, const char *tag, const char *key, double v);
/* Splits a line "TAG KEY VALUE" of tag in place: *key and the decoded value (*val, NUL-terminated, *vlen bytes,
 * which may hold NULs). Returns 0, or -EINVAL when the line is not one of tag's or does not decode. */
int umb_rec_parse(char *line, size_t len, const char *tag, char **key, char **val, size_t *vlen);
/* A whole number read from a value: 0, or -EINVAL unless it is one within [min, max]. */
int umb_rec_int(const char *val, long long min, long long max, long long *out);

#endif

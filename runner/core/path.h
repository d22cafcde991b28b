/* SPDX-License-Identifier: MIT */
/* path.h: paths built whole or not at all (a path that does not fit is an error, never cut short); bounded input files. */
#ifndef UMLBED_PATH_H
#define UMLBED_PATH_H

#include <stddef.h>

/* Formats a path into buf (size bytes). Returns 0, or -ENAMETOOLONG when it does not fit (buf is then "") and
 * -EINVAL on a formatting error. */
int umb_path(char *buf, size_t size, const char *fmt, ...) __attribute__((format(printf, 3, 4)));

/* The most a JSON file given on the command line (a report, --durations) may hold. */
#define UMB_INPUT_MAX ((size_t)256 << 20)

/* Opens path for reading if it is a regular file of at most max bytes: 0 and *fd (close-on-exec), or -EINVAL (not
 * a regular file: a FIFO, /dev/zero, a folder), -EFBIG (larger than max) or another negative errno. Never waits
 * for a FIFO's writer. */
int umb_input_open(const char *path, size_t max, int *fd);
/* The whole of such a file in *data (malloc'd, NUL-terminated, *len bytes); -EFBIG too if it grew past max while
 * it was read. */
int umb_input_read(const char *path, size_t max, char **data, size_t *len);
/* What a negative errno of the two means for an input file, for a message. */
const char *umb_input_strerror(int rc);

#endif

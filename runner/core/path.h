/* path.h: paths built whole or not at all: a path that does not fit its buffer is an error, never cut short. */
#ifndef UMLBED_PATH_H
#define UMLBED_PATH_H

#include <stddef.h>

/* Formats a path into buf (size bytes). Returns 0, or -ENAMETOOLONG when it does not fit (buf is then "") and
 * -EINVAL on a formatting error. */
int umb_path(char *buf, size_t size, const char *fmt, ...) __attribute__((format(printf, 3, 4)));

#endif

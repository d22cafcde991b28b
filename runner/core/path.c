/* path.c: formatting a path that either fits or is refused. */
#include "path.h"

#include <errno.h>
#include <stdarg.h>
#include <stdio.h>

int umb_path(char *buf, size_t size, const char *fmt, ...) {
  va_list ap;
  va_start(ap, fmt);
  int n = size ? vsnprintf(buf, size, fmt, ap) : -1;
  va_end(ap);
  if (n >= 0 && (size_t)n < size) return 0;
  if (size) buf[0] = '\0';
  return n < 0 && size ? -EINVAL : -ENAMETOOLONG;
}

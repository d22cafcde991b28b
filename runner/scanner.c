/* scanner.c: finds panics, oopses, BUGs, warnings and lockdep reports in a UML console stream. */
#include "umlbed.h"

#include <errno.h>
#include <string.h>

/* Console lines longer than this are cut; kernel lines are far shorter. */
#define SCAN_LINE_MAX 4096
/* Keep at most this much console text in memory for excerpts. */
#define SCAN_LOG_MAX (1u << 20)

void umb_scanner_init(umb_scanner *s) {
  memset(s, 0, sizeof *s);
  s->lines.max = SCAN_LINE_MAX;
  s->log_max = SCAN_LOG_MAX;
}

umb_finding umb_scanner_classify(const char *line) {
  /* Lockdep headers start with "WARNING: possible ..." so they are checked first. */
  if (strstr(line, "WARNING: possible") || strstr(line, "possible circular locking") ||
      strstr(line, "WARNING: inconsistent lock state") || strstr(line, "WARNING: suspicious RCU usage"))
    return UMB_FIND_LOCKDEP;
  if (strstr(line, "Kernel panic")) return UMB_FIND_PANIC;
  if (strstr(line, "Oops")) return UMB_FIND_OOPS;
  if (strstr(line, "BUG:")) return UMB_FIND_BUG;
  if (strstr(line, "WARNING:")) return UMB_FIND_WARNING;
  return UMB_FIND_NONE;
}

const char *umb_finding_name(umb_finding f) {
  switch (f) {
    case UMB_FIND_NONE: return "none";
    case UMB_FIND_WARNING: return "kernel WARNING";
    case UMB_FIND_LOCKDEP: return "lockdep report";
    case UMB_FIND_BUG: return "kernel BUG";
    case UMB_FIND_OOPS: return "kernel Oops";
    case UMB_FIND_PANIC: return "kernel panic";
  }
  return "?";
}

typedef struct scan_ctx {
  umb_scanner *s;
  umb_finding found;
} scan_ctx;

static int scan_line(void *arg, char *line, size_t len, int toolong) {
  scan_ctx *c = arg;
  umb_scanner *s = c->s;
  (void)toolong;
  /* UML's console uses CRLF; drop the CR so excerpts read cleanly. */
  if (len > 0 && line[len - 1] == '\r') line[--len] = '\0';
  s->nlines++;
  umb_finding f = umb_scanner_classify(line);
  if (f != UMB_FIND_NONE && !UMB_FINDING_FATAL(f) && s->ignore) {
    for (const char *const *ig = s->ignore; *ig; ig++)
      if (strstr(line, *ig)) {
        s->nignored++;
        f = UMB_FIND_NONE;
        break;
      }
  }
  size_t off = s->log.len;
  if (s->log.len + len + 1 <= s->log_max) {
    if (umb_buf_append(&s->log, line, len) || umb_buf_append(&s->log, "\n", 1)) return -ENOMEM;
  }
  if (f != UMB_FIND_NONE) {
    if (s->first == UMB_FIND_NONE) {
      s->first = f;
      s->first_off = off;
      s->first_lineno = s->nlines;
    }
    if (f > s->worst) s->worst = f;
    if (f > c->found) c->found = f;
  }
  return 0;
}

umb_finding umb_scanner_feed(umb_scanner *s, const char *p, size_t n) {
  scan_ctx c = {s, UMB_FIND_NONE};
  umb_lines_feed(&s->lines, p, n, scan_line, &c);
  return c.found;
}

umb_finding umb_scanner_finish(umb_scanner *s) {
  scan_ctx c = {s, UMB_FIND_NONE};
  umb_lines_flush(&s->lines, scan_line, &c);
  return c.found;
}

int umb_scanner_excerpt(const umb_scanner *s, umb_buf *out, size_t max_lines) {
  const char *log = s->log.data ? s->log.data : "";
  size_t len = s->log.len, start, before = 5;
  if (s->first != UMB_FIND_NONE && s->first_off <= len) {
    start = s->first_off;
    /* Step back a few lines for context (the "cut here" marker and the task). */
    while (start > 0 && before > 0) {
      start--;
      while (start > 0 && log[start - 1] != '\n') start--;
      before--;
    }
  } else {
    /* No finding: the tail is the interesting part. */
    size_t i = len, count = 0;
    if (i > 0 && log[i - 1] == '\n') i--;
    while (i > 0) {
      if (log[i - 1] == '\n' && ++count == max_lines) break;
      i--;
    }
    start = i;
  }
  size_t end = start, count = 0;
  while (end < len && count < max_lines + 5) {
    const char *nl = memchr(log + end, '\n', len - end);
    end = nl ? (size_t)(nl - log) + 1 : len;
    count++;
  }
  return umb_buf_append(out, log + start, end - start);
}

void umb_scanner_free(umb_scanner *s) {
  umb_lines_free(&s->lines);
  umb_buf_free(&s->log);
}

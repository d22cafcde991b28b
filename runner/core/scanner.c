// SPDX-License-Identifier: MIT
/* scanner.c: finds panics, oopses, BUGs, warnings and lockdep reports in a UML console stream. */
#include "umlbed.h"

#include <errno.h>
#include <string.h>

/* Console lines longer than this are cut; kernel lines are far shorter. */
#define SCAN_LINE_MAX 4096
/* Keep at most about this much of the console's tail in memory for excerpts. */
#define SCAN_LOG_MAX (1u << 20)
/* Lines kept before and after the first finding. */
#define SCAN_BEFORE 5
#define SCAN_AFTER 64

void umb_scanner_init(umb_scanner *s) {
  memset(s, 0, sizeof *s);
  s->lines.max = SCAN_LINE_MAX;
  s->log_max = SCAN_LOG_MAX;
}

/* The message after printk's "[ seconds.micros] " stamp (with the "<level>" that early messages carry before it),
 * or NULL for a line that has none. */
static const char *kernel_text(const char *line) {
  const char *p = line;
  if (p[0] == '<' && p[1] >= '0' && p[1] <= '9' && p[2] == '>') p += 3;
  if (*p++ != '[') return NULL;
  while (*p == ' ') p++;
  if (*p < '0' || *p > '9') return NULL;
  while (*p >= '0' && *p <= '9') p++;
  if (*p++ != '.') return NULL;
  if (*p < '0' || *p > '9') return NULL;
  while (*p >= '0' && *p <= '9') p++;
  return *p == ']' ? p + 1 : NULL;
}

umb_finding umb_scanner_classify(const char *line) {
  line = kernel_text(line);
  if (line == NULL) return UMB_FIND_NONE;
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
    case UMB_FIND_NONE:
      return "none";
    case UMB_FIND_WARNING:
      return "kernel WARNING";
    case UMB_FIND_LOCKDEP:
      return "lockdep report";
    case UMB_FIND_BUG:
      return "kernel BUG";
    case UMB_FIND_OOPS:
      return "kernel Oops";
    case UMB_FIND_PANIC:
      return "kernel panic";
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
  /* The tail: when full, the oldest half goes. */
  if (s->log.len + len + 1 > s->log_max && s->log.len > 0) {
    size_t cut = s->log.len / 2;
    const char *nl = memchr(s->log.data + cut, '\n', s->log.len - cut);
    cut = nl ? (size_t)(nl - s->log.data) + 1 : s->log.len;
    memmove(s->log.data, s->log.data + cut, s->log.len - cut);
    s->log.len -= cut;
  }
  if (len + 1 <= s->log_max)
    if (umb_buf_append(&s->log, line, len) || umb_buf_append(&s->log, "\n", 1)) return -ENOMEM;
  if (s->found_more > 0) {
    if (umb_buf_append(&s->found, line, len) || umb_buf_append(&s->found, "\n", 1)) return -ENOMEM;
    s->found_more--;
  }
  if (f != UMB_FIND_NONE) {
    if (s->first == UMB_FIND_NONE) {
      s->first = f;
      s->first_lineno = s->nlines;
      if (umb_buf_append(&s->found, s->recent.data ? s->recent.data : "", s->recent.len) ||
          umb_buf_append(&s->found, line, len) || umb_buf_append(&s->found, "\n", 1))
        return -ENOMEM;
      s->found_more = SCAN_AFTER;
    }
    if (f > s->worst) s->worst = f;
    if (f > c->found) c->found = f;
  }
  /* The context for a later finding: the last SCAN_BEFORE lines. */
  if (s->nrecent == SCAN_BEFORE) {
    const char *nl = memchr(s->recent.data, '\n', s->recent.len);
    size_t cut = nl ? (size_t)(nl - s->recent.data) + 1 : s->recent.len;
    memmove(s->recent.data, s->recent.data + cut, s->recent.len - cut);
    s->recent.len -= cut;
    s->nrecent--;
  }
  size_t keep = len < SCAN_LINE_MAX ? len : SCAN_LINE_MAX;
  if (umb_buf_append(&s->recent, line, keep) || umb_buf_append(&s->recent, "\n", 1)) return -ENOMEM;
  s->nrecent++;
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
  const char *log, *start;
  size_t len;
  if (s->first != UMB_FIND_NONE) {
    /* The finding with its context, however much console text came before it. */
    log = s->found.data ? s->found.data : "";
    len = s->found.len;
    start = log;
  } else {
    /* No finding: the tail is the interesting part. */
    log = s->log.data ? s->log.data : "";
    len = s->log.len;
    size_t i = len, count = 0;
    if (i > 0 && log[i - 1] == '\n') i--;
    while (i > 0) {
      if (log[i - 1] == '\n' && ++count == max_lines) break;
      i--;
    }
    start = log + i;
  }
  const char *end = start, *stop = log + len;
  size_t count = 0;
  while (end < stop && count < max_lines + SCAN_BEFORE) {
    const char *nl = memchr(end, '\n', (size_t)(stop - end));
    end = nl ? nl + 1 : stop;
    count++;
  }
  return umb_buf_append(out, start, (size_t)(end - start));
}

void umb_scanner_free(umb_scanner *s) {
  umb_lines_free(&s->lines);
  umb_buf_free(&s->log);
  umb_buf_free(&s->recent);
  umb_buf_free(&s->found);
}

// SPDX-License-Identifier: MIT
/* test-main.c: unit tests of the shared protocol, codec and console scanner, and vm tests against a fake UML (this binary re-run). */
#include <errno.h>
#include <fcntl.h>
#include <poll.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/prctl.h>
#include <unistd.h>

#include "codec_corpus.h"
#include "jobs.h"
#include "lpj.h"
#include "scenario.h"
#include "tap.h"
#include "umlbed.h"
#include "runlink.h"
#include "wall.h"

/* Each test is a function of the task list (tests/lib/tap.h); CHECK records and continues. */
static char self_exe[4096];
static const char *datadir = "tests/data";

/* ---- The fake UML: speaks the agent protocol on fds 3/4 and writes a console on stdout. ---- */

static void fake_write(int fd, const char *s) {
  size_t n = strlen(s);
  while (n > 0) {
    ssize_t w = write(fd, s, n);
    if (w <= 0) _exit(3);
    s += w;
    n -= (size_t)w;
  }
}

/* Verbs: echo ARGS (reply with ARGS; faults echoes ADDR LEN and 7 for its time), fail ARGS (an error reply of
 * ARGS), defer (reply after the next request's reply, in the same write), garbage,
 * die, panic, hang, fork (a child that stays in the group), sleep MS, hold KEY (reply KEY once
 * "release KEY" arrives: concurrent calls), release KEY, spawn (a new worker PID from 100 on),
 * exit [CODE] (code 0: the "exited" event follows the reply at once; else it waits for "reap PID",
 * which first reports an exit nobody waits for), orphan (an error reply with ID 0, as the agent sends for a line
 * whose ID it cannot read), forks N (up to N children that stay in the group, as a fork bomb's; the reply says how
 * many the host allowed and the errno that stopped it). */
/* forks N: up to N children that stay in the group; the reply says how many, and the errno that stopped it. */
static void fake_forks(unsigned long long id, int want) {
  char reply[64];
  int made = 0, err = 0;
  for (; made < want; made++) {
    pid_t c = fork();
    if (c == 0) {
      for (;;) pause();
    }
    if (c < 0) {
      err = errno;
      break;
    }
  }
  snprintf(reply, sizeof reply, "%llu forks ok %d %d\n", id, made, err);
  fake_write(4, reply);
}

/* The fake's requests held for a release and its processes' exits held for a reap. */
struct fake_held {
  char key[16][64];
  unsigned long long id[16], exiting[16];
  int nheld, nexiting, exit_code[16];
};

/* "release KEY": its reply, then each held request of that key answered. */
static void fake_release(struct fake_held *h, unsigned long long id, const char *key) {
  char reply[256];
  snprintf(reply, sizeof reply, "%llu release ok\n", id);
  fake_write(4, reply);
  for (int i = 0; i < h->nheld;) {
    if (strcmp(h->key[i], key)) {
      i++;
      continue;
    }
    snprintf(reply, sizeof reply, "%llu hold ok %s\n", h->id[i], h->key[i]);
    fake_write(4, reply);
    h->id[i] = h->id[h->nheld - 1];
    memcpy(h->key[i], h->key[h->nheld - 1], sizeof h->key[0]);
    h->nheld--;
  }
}

/* "reap PID": its reply and a stray exit, then the held exits of that process. */
static void fake_reap(struct fake_held *h, unsigned long long id, unsigned long long who) {
  char reply[256];
  snprintf(reply, sizeof reply, "%llu reap ok\n0 exited ok 99999 signal:9\n", id);
  fake_write(4, reply);
  for (int i = 0; i < h->nexiting;) {
    if (h->exiting[i] != who) {
      i++;
      continue;
    }
    snprintf(reply, sizeof reply, "0 exited ok %llu exit:%d\n", who, h->exit_code[i]);
    fake_write(4, reply);
    h->exiting[i] = h->exiting[h->nexiting - 1];
    h->exit_code[i] = h->exit_code[--h->nexiting];
  }
}

static int fake_uml(const char *mode) {
  char line[65536], reply[70000], deferred[70000] = "";
  static struct fake_held held;
  unsigned long long next_pid = 100;
  size_t len = 0;
  fake_write(1, "Linux version 6.1.0-fake (umlbed-test)\n");
  if (!strcmp(mode, "noready")) {
    for (;;) pause();
  }
  if (!strcmp(mode, "garbage-early")) fake_write(4, "login: \r\n");
  fake_write(4, "0 ready ok 1 4096 6.1.0-fake\n");
  fake_write(1, "Run /umlbed-agent as init process\n");
  for (;;) {
    ssize_t n = read(3, line + len, sizeof line - 1 - len);
    if (n <= 0) return 0;
    len += (size_t)n;
    char *nl;
    while ((nl = memchr(line, '\n', len))) {
      *nl = '\0';
      char verb[64] = "", args[65536] = "";
      unsigned long long id = 0, pid = 0;
      int k = sscanf(line, "%llu %llu %63s %65535[^\n]", &id, &pid, verb, args);
      if (k < 3) {
        fake_write(4, "0 error err EINVAL -\n");
      } else if (!strcmp(verb, "fail")) {
        /* An error reply with the request's own fields as ENAME MESSAGE, however malformed. */
        snprintf(reply, sizeof reply, "%llu fail err %s\n", id, k > 3 ? args : "-");
        fake_write(4, reply);
      } else if (!strcmp(verb, "orphan")) {
        fake_write(4, "0 error err EINVAL bad%20request%20ID\n");
      } else if (!strcmp(verb, "garbage")) {
        fake_write(4, "this is not a reply\n");
      } else if (!strcmp(verb, "die")) {
        _exit(1);
      } else if (!strcmp(verb, "panic")) {
        fake_write(1,
                   "[    0.100000] Kernel panic - not syncing: fake panic\n[    0.100000] Call Trace:\n"
                   "[    0.100000]  [<6021f56b>] panic+0x1c0/0x38d\n");
        _exit(1);
      } else if (!strcmp(verb, "warn")) {
        /* Like the kernel: the console line is written before the reply. */
        fake_write(1, "[    0.100000] WARNING: CPU: 0 PID: 1 at fake.c:1 fake_warning+0x0/0x1\n");
        snprintf(reply, sizeof reply, "%llu warn ok\n", id);
        fake_write(4, reply);
      } else if (!strcmp(verb, "hang")) {
        /* No reply, ever. */
      } else if (!strcmp(verb, "hold") && held.nheld < 16) {
        held.id[held.nheld] = id;
        snprintf(held.key[held.nheld++], sizeof held.key[0], "%s", k > 3 ? args : "-");
      } else if (!strcmp(verb, "release")) {
        fake_release(&held, id, k > 3 ? args : "-");
      } else if (!strcmp(verb, "spawn")) {
        snprintf(reply, sizeof reply, "%llu spawn ok %llu\n", id, next_pid++);
        fake_write(4, reply);
      } else if (!strcmp(verb, "exit")) {
        int code = k > 3 ? atoi(args) : 0;
        snprintf(reply, sizeof reply, "%llu exit ok\n", id);
        fake_write(4, reply);
        if (code == 0) {
          snprintf(reply, sizeof reply, "0 exited ok %llu exit:0\n", pid);
          fake_write(4, reply);
        } else if (held.nexiting < 16) {
          held.exiting[held.nexiting] = pid;
          held.exit_code[held.nexiting++] = code;
        }
      } else if (!strcmp(verb, "reap")) {
        fake_reap(&held, id, strtoull(args, NULL, 10));
      } else if (!strcmp(verb, "forks")) {
        fake_forks(id, atoi(args));
      } else if (!strcmp(verb, "defer")) {
        snprintf(deferred, sizeof deferred, "%llu defer ok %s\n", id, k > 3 ? args : "-");
      } else {
        if (!strcmp(verb, "fork") && fork() == 0) {
          for (;;) pause();
        }
        if (!strcmp(verb, "sleep")) usleep((useconds_t)atoi(args) * 1000);
        /* faults ADDR LEN ACCESS: the access word becomes the time field, a fixed 7 ns. */
        char *sp = !strcmp(verb, "faults") && k > 3 ? strrchr(args, ' ') : NULL;
        if (sp) strcpy(sp, " 7");
        /* With a deferred reply, one write: the runner then reads both replies in one turn of its loop. */
        static char both[sizeof reply + sizeof deferred];
        snprintf(both, sizeof both, "%llu %s ok%s%s\n%s", id, verb, k > 3 ? " " : "", k > 3 ? args : "", deferred);
        fake_write(4, both);
        deferred[0] = '\0';
      }
      len -= (size_t)(nl + 1 - line);
      memmove(line, nl + 1, len);
    }
  }
}

/* ---- Codec tests. ---- */

static void test_pct_roundtrip(void) {
  /* No encoded field holds a blank or a newline, whatever the bytes. */
  const char *cases[] = {"hello", "a b", "100%", "-", "\n\t\x01\xff", "/shared/f 0 4096 seed"};
  for (size_t i = 0; i < sizeof cases / sizeof cases[0]; i++) {
    umb_buf b = {0};
    CHECK(umb_pct_encode(&b, cases[i], strlen(cases[i])) == 0);
    CHECK(strchr(b.data, ' ') == NULL && strchr(b.data, '\n') == NULL);
    umb_buf_free(&b);
  }
  /* Every byte value survives a round trip. */
  char all[256];
  size_t n;
  for (int i = 0; i < 256; i++) all[i] = (char)i;
  umb_buf b = {0};
  CHECK(umb_pct_encode(&b, all, sizeof all) == 0);
  CHECK(umb_pct_decode(b.data, &n) == 0 && n == 256 && !memcmp(b.data, all, 256));
  umb_buf_free(&b);
}

/* The codec's cases, shared with the agent's C test and the Perl client (tests/data/codec-corpus). */
static void test_codec_corpus(void) {
  char path[4200];
  snprintf(path, sizeof path, "%s/codec-corpus", datadir);
  CHECK(corpus_run(path) >= 40);
}

static void test_num_parse(void) {
  uint64_t v;
  /* The rest is in the codec corpus; the empty field cannot be written there. */
  CHECK(umb_num_parse("0x7f0000001000", &v) == 0 && v == 0x7f0000001000ull);
  CHECK(umb_num_parse("", &v) == -EINVAL);
}

static int parse(const char *s, umb_msg *m, char *buf) {
  strcpy(buf, s);
  return umb_msg_parse(buf, strlen(buf), m);
}

static void test_msg_parse(void) {
  umb_msg *m = calloc(1, sizeof *m);
  char buf[4096];
  CHECK(parse("7 mmap ok 0x7f0000000000", m, buf) == 0);
  CHECK(m->id == 7 && !strcmp(m->verb, "mmap") && m->ok && m->nfields == 1);
  CHECK(!strcmp(m->fields[0], "0x7f0000000000"));
  CHECK(parse("3 touch ok", m, buf) == 0 && m->nfields == 0 && m->ok);
  CHECK(parse("9 trigger err EINVAL bad%20line", m, buf) == 0 && !m->ok && m->nfields == 2);
  CHECK(parse("0 ready ok 1 4096 6.1.192", m, buf) == 0 && m->id == 0 && m->nfields == 3);
  /* Garbage of every kind is -EINVAL, never a crash. */
  const char *bad[] = {"",        "hello",   "1 x",     "1 x maybe", "x y ok",
                       "1  x ok", "1 x ok ", " 1 x ok", "1 x err",   "99999999999999999999999 x ok"};
  for (size_t i = 0; i < sizeof bad / sizeof bad[0]; i++) CHECK(parse(bad[i], m, buf) == -EINVAL);
  char nul[] = {'1', ' ', 'x', '\0', 'o', 'k'};
  CHECK(umb_msg_parse(nul, sizeof nul, m) == -EINVAL);
  /* Too many fields. */
  umb_buf big = {0};
  umb_buf_printf(&big, "1 fork ok");
  for (size_t i = 0; i < UMB_FIELDS_MAX + 1; i++) umb_buf_printf(&big, " %zu", i);
  CHECK(umb_msg_parse(big.data, big.len, m) == -E2BIG);
  umb_buf_free(&big);
  umb_msg_free(m);
  free(m);
}

/* The largest legal pagemap reply, as the agent writes it, fits a line and parses with every entry. */
static void test_msg_pagemap_max(void) {
  umb_msg m = {0};
  umb_buf b = {0};
  umb_buf_printf(&b, "9223372036854775807 pagemap ok");
  for (size_t i = 0; i < UMB_PAGEMAP_MAX; i++) umb_buf_printf(&b, " 0x%016llx", 0x8180000000000000ull | i);
  CHECK(b.len + 1 <= UMB_LINE_MAX);
  CHECK(umb_msg_parse(b.data, b.len, &m) == 0);
  CHECK(m.ok && (size_t)m.nfields == UMB_PAGEMAP_MAX);
  uint64_t v = 0;
  CHECK(umb_num_parse(m.fields[0], &v) == 0 && v == 0x8180000000000000ull);
  CHECK(umb_num_parse(m.fields[m.nfields - 1], &v) == 0 && v == (0x8180000000000000ull | (UMB_PAGEMAP_MAX - 1)));
  /* The field array is kept for the next reply, and a short one reuses it. */
  char **fields = m.fields;
  char small[] = "2 touch ok";
  CHECK(umb_msg_parse(small, strlen(small), &m) == 0 && m.nfields == 0 && m.fields == fields);
  umb_buf_free(&b);
  umb_msg_free(&m);
}

typedef struct lines_seen {
  int n;
  int toolong;
  char last[64];
} lines_seen;

static int count_line(void *arg, char *line, size_t len, int toolong) {
  lines_seen *s = arg;
  s->n++;
  s->toolong += toolong;
  snprintf(s->last, sizeof s->last, "%.*s", (int)len, line);
  return 0;
}

static void test_lines(void) {
  umb_lines l = {.max = 8};
  lines_seen s = {0};
  umb_lines_feed(&l, "ab", 2, count_line, &s);
  CHECK(s.n == 0);
  umb_lines_feed(&l, "c\nde", 4, count_line, &s);
  CHECK(s.n == 1 && !strcmp(s.last, "abc"));
  umb_lines_feed(&l, "fghijklmnop\nq\n", 14, count_line, &s);
  CHECK(s.n == 3 && s.toolong == 1 && !strcmp(s.last, "q"));
  umb_lines_feed(&l, "tail", 4, count_line, &s);
  umb_lines_flush(&l, count_line, &s);
  CHECK(s.n == 4 && !strcmp(s.last, "tail"));
  umb_lines_free(&l);
}

static void test_errnames(void) {
  CHECK(!strcmp(umb_errname(-EINVAL), "EINVAL"));
  CHECK(!strcmp(umb_errname(ECHILD), "ECHILD"));
  CHECK(umb_errno_from_name("EFAULT") == EFAULT);
  CHECK(umb_errno_from_name("ENOTANERRNO") == 0);
  /* Every errno Linux has a name for goes both ways, as the agent's strerrorname_np once did. */
  for (int e = 1; e <= EHWPOISON; e++) {
    const char *name = umb_errname(e);
    /* Linux numbers no errno 41 or 58. */
    CHECK(e == 41 || e == 58 || (name[1] >= 'A' && name[1] <= 'Z') || !strcmp(name, "E2BIG"));
    CHECK(umb_errno_from_name(name) == e);
  }
  /* An alias is understood; the canonical name is the one written. */
  CHECK(umb_errno_from_name("EWOULDBLOCK") == EAGAIN && !strcmp(umb_errname(EWOULDBLOCK), "EAGAIN"));
  CHECK(umb_errno_from_name("ENOTSUP") == EOPNOTSUPP && !strcmp(umb_errname(ENOTSUP), "EOPNOTSUPP"));
  /* A number without a name round-trips as E<n>. */
  CHECK(!strcmp(umb_errname(-4000), "E4000") && umb_errno_from_name("E4000") == 4000);
  CHECK(umb_errno_from_name("E") == 0 && umb_errno_from_name("E0") == 0 && umb_errno_from_name("E1x") == 0);
}

/* docs/protocol.md's verb table (its "## Verbs" section) has a row for every verb of the table (protocol/verbs.h),
 * and no other; its run link's table (its "## The run link" section) a row for every message of protocol/run-link.h. */
static void check_verbs_documented(void) {
  char path[4200], line[1024];
  snprintf(path, sizeof path, "%s/../../docs/protocol.md", datadir);
  FILE *f = fopen(path, "re");
  CHECK(f != NULL);
  if (f == NULL) return;
  int seen[UMB_NVERBS] = {0}, rows = 0, link_seen[UMB_NLINK_MSGS] = {0};
  char section[64] = "";
  while (fgets(line, sizeof line, f)) {
    char verb[64];
    if (!strncmp(line, "## ", 3)) snprintf(section, sizeof section, "%.*s", (int)strcspn(line + 3, "\n"), line + 3);
    if (!strcmp(section, "The run link")) {
      for (int i = 0; i < UMB_NLINK_MSGS; i++) {
        char head[32];
        snprintf(head, sizeof head, "| `%s", umb_link_word(i));
        size_t n = strlen(head);
        if (!strncmp(line, head, n) && (line[n] == ' ' || line[n] == '`')) link_seen[i]++;
      }
      continue;
    }
    if (strcmp(section, "Verbs") || sscanf(line, "| `%63[a-z]", verb) != 1) continue;
    const umb_verb *v = umb_verb_find(verb, strlen(verb));
    if (v == NULL) printf("#   docs/protocol.md has a row for %s, which the verb table does not have\n", verb);
    CHECK(v != NULL);
    if (v) seen[v - umb_verbs]++;
    rows++;
  }
  fclose(f);
  for (int i = 0; i < UMB_NVERBS; i++) {
    if (seen[i] != 1) printf("#   docs/protocol.md has %d rows for %s\n", seen[i], umb_verbs[i].name);
    CHECK(seen[i] == 1);
  }
  CHECK(rows == UMB_NVERBS);
  for (int i = 0; i < UMB_NLINK_MSGS; i++) {
    if (link_seen[i] < 1) printf("#   docs/protocol.md's run link has no row for %s\n", umb_link_word(i));
    CHECK(link_seen[i] >= 1);
  }
}

/* The verb table is one X-macro list: the runner's check and the agent's dispatch see the same rows. */
static void test_verbs(void) {
  check_verbs_documented();
  const umb_verb *v = umb_verb_find("fmincore", 8);
  CHECK(v && v == &umb_verbs[UMB_VERB_fmincore] && v->args_min == 3 && v->args_max == 3 && v->flags == 0);
  CHECK(umb_verb_find("fmincor", 7) == NULL && umb_verb_find("fmincoreX", 9) == NULL);
  CHECK(umb_verb_find("fmincore", 7) == NULL); /* "fmincor" */
  v = umb_verb_find("mmap", 4);
  CHECK(v && v->args_min == 5 && v->args_max == 6 && v->flags == UMB_VF_MAPPING);
  v = umb_verb_find("spawn", 5);
  CHECK(v && v->flags == UMB_VF_AGENT_ONLY);
  v = umb_verb_find("exec", 4);
  CHECK(v && v->args_min == 1 && v->args_max == UMB_ARGS_MAX);
  for (size_t i = 0; i < UMB_NVERBS; i++) {
    CHECK(umb_verb_name_ok(umb_verbs[i].name, strlen(umb_verbs[i].name)));
    CHECK(umb_verbs[i].args_min <= umb_verbs[i].args_max);
    CHECK(umb_verb_find(umb_verbs[i].name, strlen(umb_verbs[i].name)) == &umb_verbs[i]);
  }
  CHECK(!umb_verb_name_ok("Hello", 5) && !umb_verb_name_ok("", 0) && !umb_verb_name_ok("a b", 3));
  /* The request check: verb, argument count, fields. */
  CHECK(umb_request_check(1, "hello", NULL, true) == 0);
  CHECK(umb_request_check(0, "hello", NULL, true) == -EINVAL && umb_request_check(0, "hello", NULL, false) == -EINVAL);
  CHECK(umb_request_check(UMB_PID_MAX, "hello", NULL, true) == 0);
  CHECK(umb_request_check((uint64_t)UMB_PID_MAX + 1, "hello", NULL, true) == -EINVAL);
  CHECK(umb_request_check(1, "hello", "x", true) == -EINVAL);
  CHECK(umb_request_check(1, "nosuch", NULL, true) == -EINVAL);
  CHECK(umb_request_check(1, "nosuch", NULL, false) == 0);
  CHECK(umb_request_check(1, "mmap", "%2Fshared%2Ff 0 4096 shared rw", true) == 0);
  CHECK(umb_request_check(1, "mmap", "%2Fshared%2Ff 0 4096 shared", true) == -EINVAL);
  CHECK(umb_request_check(1, "mmap", "f 0 4096 shared rw 0x10000 x", true) == -EINVAL);
  CHECK(umb_request_check(1, "pagemap", "0x1000  1", true) == -EINVAL);
  CHECK(umb_request_check(1, "pagemap", "0x1000 1 ", true) == -EINVAL);
  CHECK(umb_request_check(1, "pagemap", "0x1000 1\n9 1 die", false) == -EINVAL);
  CHECK(umb_request_check(1, "echo", "a\tb", false) == -EINVAL);
  CHECK(umb_request_check(1, "echo", "\xc3\xa9", false) == -EINVAL);
  CHECK(umb_request_check(1, "he llo", NULL, false) == -EINVAL && umb_request_check(1, "", NULL, false) == -EINVAL);
  umb_buf b = {0};
  for (int i = 0; i < UMB_ARGS_MAX; i++) umb_buf_printf(&b, "%sa", i ? " " : "");
  CHECK(umb_request_check(1, "exec", b.data, true) == 0);
  umb_buf_puts(&b, " a");
  CHECK(umb_request_check(1, "exec", b.data, true) == -EINVAL);
  umb_buf_free(&b);
}

/* The limits are derived from the verb table: the field limit is the largest reply's field count. */
static void test_limits(void) {
  CHECK(UMB_FIELDS_MAX == UMB_PAGEMAP_MAX);
  CHECK(UMB_MSG_FIELDS_MAX == UMB_FIELDS_MAX);
  CHECK(UMB_HEAD_BYTES + UMB_REPLY_BYTES_MAX + 1 <= UMB_LINE_MAX);
  CHECK(UMB_REPLY_BYTES_MAX >= 3 * UMB_DATA_MAX && UMB_REPLY_BYTES_MAX >= UMB_PAGEMAP_MAX * 19);
}

static void test_split(void) {
  umb_field f[4];
  CHECK(umb_split("1 2 hello", 9, f, 4) == 3 && umb_field_eq(f[2], "hello") && umb_field_eq(f[0], "1"));
  CHECK(umb_split("1 2 hello", 9, NULL, 4) == 3);
  CHECK(umb_split("", 0, f, 4) == -EINVAL);
  CHECK(umb_split("1  2", 4, f, 4) == -EINVAL && umb_split("1 2 ", 4, f, 4) == -EINVAL);
  CHECK(umb_split(" 1", 2, f, 4) == -EINVAL);
  CHECK(umb_split("1 2 3 4 5", 9, f, 4) == -E2BIG);
  uint64_t v;
  CHECK(umb_id_parse("1", 1, &v) == 0 && v == 1);
  CHECK(umb_id_parse("9223372036854775807", 19, &v) == 0 && v == INT64_MAX);
  CHECK(umb_id_parse("9223372036854775808", 19, &v) == -EINVAL);
  CHECK(umb_id_parse("0", 1, &v) == -EINVAL && umb_id_parse("01", 2, &v) == -EINVAL);
  CHECK(umb_id_parse("0x1", 3, &v) == -EINVAL && umb_id_parse("", 0, &v) == -EINVAL);
  CHECK(umb_num_parse_n("12345", 3, &v) == 0 && v == 123);
  umb_buf d = {0};
  CHECK(umb_pct_decode_buf("a%20b", 5, &d) == 0 && d.len == 3 && !strcmp(d.data, "a b"));
  CHECK(umb_pct_decode_buf("%zz", 3, &d) == -EINVAL && d.len == 3 && !strcmp(d.data, "a b"));
  CHECK(umb_pct_decode_buf("-", 1, &d) == 0 && d.len == 3);
  umb_buf_free(&d);
}

static void test_variant_param(void) {
  char b[64];
  const char *v = umb_kernel_variant("/w/build/kernel/gpl-only/obj/linux", b, sizeof b);
  CHECK(v && !strcmp(v, "gpl-only"));
  v = umb_kernel_variant("build/kernel/broken-pgoff/obj/linux", b, sizeof b);
  CHECK(v && !strcmp(v, "broken-pgoff"));
  CHECK(umb_kernel_variant("/usr/bin/linux.uml", b, sizeof b) == NULL);
  CHECK(umb_kernel_variant("/w/kernel//obj/linux", b, sizeof b) == NULL);
  CHECK(umb_kernel_variant("/w/kernels/full/obj/linux", b, sizeof b) == NULL);
  CHECK(umb_kernel_variant("/obj/linux", b, sizeof b) == NULL);
  CHECK(umb_param_check("seed=7") == 0 && umb_param_check("_x1=") == 0 && umb_param_check("a=b=c") == 0);
  CHECK(umb_param_check("seed") == -EINVAL && umb_param_check("=7") == -EINVAL);
  CHECK(umb_param_check("1x=2") == -EINVAL && umb_param_check("a-b=2") == -EINVAL);
}

/* ---- Scanner tests against golden console logs captured from the UML kernel. ---- */

static umb_scanner *scan_file(const char *name, size_t chunk, int strict) {
  char path[4200];
  snprintf(path, sizeof path, "%s/%s", datadir, name);
  FILE *f = fopen(path, "r");
  if (f == NULL) {
    printf("#   cannot open %s: %s\n", path, strerror(errno));
    tap_failures++;
    return NULL;
  }
  umb_scanner *s = malloc(sizeof *s);
  umb_scanner_init(s);
  /* These logs were captured before UML's force_flush_all() was fixed and carry its RCU splat:
   * the non-strict scan waives it the way --ignore-warning does. */
  static const char *const rcu[] = {"WARNING: suspicious RCU usage", NULL};
  if (!strict) s->ignore = rcu;
  char buf[4096];
  size_t n;
  /* Odd chunk sizes split lines in the middle, as pipe reads do. */
  while ((n = fread(buf, 1, chunk, f)) > 0) umb_scanner_feed(s, buf, n);
  umb_scanner_finish(s);
  fclose(f);
  return s;
}

static void test_scanner_panic(void) {
  umb_scanner *s = scan_file("panic-sysrq.log", 7, 0);
  if (s == NULL) return;
  CHECK(s->first == UMB_FIND_PANIC);
  CHECK(s->worst == UMB_FIND_PANIC);
  CHECK(s->first_lineno == 135);
  CHECK(s->nignored == 2);
  umb_buf ex = {0};
  umb_scanner_excerpt(s, &ex, 10);
  CHECK(ex.data && strstr(ex.data, "Kernel panic - not syncing: sysrq triggered crash"));
  CHECK(ex.data && strstr(ex.data, "sysrq: Trigger a crash"));
  umb_buf_free(&ex);
  umb_scanner_free(s);
  free(s);
}

/* A panic after 3 MiB of console text: the excerpt still shows it (the scanner once kept only the first MiB). */
static void test_scanner_long_console(void) {
  umb_scanner s;
  umb_scanner_init(&s);
  char line[128];
  for (int i = 0; i < 40000; i++) {
    int n = snprintf(line, sizeof line, "[%5d.000000] filler line %d of a chatty console, printed by a test\n", i, i);
    umb_scanner_feed(&s, line, (size_t)n);
  }
  const char *tail =
      "[40000.000000] sysrq: Trigger a crash\n[40000.000001] Kernel panic - not syncing: late\n"
      "[40000.000002] Call Trace:\n";
  umb_scanner_feed(&s, tail, strlen(tail));
  umb_scanner_finish(&s);
  CHECK(s.first == UMB_FIND_PANIC && s.first_lineno == 40002);
  CHECK(s.log.len <= (1u << 20));
  umb_buf ex = {0};
  umb_scanner_excerpt(&s, &ex, 10);
  CHECK(ex.data && strstr(ex.data, "Kernel panic - not syncing: late"));
  CHECK(ex.data && strstr(ex.data, "sysrq: Trigger a crash") && strstr(ex.data, "Call Trace"));
  umb_buf_free(&ex);
  umb_scanner_free(&s);
}

static void test_scanner_lockdep(void) {
  umb_scanner *s = scan_file("lockdep-rcu.log", 4096, 1);
  if (s == NULL) return;
  CHECK(s->first == UMB_FIND_LOCKDEP);
  CHECK(s->first_lineno == 68);
  CHECK(!UMB_FINDING_FATAL(s->worst));
  umb_scanner_free(s);
  free(s);
  /* The same log with the known UML warning ignored has no finding at all. */
  s = scan_file("lockdep-rcu.log", 13, 0);
  if (s == NULL) return;
  CHECK(s->first == UMB_FIND_NONE && s->nignored == 2);
  umb_buf ex = {0};
  umb_scanner_excerpt(s, &ex, 3);
  CHECK(ex.data && strstr(ex.data, "fork_handler"));
  umb_buf_free(&ex);
  umb_scanner_free(s);
  free(s);
}

static void test_scanner_classify(void) {
  CHECK(umb_scanner_classify("[    1.0] Kernel panic - not syncing: VFS") == UMB_FIND_PANIC);
  CHECK(umb_scanner_classify("[    1.0] Oops: 0000 [#1] PREEMPT") == UMB_FIND_OOPS);
  CHECK(umb_scanner_classify("[    1.0] BUG: sleeping function called from invalid context") == UMB_FIND_BUG);
  CHECK(umb_scanner_classify("[    1.0] WARNING: CPU: 0 PID: 1 at mm/x.c:1 f+0x0/0x1") == UMB_FIND_WARNING);
  CHECK(umb_scanner_classify("[    1.0] WARNING: possible circular locking dependency detected") == UMB_FIND_LOCKDEP);
  CHECK(umb_scanner_classify("[    1.0] WARNING: possible recursive locking detected") == UMB_FIND_LOCKDEP);
  CHECK(umb_scanner_classify("[    1.0] Run /umlbed-agent as init process") == UMB_FIND_NONE);
  /* Text a guest program writes to /dev/console has no printk stamp: never a finding. */
  CHECK(umb_scanner_classify("BUG: not really") == UMB_FIND_NONE);
  CHECK(umb_scanner_classify("Oops: no") == UMB_FIND_NONE);
  CHECK(umb_scanner_classify("[1.0 BUG: x") == UMB_FIND_NONE);
  CHECK(umb_scanner_classify("[12345.678901] BUG: x") == UMB_FIND_BUG);
  CHECK(umb_scanner_classify("<0>[    0.000000] Kernel panic - not syncing: early") == UMB_FIND_PANIC);
}

/* ---- vm tests against the fake UML. ---- */

typedef struct vmt {
  uv_loop_t loop;
  uv_timer_t guard;
  umb_vm *vm;
  int ready, finding, dead, gone, closed;
  int replies;
  int statuses[8];
  char fields[8][64];
  uint64_t order[8];
  umb_req reqs[8];
  char death[512];            /* A copy: the vm's text goes with the vm. */
  const char *after_ready[8]; /* Verbs to send once ready. */
  int kill_after_replies;     /* Kill once this many replies arrived (0: after ready + sends). */
  int kill_on_ready;
  uint64_t t_ready, t_reply[8];
} vmt;

static void on_guard(uv_timer_t *t) {
  vmt *v = t->data;
  printf("#   guard timer fired: the test hung\n");
  tap_failures++;
  if (v->vm) umb_vm_kill(v->vm);
}

static void on_closed(void *data) {
  vmt *v = data;
  v->closed++;
  uv_close((uv_handle_t *)&v->guard, NULL);
}

static void on_req(umb_req *req, int status, umb_msg *m) {
  vmt *v = req->data;
  int i = (int)(req - v->reqs);
  v->statuses[i] = status ? status : 1;
  if (m && m->nfields) snprintf(v->fields[i], sizeof v->fields[i], "%s", m->fields[0]);
  v->t_reply[i] = uv_now(&v->loop);
  v->order[v->replies++] = req->id;
  if (v->kill_after_replies && v->replies == v->kill_after_replies) umb_vm_kill(v->vm);
}

static void on_event(umb_vm *vm, umb_vm_event ev, void *data) {
  vmt *v = data;
  switch (ev) {
    case UMB_VM_READY:
      v->ready++;
      v->t_ready = uv_now(&v->loop);
      for (int i = 0; v->after_ready[i]; i++) {
        v->reqs[i].data = v;
        char verb[32], args[32] = "";
        sscanf(v->after_ready[i], "%31s %31s", verb, args);
        int rc = umb_vm_request(vm, &v->reqs[i], 7, verb, args[0] ? args : NULL, on_req);
        CHECK(rc == 0);
      }
      if (v->kill_on_ready) umb_vm_kill(vm);
      break;
    case UMB_VM_FINDING:
      v->finding++;
      break;
    case UMB_VM_EXITED:
      break;
    case UMB_VM_DEAD:
      v->dead++;
      snprintf(v->death, sizeof v->death, "%s", umb_vm_death(vm) ? umb_vm_death(vm) : "");
      break;
    case UMB_VM_GONE:
      v->gone++;
      umb_vm_close(vm, on_closed, v);
      break;
  }
}

static int vm_run(vmt *v, const char *mode) {
  char dir[] = "/tmp/umlbed-test-XXXXXX";
  CHECK(mkdtemp(dir) != NULL);
  setenv("UMLBED_FAKE", mode, 1);
  uv_loop_init(&v->loop);
  uv_timer_init(&v->loop, &v->guard);
  v->guard.data = v;
  uv_timer_start(&v->guard, on_guard, 10000, 0);
  umb_vm_options o = {.kernel = self_exe, .root = dir, .dir = dir, .umid = "test", .cpu = 0, .fake_uml = 1};
  int rc = umb_vm_spawn(&v->loop, &o, on_event, v, &v->vm);
  CHECK(rc == 0);
  if (rc) uv_close((uv_handle_t *)&v->guard, NULL);
  uv_run(&v->loop, UV_RUN_DEFAULT);
  CHECK(uv_loop_close(&v->loop) == 0);
  unsetenv("UMLBED_FAKE");
  char cmd[200];
  snprintf(cmd, sizeof cmd, "rm -rf %s", dir);
  CHECK(system(cmd) == 0);
  return rc;
}

static void test_vm_requests(void) {
  vmt v = {.after_ready = {"defer 1", "echo 2", NULL}, .kill_after_replies = 2};
  vm_run(&v, "agent");
  CHECK(v.ready == 1 && v.gone == 1 && v.closed == 1 && v.dead == 0);
  CHECK(v.replies == 2);
  /* The fake answers the deferred request after the second: matching is by ID. */
  CHECK(v.order[0] == v.reqs[1].id && v.order[1] == v.reqs[0].id);
  CHECK(v.statuses[0] == 1 && !strcmp(v.fields[0], "1"));
  CHECK(v.statuses[1] == 1 && !strcmp(v.fields[1], "2"));
}

static void test_vm_slow(void) {
  vmt v = {.after_ready = {"sleep 300", "echo y", NULL}, .kill_after_replies = 2};
  vm_run(&v, "agent");
  CHECK(v.replies == 2 && v.dead == 0 && v.gone == 1);
  CHECK(v.statuses[0] == 1 && !strcmp(v.fields[0], "300"));
  CHECK(v.statuses[1] == 1 && !strcmp(v.fields[1], "y"));
  /* The slow reply took its time and nothing gave up on it. */
  CHECK(v.t_reply[0] - v.t_ready >= 290);
}

static void test_vm_garbage(void) {
  vmt v = {.after_ready = {"garbage", NULL}};
  vm_run(&v, "agent");
  CHECK(v.ready == 1 && v.dead == 1 && v.gone == 1 && v.closed == 1);
  CHECK(v.statuses[0] == -EPIPE);
  CHECK(strstr(v.death, "protocol error"));
}

/* An error the agent cannot attribute to a request (ID 0) leaves that request unanswered forever: the instance
 * dies of a protocol error that quotes the agent, instead of the scenario waiting for its timeout. */
static void test_vm_orphan_error(void) {
  vmt v = {.after_ready = {"orphan", NULL}};
  vm_run(&v, "agent");
  CHECK(v.ready == 1 && v.dead == 1 && v.gone == 1 && v.closed == 1);
  CHECK(v.statuses[0] == -EPIPE);
  CHECK(!strncmp(v.death, "protocol error", 14));
  CHECK(strstr(v.death, "EINVAL") && strstr(v.death, "bad request ID"));
  printf("#   death: %s\n", v.death);
}

static void test_vm_garbage_before_ready(void) {
  vmt v = {.after_ready = {"echo x", NULL}, .kill_after_replies = 1};
  vm_run(&v, "garbage-early");
  CHECK(v.ready == 1 && v.dead == 0 && v.replies == 1 && !strcmp(v.fields[0], "x"));
}

static void test_vm_eof(void) {
  vmt v = {.after_ready = {"hang", "die", NULL}};
  vm_run(&v, "agent");
  CHECK(v.dead == 1 && v.gone == 1 && v.closed == 1);
  CHECK(v.statuses[0] == -EPIPE && v.statuses[1] == -EPIPE);
}

static void test_vm_panic(void) {
  vmt v = {.after_ready = {"panic", NULL}};
  vm_run(&v, "agent");
  CHECK(v.finding >= 1 && v.dead == 1 && v.gone == 1);
  /* DEAD is reported after the console was read to its end, so the scanner saw the panic. */
  CHECK(v.statuses[0] == -EPIPE);
}

static void test_vm_kill_group(void) {
  vmt v = {.after_ready = {"fork", "fork", "hang", NULL}, .kill_after_replies = 2};
  vm_run(&v, "agent");
  CHECK(v.gone == 1 && v.closed == 1);
  CHECK(v.statuses[2] == -ECANCELED);
}

static void test_vm_noready_kill(void) {
  vmt v = {0};
  uv_loop_init(&v.loop);
  char dir[] = "/tmp/umlbed-test-XXXXXX";
  CHECK(mkdtemp(dir) != NULL);
  setenv("UMLBED_FAKE", "noready", 1);
  umb_vm_options o = {.kernel = self_exe, .root = dir, .dir = dir, .umid = "test", .cpu = -1, .fake_uml = 1};
  CHECK(umb_vm_spawn(&v.loop, &o, on_event, &v, &v.vm) == 0);
  int pid = umb_vm_pid(v.vm);
  uv_timer_init(&v.loop, &v.guard);
  v.guard.data = &v;
  uv_timer_start(&v.guard, on_guard, 10000, 0);
  /* Requests before the agent is ready are refused, and their callback is never called. */
  umb_req r = {0};
  CHECK(umb_vm_request(v.vm, &r, 1, "hello", NULL, on_req) == -EAGAIN);
  umb_vm_close(v.vm, on_closed, &v);
  uv_run(&v.loop, UV_RUN_DEFAULT);
  CHECK(uv_loop_close(&v.loop) == 0);
  CHECK(v.closed == 1 && v.ready == 0 && v.replies == 0);
  CHECK(kill(-pid, 0) == -1 && errno == ESRCH);
  unsetenv("UMLBED_FAKE");
  char cmd[200];
  snprintf(cmd, sizeof cmd, "rm -rf %s", dir);
  CHECK(system(cmd) == 0);
}

static void test_vm_spawn_fails(void) {
  uv_loop_t loop;
  uv_loop_init(&loop);
  umb_vm *vm = NULL;
  char dir[] = "/tmp/umlbed-test-XXXXXX";
  CHECK(mkdtemp(dir) != NULL);
  umb_vm_options o = {.kernel = "/nonexistent/linux", .root = dir, .dir = dir, .umid = "x", .cpu = -1};
  int rc = umb_vm_spawn(&loop, &o, on_event, NULL, &vm);
  CHECK(rc == UV_ENOENT);
  CHECK(vm == NULL);
  uv_run(&loop, UV_RUN_DEFAULT);
  CHECK(uv_loop_close(&loop) == 0);
  char cmd[200];
  snprintf(cmd, sizeof cmd, "rm -rf %s", dir);
  CHECK(system(cmd) == 0);
}

/* ---- -j auto against synthetic hosts: boot(level) gives a lone run's boot time at that level. ---- */

typedef double (*host_fn)(int level, int run);

/* Runs nruns one after another through the controller as the runner does (each run sampled at the level it
 * started at) and returns the time the suite took in units of one lone run. */
static double simulate(umb_jobs *j, host_fn boot, int nruns) {
  double t = 0;
  for (int done = 0; done < nruns;) {
    int l = umb_jobs_level(j);
    if (l > nruns - done) l = nruns - done;
    /* l runs side by side, each slowed down by boot(l)/boot(1): a wave takes that long. */
    t += boot(l, done) / boot(1, done);
    for (int k = 0; k < l; k++) {
      umb_jobs_started(j);
      umb_jobs_sample(j, l, boot(l, done + k));
      umb_jobs_run_done(j);
    }
    done += l;
  }
  return t;
}

/* Scales perfectly: boots take as long whatever the level (wobbling by 5 %). */
static double host_good(int level, int run) {
  (void)level;
  return 150 * (run % 3 == 0 ? 1.05 : 0.97);
}
/* Concurrent mm work costs 3.4 times as much: -j 2 is slower than -j 1. */
static double host_bad(int level, int run) {
  (void)run;
  return level == 1 ? 150 : 150 * 1.7 * level;
}
/* Scales, but boots wobble as on a shared host (this machine's lone boots ran from 85 to 406 ms): a fixed
 * pseudo-random factor from 0.6 to 2.0 per run. */
static double host_noisy(int level, int run) {
  unsigned x = (unsigned)run * 2654435761u + (unsigned)level * 40503u;
  x ^= x >> 13;
  return 150 * (1 + 0.05 * (level - 1)) * (0.6 + 1.4 * (double)(x % 1000) / 1000.0);
}
/* Good for the first 60 runs, bad after (a neighbour starts hammering memory). */
static double host_turns(int level, int run) { return run < 60 ? host_good(level, run) : host_bad(level, run); }

static void test_jobs_fixed(void) {
  umb_jobs j;
  umb_jobs_init(&j, 0, 3);
  for (int i = 0; i < 20; i++) {
    CHECK(umb_jobs_level(&j) == 3);
    umb_jobs_sample(&j, 3, 1000);
    umb_jobs_run_done(&j);
  }
  umb_jobs_init(&j, 1, 0);
  CHECK(j.cap == 1 && umb_jobs_level(&j) == 1);
  umb_jobs_init(&j, 1, 100000);
  CHECK(j.cap == UMB_JOBS_MAX);
  CHECK(umb_jobs_median(&j, 1) == 0 && umb_jobs_throughput(&j, 2) == 0);
  umb_jobs_sample(&j, 1, 3);
  umb_jobs_sample(&j, 1, 1);
  CHECK(umb_jobs_median(&j, 1) == 0); /* Two samples are not enough. */
  umb_jobs_sample(&j, 1, 2);
  CHECK(umb_jobs_median(&j, 1) == 2);
  umb_jobs_sample(&j, 0, 5);
  umb_jobs_sample(&j, 1, -1);
  CHECK(j.nsamples[1] == 3);
}

static void test_jobs_auto(void) {
  umb_jobs j;
  /* A host that scales: auto ends at the cap and is within 10 % of -j 2 over a suite. */
  umb_jobs_init(&j, 1, 2);
  double t = simulate(&j, host_good, 66), best = 33;
  CHECK(umb_jobs_level(&j) == 2);
  CHECK(t <= best * 1.10);
  printf("#   good host: auto %.1f, -j 2 %.1f, -j 1 66 (lone-run units)\n", t, best);
  /* A host where -j 2 is 1.7 times slower: auto stays within 10 % of -j 1. */
  umb_jobs_init(&j, 1, 2);
  t = simulate(&j, host_bad, 66);
  CHECK(umb_jobs_level(&j) == 1);
  CHECK(t <= 66 * 1.10);
  CHECK(j.accepted == 0 && j.probes >= 1);
  printf("#   bad host: auto %.1f, -j 1 66, -j 2 %.1f\n", t, 33 * 3.4);
  /* Noisy boots on a host that scales: at 2 by the end. */
  umb_jobs_init(&j, 1, 2);
  simulate(&j, host_noisy, 66);
  CHECK(umb_jobs_level(&j) == 2);
  printf("#   noisy host: %d probe(s), %d kept\n", j.probes, j.accepted);
  /* A host that turns bad: auto backs off to 1. */
  umb_jobs_init(&j, 1, 4);
  simulate(&j, host_turns, 120);
  CHECK(umb_jobs_level(&j) == 1);
  /* Four CPUs that scale: auto climbs to the cap. */
  umb_jobs_init(&j, 1, 4);
  simulate(&j, host_good, 66);
  CHECK(umb_jobs_level(&j) == 4 && j.accepted == 3);
}

static void test_jobs_cache(void) {
  umb_jobs j, k;
  char line[512];
  /* What a run on the bad host learnt: level 1 kept, 2 failed its trial. */
  umb_jobs_init(&j, 1, 2);
  simulate(&j, host_bad, 66);
  CHECK(umb_jobs_save(&j, line, sizeof line) > 0);
  CHECK(strncmp(line, "umlbed-jobs 1 2 1 1 ", 20) == 0);
  umb_jobs_init(&k, 1, 2);
  CHECK(umb_jobs_load(&k, line) == 0);
  CHECK(umb_jobs_level(&k) == 1 && k.hold > 0 && umb_jobs_median(&k, 1) == 150);
  /* The next run makes no trial before its hold: it costs at most 3 % over -j 1 now. */
  double t = simulate(&k, host_bad, 66);
  CHECK(t <= 66 * 1.03);
  printf("#   bad host, second run: auto %.1f, -j 1 66\n", t);
  /* A good host's state starts the next run at 2 at once. */
  umb_jobs_init(&j, 1, 2);
  simulate(&j, host_good, 66);
  CHECK(umb_jobs_save(&j, line, sizeof line) > 0);
  umb_jobs_init(&k, 1, 2);
  CHECK(umb_jobs_load(&k, line) == 0 && umb_jobs_level(&k) == 2);
  t = simulate(&k, host_good, 66);
  CHECK(t <= 33 * 1.02);
  /* ... and still backs off if the host turned bad since. */
  umb_jobs_init(&k, 1, 2);
  CHECK(umb_jobs_load(&k, line) == 0);
  simulate(&k, host_bad, 30);
  CHECK(umb_jobs_level(&k) == 1);
  /* Another CPU count, garbage, or no lone-boot median: ignored or no head start. */
  umb_jobs_init(&k, 1, 4);
  CHECK(umb_jobs_load(&k, line) == -EINVAL && umb_jobs_level(&k) == 1);
  umb_jobs_init(&k, 1, 2);
  CHECK(umb_jobs_load(&k, "umlbed-jobs 1 2 2 0 x y") == -EINVAL);
  CHECK(umb_jobs_load(&k, "umlbed-jobs 2 2 2 0 1 1") == -EINVAL);
  CHECK(umb_jobs_load(&k, "umlbed-jobs 1 2 2 0 0.0 140.0") == 0 && umb_jobs_level(&k) == 1);
  umb_jobs_init(&k, 0, 2);
  CHECK(umb_jobs_load(&k, "umlbed-jobs 1 2 1 1 150.0 500.0") == 0 && umb_jobs_level(&k) == 2);
}

/* The lpj cache: parsed from the calibration line only, kept per kernel build and host, rewritten whole. */
static void test_lpj(void) {
  static const char boot[] =
      "[    0.000000] NR_IRQS: 64\n"
      "[    0.000000] Calibrating delay loop... 6909.13 BogoMIPS (lpj=34545664)\n"
      "[    0.040000] pid_max: default: 4096 minimum: 301\n";
  CHECK(umb_lpj_parse(boot, strlen(boot)) == 34545664);
  /* A preset or skipped calibration, a cut line or text a program wrote: nothing learnt. */
  static const char *const none[] = {
      "[    0.000000] Calibrating delay loop (skipped) preset value.. 6909.13 BogoMIPS (lpj=34545664)\n",
      "[    0.000000] Calibrating delay loop... 6909.13 BogoMIPS (lpj=345\n",
      "[    0.000000] Calibrating delay loop... 6909.13 BogoMIPS (lpj=)\n", "lpj=1234)\n", ""};
  for (size_t i = 0; i < sizeof none / sizeof none[0]; i++) CHECK(umb_lpj_parse(none[i], strlen(none[i])) == 0);
  /* Only the bytes given count: the line's end lies beyond len. */
  CHECK(umb_lpj_parse(boot, 60) == 0);

  char dir[] = "/tmp/umlbed-test-lpj.XXXXXX", kernel[64], other[64], cache[64];
  CHECK(mkdtemp(dir) != NULL);
  snprintf(kernel, sizeof kernel, "%s/linux", dir);
  snprintf(other, sizeof other, "%s/other", dir);
  snprintf(cache, sizeof cache, "%s/lpj.cache", dir);
  FILE *f = fopen(kernel, "w");
  CHECK(f && fputs("kernel", f) >= 0 && fclose(f) == 0);
  f = fopen(other, "w");
  CHECK(f && fputs("another kernel", f) >= 0 && fclose(f) == 0);
  umb_lpj a, b;
  CHECK(umb_lpj_load(&a, cache, kernel) == 0 && a.value == 0 && a.key[0]);
  a.value = 1000;
  CHECK(umb_lpj_save(&a, cache) == 0);
  CHECK(umb_lpj_load(&b, cache, kernel) == 0 && b.value == 1000);
  /* Another kernel has its own line; saving it keeps the first. */
  CHECK(umb_lpj_load(&b, cache, other) == 0 && b.value == 0);
  b.value = 2000;
  CHECK(umb_lpj_save(&b, cache) == 0);
  CHECK(umb_lpj_load(&a, cache, kernel) == 0 && a.value == 1000);
  CHECK(umb_lpj_load(&b, cache, other) == 0 && b.value == 2000);
  /* A rebuilt kernel (other size) measures again. */
  f = fopen(kernel, "a");
  CHECK(f && fputs(" rebuilt", f) >= 0 && fclose(f) == 0);
  CHECK(umb_lpj_load(&a, cache, kernel) == 0 && a.value == 0);
  /* A corrupt value in the cache is not a calibration: the kernel calibrates again, and the save replaces it. */
  static const char *const corrupt[] = {
      "0",         "1", "999", "-34545664", "+34545664", "100000000001", "99999999999999999999", "18446744073709551615",
      "34545664x", ""};
  for (size_t i = 0; i < sizeof corrupt / sizeof corrupt[0]; i++) {
    CHECK(umb_lpj_load(&a, cache, kernel) == 0);
    f = fopen(cache, "w");
    CHECK(f && fprintf(f, "%s %s\n", a.key, corrupt[i]) > 0 && fclose(f) == 0);
    CHECK(umb_lpj_load(&a, cache, kernel) == 0 && a.value == 0);
  }
  a.value = 34545664;
  CHECK(umb_lpj_save(&a, cache) == 0);
  CHECK(umb_lpj_load(&b, cache, kernel) == 0 && b.value == 34545664);
  /* Out of range is neither parsed from a console nor written. */
  static const char huge[] = "Calibrating delay loop... 1.00 BogoMIPS (lpj=999999999999999999)\n";
  CHECK(umb_lpj_parse(huge, strlen(huge)) == 0);
  a.value = 5;
  CHECK(umb_lpj_save(&a, cache) == -ERANGE);
  CHECK(umb_lpj_load(&b, cache, kernel) == 0 && b.value == 34545664);
  /* No cache (empty path): nothing read, nothing written. */
  CHECK(umb_lpj_load(&a, "", other) == 0 && a.value == 0);
  a.value = 3;
  CHECK(umb_lpj_save(&a, "") == 0);
  CHECK(umb_lpj_load(&a, "/nonexistent/dir/cache", kernel) == 0 && a.value == 0);
  CHECK(umb_lpj_load(&a, cache, "/nonexistent/kernel") == -ENOENT);
  unlink(kernel);
  unlink(other);
  unlink(cache);
  rmdir(dir);
}

static void test_cpu_pick(void) {
  static int load[CPU_SETSIZE];
  cpu_set_t allowed;
  CPU_ZERO(&allowed);
  CHECK(umb_cpu_pick(&allowed, load, 0) == -1);
  for (int c = 0; c < 4; c++) CPU_SET(c, &allowed);
  /* All idle: the CPU the caller runs on, else the first. */
  CHECK(umb_cpu_pick(&allowed, load, 2) == 2);
  CHECK(umb_cpu_pick(&allowed, load, 0) == 0);
  CHECK(umb_cpu_pick(&allowed, load, -1) == 0);
  CHECK(umb_cpu_pick(&allowed, load, 7) == 0);
  /* The caller's CPU is not taken when another has fewer instances. */
  load[2] = 1;
  CHECK(umb_cpu_pick(&allowed, load, 2) == 0);
  CHECK(umb_cpu_pick(&allowed, load, 3) == 3);
  load[0] = load[1] = load[3] = 2;
  CHECK(umb_cpu_pick(&allowed, load, 3) == 2);
  /* A CPU outside the allowed set is never chosen, however idle. */
  CPU_CLR(2, &allowed);
  CHECK(umb_cpu_pick(&allowed, load, 2) == 0);
  memset(load, 0, sizeof load);
}

static const tap_task tests[] = {
    {"percent-encoding round trip and edge cases", test_pct_roundtrip},
    {"number parsing", test_num_parse},
    {"the codec corpus (tests/data/codec-corpus): percent-encoding, numbers and IDs", test_codec_corpus},
    {"reply parsing rejects garbage", test_msg_parse},
    {"line splitting across reads", test_lines},
    {"errno names: one table, both directions, every Linux errno", test_errnames},
    {"protocol: the verb table from one X-macro list, and the request check made from it", test_verbs},
    {"protocol: limits derived from the verb table (the largest reply fits)", test_limits},
    {"protocol: field splitting, request IDs, decoding into a buffer", test_split},
    {"reply parsing: the largest legal pagemap reply, every entry", test_msg_pagemap_max},
    {"kernel variant from a path, --param syntax", test_variant_param},
    {"lpj: parsed from the calibration line, cached per kernel build and host", test_lpj},
    {"CPU choice: the least loaded allowed CPU, the caller's own of equal ones", test_cpu_pick},
    {"scanner: classification of console lines", test_scanner_classify},
    {"scanner: golden panic log (sysrq c)", test_scanner_panic},
    {"scanner: golden lockdep RCU splat", test_scanner_lockdep},
    {"scanner: a panic after megabytes of console text keeps its excerpt", test_scanner_long_console},
    {"vm: replies matched by ID, out of order", test_vm_requests},
    {"vm: a slow reply is waited for", test_vm_slow},
    {"vm: garbage after ready is a protocol error, not a crash", test_vm_garbage},
    {"vm: noise before ready is ignored", test_vm_garbage_before_ready},
    {"vm: an error reply with ID 0 is a protocol error quoting the agent", test_vm_orphan_error},
    {"vm: unexpected EOF fails pending requests", test_vm_eof},
    {"vm: panic on the console, then death", test_vm_panic},
    {"vm: kill reaps the whole process group", test_vm_kill_group},
    {"vm: close before ready kills and reaps", test_vm_noready_kill},
    {"vm: spawn failure never calls back", test_vm_spawn_fails},
    {"-j N: fixed level; medians need three samples", test_jobs_fixed},
    {"-j auto: climbs where instances scale, stays at 1 where they slow each other down", test_jobs_auto},
    {"-j auto: what a run learnt starts the next one (cache line)", test_jobs_cache},
};

int main(int argc, char **argv) {
  /* The instances this program starts go through its own wall, as the runner's do. */
  if (argc > 1 && !strcmp(argv[1], "__wall")) return umb_wall_main(argc, argv);
  const char *fake = getenv("UMLBED_FAKE");
  /* The runner asks a kernel for its release before it runs anything, as UML answers. */
  if (argc == 2 && !strcmp(argv[1], "--version")) return puts("6.1.0-fake") < 0;
  if (fake) return fake_uml(fake);
  /* The walls of the vm tests are this program again, executed through its descriptor (wall.h). */
  umb_wall_self_open();
  if (argc > 1) datadir = argv[1];
  ssize_t n = readlink("/proc/self/exe", self_exe, sizeof self_exe - 1);
  if (n <= 0) return 2;
  self_exe[n] = '\0';
  signal(SIGPIPE, SIG_IGN);
  /* As in the runner: orphans of the fake's group come back to us to be reaped. */
  prctl(PR_SET_CHILD_SUBREAPER, 1);
  return tap_run(tests, (int)(sizeof tests / sizeof tests[0]));
}

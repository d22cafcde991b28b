// SPDX-License-Identifier: MIT
/* codec_test.c: unit tests of the protocol codec as the agent builds it (protocol/proto.c, guest/queue.c), printing TAP. */
#include "agent.h"
#include "codec_corpus.h"
#include "tap.h"

#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

static umb_field tok(const char *s) { return (umb_field){s, strlen(s)}; }

/* The cases are in the codec corpus; these are what it cannot write: C strings, every byte, the empty field. */
static void test_pct(void) {
  {
    char *s = NULL;
    CHECK(umb_pct_decode_str(tok("a%00b"), &s) == -EINVAL);
    CHECK(umb_pct_decode_str(tok("/shared/f%20g"), &s) == 0 && strcmp(s, "/shared/f g") == 0);
    free(s);
  }
  {
    /* Every byte value survives a round trip. */
    char all[256];
    for (int i = 0; i < 256; i++) all[i] = (char)i;
    umb_buf e = {0}, d = {0};
    umb_pct_encode(&e, all, sizeof all);
    int r = umb_pct_decode_buf(e.data, e.len, &d);
    CHECK(r == 0 && d.len == 256 && memcmp(d.data, all, 256) == 0);
    umb_buf_free(&e);
    umb_buf_free(&d);
  }
}

static void test_numbers(void) {
  uint64_t v;
  CHECK(umb_field_num(tok(""), &v) == -EINVAL);
  CHECK(umb_field_num(tok(" 1"), &v) == -EINVAL);
  CHECK(umb_field_id(tok("1"), &v) == 0 && v == 1);
}

static void test_fields(void) {
  {
    umb_field t[4];
    const char *l = "1 2 hello";
    CHECK(umb_split(l, strlen(l), t, 4) == 3 && umb_field_eq(t[2], "hello"));
    CHECK(umb_split("", 0, t, 4) == -EINVAL);
    CHECK(umb_split("1  2", 4, t, 4) == -EINVAL);
    CHECK(umb_split("1 2 ", 4, t, 4) == -EINVAL);
    CHECK(umb_split(" 1", 2, t, 4) == -EINVAL);
    CHECK(umb_split("1 2 3 4 5", 9, t, 4) == -E2BIG);
  }
  CHECK(umb_verb_name_ok("mmap", 4) && !umb_verb_name_ok("a\x01", 2) &&
        !umb_verb_name_ok("AAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAA", 40));
  CHECK(umb_verb_find("fmincore", 8) && !umb_verb_find("fmincor", 7));
  CHECK(strcmp(umb_errname(ENOENT), "ENOENT") == 0 && strcmp(umb_errname(ECHILD), "ECHILD") == 0);
  {
    /* The table has every name strerrorname_np had, which the agent used before the table was shared. */
    int good = 1;
    for (int e = 1; e < 134; e++) {
      const char *want = strerrorname_np(e);
      if (want && strcmp(want, umb_errname(e)) != 0) {
        printf("# errno %d: %s, want %s\n", e, umb_errname(e), want);
        good = 0;
      }
    }
    CHECK(good);
  }
  {
    /* The largest legal reply of every verb fits a line and the field limit (checked at compile time too). */
    CHECK(UMB_HEAD_BYTES + UMB_REPLY_BYTES_MAX + 1 <= UMB_LINE_MAX && UMB_FIELDS_MAX >= UMB_PAGEMAP_MAX);
  }
}

/* A queue keeps its data across consume and reserve. */
static void test_queue(void) {
  {
    struct umb_queue q = {0};
    int good = 1;
    for (int i = 0; i < 10000; i++) {
      char five[8];
      snprintf(five, sizeof five, "%05d", i);
      umb_q_append(&q, five, 5);
      if (i % 3 == 0) umb_q_consume(&q, 5);
    }
    good = umb_q_size(&q) == 5 * (10000 - 3334) && memcmp(umb_q_data(&q), "03334", 5) == 0;
    umb_q_free(&q);
    CHECK(good);
  }
}

static const char *corpus = "tests/data/codec-corpus";

/* The codec's cases, shared with the runner's C test and the Perl client. */
static void test_corpus(void) { CHECK(corpus_run(corpus) >= 40); }

static const tap_task tests[] = {
    {"percent-encoding: C strings and every byte value", test_pct},
    {"numbers and request IDs: the empty field, a blank", test_numbers},
    {"fields, verbs, errno names and limits", test_fields},
    {"a queue keeps its data across consume and reserve", test_queue},
    {"the codec corpus (tests/data/codec-corpus)", test_corpus},
};

int main(int argc, char **argv) {
  if (argc > 1) corpus = argv[1];
  return tap_run(tests, (int)(sizeof tests / sizeof tests[0]));
}

/* codec_test.c: unit tests of the protocol codec as the agent builds it (protocol/proto.c, guest/queue.c), printing TAP. */
#include "agent.h"

#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

static int n_test, n_fail;

static void ok(int cond, const char *name) {
  n_test++;
  if (!cond) n_fail++;
  printf("%s %d - %s\n", cond ? "ok" : "not ok", n_test, name);
}

static umb_field tok(const char *s) { return (umb_field){s, strlen(s)}; }

static int enc_is(const char *in, size_t n, const char *want) {
  umb_buf b = {0};
  int r = umb_pct_encode(&b, in, n);
  int good = r == 0 && b.len == strlen(want) && memcmp(b.data, want, strlen(want)) == 0;
  umb_buf_free(&b);
  return good;
}

static int dec_is(const char *in, const char *want, size_t n) {
  umb_buf b = {0};
  int r = umb_pct_decode_buf(in, strlen(in), &b);
  int good = r == 0 && b.len == n && (n == 0 || memcmp(b.data, want, n) == 0);
  umb_buf_free(&b);
  return good;
}

static int dec_err(const char *in) {
  umb_buf b = {0};
  int r = umb_pct_decode_buf(in, strlen(in), &b);
  umb_buf_free(&b);
  return r == -EINVAL;
}

static int u64_is(const char *in, uint64_t want) {
  uint64_t v = 0;
  return umb_field_num(tok(in), &v) == 0 && v == want;
}

static int u64_err(const char *in) {
  uint64_t v;
  return umb_field_num(tok(in), &v) == -EINVAL;
}

int main(void) {
  /* Percent-encoding. */
  ok(enc_is("", 0, "-"), "the empty string encodes as -");
  ok(enc_is("-", 1, "%2D"), "a lone - encodes as %2D");
  ok(enc_is("a-b", 3, "a-b"), "- inside a string stands for itself");
  ok(enc_is("a b%c\n", 6, "a%20b%25c%0A"), "space, % and newline are escaped");
  ok(enc_is("\x00\x7f\xff", 3, "%00%7F%FF"), "NUL, DEL and high bytes use upper-case hex");
  ok(enc_is("!~", 2, "!~"), "0x21 and 0x7e stand for themselves");
  ok(dec_is("-", "", 0), "- decodes to the empty string");
  ok(dec_is("%2D", "-", 1), "%2D decodes to -");
  ok(dec_is("a%20b%0a", "a b\n", 4), "lower-case hex is accepted on input");
  ok(dec_is("%00", "\0", 1), "%00 decodes to NUL");
  ok(dec_err("%"), "a lone % is rejected");
  ok(dec_err("%2"), "a truncated escape is rejected");
  ok(dec_err("%G0"), "a non-hex escape is rejected");
  ok(dec_err("a\x01"), "a raw control byte is rejected");
  ok(dec_err("a\x80"), "a raw high byte is rejected");
  {
    char *s = NULL;
    ok(umb_pct_decode_str(tok("a%00b"), &s) == -EINVAL, "a NUL in a string field is rejected");
    ok(umb_pct_decode_str(tok("/shared/f%20g"), &s) == 0 && strcmp(s, "/shared/f g") == 0,
       "a path decodes to a C string");
    free(s);
  }
  {
    /* Every byte value survives a round trip. */
    char all[256];
    for (int i = 0; i < 256; i++) all[i] = (char)i;
    umb_buf e = {0}, d = {0};
    umb_pct_encode(&e, all, sizeof all);
    int r = umb_pct_decode_buf(e.data, e.len, &d);
    ok(r == 0 && d.len == 256 && memcmp(d.data, all, 256) == 0, "all 256 byte values round-trip");
    umb_buf_free(&e);
    umb_buf_free(&d);
  }

  /* Numbers. */
  ok(u64_is("0", 0), "0");
  ok(u64_is("18446744073709551615", UINT64_MAX), "2^64-1 in decimal");
  ok(u64_err("18446744073709551616"), "2^64 overflows");
  ok(u64_is("0x10", 16), "0x hex");
  ok(u64_is("0XfF", 255), "0X and mixed-case hex");
  ok(u64_is("0xffffffffffffffff", UINT64_MAX), "2^64-1 in hex");
  ok(u64_err("0x1ffffffffffffffff"), "17 hex digits overflow");
  ok(u64_err("0x"), "0x alone is rejected");
  ok(u64_err("-1"), "a sign is rejected");
  ok(u64_err("+1"), "a plus sign is rejected");
  ok(u64_err("1k"), "a suffix is rejected");
  ok(u64_err(""), "the empty field is rejected");
  ok(u64_err(" 1"), "a leading space is rejected");
  {
    uint64_t v;
    ok(umb_field_id(tok("1"), &v) == 0 && v == 1, "ID 1");
    ok(umb_field_id(tok("9223372036854775807"), &v) == 0 && v == INT64_MAX, "ID 2^63-1");
    ok(umb_field_id(tok("9223372036854775808"), &v) == -EINVAL, "ID 2^63 is rejected");
    ok(umb_field_id(tok("0"), &v) == -EINVAL, "ID 0 is rejected");
    ok(umb_field_id(tok("01"), &v) == -EINVAL, "an ID with a leading zero is rejected");
    ok(umb_field_id(tok("0x1"), &v) == -EINVAL, "a hex ID is rejected");
    ok(umb_field_id(tok("99999999999999999999"), &v) == -EINVAL, "a 20-digit ID is rejected");
  }

  /* Fields. */
  {
    umb_field t[4];
    const char *l = "1 2 hello";
    ok(umb_split(l, strlen(l), t, 4) == 3 && umb_field_eq(t[2], "hello"), "three fields");
    ok(umb_split("", 0, t, 4) == -EINVAL, "an empty line is rejected");
    ok(umb_split("1  2", 4, t, 4) == -EINVAL, "two spaces make an empty field");
    ok(umb_split("1 2 ", 4, t, 4) == -EINVAL, "a trailing space makes an empty field");
    ok(umb_split(" 1", 2, t, 4) == -EINVAL, "a leading space makes an empty field");
    ok(umb_split("1 2 3 4 5", 9, t, 4) == -E2BIG, "more fields than allowed");
  }
  ok(umb_verb_name_ok("mmap", 4) && !umb_verb_name_ok("a\x01", 2) &&
         !umb_verb_name_ok("AAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAA", 40),
     "only short lower-case verbs are echoed");
  ok(umb_verb_find("fmincore", 8) && !umb_verb_find("fmincor", 7), "the verb table");
  ok(strcmp(umb_errname(ENOENT), "ENOENT") == 0 && strcmp(umb_errname(ECHILD), "ECHILD") == 0, "errno names");
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
    ok(good, "errno names are strerrorname_np's");
  }
  {
    /* The largest legal reply of every verb fits a line and the field limit (checked at compile time too). */
    ok(UMB_HEAD_BYTES + UMB_REPLY_BYTES_MAX + 1 <= UMB_LINE_MAX && UMB_FIELDS_MAX >= UMB_PAGEMAP_MAX,
       "limits: the largest reply fits");
  }

  /* A queue keeps its data across consume and reserve. */
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
    ok(good, "a queue");
  }

  printf("1..%d\n", n_test);
  return n_fail != 0;
}

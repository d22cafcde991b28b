/* codec.c: the protocol's field encoding (percent-encoding, numbers, tokenizing) and a growable buffer. */
#include "agent.h"

#include <errno.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

int umb_buf_reserve(struct umb_buf *b, size_t extra)
{
	if (b->cap - b->len >= extra)
		return 0;
	/* Reclaim consumed space first so that a buffer used as a queue does not grow without bound. */
	if (b->off > 0) {
		memmove(b->p, b->p + b->off, b->len - b->off);
		b->len -= b->off;
		b->off = 0;
		if (b->cap - b->len >= extra)
			return 0;
	}
	if (extra > SIZE_MAX / 2 - b->len)
		return -ENOMEM;
	size_t cap = b->cap ? b->cap : 256;
	while (cap - b->len < extra)
		cap *= 2;
	char *p = realloc(b->p, cap);
	if (!p)
		return -ENOMEM;
	b->p = p;
	b->cap = cap;
	return 0;
}

int umb_buf_add(struct umb_buf *b, const void *p, size_t n)
{
	int r = umb_buf_reserve(b, n);
	if (r < 0)
		return r;
	if (n)
		memcpy(b->p + b->len, p, n);
	b->len += n;
	return 0;
}

int umb_buf_adds(struct umb_buf *b, const char *s)
{
	return umb_buf_add(b, s, strlen(s));
}

int umb_buf_addf(struct umb_buf *b, const char *fmt, ...)
{
	va_list ap;
	va_start(ap, fmt);
	int n = vsnprintf(NULL, 0, fmt, ap);
	va_end(ap);
	if (n < 0)
		return -EINVAL;
	int r = umb_buf_reserve(b, (size_t)n + 1);
	if (r < 0)
		return r;
	va_start(ap, fmt);
	vsnprintf(b->p + b->len, (size_t)n + 1, fmt, ap);
	va_end(ap);
	b->len += (size_t)n;
	return 0;
}

static bool pct_plain(unsigned char c)
{
	return c >= 0x21 && c <= 0x7e && c != '%';
}

int umb_buf_add_pct(struct umb_buf *b, const void *p, size_t n)
{
	static const char hex[] = "0123456789ABCDEF";
	const unsigned char *s = p;
	if (n == 0)
		return umb_buf_add(b, "-", 1);
	if (n == 1 && s[0] == '-')
		return umb_buf_add(b, "%2D", 3);
	size_t need = 0;
	for (size_t i = 0; i < n; i++)
		need += pct_plain(s[i]) ? 1 : 3;
	int r = umb_buf_reserve(b, need);
	if (r < 0)
		return r;
	char *o = b->p + b->len;
	for (size_t i = 0; i < n; i++) {
		if (pct_plain(s[i])) {
			*o++ = (char)s[i];
		} else {
			*o++ = '%';
			*o++ = hex[s[i] >> 4];
			*o++ = hex[s[i] & 15];
		}
	}
	b->len += need;
	return 0;
}

void umb_buf_consume(struct umb_buf *b, size_t n)
{
	b->off += n;
	if (b->off >= b->len)
		b->off = b->len = 0;
}

void umb_buf_free(struct umb_buf *b)
{
	free(b->p);
	b->p = NULL;
	b->off = b->len = b->cap = 0;
}

int umb_split(const char *line, size_t len, struct umb_tok *toks, size_t max)
{
	size_t n = 0, start = 0;
	if (len == 0)
		return -EINVAL;
	for (size_t i = 0; i <= len; i++) {
		if (i < len && line[i] != ' ')
			continue;
		if (i == start)
			return -EINVAL;
		if (n == max)
			return -E2BIG;
		toks[n].p = line + start;
		toks[n].n = i - start;
		n++;
		start = i + 1;
	}
	return (int)n;
}

bool umb_tok_eq(struct umb_tok t, const char *s)
{
	size_t n = strlen(s);
	return t.n == n && memcmp(t.p, s, n) == 0;
}

static int hexval(char c)
{
	if (c >= '0' && c <= '9')
		return c - '0';
	if (c >= 'a' && c <= 'f')
		return c - 'a' + 10;
	if (c >= 'A' && c <= 'F')
		return c - 'A' + 10;
	return -1;
}

int umb_parse_u64(struct umb_tok t, uint64_t *v)
{
	uint64_t x = 0;
	if (t.n > 2 && t.p[0] == '0' && (t.p[1] == 'x' || t.p[1] == 'X')) {
		if (t.n - 2 > 16)
			return -EINVAL;
		for (size_t i = 2; i < t.n; i++) {
			int d = hexval(t.p[i]);
			if (d < 0)
				return -EINVAL;
			x = x << 4 | (uint64_t)d;
		}
		*v = x;
		return 0;
	}
	if (t.n == 0)
		return -EINVAL;
	for (size_t i = 0; i < t.n; i++) {
		if (t.p[i] < '0' || t.p[i] > '9')
			return -EINVAL;
		uint64_t d = (uint64_t)(t.p[i] - '0');
		if (x > (UINT64_MAX - d) / 10)
			return -EINVAL;
		x = x * 10 + d;
	}
	*v = x;
	return 0;
}

int umb_parse_id(struct umb_tok t, uint64_t *v)
{
	uint64_t x = 0;
	if (t.n == 0 || t.n > 19 || t.p[0] == '0')
		return -EINVAL;
	for (size_t i = 0; i < t.n; i++) {
		if (t.p[i] < '0' || t.p[i] > '9')
			return -EINVAL;
		x = x * 10 + (uint64_t)(t.p[i] - '0');
	}
	if (x == 0 || x > (uint64_t)INT64_MAX)
		return -EINVAL;
	*v = x;
	return 0;
}

int umb_pct_decode(struct umb_tok t, struct umb_buf *out)
{
	if (t.n == 1 && t.p[0] == '-')
		return 0;
	int r = umb_buf_reserve(out, t.n);
	if (r < 0)
		return r;
	char *o = out->p + out->len;
	for (size_t i = 0; i < t.n; i++) {
		unsigned char c = (unsigned char)t.p[i];
		if (c == '%') {
			if (t.n - i < 3)
				return -EINVAL;
			int h = hexval(t.p[i + 1]), l = hexval(t.p[i + 2]);
			if (h < 0 || l < 0)
				return -EINVAL;
			*o++ = (char)(h << 4 | l);
			i += 2;
		} else if (c >= 0x21 && c <= 0x7e) {
			*o++ = (char)c;
		} else {
			return -EINVAL;
		}
	}
	out->len = (size_t)(o - out->p);
	return 0;
}

int umb_pct_decode_str(struct umb_tok t, char **s)
{
	struct umb_buf b = {0};
	int r = umb_pct_decode(t, &b);
	if (r == 0 && memchr(umb_buf_data(&b), '\0', umb_buf_size(&b)))
		r = -EINVAL;
	if (r == 0)
		r = umb_buf_add(&b, "", 1);
	if (r < 0) {
		umb_buf_free(&b);
		return r;
	}
	*s = b.p;
	return 0;
}

bool umb_verb_printable(struct umb_tok t)
{
	if (t.n == 0 || t.n > 32)
		return false;
	for (size_t i = 0; i < t.n; i++) {
		char c = t.p[i];
		if (!((c >= 'a' && c <= 'z') || (c >= '0' && c <= '9') || c == '_' || c == '-'))
			return false;
	}
	return true;
}

const char *umb_errname(int err)
{
	const char *s = strerrorname_np(err);
	return s ? s : "EUNKNOWN";
}

int umb_write_all(int fd, const void *p, size_t n)
{
	const char *c = p;
	while (n > 0) {
		ssize_t w = write(fd, c, n);
		if (w < 0) {
			if (errno == EINTR)
				continue;
			return -errno;
		}
		c += w;
		n -= (size_t)w;
	}
	return 0;
}

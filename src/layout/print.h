/* SPDX-License-Identifier: GPL-2.0-only */
/*
 * layout/ printing internals shared by print.c (names, types, the entry
 * points) and class.c (structs and unions): the output sink and
 * pahole's struct conf.
 */
#ifndef BTFC_LAYOUT_PRINT_H
#define BTFC_LAYOUT_PRINT_H

#include <stdarg.h>
#include <stdint.h>
#include <string.h>

#include "base/mem.h"
#include "layout/layout_internal.h"

/*
 * pahole writes some names through fmemopen(bf, len): at most len - 1
 * characters land.  sink is an lbuf, optionally capped like that.
 */
struct sink {
	struct lbuf *b;
	size_t start, cap;	/* cap: max chars kept after start, SIZE_MAX = none */
};

static inline int PRINTF_LIKE(2, 3) sp(struct sink *s, const char *fmt, ...)
{
	va_list ap;
	int n;

	va_start(ap, fmt);
	n = lbuf_vprintf(s->b, fmt, ap);
	va_end(ap);
	if (s->cap != SIZE_MAX && s->b->len - s->start > s->cap) {
		s->b->len = s->start + s->cap;
		if (s->b->p)
			s->b->p[s->b->len] = 0;
	}
	return n;
}

/* Append n bytes of str (no formatting): the hot path for tabs and punctuation. */
static inline int sput(struct sink *s, const char *str, size_t n)
{
	struct lbuf *b = s->b;

	if (s->cap != SIZE_MAX)
		return sp(s, "%.*s", (int)n, str);
	if (b->len + n + 1 > b->cap) {
		if (b->oom || mem_grow((void **)&b->p, &b->cap, 1, b->len + n + 256)) {
			b->oom = true;
			return (int)n;
		}
	}
	memcpy(b->p + b->len, str, n);
	b->len += n;
	b->p[b->len] = 0;
	return (int)n;
}

static const char tabs[] = "\t\t\t\t\t\t\t\t\t\t\t\t\t\t\t\t";
#define NTABS ((int)sizeof(tabs) - 1)

/* "%.*s" of tabs: n tabs, at most the NTABS there are */
static inline int sput_tabs(struct sink *s, int n)
{
	return sput(s, tabs, (size_t)(n < 0 ? 0 : n > NTABS ? NTABS : n));
}

static inline int sput_s(struct sink *s, const char *str)
{
	return sput(s, str, strlen(str));
}

/* n spaces */
static inline int sput_pad(struct sink *s, int n)
{
	static const char spaces[] = "                                                                ";
	int done = 0;

	while (n > done) {
		int k = n - done < (int)sizeof(spaces) - 1 ? n - done : (int)sizeof(spaces) - 1;

		done += sput(s, spaces, (size_t)k);
	}
	return done;
}

/* "%*u": v right-aligned in width (left-aligned for a negative width) */
static inline int sput_u(struct sink *s, unsigned v, int width)
{
	char buf[12], *e = buf + sizeof(buf), *d = e;
	int n, w = width < 0 ? -width : width;

	do
		*--d = (char)('0' + v % 10);
	while (v /= 10);
	n = (int)(e - d);
	if (width > n)
		sput_pad(s, width - n);
	sput(s, d, (size_t)n);
	if (width < 0 && w > n)
		sput_pad(s, w - n);
	return n > w ? n : w;
}

/* "%-*s %s" */
static inline int sput_name_pair(struct sink *s, int width, const char *a, const char *b)
{
	int n = sput_s(s, a), w = width < 0 ? -width : width;

	if (w > n)
		n += sput_pad(s, w - n);
	return n + sput(s, " ", 1) + sput_s(s, b);
}

/*
 * The structs and unions a print is inside, innermost first.  No C type
 * contains itself, so pahole never expands one inside itself; hostile BTF
 * can make it do so (each such member doubles the output per level).
 */
struct expanding {
	uint32_t id;
	const struct expanding *up;
};

/*
 * Member lines one layout_print may expand, summed over the nested
 * structs and unions it prints inline (a type used k times counts k
 * times), and function prototype parameters it prints.  The largest -E
 * print in the Debian 6.12 corpus, bcachefs's
 * struct bch_fs, is 8,100 lines.  Acyclic BTF can still nest a type twice
 * in each of 48 levels: 2^48 lines.
 */
#define EXPAND_MAX_MEMBERS (1u << 16)

struct conf {
	const struct expanding *expanding;	/* NULL: none yet */
	uint32_t *expand_left;			/* NULL: no limit */
	const char *prefix, *suffix;
	int32_t type_spacing, name_spacing;
	uint32_t base_offset;
	uint32_t *cachelinep;
	uint8_t indent;
	bool expand_types, rel_offset, emit_stats, suppress_comments, suppress_offset_comment;
	bool hex_fmt, suppress_aligned_attribute, suppress_packed, no_semicolon;
	bool union_member, first_member, last_member;
};

size_t type_fprintf(struct layout *l, uint32_t tid, const char *name, const struct conf *conf,
		    struct sink *s);
size_t class_fprintf(struct layout *l, struct lclass *c, const struct conf *conf, struct sink *s);
size_t union_fprintf(struct layout *l, struct lclass *u, const struct conf *conf, struct sink *s);

#endif

// SPDX-License-Identifier: GPL-2.0-only
/*
 * vsnprintf for the conversions text output uses most: glibc's vsnprintf
 * spends most of its time setting up a string FILE and walking its generic
 * machinery, which dominated printing every struct of a kernel.  Anything
 * outside the subset below goes to the C library, so the result is always
 * the C library's.
 */
#include "base/fmt.h"

#include <stdarg.h>
#include <stdint.h>
#include <stdio.h>
#include <string.h>

struct out {
	char *p;
	size_t size, n;		/* n counts every byte, kept or not */
};

static void put(struct out *o, const char *s, size_t len)
{
	if (o->n < o->size) {
		size_t room = o->size - o->n;

		memcpy(o->p + o->n, s, len < room ? len : room);
	}
	o->n += len;
}

static void pad(struct out *o, char c, size_t len)
{
	if (o->n < o->size) {
		size_t room = o->size - o->n;

		memset(o->p + o->n, c, len < room ? len : room);
	}
	o->n += len;
}

enum { F_MINUS = 1, F_PLUS = 2, F_SPACE = 4, F_HASH = 8, F_ZERO = 16 };

static void put_padded(struct out *o, const char *s, size_t len, unsigned flags, long width)
{
	size_t w = width > 0 ? (size_t)width : 0;

	if (!(flags & F_MINUS) && w > len)
		pad(o, ' ', w - len);
	put(o, s, len);
	if ((flags & F_MINUS) && w > len)
		pad(o, ' ', w - len);
}

static void put_int(struct out *o, uint64_t v, bool neg, bool hex, bool upper, unsigned flags,
		    long width, long prec)
{
	const char *digits = upper ? "0123456789ABCDEF" : "0123456789abcdef";
	char buf[24], *e = buf + sizeof(buf), *d = e;
	char pre[3];
	size_t npre = 0, nd, zeros = 0, total, w = width > 0 ? (size_t)width : 0;

	if (hex) {
		for (uint64_t x = v; x; x >>= 4)
			*--d = digits[x & 15];
		if ((flags & F_HASH) && v) {
			pre[npre++] = '0';
			pre[npre++] = upper ? 'X' : 'x';
		}
	} else {
		for (uint64_t x = v; x; x /= 10)
			*--d = (char)('0' + x % 10);
		if (neg)
			pre[npre++] = '-';
		else if (flags & F_PLUS)
			pre[npre++] = '+';
		else if (flags & F_SPACE)
			pre[npre++] = ' ';
	}
	if (!v && prec < 0)
		*--d = '0';
	nd = (size_t)(e - d);
	if (prec < 0) {
		if ((flags & (F_ZERO | F_MINUS)) == F_ZERO && w > nd + npre)
			zeros = w - nd - npre;
	} else if ((size_t)prec > nd) {
		zeros = (size_t)prec - nd;
	}
	total = npre + zeros + nd;
	if (!(flags & F_MINUS) && w > total)
		pad(o, ' ', w - total);
	put(o, pre, npre);
	pad(o, '0', zeros);
	put(o, d, nd);
	if ((flags & F_MINUS) && w > total)
		pad(o, ' ', w - total);
}

int fmt_vsnprintf(char *buf, size_t size, const char *fmt, va_list ap)
{
	struct out o = { buf, size, 0 };
	const char *f = fmt;
	va_list aq;

	va_copy(aq, ap);
	while (*f) {
		const char *pct = strchr(f, '%');
		unsigned flags = 0;
		long width = 0, prec = -1;
		int lng = 0;

		if (!pct) {
			put(&o, f, strlen(f));
			break;
		}
		put(&o, f, (size_t)(pct - f));
		f = pct + 1;
		for (;; f++) {
			if (*f == '-')
				flags |= F_MINUS;
			else if (*f == '+')
				flags |= F_PLUS;
			else if (*f == ' ')
				flags |= F_SPACE;
			else if (*f == '#')
				flags |= F_HASH;
			else if (*f == '0')
				flags |= F_ZERO;
			else
				break;
		}
		if (*f == '*') {
			width = va_arg(aq, int);
			if (width < 0) {
				flags |= F_MINUS;
				width = -width;
			}
			f++;
		} else {
			while (*f >= '0' && *f <= '9' && width < 100000)
				width = width * 10 + (*f++ - '0');
		}
		if (*f == '.') {
			f++;
			prec = 0;
			if (*f == '*') {
				prec = va_arg(aq, int);
				if (prec < 0)
					prec = -1;
				f++;
			} else {
				while (*f >= '0' && *f <= '9' && prec < 100000)
					prec = prec * 10 + (*f++ - '0');
			}
		}
		if (*f == 'l') {
			lng = 1;
			if (*++f == 'l') {
				lng = 2;
				f++;
			}
		} else if (*f == 'z') {
			lng = 3;
			f++;
		}
		if (width >= 100000 || prec >= 100000)
			goto libc;
		switch (*f++) {
		case '%':
			if (flags || width || prec >= 0 || lng)
				goto libc;
			put(&o, "%", 1);
			break;
		case 's': {
			const char *s = va_arg(aq, const char *);
			size_t len;

			if (lng || (flags & ~F_MINUS))
				goto libc;
			if (!s)
				s = prec < 0 || prec >= 6 ? "(null)" : "";
			len = prec < 0 ? strlen(s) : strnlen(s, (size_t)prec);
			put_padded(&o, s, len, flags, width);
			break;
		}
		case 'c': {
			char c = (char)va_arg(aq, int);

			if (lng || (flags & ~F_MINUS) || prec >= 0)
				goto libc;
			put_padded(&o, &c, 1, flags, width);
			break;
		}
		case 'd':
		case 'i': {
			int64_t v = lng == 0 ? va_arg(aq, int) : lng == 1 ? va_arg(aq, long) :
				    lng == 2 ? va_arg(aq, long long) : va_arg(aq, ssize_t);

			if (flags & F_HASH)
				goto libc;
			put_int(&o, v < 0 ? -(uint64_t)v : (uint64_t)v, v < 0, false, false, flags,
				width, prec);
			break;
		}
		case 'u':
		case 'x':
		case 'X': {
			uint64_t v = lng == 0 ? va_arg(aq, unsigned) :
				     lng == 1 ? va_arg(aq, unsigned long) :
				     lng == 2 ? va_arg(aq, unsigned long long) : va_arg(aq, size_t);

			if (f[-1] == 'u' && (flags & F_HASH))
				goto libc;
			put_int(&o, v, false, f[-1] != 'u', f[-1] == 'X', flags & ~(F_PLUS | F_SPACE),
				width, prec);
			break;
		}
		default:
			goto libc;
		}
	}
	va_end(aq);
	if (size)
		buf[o.n < size ? o.n : size - 1] = 0;
	return o.n > INT32_MAX ? -1 : (int)o.n;
libc:
	va_end(aq);
	return vsnprintf(buf, size, fmt, ap);
}

int fmt_snprintf(char *buf, size_t size, const char *fmt, ...)
{
	va_list ap;
	int n;

	va_start(ap, fmt);
	n = fmt_vsnprintf(buf, size, fmt, ap);
	va_end(ap);
	return n;
}

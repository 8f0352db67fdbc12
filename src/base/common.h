/* SPDX-License-Identifier: GPL-2.0-only */
/* Common macros shared by every layer. */
#ifndef BTFC_BASE_COMMON_H
#define BTFC_BASE_COMMON_H

#include <errno.h>
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <string.h>

#define ARRAY_SIZE(a) (sizeof(a) / sizeof((a)[0]))
#define MIN(a, b) ((a) < (b) ? (a) : (b))
#define MAX(a, b) ((a) > (b) ? (a) : (b))
#define likely(x) __builtin_expect(!!(x), 1)
#define unlikely(x) __builtin_expect(!!(x), 0)
#define PRINTF_LIKE(f, a) __attribute__((format(printf, f, a)))
#define UNUSED __attribute__((unused))
#define ALIGN_UP(x, a) (((x) + ((a)-1)) & ~((__typeof__(x))(a)-1))

static inline uint16_t bswap16(uint16_t v) { return __builtin_bswap16(v); }
static inline uint32_t bswap32(uint32_t v) { return __builtin_bswap32(v); }
static inline uint64_t bswap64(uint64_t v) { return __builtin_bswap64(v); }

/* Unaligned loads in host order. */
static inline uint16_t load16(const void *p) { uint16_t v; memcpy(&v, p, 2); return v; }
static inline uint32_t load32(const void *p) { uint32_t v; memcpy(&v, p, 4); return v; }
static inline uint64_t load64(const void *p) { uint64_t v; memcpy(&v, p, 8); return v; }
static inline void store16(void *p, uint16_t v) { memcpy(p, &v, 2); }
static inline void store32(void *p, uint32_t v) { memcpy(p, &v, 4); }
static inline void store64(void *p, uint64_t v) { memcpy(p, &v, 8); }

/*
 * memcmp(a, b, n) == 0 for the short keys of the hash tables (names are
 * mostly under 16 bytes): two overlapping loads a side, no call.
 */
static inline bool bytes_eq(const void *a, const void *b, size_t n)
{
	const unsigned char *x = a, *y = b;

	if (n >= 8) {
		if (n > 16)
			return memcmp(x, y, n) == 0;
		return load64(x) == load64(y) && load64(x + n - 8) == load64(y + n - 8);
	}
	if (n >= 4)
		return load32(x) == load32(y) && load32(x + n - 4) == load32(y + n - 4);
	return !n || (x[0] == y[0] && x[n / 2] == y[n / 2] && x[n - 1] == y[n - 1]);
}

#endif

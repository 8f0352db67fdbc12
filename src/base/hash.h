/* SPDX-License-Identifier: GPL-2.0-only */
/* Fast non-cryptographic hashing (deterministic: no seeds, no pointers). */
#ifndef BTFC_BASE_HASH_H
#define BTFC_BASE_HASH_H

#include "base/common.h"

static inline uint64_t hash_mix(uint64_t h)
{
	h ^= h >> 33;
	h *= 0xff51afd7ed558ccdULL;
	h ^= h >> 33;
	h *= 0xc4ceb9fe1a85ec53ULL;
	h ^= h >> 33;
	return h;
}

static inline uint64_t hash_combine(uint64_t h, uint64_t v)
{
	return hash_mix(h ^ (v + 0x9e3779b97f4a7c15ULL + (h << 6) + (h >> 2)));
}

/* Hash of n bytes; 8 bytes per step. */
static inline uint64_t hash_bytes(const void *p, size_t n)
{
	const unsigned char *s = p;
	uint64_t h = 0x9e3779b97f4a7c15ULL ^ (n * 0x100000001b3ULL);

	while (n >= 8) {
		h = (h ^ load64(s)) * 0x100000001b3ULL;
		h ^= h >> 29;
		s += 8;
		n -= 8;
	}
	if (n) {
		uint64_t t = 0;

#if __BYTE_ORDER__ == __ORDER_LITTLE_ENDIAN__
		/*
		 * The value memcpy() would give, from two loads: a variable
		 * memcpy becomes byte stores and a wider reload that the
		 * CPU cannot forward (a stall on every string interned).
		 */
		if (n >= 4)
			t = load32(s) | (uint64_t)load32(s + n - 4) >> (8 * (8 - n)) << 32;
		else
			t = s[0] | (uint64_t)s[n / 2] << (8 * (n / 2)) | (uint64_t)s[n - 1] << (8 * (n - 1));
#else
		memcpy(&t, s, n);
#endif
		h = (h ^ t) * 0x100000001b3ULL;
	}
	return hash_mix(h);
}

#endif

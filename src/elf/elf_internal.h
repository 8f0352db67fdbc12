/* SPDX-License-Identifier: GPL-2.0-only */
#ifndef BTFC_ELF_INTERNAL_H
#define BTFC_ELF_INTERNAL_H

#include <libelf.h>

#include "elf/elf.h"

struct belf_cache {
	struct bslice data;
	bool done, owned;
	struct belf_ranged *ranged;	/* BELF_DEBUG_RANGED: read by ranges (reloc.c) */
};

struct belf {
	char *path;
	int fd;
	void *map;
	size_t size;
	Elf *elf;
	int cls;
	bool big, swap;
	uint16_t machine, etype;
	size_t nsec, shstrndx;
	struct belf_section *secs;
	struct belf_cache *cache;	/* per section: prepared debug data */
	uint64_t *rel_addr;		/* ET_REL: per-section layout address */
	struct belf_sym *syms;
	size_t nsyms;
	bool syms_loaded;
	/* belf_debug_opt(BELF_DEBUG_LENIENT): relocations skipped, the first one's description */
	bool lenient;
	size_t nskipped;
	char skipped[200];
};

static inline uint32_t belf_rd32(const struct belf *e, const uint8_t *p)
{
	uint32_t v = load32(p);
	return e->swap ? bswap32(v) : v;
}

static inline uint64_t belf_rd64(const struct belf *e, const uint8_t *p)
{
	uint64_t v = load64(p);
	return e->swap ? bswap64(v) : v;
}

/* w bytes (1..8) at p in the file's byte order. */
static inline uint64_t belf_get_n(const struct belf *e, const uint8_t *p, int w)
{
	uint64_t v = 0;
	int i;

	if (!e->swap && w == 8)
		return load64(p);
	if (!e->swap && w == 4)
		return load32(p);
	if (e->big)
		for (i = 0; i < w; i++)
			v = v << 8 | p[i];
	else
		for (i = w - 1; i >= 0; i--)
			v = v << 8 | p[i];
	return v;
}

static inline void belf_put_n(const struct belf *e, uint8_t *p, int w, uint64_t v)
{
	int i;

	if (!e->swap && w == 8) {
		store64(p, v);
		return;
	}
	if (!e->swap && w == 4) {
		store32(p, (uint32_t)v);
		return;
	}
	if (e->big)
		for (i = w - 1; i >= 0; i--, v >>= 8)
			p[i] = (uint8_t)v;
	else
		for (i = 0; i < w; i++, v >>= 8)
			p[i] = (uint8_t)v;
}

/* debug.c */
int belf_decompress(struct belf *e, size_t idx, struct bslice in, bool legacy,
		    struct bslice *out, bool *owned, struct diag *d);
/* reloc.c */
int belf_relocate(struct belf *e, size_t target, uint8_t *buf, size_t len, struct diag *d);
/*
 * Section target's range reader: NULL if it cannot be read by ranges
 * (then *err 0: relocate it whole) or its relocations fail the checks
 * belf_relocate() makes (*err, with the same message in d).
 */
struct belf_ranged *belf_ranged_new(struct belf *e, size_t target, int *err, struct diag *d);
void belf_ranged_free(struct belf_ranged *r);

#endif

/* SPDX-License-Identifier: GPL-2.0-only */
#ifndef BTFC_ELF_INTERNAL_H
#define BTFC_ELF_INTERNAL_H

#include <libelf.h>

#include "elf/elf.h"

struct belf_cache {
	struct bslice data;
	bool done, owned;
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

/* debug.c */
int belf_decompress(struct belf *e, size_t idx, struct bslice in, bool legacy,
		    struct bslice *out, bool *owned, struct diag *d);
int belf_relocate(struct belf *e, size_t target, uint8_t *buf, size_t len, struct diag *d);

#endif

/* SPDX-License-Identifier: GPL-2.0-only */
/*
 * Bump allocator: many small allocations, freed all at once.  One arena per
 * worker thread; an arena is never shared between threads.
 */
#ifndef BTFC_BASE_ARENA_H
#define BTFC_BASE_ARENA_H

#include <stddef.h>

struct arena_chunk;

struct arena {
	struct arena_chunk *head;
	char *cur, *end;
	size_t chunk_size;	/* size of the next chunk to allocate */
	size_t total;		/* bytes obtained from mem_alloc, for stats */
};

void arena_init(struct arena *a, size_t first_chunk);
void arena_free(struct arena *a);
/* 16-byte aligned, uninitialised; NULL on allocation failure. */
void *arena_alloc(struct arena *a, size_t n);
void *arena_zalloc(struct arena *a, size_t n);

#endif

// SPDX-License-Identifier: GPL-2.0-only
#include "base/arena.h"

#include <stddef.h>
#include <stdint.h>
#include <string.h>

#include "base/mem.h"

struct arena_chunk {
	struct arena_chunk *next;
	size_t size;
	size_t used;		/* once a newer chunk is the head */
	_Alignas(16) char data[];
};

void arena_init(struct arena *a, size_t first_chunk)
{
	memset(a, 0, sizeof(*a));
	a->chunk_size = first_chunk ? first_chunk : 64 * 1024;
}

void arena_free(struct arena *a)
{
	struct arena_chunk *c = a->head, *n;

	/* the bytes never handed out were never written: kept blocks (mem.c) need not clear them */
	for (; c; c = n) {
		n = c->next;
		mem_free_written(c, offsetof(struct arena_chunk, data) +
					    (c == a->head ? (size_t)(a->cur - c->data) : c->used));
	}
	a->head = NULL;
	a->cur = a->end = NULL;
	a->total = 0;
}

void *arena_alloc(struct arena *a, size_t n)
{
	struct arena_chunk *c;
	size_t sz;
	char *p;

	n = (n + 15) & ~(size_t)15;
	if ((size_t)(a->end - a->cur) >= n) {
		p = a->cur;
		a->cur += n;
		return p;
	}
	/* chunk_size counts the header: big chunks stay whole huge pages (base/mem.c) */
	sz = a->chunk_size > sizeof(*c) ? a->chunk_size - sizeof(*c) : 0;
	if (sz < n)
		sz = n;
	if (sz > SIZE_MAX - sizeof(*c))
		return NULL;
	c = mem_alloc(sizeof(*c) + sz);
	if (!c)
		return NULL;
	mem_tag(c, "arena");
	c->size = sz;
	if (a->head)
		a->head->used = (size_t)(a->cur - a->head->data);
	c->next = a->head;
	a->head = c;
	a->total += sz;
	if (a->chunk_size < 16 * 1024 * 1024)
		a->chunk_size *= 2;
	a->cur = c->data + n;
	a->end = c->data + sz;
	return c->data;
}

void *arena_zalloc(struct arena *a, size_t n)
{
	void *p = arena_alloc(a, n);

	if (p)
		memset(p, 0, n);
	return p;
}

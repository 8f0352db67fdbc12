// SPDX-License-Identifier: GPL-2.0-only
#include "base/mem.h"

#include <malloc.h>

#include <errno.h>
#include <stdatomic.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

static atomic_ulong fail_at;	/* 0 = off */
static atomic_ulong alloc_count;

void mem_fail_after(unsigned long n)
{
	atomic_store(&alloc_count, 0);
	atomic_store(&fail_at, n);
}

unsigned long mem_alloc_count(void)
{
	return atomic_load(&alloc_count);
}

static inline int should_fail(void)
{
	unsigned long f = atomic_load_explicit(&fail_at, memory_order_relaxed);

	if (__builtin_expect(f == 0, 1))
		return 0;
	return atomic_fetch_add(&alloc_count, 1) + 1 >= f;
}

void *mem_alloc(size_t n)
{
	if (should_fail())
		return NULL;
	return malloc(n ? n : 1);
}

void *mem_zalloc(size_t n)
{
	if (should_fail())
		return NULL;
	return calloc(1, n ? n : 1);
}

void *mem_array(size_t nmemb, size_t size)
{
	if (size && nmemb > SIZE_MAX / size)
		return NULL;
	if (should_fail())
		return NULL;
	return calloc(nmemb ? nmemb : 1, size ? size : 1);
}

void *mem_realloc(void *p, size_t n)
{
	if (should_fail())
		return NULL;
	return realloc(p, n ? n : 1);
}

void mem_free(void *p)
{
	free(p);
}

char *mem_strdup(const char *s)
{
	size_t n = strlen(s) + 1;
	char *d = mem_alloc(n);

	if (d)
		memcpy(d, s, n);
	return d;
}

int mem_grow(void **data, size_t *cap, size_t elem, size_t need)
{
	size_t ncap;
	void *p;

	if (need <= *cap)
		return 0;
	ncap = *cap < 16 ? 16 : *cap + *cap / 2;
	if (ncap < need)
		ncap = need;
	if (elem && ncap > SIZE_MAX / elem)
		return -ENOMEM;
	p = mem_realloc(*data, ncap * elem);
	if (!p)
		return -ENOMEM;
	*data = p;
	*cap = ncap;
	return 0;
}

void mem_trim(void)
{
	malloc_trim(0);
}

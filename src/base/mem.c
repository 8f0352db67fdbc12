// SPDX-License-Identifier: GPL-2.0-only
#include "base/mem.h"

#include <malloc.h>

#include <errno.h>
#include <pthread.h>
#include <stdatomic.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>

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

/*
 * Big blocks.  A few arrays of a kernel-sized run are tens to hundreds of
 * MB (the pre-dedup types, their index, dedup's maps), and every 4 KiB
 * page of them costs a fault when first written: about 80,000 faults for
 * vmlinux, several microseconds each on a virtual machine.  Blocks of at
 * least BIG_MIN bytes are therefore mapped on their own, 2 MiB-aligned
 * and advised for transparent huge pages (one fault per 2 MiB where the
 * system allows it; plain pages where it does not), grown with mremap
 * (pages move, bytes are not copied) and unmapped when freed, so the
 * memory leaves the RSS at once.  A registry tells mem_free() and
 * mem_realloc() which pointers are big blocks: the allocator's own state,
 * behind a lock that only 2 MiB-aligned pointers ever take (malloc
 * hardly ever returns one).  Below 4 MiB a huge page costs more than the
 * faults it saves: the kernel clears all of its 2 MiB (a one-module run's
 * arrays over the base's ids, a few hundred KB, were 2% slower over the
 * 1,138 modules as huge-page blocks despite 40% fewer faults), and
 * rounding vmlinux's mid-size vectors up would add 20 MB to its RSS.
 *
 * A thread that uses a mem_cache (mem_cache_use) keeps the big blocks it
 * frees of up to POOL_BLOCK bytes in it (up to the cache's limit in all)
 * and is handed them out again, best fit, instead of unmapping them: a
 * batch run frees and asks again for the same few blocks once per module
 * (dedup's maps over the base's ids), and a kept block costs neither an
 * munmap (a TLB shootdown on every CPU that ran the process) nor the
 * faults of fresh pages; zeroed allocations clear what they ask for.  A
 * request bigger than every kept block takes the largest and grows it
 * (only the rest is fresh).  mem_cache_free() unmaps what a cache kept.
 * Caches are their users' objects, in use by one thread at a time through
 * a thread-local pointer, so two encoders in one process never reach
 * each other's blocks.  None by default: a one-shot run (a dedup) would
 * only hold kept blocks in its RSS while it maps others (+9 MB peak on a
 * dedup of vmlinux x8); a kernel image's encode keeps the blocks its
 * DWARF reader frees after the conversion, which its index and dedup's
 * maps ask for next (encode.c).
 * In a batch this also keeps the address ranges of huge-page blocks out
 * of reuse by the module files it maps while other threads free (see
 * docs/internals.md, Memory).
 */
#define HPAGE		(2ul << 20)
#define BIG_SLOTS	256
#if defined(__SANITIZE_ADDRESS__)
#define BIG_MIN		SIZE_MAX	/* AddressSanitizer checks bounds of malloc blocks only */
#elif defined(__has_feature)
#if __has_feature(address_sanitizer)
#define BIG_MIN		SIZE_MAX
#endif
#endif
#ifndef BIG_MIN
#define BIG_MIN		(4ul << 20)
#endif

#define POOL_SLOTS	8
#define POOL_BLOCK	(16ul << 20)

struct big {
	void *p;
	size_t len;		/* mapped bytes, a multiple of HPAGE */
	size_t dirty;		/* bytes from the start that may not be zero, before the owner's */
	const char *tag;	/* mem_tag(), or NULL */
};
/* The allocator's registry of big blocks (like malloc's own state). */
static struct big big_reg[BIG_SLOTS];
static pthread_mutex_t big_lock = PTHREAD_MUTEX_INITIALIZER;

struct mem_cache {
	pthread_mutex_t lock;	/* taken inside big_lock */
	struct big pool[POOL_SLOTS];	/* freed blocks kept for reuse */
	size_t bytes, limit;
};
/* The cache the calling thread frees into and allocates from, or NULL. */
static __thread struct mem_cache *cur_cache;

static size_t hpage_round(size_t n)
{
	return (n + HPAGE - 1) & ~(HPAGE - 1);
}

/* len bytes (a multiple of HPAGE) of fresh zero pages, HPAGE-aligned. */
static void *map_aligned(size_t len)
{
	uint8_t *m, *a;

	if (len > SIZE_MAX - HPAGE)
		return NULL;
	m = mmap(NULL, len + HPAGE, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
	if (m == MAP_FAILED)
		return NULL;
	a = (uint8_t *)(((uintptr_t)m + HPAGE - 1) & ~(HPAGE - 1));
	if (a > m)
		munmap(m, (size_t)(a - m));
	if (m + HPAGE > a)
		munmap(a + len, (size_t)(m + HPAGE - a));
	madvise(a, len, MADV_HUGEPAGE);
	return a;
}

/* The registry slot of p, or NULL; big_lock held. */
static struct big *big_find(const void *p)
{
	size_t i;

	for (i = 0; i < BIG_SLOTS; i++)
		if (big_reg[i].p == p)
			return &big_reg[i];
	return NULL;
}

static inline int maybe_big(const void *p)
{
	return p && ((uintptr_t)p & (HPAGE - 1)) == 0;
}

/*
 * A block kept in c (may be NULL) taken out, its length in *got: the
 * smallest of at least len bytes, else the largest (the caller grows it:
 * its pages are still fewer fresh ones).
 */
static void *pool_take(struct mem_cache *c, size_t len, size_t *got, size_t *dirty)
{
	struct big *best = NULL;
	void *p = NULL;
	size_t i;

	if (!c)
		return NULL;
	pthread_mutex_lock(&c->lock);
	for (i = 0; i < POOL_SLOTS; i++) {
		if (!c->pool[i].p)
			continue;
		if (!best || (best->len < len ? c->pool[i].len > best->len
					      : c->pool[i].len >= len && c->pool[i].len < best->len))
			best = &c->pool[i];
	}
	if (best) {
		p = best->p;
		*got = best->len;
		*dirty = best->dirty;
		c->bytes -= best->len;
		best->p = NULL;
	}
	pthread_mutex_unlock(&c->lock);
	return p;
}

/* Keep a freed block in c (may be NULL) for reuse; 0 if it does not fit (the caller unmaps it). */
static int pool_put(struct mem_cache *c, void *p, size_t len, size_t dirty)
{
	size_t i;
	int kept = 0;

	if (!c)
		return 0;
	pthread_mutex_lock(&c->lock);
	if (len <= POOL_BLOCK && c->bytes + len <= c->limit)
		for (i = 0; i < POOL_SLOTS && !kept; i++)
			if (!c->pool[i].p) {
				c->pool[i].p = p;
				c->pool[i].len = len;
				c->pool[i].dirty = dirty < len ? dirty : len;
				c->bytes += len;
				kept = 1;
			}
	pthread_mutex_unlock(&c->lock);
	return kept;
}

static int big_resize(void *p, size_t n, size_t written, void **out);

/*
 * A big block of at least n bytes, the first n zeroed if zero is set, or
 * NULL (the caller falls back to malloc).
 */
static void *big_alloc(size_t n, int zero)
{
	size_t len, got = 0, dirty = 0;
	struct big *b;
	void *p = NULL;

	if (n > SIZE_MAX / 2)	/* hpage_round() would wrap */
		return NULL;
	len = hpage_round(n);
	pthread_mutex_lock(&big_lock);
	b = big_find(NULL);
	if (b && (p = pool_take(cur_cache, len, &got, &dirty)) != NULL) {
		b->p = p;
		b->len = got;
		b->tag = NULL;
		/* what a zeroed allocation leaves as it was (past n), or all */
		b->dirty = !zero ? dirty : dirty > n ? dirty : 0;
	}
	pthread_mutex_unlock(&big_lock);
	if (p) {
		void *np;

		if (got < len) {	/* grown by fresh pages, which are zero */
			big_resize(p, n, 0, &np);
			if (!np) {
				big_resize(p, 0, dirty, &np);	/* back to the pool */
				return NULL;
			}
			p = np;
		}
		if (zero)	/* the rest was never written: leave its pages be */
			memset(p, 0, dirty < n ? dirty : n);
		return p;
	}
	if (!b || !(p = map_aligned(len)))
		return NULL;
	pthread_mutex_lock(&big_lock);
	b = big_find(NULL);	/* another thread may have taken that slot */
	if (b) {
		b->p = p;
		b->len = len;
		b->dirty = 0;
		b->tag = NULL;
	}
	pthread_mutex_unlock(&big_lock);
	if (!b) {
		munmap(p, len);
		return NULL;
	}
	return p;	/* fresh mappings are zero */
}

/*
 * If p is a big block: resize it to at least n bytes (n 0: free it, of
 * which only the first written bytes may not be zero), put the result in
 * *out (NULL on failure) and return 1.  Else return 0.
 */
static int big_resize(void *p, size_t n, size_t written, void **out)
{
	struct big *b;
	size_t len, old;
	int kept = 0;
	void *np;

	if (!maybe_big(p))
		return 0;
	pthread_mutex_lock(&big_lock);
	b = big_find(p);
	old = b ? b->len : 0;
	if (b && n == 0) {
		b->p = NULL;
		kept = pool_put(cur_cache, p, old, written > b->dirty ? written : b->dirty);
	}
	pthread_mutex_unlock(&big_lock);
	if (!b)
		return 0;
	*out = p;
	if (n == 0) {
		if (!kept)
			munmap(p, old);
		*out = NULL;
		return 1;
	}
	if (n <= old)
		return 1;
	len = hpage_round(n);
	/* grow where it lies, else move the pages to a new aligned range */
	np = mremap(p, old, len, 0);
	if (np == MAP_FAILED) {
		void *dst = map_aligned(len);

		np = dst ? mremap(p, old, len, MREMAP_MAYMOVE | MREMAP_FIXED, dst) : MAP_FAILED;
		if (np == MAP_FAILED) {
			if (dst)
				munmap(dst, len);
			*out = NULL;
			return 1;
		}
		madvise(np, len, MADV_HUGEPAGE);
	}
	pthread_mutex_lock(&big_lock);
	b->p = np;
	b->len = len;
	pthread_mutex_unlock(&big_lock);
	*out = np;
	return 1;
}

void *mem_alloc(size_t n)
{
	void *p;

	if (should_fail())
		return NULL;
	if (n >= BIG_MIN && (p = big_alloc(n, 0)))
		return p;
	return malloc(n ? n : 1);
}

void *mem_zalloc(size_t n)
{
	void *p;

	if (should_fail())
		return NULL;
	if (n >= BIG_MIN && (p = big_alloc(n, 1)))
		return p;
	return calloc(1, n ? n : 1);
}

void *mem_array(size_t nmemb, size_t size)
{
	size_t n = nmemb * size;
	void *p;

	if (size && nmemb > SIZE_MAX / size)
		return NULL;
	if (should_fail())
		return NULL;
	if (n >= BIG_MIN && (p = big_alloc(n, 1)))
		return p;
	return calloc(nmemb ? nmemb : 1, size ? size : 1);
}

void *mem_realloc(void *p, size_t n)
{
	void *np;

	if (should_fail())
		return NULL;
	if (big_resize(p, n ? n : 1, 0, &np))
		return np;
	/* a malloc block growing big moves into a big block */
	if (n >= BIG_MIN && (np = big_alloc(n, 0))) {
		if (p) {
			size_t have = malloc_usable_size(p);

			memcpy(np, p, have < n ? have : n);
			free(p);
		}
		return np;
	}
	return realloc(p, n ? n : 1);
}

void mem_free(void *p)
{
	mem_free_written(p, SIZE_MAX);
}

void mem_free_written(void *p, size_t written)
{
	void *unused;

	if (big_resize(p, 0, written, &unused))
		return;
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

int mem_grow_tag(void **data, size_t *cap, size_t elem, size_t need, const char *tag)
{
	int r = mem_grow(data, cap, elem, need);

	if (!r)
		mem_tag(*data, tag);
	return r;
}

struct mem_cache *mem_cache_new(size_t limit)
{
	struct mem_cache *c = calloc(1, sizeof(*c));

	if (c) {
		pthread_mutex_init(&c->lock, NULL);
		c->limit = limit;
	}
	return c;
}

size_t mem_cache_set_limit(struct mem_cache *c, size_t limit)
{
	size_t was = 0;

	if (c) {
		pthread_mutex_lock(&c->lock);
		was = c->limit;
		c->limit = limit;
		pthread_mutex_unlock(&c->lock);
	}
	return was;
}

struct mem_cache *mem_cache_use(struct mem_cache *c)
{
	struct mem_cache *was = cur_cache;

	cur_cache = c;
	return was;
}

void mem_cache_pass(struct mem_cache *from, struct mem_cache *to)
{
	struct big kept[POOL_SLOTS];
	size_t i;

	if (!from)
		return;
	pthread_mutex_lock(&from->lock);
	memcpy(kept, from->pool, sizeof(kept));
	memset(from->pool, 0, sizeof(from->pool));
	from->bytes = 0;
	pthread_mutex_unlock(&from->lock);
	for (i = 0; i < POOL_SLOTS; i++)
		if (kept[i].p && !pool_put(to, kept[i].p, kept[i].len, kept[i].dirty))
			munmap(kept[i].p, kept[i].len);
}

void mem_cache_free(struct mem_cache *c)
{
	if (!c)
		return;
	if (cur_cache == c)
		cur_cache = NULL;
	mem_cache_pass(c, NULL);
	pthread_mutex_destroy(&c->lock);
	free(c);
}

void mem_tag(const void *p, const char *tag)
{
	struct big *b;

	if (!maybe_big(p))
		return;
	pthread_mutex_lock(&big_lock);
	if ((b = big_find(p)))
		b->tag = tag;
	pthread_mutex_unlock(&big_lock);
}

static int cmp_block(const void *a, const void *b)
{
	const struct mem_block *x = a, *y = b;

	return x->len < y->len ? 1 : x->len > y->len ? -1 : 0;
}

size_t mem_blocks(struct mem_block *out, size_t max, size_t *n, size_t *total)
{
	struct mem_block all[BIG_SLOTS];
	size_t i, k = 0, sum = 0;

	pthread_mutex_lock(&big_lock);
	for (i = 0; i < BIG_SLOTS; i++)
		if (big_reg[i].p) {
			all[k].len = big_reg[i].len;
			all[k++].tag = big_reg[i].tag;
			sum += big_reg[i].len;
		}
	pthread_mutex_unlock(&big_lock);
	qsort(all, k, sizeof(all[0]), cmp_block);
	*n = k;
	*total = sum;
	if (k > max)
		k = max;
	memcpy(out, all, k * sizeof(all[0]));
	return k;
}

void mem_give_back(void)
{
	malloc_trim(0);
}

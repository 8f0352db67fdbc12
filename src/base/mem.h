/* SPDX-License-Identifier: GPL-2.0-only */
/*
 * Allocation wrappers.  Every allocation in btfc goes through these so that
 * the fault-injection mode (fail the Nth allocation, see mem_fail_after())
 * reaches every call site.  They never abort: callers check for NULL and
 * return -ENOMEM.
 *
 * Blocks of 4 MiB and more are mapped on their own, 2 MiB-aligned, with
 * transparent huge pages advised, grown by moving pages (mremap) and
 * unmapped on free, or kept for reuse in a mem_cache (see mem.c);
 * callers see no difference.  Sanitizer builds (ASan) keep them in malloc
 * so that bounds stay checked.
 */
#ifndef BTFC_BASE_MEM_H
#define BTFC_BASE_MEM_H

#include <stddef.h>

void *mem_alloc(size_t n);
void *mem_zalloc(size_t n);
void *mem_realloc(void *p, size_t n);
void *mem_array(size_t nmemb, size_t size);	/* zeroed, overflow-checked */
void mem_free(void *p);
/* mem_free() of a block whose bytes past the first written were never written. */
void mem_free_written(void *p, size_t written);
char *mem_strdup(const char *s);

/*
 * Fault injection, for tests only: after mem_fail_after(n), allocation
 * number n (1-based, counted from this call) and all later ones fail.
 * 0 disables.  This is the one process-wide mutable state in base/ and it
 * is set once by the CLI from BTFC_FAIL_ALLOC before any work starts.
 */
void mem_fail_after(unsigned long n);
/*
 * Allocations counted since mem_fail_after() (ULONG_MAX: count, never
 * fail), for sizing fault-injection runs (BTFC_COUNT_ALLOC in the CLI).
 */
unsigned long mem_alloc_count(void);

/*
 * Give the heap memory freed so far (every thread's malloc arenas) back
 * to the system: pages freed by threads that are done count in RSS until
 * then.  Changes no one's allocations.
 */
void mem_give_back(void);

/*
 * A cache of big blocks: a thread using it (mem_cache_use) keeps the big
 * blocks it frees, up to limit bytes in all (16 MiB each), and takes them
 * back when it asks for big blocks again, instead of unmapping them and
 * faulting fresh pages in.  For runs that free and ask for the same blocks
 * again and again (a batch of modules), or whose next step asks for as
 * much as the last one frees; see mem.c.  The cache is its creator's: it
 * may be used by several threads at once; mem_cache_free() unmaps what it
 * kept.
 */
struct mem_cache;
struct mem_cache *mem_cache_new(size_t limit);
void mem_cache_free(struct mem_cache *c);
/* Keep at most limit bytes from now on (0: only hand out what is kept); returns the old limit. */
size_t mem_cache_set_limit(struct mem_cache *c, size_t limit);
/* The calling thread frees into and allocates from c (NULL: none); returns the previous. */
struct mem_cache *mem_cache_use(struct mem_cache *c);
/* Hand what from kept over to to (NULL, or what does not fit: unmapped). */
void mem_cache_pass(struct mem_cache *from, struct mem_cache *to);

/*
 * Accounting, for --stats: name a big block (a no-op for others; the name
 * must outlive the block: a string literal), and list the big blocks
 * alive (mapped bytes, name or NULL), largest first: at most max of
 * them, the count of all of them in *n and their bytes in *total (blocks
 * a mem_cache keeps are not listed).
 */
struct mem_block {
	size_t len;
	const char *tag;
};
void mem_tag(const void *p, const char *tag);
size_t mem_blocks(struct mem_block *out, size_t max, size_t *n, size_t *total);

/*
 * Grow *data (an array of elem-sized items with capacity *cap) so that it
 * holds at least need items.  Grows by 1.5x.  Returns 0 or -ENOMEM; on
 * failure *data and *cap are unchanged.
 */
int mem_grow(void **data, size_t *cap, size_t elem, size_t need);

/* mem_grow() naming the block it grew (mem_tag). */
int mem_grow_tag(void **data, size_t *cap, size_t elem, size_t need, const char *tag);

/* The common case (room left) costs a compare, not a call. */
#define VEC_RESERVE(ptr, cap, need) \
	((size_t)(need) <= (cap) ? 0 : mem_grow((void **)&(ptr), &(cap), sizeof(*(ptr)), (need)))
#define VEC_RESERVE_TAG(ptr, cap, need, tag) \
	((size_t)(need) <= (cap) ? 0 : mem_grow_tag((void **)&(ptr), &(cap), sizeof(*(ptr)), (need), (tag)))

#endif

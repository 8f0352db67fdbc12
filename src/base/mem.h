/* SPDX-License-Identifier: GPL-2.0-only */
/*
 * Allocation wrappers.  Every allocation in btfc goes through these so that
 * the fault-injection mode (fail the Nth allocation, see mem_fail_after())
 * reaches every call site.  They never abort: callers check for NULL and
 * return -ENOMEM.
 *
 * Blocks of 4 MiB and more are mapped on their own, 2 MiB-aligned, with
 * transparent huge pages advised, grown by moving pages (mremap) and
 * unmapped on free, or kept for reuse after mem_keep_freed() (see mem.c);
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
 * Return free memory the allocator keeps (other threads' arenas included,
 * and the kept big blocks) to the system: pages freed by threads that are
 * done count in RSS until then.
 */
void mem_trim(void);

/*
 * Keep big blocks freed from now on (up to bytes in all, 16 MiB each) for
 * reuse instead of unmapping them; 0 (the default) stops that, and blocks
 * kept so far stay until handed out again or mem_release_kept().  For
 * runs that free and ask for the same blocks again and again (a batch of
 * modules), or whose next step asks for as much as the last one frees;
 * see mem.c.  Returns the previous limit.
 */
size_t mem_keep_freed(size_t bytes);

/* Unmap the kept big blocks. */
void mem_release_kept(void);

/*
 * Grow *data (an array of elem-sized items with capacity *cap) so that it
 * holds at least need items.  Grows by 1.5x.  Returns 0 or -ENOMEM; on
 * failure *data and *cap are unchanged.
 */
int mem_grow(void **data, size_t *cap, size_t elem, size_t need);

/* The common case (room left) costs a compare, not a call. */
#define VEC_RESERVE(ptr, cap, need) \
	((size_t)(need) <= (cap) ? 0 : mem_grow((void **)&(ptr), &(cap), sizeof(*(ptr)), (need)))

#endif

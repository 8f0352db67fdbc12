/* SPDX-License-Identifier: GPL-2.0-only */
/*
 * Parallel for-loop: run fn(ctx, worker, item) for item in [0, n) on up to
 * nthreads threads (the calling thread is one of them).  Items are handed
 * out dynamically, so which worker runs an item varies between runs: fn
 * must write its result to a slot indexed by item, never to shared state
 * in completion order, to keep output deterministic.  Returns the first
 * non-zero return of fn in item order (later items are still run unless
 * a failure stopped the loop early).  When threads (or the memory to track
 * them) cannot be had, everything runs on the calling thread instead.
 */
#ifndef BTFC_BASE_POOL_H
#define BTFC_BASE_POOL_H

#include <stddef.h>

typedef int (*pool_fn)(void *ctx, unsigned worker, size_t item);

int pool_for(unsigned nthreads, size_t n, pool_fn fn, void *ctx);
/*
 * Ordered pipeline: work(ctx, worker, item) runs for every item on nthreads
 * threads, the calling thread (worker 0) and nthreads - 1 new ones, at
 * most window items ahead of the consumer; consume(ctx, item) runs
 * strictly in item order, never two at once, on whichever thread is free
 * when an item's predecessors are consumed (for nthreads 1: each item
 * right after its work).  So per-item state can live in window slots
 * (item % window).  A non-zero return of consume stops the pipeline and is
 * returned; work's return value is for the caller to record (it does not
 * stop anything).
 */
typedef int (*pool_consume_fn)(void *ctx, size_t item);
int pool_pipeline(unsigned nthreads, size_t n, size_t window, pool_fn work,
		  pool_consume_fn consume, void *ctx);

/* Online CPUs (at least 1). */
unsigned pool_ncpus(void);

#endif

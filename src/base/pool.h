/* SPDX-License-Identifier: GPL-2.0-only */
/*
 * Parallel for-loop: run fn(ctx, worker, item) for item in [0, n) on up to
 * nthreads threads (the calling thread is one of them).  Items are handed
 * out dynamically, so which worker runs an item varies between runs: fn
 * must write its result to a slot indexed by item, never to shared state
 * in completion order, to keep output deterministic.  Returns the first
 * non-zero return of fn in item order (later items are still run unless
 * a failure stopped the loop early), or -ENOMEM/-EAGAIN if threads could
 * not be started (then everything runs on the calling thread).
 */
#ifndef BTFC_BASE_POOL_H
#define BTFC_BASE_POOL_H

#include <stddef.h>

typedef int (*pool_fn)(void *ctx, unsigned worker, size_t item);

int pool_for(unsigned nthreads, size_t n, pool_fn fn, void *ctx);
/* Online CPUs (at least 1). */
unsigned pool_ncpus(void);

#endif

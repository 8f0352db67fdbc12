/* SPDX-License-Identifier: GPL-2.0-only */
/* The base cache (see base_cache.c): a base BTF and its dedup tables, kept across runs. */
#ifndef BTFC_CLI_BASE_CACHE_H
#define BTFC_CLI_BASE_CACHE_H

#include "base/diag.h"

struct btf;
struct btf_dedup_base;

/*
 * Parse the base BTF at path for a one-module encode, with its prepared
 * dedup base (*pb, NULL when the cache is off or not usable for path:
 * then the run prepares what it needs itself).  From the cache when it
 * has this file, else parsed, prepared and saved for the next run.  Free
 * *pb before *base.
 */
int base_cache_load(const char *path, struct btf **base, struct btf_dedup_base **pb,
		    struct diag *d);

#endif

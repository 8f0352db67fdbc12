/* SPDX-License-Identifier: GPL-2.0-only */
/*
 * C header generation from BTF (doc section 6): a compilable
 * vmlinux.h-style header.  Output goes through emit(ctx, bytes, n); a
 * non-zero return from emit aborts the dump with that error.
 */
#ifndef BTFC_BTF_DUMP_H
#define BTFC_BTF_DUMP_H

#include "btf/btf.h"

typedef int (*btf_emit_fn)(void *ctx, const char *s, size_t n);

/* Every type of btf (base types included for split BTF), bpftool-style wrapper. */
int btf_dump_c(const struct btf *btf, btf_emit_fn emit, void *ctx, struct diag *d);

#endif

/* SPDX-License-Identifier: GPL-2.0-only */
/*
 * BTF as text.  Output goes through emit(ctx, bytes, n); a non-zero
 * return from emit aborts the dump with that error (and a message in d).
 *
 * btf_dump_c (dump_c.c): C header generation (docs/btf.md 6), a
 * compilable vmlinux.h-style header.
 * btf_dump_raw, btf_dump_json (print.c): bpftool's `format raw` text and
 * its `-j` JSON, byte for byte (bpftool v7.1, libbpf 1.1).
 */
#ifndef BTFC_BTF_DUMP_H
#define BTFC_BTF_DUMP_H

#include "btf/btf.h"

typedef int (*btf_emit_fn)(void *ctx, const char *s, size_t n);

/* Every type of btf (base types included for split BTF), bpftool-style wrapper. */
int btf_dump_c(const struct btf *btf, btf_emit_fn emit, void *ctx, struct diag *d);
/* The own types of btf (a split BTF's only, as bpftool lists them), one per line. */
int btf_dump_raw(const struct btf *btf, btf_emit_fn emit, void *ctx, struct diag *d);
/* The same as one JSON object, {"types":[...]}, and a newline. */
int btf_dump_json(const struct btf *btf, btf_emit_fn emit, void *ctx, struct diag *d);

#endif

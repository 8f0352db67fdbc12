/* SPDX-License-Identifier: GPL-2.0-only */
/* Distilled base BTF and relocation (docs/btf.md 5). */
#ifndef BTFC_BTF_DISTILL_H
#define BTFC_BTF_DISTILL_H

#include "btf/btf.h"

/*
 * Split BTF s (on its base B) -> a distilled base B' and a split S' on it
 * (libbpf btf__distill_base).  *out_split's base is *out_base: free the
 * split first.  Fails (EINVAL) when s is not split or refers to a base
 * FUNC/VAR/DATASEC/DECL_TAG.
 */
int btf_distill_base(const struct btf *s, struct btf **out_base, struct btf **out_split,
		     struct diag *d);

struct btf_reloc_miss {
	uint32_t id;		/* distilled-base type id */
	char msg[200];		/* "[id] KIND 'name': why" */
};

struct btf_reloc_report {
	struct btf_reloc_miss *items;
	size_t n, cap, max;	/* set max before calling */
};

/*
 * Split s on a distilled base -> the same types on target base b2 (libbpf
 * btf__relocate; what the kernel does at module load).  Every distilled
 * type without exactly one match in b2 is listed in rep (if given) and the
 * call fails with ENOENT; *out is then NULL.
 */
int btf_relocate(const struct btf *s, const struct btf *b2, struct btf **out,
		 struct btf_reloc_report *rep, struct diag *d);
void btf_reloc_report_free(struct btf_reloc_report *rep);

#endif

/* SPDX-License-Identifier: GPL-2.0-only */
/*
 * Compare two BTFs as type graphs, independent of type ids, record order
 * and string offsets.
 *
 * Equality is exactly that of shared/tools/btfcanon.py (the project's
 * reference): every own type gets a structural colour, refined
 * Weisfeiler-Lehman style from its own attributes (kind, name, sizes,
 * member names and offsets, enumerators, linkage, ...; the same fields
 * bpftool's raw dump shows) and the colours of the types it references,
 * round after round until the number of colour classes stops growing
 * (at most 64 rounds), separately for each side.  The two multisets of
 * final colours are compared.  Consequences kept on purpose:
 *
 *  - split BTF: only the split's own types are compared; a reference into
 *    the base is compared by its numeric id (not by structure);
 *  - ARRAY and FUNC_PROTO carry no name; anonymous types compare by
 *    structure only; strings matter only as names;
 *  - when the two sides stabilise after a different number of rounds,
 *    btfcanon's colours are incomparable and it counts every type as
 *    different.  only_a/only_b reproduce that; the entries (and
 *    aligned_only_*) compare both sides at the same depth instead, which
 *    is what names the types that really differ.
 *
 * No printing: btf_diff() fills a result; btf_diff_describe() formats one
 * entry into a caller buffer.
 */
#ifndef BTFC_BTF_DIFF_H
#define BTFC_BTF_DIFF_H

#include "btf/btf.h"

struct btf_diff_opts {
	uint32_t ignore_kinds;	/* bit (1u << kind): not counted (still refined) */
};

enum btf_diff_how {
	BTF_DIFF_CHANGED,	/* counterpart found; own attributes differ */
	BTF_DIFF_RETARGETED,	/* same own attributes; a reference now points elsewhere */
	BTF_DIFF_PROPAGATED,	/* differs only because referenced types differ */
	BTF_DIFF_ONLY_A,	/* no counterpart in B */
	BTF_DIFF_ONLY_B,	/* no counterpart in A */
};

struct btf_diff_entry {
	uint32_t a_id, b_id;	/* 0 when absent on that side */
	uint32_t via_a;		/* A id of the pair this one was matched through, or 0 */
	uint32_t slot;		/* RETARGETED/PROPAGATED: first differing reference slot */
	uint8_t how;
};

struct btf_diff {
	/* btfcanon.py-compatible counts. */
	uint32_t count_a, count_b;		/* own types compared */
	uint32_t only_a, only_b;		/* multiset differences */
	uint32_t kinds_a[NR_BTF_KINDS], kinds_b[NR_BTF_KINDS];	/* own types per kind */
	unsigned rounds_a, rounds_b;		/* refinement rounds run on each side */
	/* The same comparison with both sides at depth max(rounds_a, rounds_b). */
	uint32_t aligned_only_a, aligned_only_b;
	/*
	 * Every differing type of the aligned comparison: CHANGED and
	 * RETARGETED pairs first (the causes), then PROPAGATED pairs, then
	 * ONLY_A, then ONLY_B; by A id (B id for ONLY_B) within each group.
	 */
	struct btf_diff_entry *entries;
	size_t nentries;
};

static inline bool btf_diff_equal(const struct btf_diff *r)
{
	return !r->only_a && !r->only_b;
}

/* 0 or -errno (-ENOMEM; d gets the message). */
int btf_diff(const struct btf *a, const struct btf *b, const struct btf_diff_opts *opts,
	     struct btf_diff *out, struct diag *d);
void btf_diff_free(struct btf_diff *r);

/* "STRUCT 'foo'", "PTR (anon)", ... into buf; returns buf. */
const char *btf_diff_type_str(const struct btf *btf, uint32_t id, char *buf, size_t size);
/*
 * What differs for one entry, e.g. "member 'x' bit offset 64 -> 96" or
 * "param #1 'len' type: INT 'int' -> INT 'long int'"; empty for ONLY_*.
 * Returns buf.
 */
const char *btf_diff_describe(const struct btf *a, const struct btf *b,
			      const struct btf_diff_entry *e, char *buf, size_t size);

#endif

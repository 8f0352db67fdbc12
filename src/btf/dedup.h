/* SPDX-License-Identifier: GPL-2.0-only */
/*
 * BTF deduplication with libbpf's semantics (doc section 4).
 *
 * btf_dedup() rewrites a BTF in place so that every class of equivalent
 * types is represented by one canonical type, exactly like libbpf's
 * btf__dedup().  The default reproduces libbpf 1.1.2 (the libbpf of
 * Debian 12's pahole 1.24, which made Debian's kernel BTF) output byte for
 * byte, tie-breaking included: candidates sharing a hash are visited in
 * the order libbpf's chained hash map yields them (head insertion, order
 * reversed on every growth), which we emulate with a parity bit per entry.
 *
 * Split BTF: base types never change; split types equal to base types are
 * removed and references redirected to the base ids.
 *
 * Strings (doc 4.5): libbpf re-lays out the string section (unique strings
 * in first-reference order) only for BTF whose strings were not built by
 * its writer API.  We make that explicit: by default strings are
 * deduplicated (what libbpf does for a parsed BTF, the usual input of a
 * `dedup` command); keep_strings leaves the section exactly as it is (what
 * libbpf does for BTF built from scratch, i.e. pahole's case: the encoder
 * sets it).  Names are compared by offset, so keep_strings requires the
 * section to be unique already (btf_add_str and btf_append guarantee it).
 *
 * Output bytes depend only on the input and the options, never on
 * nr_threads.  On failure the BTF is left in an unspecified (but freeable)
 * state, as with libbpf.
 */
#ifndef BTFC_BTF_DEDUP_H
#define BTFC_BTF_DEDUP_H

#include "btf/btf.h"

/* Which libbpf's dedup to reproduce (doc 4.15). */
enum btf_dedup_compat {
	/*
	 * libbpf 1.1.x-1.5.x: TYPEDEF is a reference type (phase 5, common
	 * hash); the identical-type tolerance compares arrays exactly and
	 * structs member by member through nested arrays/structs only.
	 */
	BTF_DEDUP_LIBBPF_1_1 = 0,
	/*
	 * libbpf HEAD (2026): TYPEDEFs take part in graph equivalence
	 * (name+info hash, so Go-style typedef cycles dedup), and the
	 * identical-type tolerance is the generic depth-16 check (pointers,
	 * modifiers, protos too).  Arrays are compared correctly (both
	 * sides), not with HEAD's read-the-first-array-twice bug.
	 */
	BTF_DEDUP_LIBBPF_HEAD = 1,
};

/* Optional statistics (seconds per phase, type counts). */
enum { BTF_DEDUP_PH_PREP, BTF_DEDUP_PH_STRS, BTF_DEDUP_PH_PRIM, BTF_DEDUP_PH_STRUCT,
       BTF_DEDUP_PH_FWD, BTF_DEDUP_PH_REF, BTF_DEDUP_PH_COMPACT, BTF_DEDUP_NR_PH };

struct btf_dedup_stats {
	double secs[BTF_DEDUP_NR_PH];
	uint32_t nr_in, nr_out;		/* own types before / after */
};

struct btf_dedup_opts {
	unsigned nr_threads;		/* 0 or 1 = serial */
	bool keep_strings;		/* see above */
	enum btf_dedup_compat compat;
	struct btf_dedup_stats *stats;	/* filled in when not NULL */
};

extern const char *const btf_dedup_phase_names[BTF_DEDUP_NR_PH];

/* opts may be NULL (serial, strings deduplicated, libbpf 1.1 semantics). */
int btf_dedup(struct btf *btf, const struct btf_dedup_opts *opts, struct diag *d);

#endif

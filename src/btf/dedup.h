/* SPDX-License-Identifier: GPL-2.0-only */
/*
 * BTF deduplication with libbpf's semantics (docs/btf.md 4).
 *
 * btf_dedup() rewrites a BTF in place so that every class of equivalent
 * types is represented by one canonical type, like libbpf's btf__dedup():
 * the same type graph as libbpf 1.1.2 (the libbpf of Debian 12's pahole
 * 1.24, which made Debian's kernel BTF), with its number of types.  One
 * level (opts.exact, and inputs the two levels do not pay for) gives its
 * bytes too, tie-breaking included: candidates sharing a hash are visited
 * in the order libbpf's chained hash map yields them (head insertion,
 * order reversed on every growth), which we emulate with a parity bit per
 * entry.
 *
 * Split BTF: base types never change; split types equal to base types are
 * removed and references redirected to the base ids.
 *
 * Strings (docs/btf.md 4.5): libbpf re-lays out the string section (unique strings
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

/* Which libbpf's dedup to reproduce (docs/btf.md 4.15). */
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
	double secs[BTF_DEDUP_NR_PH];	/* with two levels: the final pass's */
	uint32_t nr_in, nr_out;		/* own types before / after */
	double serial_secs;		/* wall time with work for one thread only */
	/* two levels (see btf_dedup_opts.exact) */
	double groups_secs;		/* partition, the groups' runs, assembly (wall) */
	uint32_t ngroups;		/* 0: one level */
	uint32_t nr_kept;		/* types the groups kept: the final pass's input */
	uint64_t conflicts;		/* hypothetical-map conflicts no tolerance accepted */
	bool fallback;			/* the groups' result was dropped, one level ran */
};

struct btf_dedup_base;

struct btf_dedup_opts {
	unsigned nr_threads;		/* 0 or 1 = serial */
	bool keep_strings;		/* see above */
	enum btf_dedup_compat compat;
	struct btf_dedup_stats *stats;	/* filled in when not NULL */
	/*
	 * Split dedup only: the base already prepared by btf_dedup_base_new()
	 * (for this BTF's base and the same compat), so the run skips
	 * hashing the base.  Output is identical with or without it.
	 */
	const struct btf_dedup_base *prepared_base;
	/*
	 * BTF without base: run the reference phase type by type in libbpf's
	 * order instead of level by level (dedup_refs_levelled).  The
	 * output is the same; only the speed differs.  Levels win on merged,
	 * already deduplicated BTF, where the serial phase's lookups miss the
	 * cache (vmlinux.btf x8 at -j2: 0.03 vs 0.07 s; vmlinux + all modules:
	 * 0.02 vs 0.03 s); the serial phase wins on BTF in compile-unit order,
	 * the encoder's, where consecutive lookups meet the same few types
	 * (vmlinux before dedup: 0.11-0.13 vs 0.14-0.15 s).
	 */
	bool serial_refs;
	/*
	 * The caller vouches that every type id in the BTF is below the type
	 * count: the encoder (its merge sets each id from ids it has added),
	 * or a caller that has just parsed it without BTF_PARSE_LENIENT
	 * (btf_parse() checked them) and not changed it since.  Skips
	 * checking them, a pass over every id field: half a billion
	 * instructions on vmlinux's 4.35M types before dedup, 7 ms of CPU on
	 * vmlinux.btf x8.  Unknown kinds are still reported.  A broken promise
	 * reads past dedup's arrays, which the sanitizer builds and fuzzers
	 * report.
	 */
	bool ids_checked;
	/* Testing: root ids per window of the levelled phase (0: 256k). */
	uint32_t level_window;
	/*
	 * One level, in libbpf's order: the bytes of libbpf 1.1.2's
	 * btf__dedup().  Otherwise a BTF (split or not) that splits into
	 * groups of whole units (no references between them but to INT and
	 * FLOAT, and to the base) with copies of one another (a compiler's
	 * units, the encoder's input) is deduplicated in two levels (src/btf/dedup/groups.c,
	 * docs/parallel-dedup.md): each group alone on the threads, then one
	 * pass over what the groups kept.  The result is libbpf's type graph
	 * with its number of types (ids may be ordered differently), and
	 * the same bytes for any nr_threads.
	 */
	bool exact;
	/* Testing: own types per group (0: 128k, and only when groups pay). */
	uint32_t group_types;
	/* Testing: referenced strings from which two threads or more add them (0: 64k). */
	uint32_t strs_par_min;
	/*
	 * The first own id of each unit, ascending, where the caller knows
	 * them (the encoder's merge): the two levels cut only there, and need
	 * not find the units (a pass over every reference; a unit's types
	 * refer only to one another, to the first unit's INTs and FLOATs, and
	 * from FUNC_PROTOs and DATASECs anywhere).  Checked as the groups are
	 * copied; a broken promise makes dedup run in one level.
	 */
	const uint32_t *unit_starts;
	uint32_t nunits;
};

extern const char *const btf_dedup_phase_names[BTF_DEDUP_NR_PH];

/* opts may be NULL (serial, strings deduplicated, libbpf 1.1 semantics). */
int btf_dedup(struct btf *btf, const struct btf_dedup_opts *opts, struct diag *d);

/*
 * Prepared base for many split dedups on one base (batch encoding): the
 * base's type table, hashes and name index, built once (o->nr_threads
 * threads; o->compat must match the runs' compat; unless o->keep_strings,
 * string lookup indexes for base levels that lack one are built too).
 * Immutable afterwards: any number of threads may run btf_dedup() with
 * opts.prepared_base = pb at the same time.  Per-run overrides (libbpf
 * redirecting a base FWD or forward enum to a split type during one run)
 * live in the run's own state.  base must outlive pb and not change.
 * NULL on error (d says why).
 *
 *	struct btf_dedup_opts o = { .nr_threads = 1, .keep_strings = true };
 *	struct btf_dedup_base *pb = btf_dedup_base_new(base, &o, &d);
 *	... in each worker, for each module BTF m split on base:
 *	struct btf_dedup_opts mo = o;  mo.prepared_base = pb;
 *	err = btf_dedup(m, &mo, &md);
 *	... when all are done:
 *	btf_dedup_base_free(pb);
 */
struct btf_dedup_base *btf_dedup_base_new(const struct btf *base, const struct btf_dedup_opts *o,
					  struct diag *d);
void btf_dedup_base_free(struct btf_dedup_base *pb);
/*
 * The prepared base as a flat image, for a cache that outlives the process
 * (cli/base_cache.c): save writes it to dst (cap bytes, 8-aligned) and
 * returns its size (needing more than cap: nothing written; 0: this base
 * cannot be saved: a split base or one with string indexes, i.e. not
 * made with keep_strings).  load borrows an image (which must outlive the
 * result and stay unchanged) for the same base: it checks the image's
 * shape against the base, not its contents, which the caller vouches for
 * (a checksum).  NULL on error (d says why).
 */
size_t btf_dedup_base_save(const struct btf_dedup_base *pb, void *dst, size_t cap);
struct btf_dedup_base *btf_dedup_base_load(const struct btf *base, const void *img, size_t len,
					   struct diag *d);

#endif

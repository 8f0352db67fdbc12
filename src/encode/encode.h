/* SPDX-License-Identifier: GPL-2.0-only */
/*
 * encode/: DWARF -> BTF.  The pipeline (ARCHITECTURE.md, Entry points):
 *
 *   index (dwarf/)  ->  per-unit fragments, in parallel (cu.c)
 *                   ->  merge in unit order, function/variable policy (encode.c)
 *                   ->  dedup (btf/)  ->  the caller writes it
 *
 * Fragments are built by whichever worker picks a unit up, but each lands
 * in the unit's own slot and merging walks the slots in unit order, so the
 * result does not depend on the thread count.
 */
#ifndef BTFC_ENCODE_H
#define BTFC_ENCODE_H

#include "btf/btf.h"
#include "btf/dedup.h"
#include "encode/input.h"

/*
 * Which pahole's function and variable policy to reproduce
 * (docs/pahole-policies.md).
 */
enum enc_compat {
	ENC_COMPAT_124,		/* first definition wins, exact ELF names, ELF per-CPU symbols */
	ENC_COMPAT_130,		/* every instance judged after all units; DWARF variables */
	ENC_COMPAT_131,		/* 1.30 with names cut at '.', ambiguous addresses, packed args */
};

typedef void (*enc_log_fn)(void *ctx, const char *line);

struct enc_worker;

struct enc_opts {
	enum enc_compat compat;
	bool floats;		/* FLOAT kind (else INT of the same size) */
	bool enum64;		/* ENUM64 for 8-byte enums (else truncated ENUM) */
	bool vars;		/* per-CPU VARs + .data..percpu DATASEC */
	bool decl_tags, type_tags;
	bool decl_tag_kfuncs;	/* "bpf_kfunc"/"bpf_fastcall" tags from .BTF_ids kfunc sets */
	bool force;		/* skip invalid variables instead of failing */
	/*
	 * 1.30/1.31 (pahole's consistent_func): drop functions whose instances
	 * disagree, or that pahole finds unsafe to call (unexpected register;
	 * 1.31: uncertain location, ambiguous address).  Without it every
	 * matched function is kept.
	 */
	bool consistent_func;
	bool optimized_func;	/* 1.30: foo may match only foo.isra.0 (1.31 always does) */
	bool global_vars;	/* 1.30/1.31: every global variable, a DATASEC per section */
	bool attributes;	/* kfuncs' KF_ARENA_* pointers through address_space(1) tags */
	bool no_dedup;		/* return the merged, undeduplicated BTF */
	/*
	 * Decode every DIE whole, with no attribute filter and no leaf runs,
	 * look DIEs up where the unit's copy holds them as in any other unit
	 * (dw_die_at), and (btf_encode_file) relocate .debug_info whole
	 * (dwarf_input_open_whole): the same output, slower; tests and the
	 * fuzzer compare the two.
	 */
	bool slow_paths;
	/*
	 * BTF for the struct view (pahole -F dwarf's text), not for output: a
	 * BTF_ALIGN_TAG decl tag on each struct, union and member with
	 * DW_AT_alignment (the __aligned__ pahole prints from DWARF), and a
	 * multi-dimensional array as arrays of arrays (pahole prints each
	 * dimension from DWARF; its BTF encoder multiplies them into one).
	 */
	bool struct_view;
	bool distilled_base;	/* btf_encode_file, split in place: also .BTF.base */
	/* The split base's dedup tables, prepared once (batch mode); NULL = per run. */
	const struct btf_dedup_base *dedup_base;
	unsigned jobs;		/* worker threads (>= 1) */
	/*
	 * With jobs == 1: convert with these buffers, kept by the caller
	 * across runs on one thread (batch mode; enc_worker_new()), instead
	 * of fresh ones.  NULL: fresh.  The output is the same either way.
	 */
	struct enc_worker *worker;
	const uint32_t *lang_exclude;	/* DW_LANG_* codes to skip, 0-terminated */
	/*
	 * Units from which an output without base starts its string section
	 * as a copy of .debug_str (a kernel image); 0: the default, 1,024.  Tests set
	 * 1 to run small inputs through that path (BTFC_SEED_UNITS).
	 */
	unsigned seed_units;
	int verbose;		/* > 0: notes through log */
	enc_log_fn log;
	void *log_ctx;
	/*
	 * Called as each phase starts (--stats' memory by phase): "read",
	 * "convert", "index" (policies, DATASECs, the hand-over to btf/),
	 * "dedup" (with the string re-layout and the kernel's checks),
	 * "write".  NULL: none.
	 */
	void (*phase)(void *ctx, const char *name);
	void *phase_ctx;
};

/*
 * Per-phase wall times, seconds: reading the ELF and its DWARF sections
 * (btf_encode_file's part included), conversion with the merge that
 * overlaps it in compile-unit order (merge: the time spent merging, part
 * of convert), dedup with the string re-layout, and writing the output
 * (btf_encode_file only).
 */
struct enc_stats {
	double read, convert, merge, dedup, write;
	double serial;			/* of read..dedup, the wall time of one-thread steps */
	struct btf_dedup_stats ded;	/* dedup's phases (dedup also counts the string re-layout) */
	uint64_t units, units_skipped, types_pre_dedup, funcs, vars;
};

void enc_opts_default(struct enc_opts *o);

static inline void enc_phase(const struct enc_opts *o, const char *name)
{
	if (o->phase)
		o->phase(o->phase_ctx, name);
}

/* A converting thread's buffers (IR, reference map, decode plans). */
struct enc_worker *enc_worker_new(void);
void enc_worker_free(struct enc_worker *w);

/*
 * Encode the DWARF of in as BTF: base BTF, or split BTF on base (may be
 * NULL).  On success *out holds the deduplicated BTF (byte order of the
 * ELF).  An input without any type is an error (ENODATA).
 */
int btf_encode(struct dwarf_input *in, const struct btf *base, const struct enc_opts *o,
	       struct btf **out, struct enc_stats *st, struct diag *d);


/*
 * Encode path and write the result: raw BTF to out_path, or (out_path
 * NULL) the .BTF section of path itself, through a temp file + rename.
 * base may be NULL.  Never leaves a partial file.
 */
int btf_encode_file(const char *path, const char *out_path, const struct btf *base,
		    const struct enc_opts *o, struct enc_stats *st, struct diag *d);
/*
 * About how much memory btf_encode_file() takes at -j1 on path, from its
 * sections' sizes alone (batch mode schedules by it), in bytes: 0 if it
 * is not an ELF file.
 */
uint64_t btf_encode_estimate(const char *path);

/*
 * The struct view's DWARF path (pahole -F dwarf -C TYPE), in lookup.c:
 * which unit to read, and only its types.
 *
 * enc_find_type_unit: the first compile unit from unit `from` on with a
 * struct, union, enum or typedef named name that is not a declaration (at
 * any depth, as pahole's cu__find_type_by_name sees a unit), indexing
 * more units of a lazily opened input as it goes.  0 with *unit, or
 * -ENOENT (no unit has one).
 */
int enc_find_type_unit(struct dwarf_input *in, const char *name, size_t from, size_t *unit,
		       struct diag *d);
/*
 * The types of unit i alone, in DIE order, neither deduplicated nor with
 * functions or variables: a compile unit as pahole loads it.  o's type
 * options apply (floats, enum64, struct_view ...).
 */
int btf_encode_unit(struct dwarf_input *in, size_t i, const struct enc_opts *o, struct btf **out,
		    struct diag *d);

#endif

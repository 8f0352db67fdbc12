/* SPDX-License-Identifier: GPL-2.0-only */
#ifndef BTFC_ENCODE_INTERNAL_H
#define BTFC_ENCODE_INTERNAL_H

#include <pthread.h>

#include "base/arena.h"
#include "base/strset.h"
#include "elf/elf.h"
#include "encode/builder.h"
#include "encode/encode.h"

/* pahole 1.30's ELF function table entry: a STT_FUNC symbol, in its sort order. */
struct fn130 {
	const char *name;
	uint32_t plen;			/* length before the first '.' */
};

/* A section variables may live in (1.30/1.31): PROGBITS or NOBITS. */
struct var_sec {
	const char *name;
	uint64_t addr, size;		/* addr: libdwfl's layout in ET_REL files */
	size_t idx;			/* ELF section index */
	bool include;			/* .data..percpu with vars; all with global_vars */
};

/* A STT_OBJECT symbol, for the 1.30/1.31 test of variables at offset 0. */
struct obj_sym {
	const char *name;
	size_t shndx;
};

/* ELF facts the per-unit conversion needs; immutable while workers run. */
struct enc_syms {
	struct strset funcs;		/* names of STT_FUNC symbols (1.24) */
	/*
	 * 1.31: names cut at the first '.', .cold/.part pieces left out; 1.30:
	 * every symbol's cut name (what a DWARF name may match through
	 * optimized_func).
	 */
	struct strset funcs_prefix;
	struct strset ambiguous;	/* 1.31: cut names pahole finds at several addresses */
	struct fn130 *fn130;		/* 1.30: the table its exact lookups search */
	size_t nfn130;
	bool fn130_suffixes;		/* 1.30: some symbol has a '.' */
	bool have_funcs;
	const int8_t *param_ops;	/* DW_OP_regN of each register parameter, -1: unknown */
	unsigned nparam_regs;		/* parameters passed in registers (pahole's count) */
	struct percpu_sym {
		uint64_t addr, size;
		const char *name;
	} *percpu;
	size_t npercpu;
	bool have_percpu;		/* the file has .data..percpu */
	bool is_rel;			/* ET_REL (a module) */
	struct strset kfuncs;		/* kfuncs named by .BTF_ids set8 kfunc sets */
	uint32_t *kfunc_flags;		/* by kfuncs offset: the set entry's flags */
	size_t kfunc_flags_cap;
	uint64_t percpu_base;		/* section address (0 for ET_REL) */
	struct var_sec *secs;		/* 1.30/1.31, in section index order */
	size_t nsecs;
	struct obj_sym *objs;		/* 1.30/1.31: sorted by name, then section */
	size_t nobjs;
};

/* A FUNC_PROTO + FUNC (+ tags) candidate, kept or dropped at merge time. */
struct frag_func {
	const char *name;
	uint32_t first, last;		/* local ids */
	bool unexpected_reg;		/* 1.30+: a parameter in an unexpected register */
	bool uncertain_loc;		/* 1.31: a packed struct passed on the stack */
	bool suffix_only;		/* 1.30+: matched only a suffixed ELF symbol */
	bool kfunc_ok;			/* 1.30: the exact name lookup that kfunc tags use finds it */
	const char *elf_name;		/* 1.30: the ELF symbol matched (its messages) */
};

struct frag_var {
	uint32_t id, last;		/* local ids of the VAR and its last decl tag */
	uint64_t offset, size;
	uint32_t sec;			/* 1.30/1.31: index into enc_syms.secs */
};

/*
 * One unit's BTF records (host order, string offsets already those of the
 * output BTF, type ids local: record i has id i + 1): ids 1..ntypes are
 * types, then function groups, then VARs with their tags.
 */
struct cu_frag {
	uint32_t *words;
	size_t nwords, words_cap;
	uint32_t *recs;			/* word offset of each record */
	size_t nrecs, recs_cap;
	uint32_t ntypes;
	struct frag_func *funcs;
	size_t nfuncs, funcs_cap;
	struct frag_var *vars;
	size_t nvars, vars_cap;
	uint8_t *ubuf;			/* the unit's DWARF, read by the walk (dw_cursor_init_copy) */
	size_t ubuf_cap;
	uint64_t loc_min;		/* lowest location list read (UINT64_MAX: none) */
	char *notes;			/* verbose lines, '\n'-separated */
	size_t notes_len, notes_cap;
	bool skipped;			/* excluded language or no DWARF types */
	bool has_int;			/* id int_id is the unit's "int" */
	uint32_t int_id;
	uint32_t synth_id;		/* a made-up array index type, or 0 */
	int err;
	struct diag diag;
};

struct enc_ctx {
	const struct enc_opts *o;
	struct dwarf_input *in;
	const struct enc_syms *syms;
	struct enc_builder *out;	/* strings are interned here, under str_lock */
	pthread_mutex_t *str_lock;	/* NULL: one worker, no cache in front of out's set */
	/*
	 * out's string section was seeded with .debug_str (encb_seed_strs):
	 * where bit p is set, the string at .debug_str + p has offset p + 1
	 * (set atomically by str_off() as suffixes are met).  NULL: every
	 * string is interned by its text.
	 */
	uint64_t *str_first;
	bool ref_direct;		/* in-unit DIE references index a per-worker array */
};

/* ---- policy.c: pahole 1.30's and 1.31's function and variable policy ---- */

/* Tables for enc_opts.compat 1.30/1.31 (nfuncs: the STT_FUNC symbols). */
int policy_syms_load(struct enc_syms *sy, struct belf *e, const struct enc_opts *o,
		     size_t nfuncs, struct diag *d);
void policy_syms_free(struct enc_syms *sy);
/*
 * May a DWARF function of this name be encoded?  *exact: an ELF name equal
 * to it was found; *elf_name (1.30): the symbol matched.
 */
bool policy_func_match(const struct enc_syms *sy, const struct enc_opts *o, const char *name,
		       bool *exact, const char **elf_name);
/* The first variable section, in index order, holding addr; NULL if none. */
const struct var_sec *policy_var_sec(const struct enc_syms *sy, uint64_t addr);
/* Is there a STT_OBJECT symbol name in section shndx (a kept section)? */
bool policy_obj_in_sec(const struct enc_syms *sy, const char *name, size_t shndx);
/* Variable names pahole leaves out (__UNIQUE_ID... prefixes). */
bool policy_var_name_skipped(const char *name);
/* pahole's btf_name_valid(): [A-Za-z_.][A-Za-z0-9_.]*, at most 128 bytes. */
bool policy_name_valid(const char *name);
/* decl_tag_kfuncs: "bpf_kfunc" (and "bpf_fastcall") on FUNC func_id of a kfunc. */
int policy_kfunc_tags(const struct enc_opts *o, const struct enc_syms *sy, struct enc_builder *out,
		      const char *name, uint32_t func_id);

/*
 * Every instance of every function (1.30/1.31), kept as merged (their
 * type ids out's) and judged once all units are in and out's id index is
 * built: pahole compares prototypes type by type.
 */
struct fstate;
struct finst;
struct fpolicy {
	const struct enc_opts *o;
	const struct enc_syms *sy;
	struct strset names;
	struct fstate *fs;		/* per name, in first-seen order */
	size_t nfs, fs_cap;
	uint32_t *fidx;			/* names offset -> fs index */
	size_t fidx_cap;
	struct finst *insts;		/* per instance, in unit order */
	size_t ninsts, insts_cap;
	uint32_t *pool;			/* their FUNC_PROTO and decl tag records */
	size_t npool, pool_cap;
};
int fpol_init(struct fpolicy *p, const struct enc_opts *o, const struct enc_syms *sy);
void fpol_free(struct fpolicy *p);
/*
 * One instance, in unit order: its FUNC_PROTO (proto_words words, type ids
 * already out's) and decl tag records (their target set at emission).
 */
int fpol_save(struct fpolicy *p, const struct frag_func *ff, const uint32_t *proto,
	      size_t proto_words, const uint32_t *tags, size_t tag_words);
/*
 * Judge each name's instances as pahole does, drop what it drops, emit the
 * rest in name order (by out's id index); counts them in
 * *nfuncs.
 */
int fpol_emit(struct fpolicy *p, struct enc_builder *out, uint64_t *nfuncs, struct diag *d);

/* Ready a worker kept from an earlier run (enc_opts.worker) for a new one. */
void enc_worker_recycle(struct enc_worker *w);
/* Convert unit i of ctx->in into frag (zeroed or recycled with cu_frag_reset). */
int enc_convert_unit(struct enc_ctx *ctx, struct enc_worker *w, size_t i, struct cu_frag *frag);
/* Empty frag for reuse, keeping its buffers. */
void cu_frag_reset(struct cu_frag *f);
void cu_frag_free(struct cu_frag *f);

#endif

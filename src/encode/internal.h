/* SPDX-License-Identifier: GPL-2.0-only */
#ifndef BTFC_ENCODE_INTERNAL_H
#define BTFC_ENCODE_INTERNAL_H

#include <pthread.h>

#include "base/arena.h"
#include "base/strset.h"
#include "encode/encode.h"

/* ELF facts the per-unit conversion needs; immutable while workers run. */
struct enc_syms {
	struct strset funcs;		/* names of STT_FUNC symbols */
	struct strset funcs_prefix;	/* the same, cut at the first '.' (modern policy) */
	struct strset ambiguous;	/* prefixes with several addresses (not .cold/.part) */
	bool have_funcs;
	const uint8_t *param_regs;	/* DWARF registers of the register parameters */
	unsigned nparam_regs;
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
};

/* A FUNC_PROTO + FUNC (+ tags) candidate, kept or dropped at merge time. */
struct frag_func {
	const char *name;
	uint32_t first, last;		/* local ids */
	bool unexpected_reg;		/* modern: a parameter in an unexpected register */
	bool uncertain_loc;		/* modern: a by-value struct of unsure location */
	bool suffix_only;		/* modern: matched only a suffixed ELF symbol */
	unsigned bad_param;		/* 1-based parameter the flags refer to */
};

struct frag_var {
	uint32_t id, last;		/* local ids of the VAR and its last decl tag */
	uint64_t offset, size;
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
	struct btf *out;		/* strings are interned here, under str_lock */
	pthread_mutex_t *str_lock;	/* NULL: one worker, no cache in front of out's set */
	/*
	 * out's string section was seeded with .debug_str (btf_seed_strs):
	 * where bit p is set, the string at .debug_str + p has offset p + 1
	 * (set atomically by str_off() as suffixes are met).  NULL: every
	 * string is interned by its text.
	 */
	uint64_t *str_first;
	bool ref_direct;		/* in-unit DIE references index a per-worker array */
};

/* Ready a worker kept from an earlier run (enc_opts.worker) for a new one. */
void enc_worker_recycle(struct enc_worker *w);
/* Convert unit i of ctx->in into frag (zeroed or recycled with cu_frag_reset). */
int enc_convert_unit(struct enc_ctx *ctx, struct enc_worker *w, size_t i, struct cu_frag *frag);
/* Empty frag for reuse, keeping its buffers. */
void cu_frag_reset(struct cu_frag *f);
void cu_frag_free(struct cu_frag *f);

#endif

/* SPDX-License-Identifier: GPL-2.0-only */
/*
 * One unit's conversion, shared by encode/'s per-unit files: the IR a
 * unit's DIEs become (cu.c, pass 1: walk, resolve, group), which of its
 * functions and variables are kept (select.c) and their emission as BTF
 * records (emit.c, pass 2).  A worker converts one unit at a time.
 */
#ifndef BTFC_ENCODE_WORKER_H
#define BTFC_ENCODE_WORKER_H

#include "base/arena.h"
#include "encode/internal.h"

enum ir_kind {
	IR_INT, IR_FLOAT, IR_PTR, IR_CONST, IR_VOLATILE, IR_RESTRICT, IR_TYPEDEF,
	IR_STRUCT, IR_UNION, IR_FWD, IR_ENUM, IR_ARRAY, IR_PROTO, IR_TYPE_TAG,
};

enum ir_child_kind { CH_MEMBER, CH_ENUMERATOR, CH_PARAM, CH_VARARG, CH_DIM };

struct ir_type {
	uint8_t kind;
	bool fwd_union, enum_signed, has_vararg;
	bool complex;		/* INT: a complex or imaginary float (BTF has neither) */
	const char *name;
	uint64_t ref;		/* DWARF reference of the target, 0 = void */
	uint64_t size;		/* bytes */
	uint32_t enc;		/* INT encoding */
	uint32_t first, n;	/* children, after grouping */
	uint64_t die;		/* for messages */
	uint32_t ref_id;	/* ref resolved to a local id */
	int32_t tag;		/* PTR: newest TYPE_TAG; TYPE_TAG: the previous one; -1 none */
	int32_t nest;		/* the struct or union whose DIE holds this one's (a type
				   tag: its pointer), or -1 */
	uint32_t nmemb;		/* members seen so far (decl tag component index) */
};

/* A btf_decl_tag annotation, attached at emission. */
enum { TAG_ON_TYPE, TAG_ON_FUNC, TAG_ON_VAR };
struct ir_decl_tag {
	const char *value;
	uint8_t on;
	uint32_t target;	/* IR type, function or variable index */
	int32_t component;	/* member or parameter index, -1 for the whole */
};

/* 40 bytes: a module's unit records thousands (twice, with the grouped copy). */
struct ir_child {
	uint32_t parent;	/* IR index */
	uint8_t kind;
	bool value_signed;
	bool unexp;		/* CH_PARAM (1.30+): in a register other than the ABI's */
	const char *name;
	uint64_t ref;
	union {			/* by kind */
		uint64_t bit_offset;	/* CH_MEMBER */
		int64_t value;		/* CH_ENUMERATOR value, CH_DIM element count */
		uint64_t die;		/* CH_PARAM: its DIE, for location checks */
	};
	uint32_t bit_size;
	uint32_t ref_id;
};

struct ir_func {
	const char *name;
	uint64_t die, ret;
	uint32_t first, n;	/* params in children */
	uint32_t ret_id;
	uint32_t nparams;	/* formal parameters seen so far */
	bool declaration, external, named_params, vararg, keep, suffix_only;
	bool candidate;		/* could be kept: its parameters are decoded */
	bool kfunc_ok;		/* 1.30: found by the exact lookup kfunc tags use */
	const char *elf_name;	/* 1.30: the ELF symbol matched */
};

struct ir_var {
	const char *name;
	uint64_t die, type, spec, addr;
	bool declaration, external, has_addr, artificial;
	bool addr_first;	/* 1.30+: the location starts with DW_OP_addr (addr) */
	uint32_t type_id;
	const struct percpu_sym *ps;	/* 1.24, selected: its ELF symbol */
	const struct var_sec *sec;	/* 1.30+, selected: its section */
	uint64_t size;		/* 1.30+: its type's size */
};

/*
 * DIE offset -> local id + 1.  References inside the current unit (nearly
 * all) index a direct array by offset: one word per byte of the unit,
 * value + 1 (0 = absent), cleared for the next unit through the log of
 * the positions set.  Others (ref_addr, type units, dwz) go to the hash
 * table, generation-stamped so clearing it is O(1).
 */
struct refmap {
	uint64_t *keys;
	uint32_t *vals, *gens;
	size_t cap, n;
	uint32_t gen;
	uint32_t *direct;
	uint64_t dbase, dlen, dcap;	/* unit's [off, end) in .debug_info */
	uint32_t *dlog;			/* positions set in direct */
	size_t dlog_n, dlog_cap;
};

/* Most entries a unit's length asks refmap_reset() for up front (it grows past them). */
#define REFMAP_HINT_MAX (1u << 20)

int refmap_reset(struct refmap *m, size_t expect);
int refmap_direct(struct refmap *m, const struct dw_unit *u);
int refmap_put_hash(struct refmap *m, uint64_t key, uint32_t val);
bool refmap_find_hash(const struct refmap *m, uint64_t key, uint32_t *val);

/* The direct array's case inline (nearly every put), the hash table's not. */
static inline int refmap_put(struct refmap *m, uint64_t key, uint32_t val)
{
	if (key - m->dbase < m->dlen) {
		uint32_t *slot = &m->direct[key - m->dbase];

		if (!*slot) {
			if (VEC_RESERVE(m->dlog, m->dlog_cap, m->dlog_n + 1))
				return -ENOMEM;
			m->dlog[m->dlog_n++] = (uint32_t)(key - m->dbase);
		}
		*slot = val + 1;
		return 0;
	}
	return refmap_put_hash(m, key, val);
}

/* As refmap_put(): the direct array's case inline. */
static inline bool refmap_find(const struct refmap *m, uint64_t key, uint32_t *val)
{
	if (key - m->dbase < m->dlen) {
		uint32_t v = m->direct[key - m->dbase];

		*val = v - 1;
		return v != 0;
	}
	return refmap_find_hash(m, key, val);
}

/* One slot of a worker's string cache: 24 bytes, one cache line per probe. */
struct scache_slot {
	const char *key;	/* string in .debug_str or the cache's copy; NULL = empty */
	uint32_t hash;		/* low bits of the key's hash */
	uint32_t len;
	uint32_t val;		/* string offset in the output BTF */
	uint32_t pad;
};

struct str_cache {
	struct scache_slot *slots;
	size_t cap, n;
	/*
	 * Keys outside .debug_str (inline DW_FORM_string names in
	 * .debug_info, the alternate file's strings) are copied here: a
	 * lookup compares bytes, and reading them where they lie would fault
	 * back in the pages of units given back long ago (34 MB of vmlinux's
	 * .debug_info at the end of a -j2 run).
	 */
	struct arena copies;
};

static inline void scache_free(struct str_cache *c)
{
	mem_free(c->slots);
	arena_free(&c->copies);
	c->slots = NULL;
	c->cap = c->n = 0;
}

/*
 * Names of one to three characters, the ones gcc writes inline
 * (DW_FORM_string): vmlinux has 725 k references to a few thousand texts.
 * Keyed by their bytes, direct-mapped: a hit costs no strlen, hash or
 * string compare.  0 = empty (no such name is empty).
 */
#define SHORT_SLOTS 4096
struct short_slot {
	uint32_t key, off;
};

struct enc_worker {
	struct short_slot shorts[SHORT_SLOTS];
	struct dw_die die, die2;
	struct refmap map;
	struct ir_type *types;
	size_t ntypes, types_cap;
	struct ir_child *kids, *kids_sorted;
	size_t nkids, kids_cap, sorted_cap;
	const struct ir_child *grouped;	/* kids, or kids_sorted when they were not grouped */
	uint32_t last_parent;	/* of the newest child */
	bool split;		/* some parent's children are not one run */
	struct ir_func *funcs;
	size_t nfuncs, funcs_cap;
	struct ir_var *vars;
	size_t nvars, vars_cap;
	struct ir_decl_tag *tags;
	size_t ntags, tags_cap;
	uint32_t dims_next;	/* struct_view: id of the next inner dimension's ARRAY */
	/*
	 * 1.30+: parameters (DIE offsets) whose concrete instances were in an
	 * unexpected register: pahole counts that against the abstract one too.
	 */
	uint64_t *unexp_origins;
	size_t nunexp, unexp_cap;
	uint8_t *packed;	/* 1.31, per type: 0 not inferred, 1 not packed, 2 packed */
	size_t packed_cap, packed_n;	/* packed_n: entries valid for this unit */
	uint32_t *count;	/* per type: children, for grouping */
	size_t count_cap;
	/* Containers open at each depth of the walk: IR index, or -1. */
	int64_t *open;
	int *open_kind;		/* 0 type, 1 function, -1 none */
	size_t open_cap;
	struct str_cache scache_text;
	struct dw_filter *filter;	/* the attributes decoded */
	size_t resolved_types, resolved_kids;	/* resolve_all progress in this unit */
	/* Current unit. */
	struct enc_ctx *ctx;
	const struct dw_unit *unit;
	/* its cursor (on the unit's copy): lookups by reference into it read that */
	const struct dw_cursor *home;
	struct cu_frag *frag;
	int64_t int_type;	/* IR index of the unit's "int", or -1 */
	bool check_names;	/* not a C unit: names are checked and made C identifiers */
	/* Types nested in structs (ir_type.nest) come before them, as pahole adds them. */
	bool nested;		/* some type nests: emission permutes (emit.c) */
	uint32_t *perm;		/* IR index -> record position, when nested */
	uint32_t *perm_order;	/* record position -> IR index */
	size_t perm_cap;
	/* Partial units the unit imports (DW_TAG_imported_unit): unit DIE references. */
	uint64_t *imports;
	size_t nimports, imports_cap;
	/* The first type signature no type unit defines (enc_sig()): fails the unit. */
	bool badsig_set;
	uint64_t badsig_die, badsig;
	struct diag *d;
};

/* Containers open at a depth (enc_worker.open_kind). */
enum { OPEN_NONE = -1, OPEN_TYPE = 0, OPEN_FUNC = 1, OPEN_MEMBER = 2, OPEN_PARAM = 3,
       OPEN_VAR = 4 };

#define FUNC_PARENT (1u << 31)	/* child of an ir_func, not an ir_type */

/* ---- cu.c ---- */

/* A -v note, into the fragment's notes (printed in unit order). */
/* cu.c: the walk's attribute filter (its leaf shapes and other_attrs) */
struct dw_filter *enc_walk_filter(void);
void enc_note(struct enc_worker *w, const char *fmt, ...) PRINTF_LIKE(2, 3);
/* A -v note about a DIE: "FILE: DIE 0x...: " and the text. */
void enc_note_die(struct enc_worker *w, uint64_t die, const char *fmt, ...) PRINTF_LIKE(3, 4);
/* Local id for a DWARF type reference; pulls foreign DIEs in. */
int enc_resolve(struct enc_worker *w, uint64_t ref, uint32_t *id);
/* The DIE a type signature names; 0, and the unit fails, when no type unit does. */
uint64_t enc_sig(struct enc_worker *w, uint64_t die_off, uint64_t sig);
/* The DIE at ref: from the unit's copy when it is the unit's (dw_die_at_home). */
static inline int enc_die_at(struct enc_worker *w, uint64_t ref, struct dw_die *die,
			     struct diag *d)
{
	return w->home ? dw_die_at_home(w->home, ref, die, d) : dw_die_at(w->ctx->in->dw, ref, die, d);
}
/* A reference attribute of die (0 if absent), signatures through enc_sig(). */
static inline uint64_t enc_ref(struct enc_worker *w, const struct dw_die *die, unsigned at)
{
	const struct dw_attr *a = dw_attr(die, at);

	if (!a)
		return 0;
	if (likely(a->cls == DW_CL_REF))
		return a->u;
	return a->cls == DW_CL_SIG ? enc_sig(w, die->off, a->u) : 0;
}

/* ---- select.c: which functions and variables (pahole's policies) ---- */

/* Could this subprogram be kept?  (The parameter-name rule comes later.) */
bool enc_func_candidate(struct enc_worker *w, struct ir_func *f);
/* 1.30+: a nameless concrete instance takes its origin's name and return type. */
void enc_func_from_origin(struct enc_worker *w, const struct dw_die *die, struct ir_func *f);
/* 1.30+: parameter idx of a function: its origin's name and type, its register. */
int enc_param_modern(struct enc_worker *w, struct ir_child *c, const struct dw_die *die,
		     uint32_t idx);
/* After the walk: mark the functions kept. */
void enc_select_funcs(struct enc_worker *w);
/* The variables kept (before grouping: resolving their types may import DIEs). */
int enc_select_vars(struct enc_worker *w);
/* 1.30+: what pahole finds wrong with an instance (unexpected register, uncertain location). */
void enc_func_flags(struct enc_worker *w, const struct ir_func *f, struct frag_func *ff);
/* pahole's tag__size() of the type at local id (grouped children needed). */
uint64_t enc_ir_size(const struct enc_worker *w, uint32_t id, int depth);

/* ---- emit.c ---- */

/* Pass 2: the grouped IR as BTF records into the worker's fragment. */
int enc_emit_unit(struct enc_worker *w);

#endif

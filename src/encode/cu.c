// SPDX-License-Identifier: GPL-2.0-only
/*
 * One unit's DWARF -> a BTF fragment.
 *
 * Pass 1 walks the unit's DIEs once, in order, and records every type DIE
 * as an IR entry (local BTF id = IR index + 1) with its children (members,
 * enumerators, parameters, array dimensions) and the function and
 * variable candidates.  Pass 2 emits the IR as BTF records, resolving DWARF
 * references through a DIE-offset -> id map.  A reference leaving the unit
 * (ref_addr, type units, dwz) pulls the referenced DIE's subtree into the
 * IR on demand.
 *
 * What pahole 1.24 does is the reference for every choice below; where it
 * fails (atomic, complex floats) we degrade instead, with a note.
 */
#include <pthread.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>

#include "base/arena.h"
#include "base/hash.h"
#include "base/mem.h"
#include "encode/internal.h"

enum ir_kind {
	IR_INT, IR_FLOAT, IR_PTR, IR_CONST, IR_VOLATILE, IR_RESTRICT, IR_TYPEDEF,
	IR_STRUCT, IR_UNION, IR_FWD, IR_ENUM, IR_ARRAY, IR_PROTO, IR_TYPE_TAG,
};

enum ir_child_kind { CH_MEMBER, CH_ENUMERATOR, CH_PARAM, CH_VARARG, CH_DIM };

struct ir_type {
	uint8_t kind;
	bool fwd_union, enum_signed, has_vararg;
	const char *name;
	uint64_t ref;		/* DWARF reference of the target, 0 = void */
	uint64_t size;		/* bytes */
	uint32_t enc;		/* INT encoding */
	uint32_t first, n;	/* children, after grouping */
	uint64_t die;		/* for messages */
	uint32_t ref_id;	/* ref resolved to a local id */
	int32_t tag;		/* PTR: newest TYPE_TAG; TYPE_TAG: the previous one; -1 none */
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

static void scache_free(struct str_cache *c)
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
	struct cu_frag *frag;
	int64_t int_type;	/* IR index of the unit's "int", or -1 */
	struct diag *d;
};

/*
 * The attributes anything here reads (visit() and its helpers, loc.c's
 * location checks, dw_skip_children()'s DW_AT_sibling); the decoder skips
 * the rest unread (decl_file/line/column alone are half of a member's).
 */
static const uint16_t wanted_attrs[] = {
	DW_AT_sibling, DW_AT_location, DW_AT_name, DW_AT_byte_size, DW_AT_bit_offset,
	DW_AT_bit_size, DW_AT_low_pc, DW_AT_high_pc, DW_AT_language, DW_AT_producer,
	DW_AT_const_value, DW_AT_lower_bound, DW_AT_upper_bound, DW_AT_abstract_origin,
	DW_AT_count, DW_AT_data_member_location, DW_AT_declaration, DW_AT_encoding,
	DW_AT_external, DW_AT_specification, DW_AT_type, DW_AT_ranges, DW_AT_data_bit_offset,
	DW_AT_alignment, DW_AT_linkage_name, DW_AT_artificial,
};

/*
 * Leaves (leaf_run()): members, prototype parameters and enumerators whose
 * values are only the ones add_member(), add_param() and add_enumerator()
 * read, in the classes they take whole.
 */
enum { LF_NAME, LF_TYPE, LF_LOC, LF_BIT_SIZE, LF_DATA_BIT_OFFSET };
enum { LF_VALUE = LF_TYPE };
static const struct dw_leaf leaves[] = {
	{ .tag = DW_TAG_member, .n = 5,
	  .at = { [LF_NAME] = DW_AT_name, [LF_TYPE] = DW_AT_type,
		  [LF_LOC] = DW_AT_data_member_location, [LF_BIT_SIZE] = DW_AT_bit_size,
		  [LF_DATA_BIT_OFFSET] = DW_AT_data_bit_offset },
	  .cls = { [LF_NAME] = DW_CL_STRING, [LF_TYPE] = DW_CL_REF, [LF_LOC] = DW_CL_CONST,
		   [LF_BIT_SIZE] = DW_CL_CONST, [LF_DATA_BIT_OFFSET] = DW_CL_CONST } },
	{ .tag = DW_TAG_formal_parameter, .n = 2,
	  .at = { [LF_NAME] = DW_AT_name, [LF_TYPE] = DW_AT_type },
	  .cls = { [LF_NAME] = DW_CL_STRING, [LF_TYPE] = DW_CL_REF } },
	{ .tag = DW_TAG_enumerator, .n = 2,
	  .at = { [LF_NAME] = DW_AT_name, [LF_VALUE] = DW_AT_const_value },
	  .cls = { [LF_NAME] = DW_CL_STRING, [LF_VALUE] = DW_CL_CONST } },
};

struct enc_worker *enc_worker_new(void)
{
	struct enc_worker *w = mem_zalloc(sizeof(struct enc_worker));
	size_t i;

	if (!w)
		return NULL;
	arena_init(&w->scache_text.copies, 64 << 10);
	if (!(w->filter = dw_filter_new(wanted_attrs, sizeof(wanted_attrs) / sizeof(wanted_attrs[0])))) {
		enc_worker_free(w);
		return NULL;
	}
	for (i = 0; i < sizeof(leaves) / sizeof(leaves[0]); i++)
		if (dw_filter_add_leaf(w->filter, &leaves[i]))
			abort();	/* the shapes above do not fit the filter */
	return w;
}

void enc_worker_recycle(struct enc_worker *w)
{
	/* Cached offsets are into the last run's output. */
	memset(w->shorts, 0, sizeof(w->shorts));
	if (w->scache_text.cap) {
		scache_free(&w->scache_text);
		arena_init(&w->scache_text.copies, 64 << 10);
	}
	/* The direct array's entries go through its log at the next map_direct(). */
	w->map.dlen = 0;
}

void enc_worker_free(struct enc_worker *w)
{
	if (!w)
		return;
	mem_free(w->map.keys);
	mem_free(w->map.vals);
	mem_free(w->map.gens);
	mem_free(w->map.direct);
	mem_free(w->map.dlog);
	mem_free(w->types);
	mem_free(w->kids);
	mem_free(w->kids_sorted);
	mem_free(w->funcs);
	mem_free(w->vars);
	mem_free(w->tags);
	mem_free(w->unexp_origins);
	mem_free(w->packed);
	mem_free(w->count);
	mem_free(w->open);
	mem_free(w->open_kind);
	scache_free(&w->scache_text);
	dw_filter_free(w->filter);
	mem_free(w);
}

void cu_frag_reset(struct cu_frag *f)
{
	f->nwords = f->nrecs = f->nfuncs = f->nvars = f->notes_len = 0;
	if (f->notes)
		f->notes[0] = 0;
	f->ntypes = f->int_id = f->synth_id = 0;
	f->skipped = f->has_int = false;
	f->loc_min = UINT64_MAX;
	f->err = 0;
	diag_clear(&f->diag);
}

void cu_frag_free(struct cu_frag *f)
{
	mem_free(f->words);
	mem_free(f->recs);
	mem_free(f->funcs);
	mem_free(f->vars);
	mem_free(f->notes);
	mem_free(f->ubuf);
	memset(f, 0, sizeof(*f));
}

PRINTF_LIKE(2, 3)
static void note(struct enc_worker *w, const char *fmt, ...)
{
	struct cu_frag *f = w->frag;
	char line[512];
	va_list ap;
	int n;

	if (!w->ctx->o->verbose)
		return;
	va_start(ap, fmt);
	n = vsnprintf(line, sizeof(line), fmt, ap);
	va_end(ap);
	if (n < 0)
		return;
	if ((size_t)n >= sizeof(line))
		n = sizeof(line) - 1;
	if (mem_grow((void **)&f->notes, &f->notes_cap, 1, f->notes_len + (size_t)n + 2))
		return;
	memcpy(f->notes + f->notes_len, line, (size_t)n);
	f->notes_len += (size_t)n;
	f->notes[f->notes_len++] = '\n';
	f->notes[f->notes_len] = 0;
}

/* ---- the reference map ---- */

/* Most entries a unit's length asks map_reset() for up front (it grows past them). */
#define MAP_HINT_MAX (1u << 20)

static int map_reset(struct refmap *m, size_t expect)
{
	size_t cap = 1024;

	while (cap < expect * 2)
		cap *= 2;
	if (cap > m->cap) {
		mem_free(m->keys);
		mem_free(m->vals);
		mem_free(m->gens);
		m->keys = mem_array(cap, sizeof(*m->keys));
		m->vals = mem_array(cap, sizeof(*m->vals));
		m->gens = mem_array(cap, sizeof(*m->gens));
		m->cap = cap;
		m->gen = 0;
		if (!m->keys || !m->vals || !m->gens) {
			m->cap = 0;
			return -ENOMEM;
		}
	}
	if (++m->gen == 0) {	/* wrapped: really clear */
		memset(m->gens, 0, m->cap * sizeof(*m->gens));
		m->gen = 1;
	}
	m->n = 0;
	return 0;
}

/* Point the direct array at unit u (plain .debug_info units only). */
static int map_direct(struct refmap *m, const struct dw_unit *u)
{
	uint64_t len = u->end - u->off;
	size_t i;

	for (i = 0; i < m->dlog_n; i++)
		m->direct[m->dlog[i]] = 0;
	m->dlog_n = 0;
	m->dbase = u->off;
	m->dlen = 0;
	if (u->in_types || len > (64u << 20))
		return 0;	/* huge (LTO) units use the hash table */
	if (len > m->dcap) {
		mem_free(m->direct);
		m->direct = mem_array(len, sizeof(*m->direct));
		if (!m->direct) {
			m->dcap = 0;
			return -ENOMEM;
		}
		m->dcap = len;
	}
	m->dlen = len;
	return 0;
}

static int map_put_hash(struct refmap *m, uint64_t key, uint32_t val);

/* The direct array's case inline (nearly every put), the hash table's not. */
static inline int map_put(struct refmap *m, uint64_t key, uint32_t val)
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
	return map_put_hash(m, key, val);
}

static __attribute__((noinline)) int map_put_hash(struct refmap *m, uint64_t key, uint32_t val)
{
	size_t j;

	if ((m->n + 1) * 2 > m->cap) {	/* grow: rehash live entries */
		struct refmap nm = { 0 };
		size_t i;

		if (map_reset(&nm, m->cap))
			return -ENOMEM;
		for (i = 0; i < m->cap; i++)
			if (m->gens[i] == m->gen)
				map_put(&nm, m->keys[i], m->vals[i]);
		mem_free(m->keys);
		mem_free(m->vals);
		mem_free(m->gens);
		nm.direct = m->direct;
		nm.dbase = m->dbase;
		nm.dlen = m->dlen;
		nm.dcap = m->dcap;
		nm.dlog = m->dlog;
		nm.dlog_n = m->dlog_n;
		nm.dlog_cap = m->dlog_cap;
		*m = nm;
	}
	for (j = hash_mix(key) & (m->cap - 1); m->gens[j] == m->gen; j = (j + 1) & (m->cap - 1))
		if (m->keys[j] == key) {
			m->vals[j] = val;
			return 0;
		}
	m->gens[j] = m->gen;
	m->keys[j] = key;
	m->vals[j] = val;
	m->n++;
	return 0;
}

static bool map_find_hash(const struct refmap *m, uint64_t key, uint32_t *val);

/* As map_put(): the direct array's case inline. */
static inline bool map_find(const struct refmap *m, uint64_t key, uint32_t *val)
{
	if (key - m->dbase < m->dlen) {
		uint32_t v = m->direct[key - m->dbase];

		*val = v - 1;
		return v != 0;
	}
	return map_find_hash(m, key, val);
}

static __attribute__((noinline)) bool map_find_hash(const struct refmap *m, uint64_t key,
						    uint32_t *val)
{
	size_t j;

	for (j = hash_mix(key) & (m->cap - 1); m->gens[j] == m->gen; j = (j + 1) & (m->cap - 1))
		if (m->keys[j] == key) {
			*val = m->vals[j];
			return true;
		}
	return false;
}

/* Stored values: local id + 1 (void is 1); 0 marks an alias DIE. */
#define MAP_VOID 1u

/* ---- pass 1: DIEs -> IR ---- */

static struct ir_type *new_type(struct enc_worker *w, const struct dw_die *die, enum ir_kind k)
{
	struct ir_type *t;

	if (VEC_RESERVE(w->types, w->types_cap, w->ntypes + 1))
		return NULL;
	t = &w->types[w->ntypes];
	memset(t, 0, sizeof(*t));
	t->kind = (uint8_t)k;
	t->die = die->off;
	t->tag = -1;
	t->name = dw_name(die);
	t->ref = dw_ref(w->ctx->in->dw, die, DW_AT_type);
	if (map_put(&w->map, die->off, (uint32_t)w->ntypes + 2))
		return NULL;
	w->ntypes++;
	return t;
}

#define FUNC_PARENT (1u << 31)	/* child of an ir_func, not an ir_type */

/*
 * n children of parent (a type, or FUNC_PARENT | a function), zeroed but
 * for parent and kind.  The parent's span (first, n) follows as children
 * come: one run of kids unless the walk interleaves another parent's, then
 * group_children() sorts.
 */
static inline __attribute__((always_inline)) struct ir_child *
new_children(struct enc_worker *w, uint32_t parent, enum ir_child_kind k, size_t n)
{
	uint32_t *first, *cnt;
	struct ir_child *c;
	size_t i;

	if (VEC_RESERVE(w->kids, w->kids_cap, w->nkids + n))
		return NULL;
	if (parent & FUNC_PARENT) {
		first = &w->funcs[parent & ~FUNC_PARENT].first;
		cnt = &w->funcs[parent & ~FUNC_PARENT].n;
	} else {
		first = &w->types[parent].first;
		cnt = &w->types[parent].n;
	}
	if (!*cnt)
		*first = (uint32_t)w->nkids;
	else if (parent != w->last_parent)
		w->split = true;
	*cnt += (uint32_t)n;
	w->last_parent = parent;
	c = &w->kids[w->nkids];
	w->nkids += n;
	memset(c, 0, n * sizeof(*c));
	for (i = 0; i < n; i++) {
		c[i].parent = parent;
		c[i].kind = (uint8_t)k;
	}
	return c;
}

static inline __attribute__((always_inline)) struct ir_child *
new_child(struct enc_worker *w, uint32_t parent, enum ir_child_kind k)
{
	return new_children(w, parent, k, 1);
}

static bool data_loc(const struct dw_die *die, uint64_t *off)
{
	const struct dw_attr *a = dw_attr(die, DW_AT_data_member_location);
	const uint8_t *p, *end;

	*off = 0;
	if (!a)
		return false;
	if (a->cls == DW_CL_CONST || a->cls == DW_CL_SCONST) {
		*off = a->u;
		return true;
	}
	if (a->cls != DW_CL_BLOCK || !a->len)
		return false;
	/* DWARF 2/3: DW_OP_plus_uconst N (or DW_OP_constu N) */
	p = a->blk;
	end = p + a->len;
	if (*p == DW_OP_plus_uconst || *p == DW_OP_constu) {
		uint64_t v = 0;
		unsigned shift = 0;

		for (p++; p < end; p++, shift += 7) {
			if (shift < 64)
				v |= (uint64_t)(*p & 0x7f) << shift;
			if (!(*p & 0x80))
				break;
		}
		*off = v;
		return true;
	}
	return false;
}

/* Byte size of the type at ref, following qualifiers and typedefs. */
static uint64_t type_byte_size(struct enc_worker *w, uint64_t ref)
{
	struct dw_die *die = mem_alloc(sizeof(*die));
	uint64_t sz = 0;
	int guard;

	if (!die)
		return 0;
	for (guard = 0; ref && guard < 64; guard++) {
		struct diag d;

		diag_clear(&d);
		if (dw_die_at(w->ctx->in->dw, ref, die, &d))
			break;
		if (dw_udata(die, DW_AT_byte_size, &sz))
			break;
		if (die->tag == DW_TAG_pointer_type) {
			sz = w->unit->addr_size;
			break;
		}
		ref = dw_ref(w->ctx->in->dw, die, DW_AT_type);
	}
	mem_free(die);
	return sz;
}

/* Containers open at a depth (enc_worker.open_kind). */
enum { OPEN_NONE = -1, OPEN_TYPE = 0, OPEN_FUNC = 1, OPEN_MEMBER = 2, OPEN_PARAM = 3,
       OPEN_VAR = 4 };

static inline int set_open(struct enc_worker *w, int depth, int kind, int64_t idx);

/*
 * A member's attributes (members are 40% of all DIEs): through the filtered
 * walk's slot index, the six rare ones only when more was decoded.
 */
struct member_attrs {
	const char *name;
	const struct dw_attr *type, *loc, *bit_size, *data_bit_offset, *bit_offset, *byte_size;
	bool skip;	/* C++ static member: external or declaration */
};

static void member_attrs(const struct dw_die *die, struct member_attrs *m)
{
	const struct dw_attr *a = dw_attr(die, DW_AT_name);

	m->name = a && a->cls == DW_CL_STRING ? a->str : NULL;
	m->type = dw_attr(die, DW_AT_type);
	m->loc = dw_attr(die, DW_AT_data_member_location);
	if (die->nattr == (unsigned)!!a + !!m->type + !!m->loc) {
		/* nothing else decoded (most members): the rest are absent */
		m->bit_size = m->data_bit_offset = m->bit_offset = m->byte_size = NULL;
		m->skip = false;
		return;
	}
	m->bit_size = dw_attr(die, DW_AT_bit_size);
	m->data_bit_offset = dw_attr(die, DW_AT_data_bit_offset);
	m->bit_offset = dw_attr(die, DW_AT_bit_offset);
	m->byte_size = dw_attr(die, DW_AT_byte_size);
	a = dw_attr(die, DW_AT_external);
	m->skip = a && a->cls == DW_CL_FLAG && a->u;
	a = dw_attr(die, DW_AT_declaration);
	m->skip |= a && a->cls == DW_CL_FLAG && a->u;
}

static bool const_val(const struct dw_attr *a, uint64_t *v)
{
	if (!a || (a->cls != DW_CL_CONST && a->cls != DW_CL_SCONST))
		return false;
	*v = a->u;
	return true;
}

static int add_member(struct enc_worker *w, uint32_t parent, const struct dw_die *die,
		      const struct member_attrs *m)
{
	struct ir_child *c = new_child(w, parent, CH_MEMBER);
	uint64_t loc = 0, v;

	if (!c)
		return -ENOMEM;
	/* Annotations under the member: the struct's tag, component = position. */
	if (die->has_children &&
	    set_open(w, die->depth, OPEN_MEMBER, (int64_t)parent << 20 | w->types[parent].nmemb))
		return -ENOMEM;
	w->types[parent].nmemb++;
	c->name = m->name;
	if (m->type)
		c->ref = m->type->cls == DW_CL_SIG ? dw_sig_lookup(w->ctx->in->dw, m->type->u)
		       : m->type->cls == DW_CL_REF ? m->type->u : 0;
	if (const_val(m->bit_size, &v))
		c->bit_size = (uint32_t)v;
	if (const_val(m->data_bit_offset, &v)) {
		c->bit_offset = v;
		return 0;
	}
	if (m->loc)
		data_loc(die, &loc);
	c->bit_offset = loc * 8;
	if (const_val(m->bit_offset, &v) && c->bit_size) {
		/* DWARF 2/3 bitfield: bit_offset counts from the storage unit's MSB. */
		uint64_t unit;

		if (!const_val(m->byte_size, &unit))
			unit = type_byte_size(w, c->ref);
		if (belf_big_endian(w->ctx->in->elf))
			c->bit_offset += v;
		else
			c->bit_offset += unit * 8 - v - c->bit_size;
	}
	return 0;
}

static int add_enumerator(struct enc_worker *w, uint32_t parent, const struct dw_die *die)
{
	struct ir_child *c = new_child(w, parent, CH_ENUMERATOR);
	const struct dw_attr *a;

	if (!c)
		return -ENOMEM;
	c->name = dw_name(die);
	a = dw_attr(die, DW_AT_const_value);
	if (a && a->cls == DW_CL_SCONST) {
		c->value = a->s;
		c->value_signed = true;
		if (a->s < 0)
			w->types[parent].enum_signed = true;
	} else if (a && (a->cls == DW_CL_CONST || a->cls == DW_CL_FLAG)) {
		c->value = (int64_t)a->u;
	} else if (a && a->cls == DW_CL_BLOCK && a->len <= 8) {
		uint64_t v = 0;

		memcpy(&v, a->blk, a->len);
		c->value = (int64_t)v;
	}
	return 0;
}

static int add_dim(struct enc_worker *w, uint32_t parent, const struct dw_die *die)
{
	struct ir_child *c = new_child(w, parent, CH_DIM);
	const struct dw_attr *a;
	uint64_t n = 0, lo = 0;

	if (!c)
		return -ENOMEM;
	a = dw_attr(die, DW_AT_count);
	if (a && (a->cls == DW_CL_CONST || a->cls == DW_CL_SCONST)) {
		n = a->u;
	} else {
		a = dw_attr(die, DW_AT_upper_bound);
		if (a && (a->cls == DW_CL_CONST || a->cls == DW_CL_SCONST)) {
			dw_udata(die, DW_AT_lower_bound, &lo);
			n = a->u + 1 - lo;
		}
	}
	c->value = (int64_t)(uint32_t)n;
	return 0;
}

/*
 * 1.30+: a parameter of a concrete instance takes its origin's name and
 * type when it has no type of its own; one in a register other than the
 * calling convention's (pahole's "unexpected register") is marked, and
 * counts against its origin too.
 */
static int param_modern(struct enc_worker *w, struct ir_child *c, const struct dw_die *die,
			uint32_t idx)
{
	const struct enc_syms *sy = w->ctx->syms;
	struct dw_file *dw = w->ctx->in->dw;
	uint64_t ao = c->ref ? 0 : dw_ref(dw, die, DW_AT_abstract_origin);
	int exp = -1, got = -1;

	if (idx < sy->nparam_regs && (exp = sy->param_ops[idx]) >= 0) {
		const struct dw_attr *loc = dw_attr(die, DW_AT_location);

		if (loc && loc->cls == DW_CL_SECOFF && loc->u < w->frag->loc_min)
			w->frag->loc_min = loc->u;	/* consume_one() gives the pages back */
		got = loc ? dw_param_entry_op(dw, die, exp) : -1;
	}
	if (got >= 0 && got != exp) {
		c->unexp = true;
		if (ao) {
			if (VEC_RESERVE(w->unexp_origins, w->unexp_cap, w->nunexp + 1))
				return -ENOMEM;
			w->unexp_origins[w->nunexp++] = ao;
		}
	}
	if (ao) {
		struct diag d;

		diag_clear(&d);
		if (!dw_die_at(dw, ao, &w->die2, &d)) {
			c->name = dw_name(&w->die2);
			c->ref = dw_ref(dw, &w->die2, DW_AT_type);
		}
	}
	return 0;
}

static int add_param(struct enc_worker *w, uint32_t parent, const struct dw_die *die, bool func)
{
	struct ir_child *c = new_child(w, func ? parent | FUNC_PARENT : parent,
				       die->tag == DW_TAG_formal_parameter ? CH_PARAM : CH_VARARG);

	if (!c)
		return -ENOMEM;
	if (die->tag == DW_TAG_formal_parameter) {
		c->die = die->off;
		c->name = dw_name(die);
		c->ref = dw_ref(w->ctx->in->dw, die, DW_AT_type);
		if (func && w->ctx->o->compat != ENC_COMPAT_124 &&
		    param_modern(w, c, die, w->funcs[parent].nparams))
			return -ENOMEM;
		if (func && !c->name)
			w->funcs[parent].named_params = false;
		if (func && set_open(w, die->depth, OPEN_PARAM,
				     (int64_t)parent << 20 | w->funcs[parent].nparams++))
			return -ENOMEM;
	} else if (func) {
		w->funcs[parent].vararg = true;
	} else {
		w->types[parent].has_vararg = true;
	}
	return 0;
}

/*
 * btf_decl_tag / btf_type_tag annotations (clang's DW_TAG_LLVM_annotation,
 * GCC 16's DW_TAG_GNU_annotation children).  Type tags on a pointer chain
 * PTR -> newest tag -> ... -> oldest tag -> pointee, as pahole does.
 */
static int add_annotation(struct enc_worker *w, const struct dw_die *die, int pk, int64_t pidx)
{
	const struct enc_opts *o = w->ctx->o;
	const char *kind = dw_name(die);
	const struct dw_attr *v = dw_attr(die, DW_AT_const_value);
	struct ir_decl_tag *dt;

	if (!kind || !v || v->cls != DW_CL_STRING || !v->str[0] || pk == OPEN_NONE)
		return 0;
	if (!strcmp(kind, "btf_type_tag")) {
		struct ir_type *ptr, *t;
		uint32_t pi;

		if (!o->type_tags || pk != OPEN_TYPE || w->types[pidx].kind != IR_PTR)
			return 0;
		pi = (uint32_t)pidx;
		if (VEC_RESERVE(w->types, w->types_cap, w->ntypes + 1))
			return -ENOMEM;
		t = &w->types[w->ntypes];
		ptr = &w->types[pi];
		memset(t, 0, sizeof(*t));
		t->kind = IR_TYPE_TAG;
		t->name = v->str;
		t->die = die->off;
		t->ref = ptr->ref;	/* used by the oldest tag only */
		t->tag = ptr->tag;
		ptr->tag = (int32_t)w->ntypes++;
		return 0;
	}
	if (strcmp(kind, "btf_decl_tag") || !o->decl_tags)
		return 0;
	if (VEC_RESERVE(w->tags, w->tags_cap, w->ntags + 1))
		return -ENOMEM;
	dt = &w->tags[w->ntags];
	dt->value = v->str;
	dt->component = -1;
	switch (pk) {
	case OPEN_TYPE:
		if (w->types[pidx].kind != IR_STRUCT && w->types[pidx].kind != IR_UNION &&
		    w->types[pidx].kind != IR_TYPEDEF)
			return 0;
		dt->on = TAG_ON_TYPE;
		dt->target = (uint32_t)pidx;
		break;
	case OPEN_MEMBER:
		dt->on = TAG_ON_TYPE;
		dt->target = (uint32_t)(pidx >> 20);
		dt->component = (int32_t)(pidx & 0xfffff);
		break;
	case OPEN_FUNC:
		dt->on = TAG_ON_FUNC;
		dt->target = (uint32_t)pidx;
		break;
	case OPEN_PARAM:
		dt->on = TAG_ON_FUNC;
		dt->target = (uint32_t)(pidx >> 20);
		dt->component = (int32_t)(pidx & 0xfffff);
		break;
	case OPEN_VAR:
		dt->on = TAG_ON_VAR;
		dt->target = (uint32_t)pidx;
		break;
	default:
		return 0;
	}
	w->ntags++;
	return 0;
}

static bool is_float_name_ok(unsigned enc)
{
	return enc == DW_ATE_float;
}

/* Open container bookkeeping: which IR entry receives children at depth+1. */
static int __attribute__((noinline)) open_grow(struct enc_worker *w, int depth)
{
	size_t ncap = (size_t)depth * 2 + 16;
	int64_t *o = mem_realloc(w->open, ncap * sizeof(*o));
	int *k;

	if (!o)
		return -ENOMEM;
	w->open = o;
	k = mem_realloc(w->open_kind, ncap * sizeof(*k));
	if (!k)
		return -ENOMEM;
	w->open_kind = k;
	w->open_cap = ncap;
	return 0;
}

static inline int set_open(struct enc_worker *w, int depth, int kind, int64_t idx)
{
	if (unlikely((size_t)depth + 2 > w->open_cap) && open_grow(w, depth))
		return -ENOMEM;
	w->open[depth] = idx;
	w->open_kind[depth] = kind;
	return 0;
}

/* Could this subprogram be kept?  (The parameter-name rule comes later.) */
static bool func_candidate(struct enc_worker *w, struct ir_func *f)
{
	const struct enc_syms *sy = w->ctx->syms;
	const struct enc_opts *o = w->ctx->o;
	bool exact;

	f->suffix_only = false;
	if (f->declaration || !f->name)
		return false;
	if (o->compat != ENC_COMPAT_124) {
		/* no function symbols at all: pahole 1.30+ encodes no function */
		if (!policy_func_match(sy, o, f->name, &exact, &f->elf_name))
			return false;
		f->suffix_only = !exact;
		f->kfunc_ok = o->compat == ENC_COMPAT_131 || exact;
		return true;
	}
	if (!sy->have_funcs)
		return f->external;
	return strset_find(&sy->funcs, f->name, strlen(f->name)) >= 0;
}

/*
 * 1.30+: a concrete instance (an out-of-line copy of an inline function,
 * a GCC clone) has no name of its own: pahole takes its origin's, and
 * its origin's return type when it has none, and judges it beside the
 * other instances.
 */
static void func_from_origin(struct enc_worker *w, const struct dw_die *die, struct ir_func *f)
{
	struct dw_file *dw = w->ctx->in->dw;
	uint64_t ao = dw_ref(dw, die, DW_AT_abstract_origin), ref = ao;
	struct diag d;
	int hop;

	if (!ref)
		ref = dw_ref(dw, die, DW_AT_specification);
	for (hop = 0; ref && hop < 2 && !f->name; hop++) {
		diag_clear(&d);
		if (dw_die_at(dw, ref, &w->die2, &d))
			return;
		f->name = dw_name(&w->die2);
		if (hop == 0 && ao && !f->ret)
			f->ret = dw_ref(dw, &w->die2, DW_AT_type);
		ref = dw_ref(dw, &w->die2, DW_AT_abstract_origin);
		if (!ref)
			ref = dw_ref(dw, &w->die2, DW_AT_specification);
	}
}

/*
 * What the walk does with a DIE, by tag (codes below 0x50; the others are
 * decoded, DW_TAG_GNU_call_site skipped like DW_TAG_call_site): a table,
 * not a switch, as it runs for every DIE.
 */
enum { TAG_DECODE, TAG_HEADER, TAG_TOP_ONLY, TAG_PARAM };
#define TAG_SKIP_SUBTREE 0x80	/* decoded (DW_AT_sibling), its children skipped */
static const uint8_t tag_class[0x50] = {
	[DW_TAG_variable] = TAG_TOP_ONLY,
	[DW_TAG_formal_parameter] = TAG_PARAM,
	[DW_TAG_unspecified_parameters] = TAG_PARAM,
	[DW_TAG_lexical_block] = TAG_HEADER,
	[DW_TAG_label] = TAG_HEADER,
	[DW_TAG_call_site_parameter] = TAG_HEADER,
	[DW_TAG_compile_unit] = TAG_HEADER,
	[DW_TAG_partial_unit] = TAG_HEADER,
	[DW_TAG_dwarf_procedure] = TAG_HEADER,
	[DW_TAG_imported_declaration] = TAG_HEADER,
	[DW_TAG_imported_module] = TAG_HEADER,
	[DW_TAG_imported_unit] = TAG_HEADER,
	[DW_TAG_inlined_subroutine] = TAG_SKIP_SUBTREE,
	[DW_TAG_call_site] = TAG_SKIP_SUBTREE,
};

static inline unsigned tag_class_of(unsigned tag)
{
	if (tag < sizeof(tag_class))
		return tag_class[tag];
	if (tag == DW_TAG_GNU_call_site)
		return TAG_SKIP_SUBTREE;
	return tag == DW_TAG_GNU_call_site_parameter ? TAG_HEADER : TAG_DECODE;
}

/* Which DIEs the walk needs decoded; the rest only move the cursor. */
static inline __attribute__((always_inline)) bool want_die(void *ctx, unsigned tag, int depth)
{
	struct enc_worker *w = ctx;

	switch (tag_class_of(tag) & ~TAG_SKIP_SUBTREE) {
	case TAG_DECODE:
		return true;
	case TAG_TOP_ONLY:
		return depth == 1;
	case TAG_PARAM:
		if (depth < 1)
			return false;
		if (w->open_kind[depth - 1] == OPEN_TYPE)
			return true;
		return w->open_kind[depth - 1] == OPEN_FUNC &&
		       w->funcs[w->open[depth - 1]].candidate;
	default:
		return false;
	}
}

static int visit(struct enc_worker *w, const struct dw_die *die, int depth)
{
	int pk = depth > 0 ? w->open_kind[depth - 1] : -1;
	int64_t pidx = depth > 0 ? w->open[depth - 1] : -1;
	const struct enc_opts *o = w->ctx->o;
	struct ir_type *t = NULL;
	int err = 0;

	/* Only a DIE with children has a container slot anyone reads. */
	if (die->has_children && set_open(w, depth, OPEN_NONE, -1))
		return -ENOMEM;
	switch (die->tag) {
	case DW_TAG_base_type: {
		uint64_t enc = 0, size = 0;

		dw_udata(die, DW_AT_encoding, &enc);
		dw_udata(die, DW_AT_byte_size, &size);
		if (o->floats && is_float_name_ok((unsigned)enc)) {
			t = new_type(w, die, IR_FLOAT);
		} else {
			t = new_type(w, die, IR_INT);
			if (t && (enc == DW_ATE_complex_float || enc == DW_ATE_imaginary_float))
				note(w, "%s: DIE 0x%llx: complex/imaginary base type '%s' encoded as a %llu-byte INT",
				     w->ctx->in->dw ? dw_file_path(w->ctx->in->dw) : "",
				     (unsigned long long)DW_REF_OFF(die->off), t->name ? t->name : "",
				     (unsigned long long)size);
		}
		if (!t)
			return -ENOMEM;
		t->size = size;
		if (enc == DW_ATE_signed || enc == DW_ATE_signed_char)
			t->enc = BTF_INT_SIGNED;
		else if (enc == DW_ATE_boolean)
			t->enc = BTF_INT_BOOL;
		if (t->kind == IR_INT && w->int_type < 0 && t->name && !strcmp(t->name, "int") &&
		    size == 4)
			w->int_type = (int64_t)w->ntypes - 1;
		break;
	}
	case DW_TAG_pointer_type:
	case DW_TAG_reference_type:
	case DW_TAG_rvalue_reference_type:
	case DW_TAG_ptr_to_member_type:
		t = new_type(w, die, IR_PTR);
		if (t && die->tag != DW_TAG_pointer_type)
			note(w, "DIE 0x%llx: %s encoded as a pointer",
			     (unsigned long long)DW_REF_OFF(die->off), dw_tag_name(die->tag));
		if (t)
			err = set_open(w, depth, OPEN_TYPE, (int64_t)w->ntypes - 1);
		break;
	case DW_TAG_const_type:
		t = new_type(w, die, IR_CONST);
		break;
	case DW_TAG_volatile_type:
		t = new_type(w, die, IR_VOLATILE);
		break;
	case DW_TAG_restrict_type:
		t = new_type(w, die, IR_RESTRICT);
		break;
	case DW_TAG_typedef:
		t = new_type(w, die, IR_TYPEDEF);
		if (t && !t->name) {
			/* An anonymous typedef is only an alias. */
			w->ntypes--;
			return map_put(&w->map, die->off, 0);
		}
		if (t)
			err = set_open(w, depth, OPEN_TYPE, (int64_t)w->ntypes - 1);
		break;
	case DW_TAG_LLVM_annotation:
	case DW_TAG_GNU_annotation:
		return add_annotation(w, die, pk, pidx);
	case DW_TAG_atomic_type:
	case DW_TAG_immutable_type:
	case DW_TAG_shared_type:
	case DW_TAG_packed_type:
		/* No BTF kind: transparent, resolved to the target in pass 2. */
		note(w, "DIE 0x%llx: %s dropped (no BTF equivalent)",
		     (unsigned long long)DW_REF_OFF(die->off), dw_tag_name(die->tag));
		return map_put(&w->map, die->off, 0);	/* 0 = alias, see resolve() */
	case DW_TAG_unspecified_type:
		return map_put(&w->map, die->off, MAP_VOID);
	case DW_TAG_structure_type:
	case DW_TAG_class_type:
	case DW_TAG_union_type:
		if (dw_flag(die, DW_AT_declaration)) {
			t = new_type(w, die, IR_FWD);
			if (t)
				t->fwd_union = die->tag == DW_TAG_union_type;
		} else {
			t = new_type(w, die, die->tag == DW_TAG_union_type ? IR_UNION : IR_STRUCT);
			if (t) {
				dw_udata(die, DW_AT_byte_size, &t->size);
				err = set_open(w, depth, OPEN_TYPE, (int64_t)w->ntypes - 1);
			}
		}
		break;
	case DW_TAG_enumeration_type:
		t = new_type(w, die, IR_ENUM);
		if (t) {
			if (!dw_udata(die, DW_AT_byte_size, &t->size) || !t->size)
				t->size = 4;
			err = set_open(w, depth, OPEN_TYPE, (int64_t)w->ntypes - 1);
		}
		break;
	case DW_TAG_array_type:
		t = new_type(w, die, IR_ARRAY);
		if (t)
			err = set_open(w, depth, OPEN_TYPE, (int64_t)w->ntypes - 1);
		break;
	case DW_TAG_subroutine_type:
		t = new_type(w, die, IR_PROTO);
		if (t)
			err = set_open(w, depth, OPEN_TYPE, (int64_t)w->ntypes - 1);
		break;
	case DW_TAG_member:
		if (pk == 0 && (w->types[pidx].kind == IR_STRUCT || w->types[pidx].kind == IR_UNION)) {
			struct member_attrs m;

			member_attrs(die, &m);
			if (m.skip)
				return 0;	/* C++ static member */
			return add_member(w, (uint32_t)pidx, die, &m);
		}
		return 0;
	case DW_TAG_enumerator:
		if (pk == 0 && w->types[pidx].kind == IR_ENUM)
			return add_enumerator(w, (uint32_t)pidx, die);
		return 0;
	case DW_TAG_subrange_type:
		if (pk == 0 && w->types[pidx].kind == IR_ARRAY)
			return add_dim(w, (uint32_t)pidx, die);
		return 0;
	case DW_TAG_formal_parameter:
	case DW_TAG_unspecified_parameters:
		if (!die->nattr_in && die->tag == DW_TAG_formal_parameter)
			return 0;	/* not decoded: of a function that cannot be kept */
		if (pk == 0 && w->types[pidx].kind == IR_PROTO)
			return add_param(w, (uint32_t)pidx, die, false);
		if (pk == 1)
			return add_param(w, (uint32_t)pidx, die, true);
		return 0;
	case DW_TAG_subprogram: {
		struct ir_func *f;

		if (VEC_RESERVE(w->funcs, w->funcs_cap, w->nfuncs + 1))
			return -ENOMEM;
		f = &w->funcs[w->nfuncs++];
		memset(f, 0, sizeof(*f));
		f->name = dw_name(die);
		f->die = die->off;
		f->ret = dw_ref(w->ctx->in->dw, die, DW_AT_type);
		f->declaration = dw_flag(die, DW_AT_declaration);
		f->external = dw_flag(die, DW_AT_external);
		f->named_params = true;
		if (!f->name && o->compat != ENC_COMPAT_124 && !f->declaration)
			func_from_origin(w, die, f);
		f->candidate = func_candidate(w, f);
		return set_open(w, depth, OPEN_FUNC, (int64_t)w->nfuncs - 1);
	}
	case DW_TAG_variable:
		if (depth == 1) {
			struct ir_var *var;
			const struct dw_attr *a;

			if (VEC_RESERVE(w->vars, w->vars_cap, w->nvars + 1))
				return -ENOMEM;
			var = &w->vars[w->nvars++];
			memset(var, 0, sizeof(*var));
			var->name = dw_name(die);
			var->die = die->off;
			var->type = dw_ref(w->ctx->in->dw, die, DW_AT_type);
			var->spec = dw_ref(w->ctx->in->dw, die, DW_AT_specification);
			var->declaration = dw_flag(die, DW_AT_declaration);
			var->external = dw_flag(die, DW_AT_external);
			var->artificial = dw_flag(die, DW_AT_artificial);
			if (set_open(w, depth, OPEN_VAR, (int64_t)w->nvars - 1))
				return -ENOMEM;
			a = dw_attr(die, DW_AT_location);
			if (a && a->cls == DW_CL_BLOCK && a->len >= 1u + w->unit->addr_size &&
			    a->blk[0] == DW_OP_addr && w->unit->addr_size <= 8) {
				var->addr = 0;
				memcpy(&var->addr, a->blk + 1, w->unit->addr_size);
				if (belf_big_endian(w->ctx->in->elf))
					var->addr = w->unit->addr_size == 8 ? bswap64(var->addr)
									    : bswap32((uint32_t)var->addr);
				/* 1.24 takes exactly DW_OP_addr X; 1.30+ any expression starting so */
				var->has_addr = a->len == 1u + w->unit->addr_size;
				var->addr_first = true;
			}
		}
		return 0;
	default:
		return 0;
	}
	if (err)
		return err;
	return t ? 0 : -ENOMEM;
}

/* Subtrees that never hold anything BTF needs (concrete inline copies, call sites). */
static bool skip_subtree(unsigned tag)
{
	return tag_class_of(tag) & TAG_SKIP_SUBTREE;
}

/*
 * The DIEs from the cursor while they are leaves (leaves[]) of the type
 * they are children of: a struct's or union's members, a prototype's
 * parameters, an enum's enumerators, nearly all of them.  One after
 * another as visit() would take them, without a decoded DIE and the
 * walk's per-DIE work (vmlinux: 7.9M members, 1.2M parameters, 0.8M
 * enumerators).  The first other DIE goes back to the walk; a leaf after
 * it (past a nested definition) starts a new run.
 */
static inline int leaf_run(struct enc_worker *w, struct dw_cursor *c)
{
	int depth = c->depth;	/* of the next DIE */
	struct dw_leaf_val lv[64];
	enum ir_child_kind kind;
	struct ir_child *ch;
	uint32_t parent;
	unsigned tag;
	size_t n, i;

	/* the parent of a DIE at depth d is the last one with children at d - 1 */
	if (depth < 1 || w->open_kind[depth - 1] != OPEN_TYPE)
		return 0;
	parent = (uint32_t)w->open[depth - 1];
	switch (w->types[parent].kind) {
	case IR_STRUCT: case IR_UNION:
		tag = DW_TAG_member;
		kind = CH_MEMBER;
		break;
	case IR_PROTO:
		tag = DW_TAG_formal_parameter;
		kind = CH_PARAM;
		break;
	case IR_ENUM:
		tag = DW_TAG_enumerator;
		kind = CH_ENUMERATOR;
		break;
	default:
		return 0;
	}
	do {
		n = dw_next_leaves(c, w->filter, tag, lv, sizeof(lv) / sizeof(lv[0]));
		if (!n)
			break;
		if (!(ch = new_children(w, parent, kind, n)))
			return -ENOMEM;
		for (i = 0; i < n; i++)
			ch[i].name = lv[i].have & 1u << LF_NAME ? (const char *)(uintptr_t)lv[i].v[LF_NAME]
								: NULL;
		if (kind == CH_MEMBER) {
			w->types[parent].nmemb += (uint32_t)n;
			for (i = 0; i < n; i++) {
				const uint64_t *v = lv[i].v;
				unsigned have = lv[i].have;

				ch[i].ref = have & 1u << LF_TYPE ? v[LF_TYPE] : 0;
				ch[i].bit_size = have & 1u << LF_BIT_SIZE ? (uint32_t)v[LF_BIT_SIZE] : 0;
				if (have & 1u << LF_DATA_BIT_OFFSET)
					ch[i].bit_offset = v[LF_DATA_BIT_OFFSET];
				else
					ch[i].bit_offset = (have & 1u << LF_LOC ? v[LF_LOC] : 0) * 8;
			}
		} else if (kind == CH_ENUMERATOR) {
			for (i = 0; i < n; i++)
				ch[i].value = lv[i].have & 1u << LF_VALUE ? (int64_t)lv[i].v[LF_VALUE] : 0;
		} else {
			for (i = 0; i < n; i++) {
				ch[i].die = lv[i].off;
				ch[i].ref = lv[i].have & 1u << LF_TYPE ? lv[i].v[LF_TYPE] : 0;
			}
		}
	} while (n == sizeof(lv) / sizeof(lv[0]));
	return 0;
}

/* Walk DIEs from cursor c; stop_depth > 0 stops at the next DIE at or above it. */
static int walk(struct enc_worker *w, struct dw_cursor *c, int stop_depth)
{
	bool first = true;
	int r;

	while ((r = dw_next_filtered(c, &w->die, want_die, w, w->filter)) > 0) {
		if (stop_depth > 0 && !first && w->die.depth <= stop_depth)
			break;
		first = false;
		if (skip_subtree(w->die.tag)) {
			if ((r = dw_skip_children(c, &w->die)) < 0)
				return r;
			continue;
		}
		if ((r = visit(w, &w->die, w->die.depth)) < 0 || (r = leaf_run(w, c)) < 0)
			return r;
	}
	return r < 0 ? r : 0;
}

/* Pull a DIE outside this unit (ref_addr, type unit, dwz) into the IR. */
static int import_foreign(struct enc_worker *w, uint64_t ref)
{
	struct dw_cursor c;
	int r;

	if ((r = dw_cursor_at(&c, w->ctx->in->dw, ref, w->d)))
		return r;
	/* Depth 1 under a fresh "no container" depth 0. */
	if (set_open(w, 0, OPEN_NONE, -1))
		return -ENOMEM;
	return walk(w, &c, 1);
}

/*
 * Local id for a DWARF type reference; pulls foreign DIEs in.  Aliases
 * (atomic, anonymous typedef) resolve to their own target.
 */
static int resolve(struct enc_worker *w, uint64_t ref, uint32_t *id)
{
	int guard;

	for (guard = 0; guard < 64; guard++) {
		uint32_t v;
		int r;

		if (!ref) {
			*id = 0;
			return 0;
		}
		if (map_find(&w->map, ref, &v) && v >= MAP_VOID) {
			*id = v - 1;
			return 0;
		}
		if (map_find(&w->map, ref, &v)) {
			/* alias: follow the DIE's own DW_AT_type */
			struct dw_die *die = mem_alloc(sizeof(*die));

			if (!die)
				return -ENOMEM;
			r = dw_die_at(w->ctx->in->dw, ref, die, w->d);
			ref = r ? 0 : dw_ref(w->ctx->in->dw, die, DW_AT_type);
			mem_free(die);
			if (r)
				return r;
			continue;
		}
		if ((r = import_foreign(w, ref)) < 0)
			return r;
		if (!map_find(&w->map, ref, &v))
			return diag_err(w->d, EINVAL,
					"%s: DIE 0x%llx: type reference to a DIE that is not a type",
					dw_file_path(w->ctx->in->dw), (unsigned long long)DW_REF_OFF(ref));
	}
	return diag_err(w->d, ELOOP, "%s: DIE 0x%llx: chain of type aliases too long",
			dw_file_path(w->ctx->in->dw), (unsigned long long)DW_REF_OFF(ref));
}

/* resolve()'s first step inline: nearly every reference is to a recorded type. */
static inline int resolve_ref(struct enc_worker *w, uint64_t ref, uint32_t *id)
{
	uint32_t v;

	if (ref && map_find(&w->map, ref, &v) && v >= MAP_VOID) {
		*id = v - 1;
		return 0;
	}
	return resolve(w, ref, id);
}

/* ---- pass 1.5: resolve every reference (importing foreign DIEs) ---- */

static int resolve_all(struct enc_worker *w)
{
	size_t ti = w->resolved_types, ki = w->resolved_kids, i;
	uint32_t id;
	int r;

	/*
	 * Imports append to types and kids: loop until nothing new appears.
	 * They may also move the arrays, so resolve into a local first.
	 */
	while (ti < w->ntypes || ki < w->nkids) {
		for (; ti < w->ntypes; ti++) {
			if ((r = resolve_ref(w, w->types[ti].ref, &id)))
				return r;
			w->types[ti].ref_id = id;
		}
		for (; ki < w->nkids; ki++)
			if (w->kids[ki].kind == CH_MEMBER || w->kids[ki].kind == CH_PARAM) {
				if ((r = resolve_ref(w, w->kids[ki].ref, &id)))
					return r;
				w->kids[ki].ref_id = id;
			}
	}
	/* A later call (after select_vars imported more) resumes here. */
	w->resolved_types = ti;
	w->resolved_kids = ki;
	for (i = 0; i < w->nfuncs; i++)
		if (w->funcs[i].keep) {
			if ((r = resolve(w, w->funcs[i].ret, &id)))
				return r;
			w->funcs[i].ret_id = id;
		}
	/* Type-tag chains: PTR -> newest tag -> ... -> oldest tag -> pointee. */
	for (i = 0; i < w->ntypes; i++) {
		struct ir_type *t = &w->types[i];

		if (t->tag >= 0 && (t->kind == IR_PTR || t->kind == IR_TYPE_TAG))
			t->ref_id = (uint32_t)t->tag + 1;
	}
	return 0;
}

/*
 * Children were recorded in walk order with a parent index, and each
 * parent's span kept by new_child().  Usually each parent's children are
 * one run (a nested type's members come before or after its parent's, not
 * among them; gcc: 2,400 of vmlinux's 2,401 units) and stay where they
 * are.  Else they are grouped per parent, keeping their order, by a
 * counting sort into kids_sorted.  Function parameters are recorded
 * against ir_func entries: those parents are offset by ntypes.
 */
static int group_children(struct enc_worker *w)
{
	size_t nparents = w->ntypes + w->nfuncs, i;
	uint32_t sum = 0;

	/* (kids allocated even for none: emission adds spans to its address) */
	if (VEC_RESERVE(w->kids, w->kids_cap, w->nkids + 1))
		return -ENOMEM;
	w->grouped = w->kids;
	if (!w->split)
		return 0;
	if (VEC_RESERVE(w->count, w->count_cap, nparents + 1) ||
	    VEC_RESERVE(w->kids_sorted, w->sorted_cap, w->nkids + 1))
		return -ENOMEM;
	memset(w->count, 0, (nparents + 1) * sizeof(*w->count));
	for (i = 0; i < w->nkids; i++) {
		uint32_t p = w->kids[i].parent;

		if (p & FUNC_PARENT)
			p = (uint32_t)w->ntypes + (p & ~FUNC_PARENT);
		w->kids[i].parent = p;
		w->count[p]++;
	}
	for (i = 0; i < nparents; i++) {
		uint32_t c = w->count[i];

		if (i < w->ntypes) {
			w->types[i].first = sum;
			w->types[i].n = c;
		} else {
			w->funcs[i - w->ntypes].first = sum;
			w->funcs[i - w->ntypes].n = c;
		}
		w->count[i] = sum;
		sum += c;
	}
	for (i = 0; i < w->nkids; i++)
		w->kids_sorted[w->count[w->kids[i].parent]++] = w->kids[i];
	w->grouped = w->kids_sorted;
	return 0;
}

/* ---- pass 2: IR -> BTF ---- */

/* ---- strings: a per-worker cache in front of the shared interner ---- */

/*
 * Names are interned once into the output BTF's string set (the only
 * shared mutable state of the conversion, behind ctx->str_lock, and the
 * seeded section's bitmap of known positions, set atomically).  Strings
 * without a position there are remembered by content in a per-worker
 * cache.  Offsets depend on which worker interned first; the final string
 * section is re-laid out in a fixed order after dedup, so output bytes do
 * not.
 */
static int64_t intern_slow(struct enc_worker *w, const char *s, size_t len, uint32_t h)
{
	int64_t off;

	pthread_mutex_lock(w->ctx->str_lock);
	off = btf_add_str_hashed(w->ctx->out, s, len, h);
	pthread_mutex_unlock(w->ctx->str_lock);
	return off < 0 ? -ENOMEM : off;
}

static int scache_grow(struct str_cache *c)
{
	size_t ncap = c->cap ? c->cap * 2 : 4096, i;
	struct scache_slot *n = mem_array(ncap, sizeof(*n));

	if (!n)
		return -ENOMEM;
	for (i = 0; i < c->cap; i++) {
		size_t j;

		if (!c->slots[i].key)
			continue;
		for (j = c->slots[i].hash & (ncap - 1); n[j].key; j = (j + 1) & (ncap - 1))
			;
		n[j] = c->slots[i];
	}
	mem_free(c->slots);
	c->slots = n;
	c->cap = ncap;
	return 0;
}

/* Look s up by key (address or content); *slot receives the insertion slot. */
static inline bool scache_find(const struct str_cache *c, uint32_t h, const char *s, size_t len,
			       bool by_addr, size_t *slot, uint32_t *off)
{
	size_t j;

	for (j = h & (c->cap - 1); c->slots[j].key; j = (j + 1) & (c->cap - 1)) {
		const struct scache_slot *e = &c->slots[j];

		if (e->hash != h)
			continue;
		if (by_addr ? e->key == s : e->len == len && bytes_eq(e->key, s, len)) {
			*off = e->val;
			return true;
		}
	}
	*slot = j;
	return false;
}

/* Cache s; copy it first unless it stays where it is (a .debug_str string). */
static int scache_put(struct str_cache *c, uint32_t h, const char *s, size_t len, uint32_t off,
		      bool copy)
{
	uint32_t dummy;
	size_t slot;

	if ((c->n + 1) * 2 > c->cap && scache_grow(c))
		return -ENOMEM;
	if (scache_find(c, h, s, len, false, &slot, &dummy))
		return 0;
	if (copy) {
		char *k = arena_alloc(&c->copies, len + 1);

		if (!k)
			return -ENOMEM;
		memcpy(k, s, len + 1);
		s = k;
	}
	c->slots[slot].key = s;
	c->slots[slot].hash = h;
	c->slots[slot].len = (uint32_t)len;
	c->slots[slot].val = off;
	c->n++;
	return 0;
}

/*
 * A seeded string of .debug_str (ctx->str_first) at pos, not yet known
 * there: its text's offset, and if that is its own (the first copy, or
 * the first reference to a suffix of a longer string, which becomes the
 * text's offset), its bit is set: later references need no lookup.
 */
static int64_t intern_seeded(struct enc_worker *w, size_t pos, const char *s)
{
	size_t len = strlen(s);
	int64_t off;

	if (w->ctx->str_lock)
		pthread_mutex_lock(w->ctx->str_lock);
	off = btf_add_str_at(w->ctx->out, (uint32_t)pos + 1, s, len, strset_hash(s, len));
	if (w->ctx->str_lock)
		pthread_mutex_unlock(w->ctx->str_lock);
	if (off < 0)
		return -ENOMEM;
	if ((size_t)off == pos + 1)
		__atomic_fetch_or(&w->ctx->str_first[pos / 64], 1ull << (pos % 64), __ATOMIC_RELAXED);
	return off;
}

/*
 * Global string offset of s (NULL or "" -> 0), or a negative errno.  A
 * string of .debug_str in a seeded section (a kernel image) has its
 * offset from its position, after the first reference to it without
 * reading it; the others (inline DW_FORM_string names, the alternate
 * file's, all of a module's) are looked up by their text, in the worker's
 * cache first.
 */
static int64_t str_off_text(struct enc_worker *w, const char *s, size_t pos);

/* s's key for the short-name cache, if it has one to three characters. */
static inline bool short_key(const char *s, uint32_t *key)
{
	uint32_t k = (uint8_t)s[0];

	if (s[1]) {
		k |= (uint32_t)(uint8_t)s[1] << 8;
		if (s[2]) {
			if (s[3])
				return false;
			k |= (uint32_t)(uint8_t)s[2] << 16;
		}
	}
	*key = k;
	return true;
}

static int64_t str_off_name(struct enc_worker *w, const char *s, size_t pos);

static inline int64_t str_off(struct enc_worker *w, const char *s)
{
	const struct bslice *ds = &w->ctx->in->dw_str;
	uint64_t *first = w->ctx->str_first;
	size_t pos;

	if (!s)
		return 0;
	pos = (size_t)((const uint8_t *)s - ds->p);
	if (first && (const uint8_t *)s >= ds->p && pos < ds->len) {
		/* the common case inline: a seeded string already known */
		if (__atomic_load_n(&first[pos / 64], __ATOMIC_RELAXED) >> (pos % 64) & 1)
			return (int64_t)pos + 1;
		return *s ? intern_seeded(w, pos, s) : 0;
	}
	return str_off_name(w, s, pos);
}

/* str_off() of a string outside the seeded section: short ones by their bytes. */
static __attribute__((noinline)) int64_t str_off_name(struct enc_worker *w, const char *s,
						       size_t pos)
{
	struct short_slot *sh = NULL;
	uint32_t key = 0;
	int64_t r;

	if (!*s)
		return 0;
	if (short_key(s, &key)) {
		sh = &w->shorts[hash_mix(key) & (SHORT_SLOTS - 1)];
		if (sh->key == key)
			return sh->off;
	}
	r = str_off_text(w, s, pos);
	if (sh && r > 0) {
		sh->key = key;
		sh->off = (uint32_t)r;
	}
	return r;
}

/* str_off() of a string not in the seeded section, by its text. */
static int64_t str_off_text(struct enc_worker *w, const char *s, size_t pos)
{
	const struct bslice *ds = &w->ctx->in->dw_str;
	size_t len = strlen(s), slot;
	uint32_t off, ht;
	int64_t r;

	ht = strset_hash(s, len);
	if (!w->ctx->str_lock) {	/* the only worker: the set is the cache */
		r = btf_add_str_hashed(w->ctx->out, s, len, ht);
		return r < 0 ? -ENOMEM : r;
	}
	if (!w->scache_text.cap && scache_grow(&w->scache_text))
		return -ENOMEM;
	if (scache_find(&w->scache_text, ht, s, len, false, &slot, &off))
		return off;
	r = intern_slow(w, s, len, ht);
	if (r < 0)
		return r;
	if (scache_put(&w->scache_text, ht, s, len, (uint32_t)r,
			(const uint8_t *)s < ds->p || pos >= ds->len))
		return -ENOMEM;
	return r;
}

/* ---- pass 2: IR -> BTF records in the fragment ---- */

/*
 * Append a record: header plus ntrail zeroed words; returns the trailing
 * words (NULL on allocation failure).  Local ids are record positions + 1.
 */
static uint32_t *rec_add(struct cu_frag *f, uint32_t name, unsigned kind, bool kflag,
			 uint32_t vlen, uint32_t size_type, size_t ntrail)
{
	uint32_t *p;

	if (VEC_RESERVE(f->words, f->words_cap, f->nwords + 3 + ntrail) ||
	    VEC_RESERVE(f->recs, f->recs_cap, f->nrecs + 1))
		return NULL;
	f->recs[f->nrecs++] = (uint32_t)f->nwords;
	p = f->words + f->nwords;
	p[0] = name;
	p[1] = BTF_INFO_ENC(kind, kflag, vlen);
	p[2] = size_type;
	memset(p + 3, 0, ntrail * 4);
	f->nwords += 3 + ntrail;
	return p + 3;
}

#define STR(s)                                        \
	({                                            \
		int64_t o_ = str_off(w, (s));         \
		if (o_ < 0)                           \
			return (int)o_;               \
		(uint32_t)o_;                         \
	})

static bool int_size_ok(uint64_t sz)
{
	return sz && sz <= 16 && !(sz & (sz - 1));
}

static int emit_type(struct enc_worker *w, const struct ir_type *t, uint32_t index_id)
{
	const struct enc_opts *o = w->ctx->o;
	const struct ir_child *k = w->grouped + t->first;
	struct cu_frag *f = w->frag;
	uint32_t i, *p;

	switch (t->kind) {
	case IR_INT: {
		uint32_t sz = (uint32_t)t->size, name;

		if (!int_size_ok(t->size)) {
			note(w, "DIE 0x%llx: base type '%s' of %llu bytes encoded as __SANITIZED_FAKE_INT__",
			     (unsigned long long)DW_REF_OFF(t->die), t->name ? t->name : "",
			     (unsigned long long)t->size);
			name = STR("__SANITIZED_FAKE_INT__");
			p = rec_add(f, name, BTF_KIND_INT, false, 0, 4, 1);
			if (p)
				*p = 32;
			return p ? 0 : -ENOMEM;
		}
		name = STR(t->name ? t->name : "__anon_int__");
		p = rec_add(f, name, BTF_KIND_INT, false, 0, sz, 1);
		if (p)
			*p = t->enc << 24 | sz * 8;
		return p ? 0 : -ENOMEM;
	}
	case IR_FLOAT:
		return rec_add(f, STR(t->name ? t->name : "__anon_float__"), BTF_KIND_FLOAT, false, 0,
			       (uint32_t)t->size, 0) ? 0 : -ENOMEM;
	case IR_PTR:
		return rec_add(f, 0, BTF_KIND_PTR, false, 0, t->ref_id, 0) ? 0 : -ENOMEM;
	case IR_TYPE_TAG:
		return rec_add(f, STR(t->name), BTF_KIND_TYPE_TAG, false, 0, t->ref_id, 0) ? 0 : -ENOMEM;
	case IR_CONST:
		return rec_add(f, 0, BTF_KIND_CONST, false, 0, t->ref_id, 0) ? 0 : -ENOMEM;
	case IR_VOLATILE:
		return rec_add(f, 0, BTF_KIND_VOLATILE, false, 0, t->ref_id, 0) ? 0 : -ENOMEM;
	case IR_RESTRICT:
		return rec_add(f, 0, BTF_KIND_RESTRICT, false, 0, t->ref_id, 0) ? 0 : -ENOMEM;
	case IR_TYPEDEF:
		return rec_add(f, STR(t->name), BTF_KIND_TYPEDEF, false, 0, t->ref_id, 0) ? 0 : -ENOMEM;
	case IR_FWD:
		return rec_add(f, STR(t->name), BTF_KIND_FWD, t->fwd_union, 0, 0, 0) ? 0 : -ENOMEM;
	case IR_STRUCT:
	case IR_UNION: {
		bool kflag = false, is_union = t->kind == IR_UNION;
		uint32_t name = STR(t->name);

		if (t->n > BTF_MAX_VLEN)
			return diag_err(w->d, E2BIG, "%s: DIE 0x%llx: %u members, more than BTF allows",
					dw_file_path(w->ctx->in->dw),
					(unsigned long long)DW_REF_OFF(t->die), t->n);
		/* As libbpf's btf__add_field: any bitfield switches the record to kflag. */
		for (i = 0; i < t->n; i++)
			kflag |= k[i].bit_size != 0;
		p = rec_add(f, name, is_union ? BTF_KIND_UNION : BTF_KIND_STRUCT, kflag, t->n,
			    (uint32_t)t->size, 3 * (size_t)t->n);
		if (!p)
			return -ENOMEM;
		for (i = 0; i < t->n; i++) {
			uint64_t off = is_union ? 0 : k[i].bit_offset;

			if ((kflag && off > 0xffffff) || off > UINT32_MAX || k[i].bit_size > 255)
				return diag_err(w->d, E2BIG,
						"%s: DIE 0x%llx: member '%s' at bit %llu cannot be encoded",
						dw_file_path(w->ctx->in->dw),
						(unsigned long long)DW_REF_OFF(t->die),
						k[i].name ? k[i].name : "", (unsigned long long)off);
			p[3 * i] = STR(k[i].name);
			p[3 * i + 1] = k[i].ref_id;
			p[3 * i + 2] = kflag ? k[i].bit_size << 24 | (uint32_t)off : (uint32_t)off;
		}
		return 0;
	}
	case IR_ENUM: {
		uint32_t name = STR(t->name);
		bool is64 = t->size > 4 && o->enum64;

		if (t->n > BTF_MAX_VLEN)
			return diag_err(w->d, E2BIG, "%s: DIE 0x%llx: %u enumerators, more than BTF allows",
					dw_file_path(w->ctx->in->dw),
					(unsigned long long)DW_REF_OFF(t->die), t->n);
		if (is64) {
			p = rec_add(f, name, BTF_KIND_ENUM64, t->enum_signed, t->n, (uint32_t)t->size,
				    3 * (size_t)t->n);
			for (i = 0; p && i < t->n; i++) {
				p[3 * i] = STR(k[i].name);
				p[3 * i + 1] = (uint32_t)k[i].value;
				p[3 * i + 2] = (uint32_t)((uint64_t)k[i].value >> 32);
			}
			return p ? 0 : -ENOMEM;
		}
		/*
		 * libbpf's btf__add_enum_value: a negative value makes the enum
		 * signed.  pahole 1.24 without enum64 writes every ENUM unsigned.
		 */
		{
			bool sgn = false;

			for (i = 0; i < t->n && o->enum64; i++)
				sgn |= k[i].value < 0;
			p = rec_add(f, name, BTF_KIND_ENUM, sgn, t->n,
				    (uint32_t)(t->size > 8 ? 4 : t->size), 2 * (size_t)t->n);
		}
		for (i = 0; p && i < t->n; i++) {
			p[2 * i] = STR(k[i].name);
			p[2 * i + 1] = (uint32_t)k[i].value;	/* 32 bits: truncated when ENUM64 is off */
		}
		return p ? 0 : -ENOMEM;
	}
	case IR_ARRAY: {
		uint32_t nelems = 1;

		for (i = 0; i < t->n; i++)
			nelems *= (uint32_t)k[i].value;
		p = rec_add(f, 0, BTF_KIND_ARRAY, false, 0, 0, 3);
		if (!p)
			return -ENOMEM;
		p[0] = t->ref_id;
		p[1] = index_id;
		p[2] = t->n ? nelems : 0;
		return 0;
	}
	case IR_PROTO: {
		uint32_t np = 0, j = 0;

		for (i = 0; i < t->n; i++)
			np += k[i].kind == CH_PARAM;
		np += t->has_vararg;
		p = rec_add(f, 0, BTF_KIND_FUNC_PROTO, false, np, t->ref_id, 2 * (size_t)np);
		if (!p)
			return -ENOMEM;
		for (i = 0; i < t->n; i++) {
			if (k[i].kind != CH_PARAM)
				continue;
			p[2 * j] = STR(k[i].name);
			p[2 * j + 1] = k[i].ref_id;
			j++;
		}
		return 0;	/* a vararg slot stays zeroed */
	}
	}
	return -EINVAL;
}

static int emit_decl_tag(struct enc_worker *w, const char *value, uint32_t target, int component)
{
	uint32_t *p = rec_add(w->frag, STR(value), BTF_KIND_DECL_TAG, false, 0, target, 1);

	if (!p)
		return -ENOMEM;
	*p = (uint32_t)component;
	return 0;
}

static void func_flags(struct enc_worker *w, const struct ir_func *f, struct frag_func *ff);

static int emit_func(struct enc_worker *w, const struct ir_func *f)
{
	const struct ir_child *k = w->grouped + f->first;
	struct cu_frag *fr = w->frag;
	uint32_t np = f->vararg, i, j = 0, proto, func, *p;
	struct frag_func *ff;

	for (i = 0; i < f->n; i++)
		np += k[i].kind == CH_PARAM;
	p = rec_add(fr, 0, BTF_KIND_FUNC_PROTO, false, np, f->ret_id, 2 * (size_t)np);
	if (!p)
		return -ENOMEM;
	proto = (uint32_t)fr->nrecs;
	for (i = 0; i < f->n; i++) {
		if (k[i].kind != CH_PARAM)
			continue;
		p = fr->words + fr->recs[proto - 1] + 3;	/* STR may not move it, but be safe */
		p[2 * j] = STR(k[i].name);
		p = fr->words + fr->recs[proto - 1] + 3;
		p[2 * j + 1] = k[i].ref_id;
		j++;
	}
	if (!rec_add(fr, STR(f->name), BTF_KIND_FUNC, false, BTF_FUNC_STATIC, proto, 0))
		return -ENOMEM;
	func = (uint32_t)fr->nrecs;
	for (i = 0; i < w->ntags; i++) {
		const struct ir_decl_tag *dt = &w->tags[i];
		int err;

		if (dt->on != TAG_ON_FUNC || dt->target != (uint32_t)(f - w->funcs))
			continue;
		if ((err = emit_decl_tag(w, dt->value, func, dt->component)))
			return err;
	}
	if (VEC_RESERVE(fr->funcs, fr->funcs_cap, fr->nfuncs + 1))
		return -ENOMEM;
	ff = &fr->funcs[fr->nfuncs++];
	memset(ff, 0, sizeof(*ff));
	ff->name = f->name;
	ff->first = proto;
	ff->last = (uint32_t)fr->nrecs;	/* FUNC_PROTO, FUNC, then its decl tags */
	ff->suffix_only = f->suffix_only;
	ff->kfunc_ok = f->kfunc_ok;
	ff->elf_name = f->elf_name;
	if (w->ctx->o->compat != ENC_COMPAT_124)
		func_flags(w, f, ff);
	return 0;
}

/*
 * Function candidates.  pahole 1.24: a definition with every parameter
 * named whose name is an ELF function symbol; "first one wins" is applied
 * at merge.  Modern (pahole 1.31): the symbol table is keyed by the name
 * before the first '.', so foo also matches foo.isra.0.
 */
static void select_funcs(struct enc_worker *w)
{
	size_t i;

	/* The name rules were applied at the DIE (func_candidate); add the parameter rule. */
	for (i = 0; i < w->nfuncs; i++)
		w->funcs[i].keep = w->funcs[i].candidate && w->funcs[i].named_params;
}
/* ---- 1.30/1.31: what pahole finds wrong with an instance ---- */

/* The IR type at local id, or NULL (void, or out of range). */
static const struct ir_type *ir_at(const struct enc_worker *w, uint32_t id)
{
	return id && id <= w->ntypes ? &w->types[id - 1] : NULL;
}

/* pahole's tag__strip_typedefs_and_modifiers() of what id refers to. */
static uint32_t strip_mods(const struct enc_worker *w, uint32_t id)
{
	const struct ir_type *t;
	int guard;

	for (guard = 0; (t = ir_at(w, id)) && guard < 64; guard++) {
		if (t->kind != IR_TYPEDEF && t->kind != IR_CONST && t->kind != IR_VOLATILE &&
		    t->kind != IR_RESTRICT && t->kind != IR_TYPE_TAG)
			break;
		id = t->ref_id;
	}
	return id;
}

/* pahole's tag__size(): bytes of the type at id (0: none, or an empty struct). */
static uint64_t ir_size(const struct enc_worker *w, uint32_t id, int depth)
{
	const struct ir_type *t = ir_at(w, strip_mods(w, id));
	const struct ir_child *k;
	uint64_t n = 1, i;

	if (!t || depth > 32)
		return 0;
	switch (t->kind) {
	case IR_PTR: case IR_PROTO:
		return w->unit->addr_size;
	case IR_STRUCT: case IR_UNION:
		return t->size == 1 && !t->n ? 0 : t->size;
	case IR_ARRAY:
		k = w->grouped + t->first;
		for (i = 0; i < t->n; i++)
			if (k[i].kind == CH_DIM)
				n *= (uint64_t)k[i].value;
		return ir_size(w, t->ref_id, depth + 1) * n;
	case IR_FWD:
		return 0;
	default:
		return t->size;
	}
}

/* pahole's tag__natural_alignment(). */
static uint64_t natural_align(const struct enc_worker *w, uint32_t id, int depth)
{
	const struct ir_type *t = ir_at(w, id);
	uint64_t a = 1, m, i;
	const struct ir_child *k;

	if (!t || depth > 32)
		return 1;
	switch (t->kind) {
	case IR_PTR:
		a = w->unit->addr_size;
		break;
	case IR_INT: case IR_FLOAT: case IR_ENUM:
		a = t->size;
		break;
	case IR_STRUCT: case IR_UNION:
		k = w->grouped + t->first;
		for (a = 0, i = 0; i < t->n; i++)
			if (k[i].kind == CH_MEMBER &&
			    (m = natural_align(w, strip_mods(w, k[i].ref_id), depth + 1)) > a)
				a = m;
		break;
	case IR_ARRAY:
		a = natural_align(w, strip_mods(w, t->ref_id), depth + 1);
		break;
	default:
		break;
	}
	return a ? a : 1;
}

/* A member as pahole's class__find_holes() sees it. */
struct pmember {
	uint64_t bit_offset, byte_offset, byte_size;
	uint32_t bitfield_size;
};

static void pmember_of(const struct enc_worker *w, const struct ir_child *c, struct pmember *m)
{
	m->bit_offset = c->bit_offset;
	m->bitfield_size = c->bit_size;
	m->byte_size = ir_size(w, c->ref_id, 0);
	m->byte_offset = c->bit_offset / 8;
	if (c->bit_size && m->byte_size)	/* the storage unit's offset */
		m->byte_offset = c->bit_offset / (m->byte_size * 8) * (m->byte_size * 8) / 8;
}

/* Does pahole (class__find_holes) find a hole or padding in struct t? */
static bool has_holes(const struct enc_worker *w, const struct ir_type *t)
{
	const struct ir_child *k = w->grouped + t->first;
	uint64_t cur_end = t->size * 8, cur_size = 0, last_seen = 0;
	bool in_bitfield = false;
	uint32_t i;

	for (i = 0; i < t->n; i++) {
		struct pmember m;
		uint64_t start, end;

		if (k[i].kind != CH_MEMBER)
			continue;
		pmember_of(w, &k[i], &m);
		start = m.bit_offset;
		end = start + (m.bitfield_size ? m.bitfield_size : m.byte_size * 8);
		if (in_bitfield)
			last_seen = start < cur_end ? start : cur_end;
		if (m.bitfield_size) {
			uint64_t aligned = m.byte_offset * 8;

			if (last_seen < aligned && aligned <= start) {
				if (m.byte_offset > last_seen / 8)
					return true;
				last_seen = aligned;
			}
		} else if ((int64_t)(start / 8) - (int64_t)(last_seen / 8) > 0) {
			return true;
		}
		last_seen = end;
		if (m.bitfield_size) {
			in_bitfield = true;
			if (end > cur_end || m.byte_size * 8 > cur_size) {
				cur_size = m.byte_size * 8;
				cur_end = m.byte_offset * 8 + cur_size;
				if (end > cur_end)
					cur_end += cur_size;
			}
		} else {
			in_bitfield = false;
			cur_size = 0;
			cur_end = end;
		}
	}
	if (in_bitfield)
		last_seen = t->size * 8 < cur_end ? t->size * 8 : cur_end;
	return t->size != last_seen / 8;
}

/*
 * pahole's class__infer_packed_attributes() for struct id, with its state
 * across types of the unit: a struct with holes or padding marks the
 * structs it holds at unnatural offsets packed.
 */
static int infer_packed(struct enc_worker *w, uint32_t id)
{
	const struct ir_type *t = ir_at(w, id);
	const struct ir_child *k;
	uint64_t al, max_al = 1, i;
	bool packed = false;

	if (!t || t->kind != IR_STRUCT)
		return 0;
	if (w->packed_n < w->ntypes + 1) {
		if (VEC_RESERVE(w->packed, w->packed_cap, w->ntypes + 1))
			return -ENOMEM;
		memset(w->packed + w->packed_n, 0, w->ntypes + 1 - w->packed_n);
		w->packed_n = w->ntypes + 1;
	}
	if (w->packed[id])
		return w->packed[id] == 2;
	k = w->grouped + t->first;
	if (has_holes(w, t)) {
		for (i = 0; i < t->n; i++) {
			struct pmember m;
			uint32_t mt = strip_mods(w, k[i].ref_id);
			const struct ir_type *mty = ir_at(w, mt);

			if (k[i].kind != CH_MEMBER || !mty || mty->kind != IR_STRUCT)
				continue;
			pmember_of(w, &k[i], &m);
			if (m.byte_offset % natural_align(w, mt, 0))
				w->packed[mt] = 2;
		}
	} else {
		for (i = 0; i < t->n && !packed; i++) {
			struct pmember m;

			if (k[i].kind != CH_MEMBER)
				continue;
			al = natural_align(w, strip_mods(w, k[i].ref_id), 0);
			if (al == 1)
				continue;
			if (al > max_al)
				max_al = al;
			pmember_of(w, &k[i], &m);
			packed = m.byte_offset % al != 0;
		}
		if (!packed) {
			uint64_t align = 0;
			struct diag d;

			/* DW_AT_alignment of the struct: packed if 1 while members need more */
			diag_clear(&d);
			if (max_al != 1 && !dw_die_at(w->ctx->in->dw, t->die, &w->die2, &d))
				dw_udata(&w->die2, DW_AT_alignment, &align);
			packed = (max_al != 1 && align == 1) || t->size % max_al != 0;
		}
	}
	w->packed[id] = packed ? 2 : 1;
	return packed;
}

/* pahole's param__is_struct(): through const and typedefs to a struct. */
static bool param_is_struct(const struct enc_worker *w, uint32_t id)
{
	const struct ir_type *t;
	int guard;

	for (guard = 0; (t = ir_at(w, id)) && guard < 64; guard++) {
		if (t->kind == IR_CONST || t->kind == IR_TYPEDEF) {
			id = t->ref_id;
			continue;
		}
		return t->kind == IR_STRUCT || (t->kind == IR_FWD && !t->fwd_union);
	}
	return false;
}

static bool unexp_origin(const struct enc_worker *w, uint64_t die)
{
	size_t lo = 0, hi = w->nunexp;

	while (lo < hi) {
		size_t mid = (lo + hi) / 2;

		if (w->unexp_origins[mid] == die)
			return true;
		if (w->unexp_origins[mid] < die)
			lo = mid + 1;
		else
			hi = mid;
	}
	return false;
}

/*
 * An instance's flags.  Unexpected register: a parameter (or, through
 * DW_AT_abstract_origin, one of its concrete copies) in another register
 * than the ABI's, unless some parameter is a struct (several registers
 * throw the count off).  1.31's uncertain location: a named struct passed
 * on the stack (beyond the register parameters) that pahole infers is
 * packed.
 */
static void func_flags(struct enc_worker *w, const struct ir_func *f, struct frag_func *ff)
{
	const struct ir_child *k = w->grouped + f->first;
	unsigned nregs = w->ctx->syms->nparam_regs;
	bool unexp = false, has_struct = false;
	uint32_t i, np = 0, idx = 0;

	for (i = 0; i < f->n; i++) {
		if (k[i].kind != CH_PARAM)
			continue;
		np++;
		unexp |= k[i].unexp || (w->nunexp && unexp_origin(w, k[i].die));
		has_struct |= param_is_struct(w, k[i].ref_id);
	}
	ff->unexpected_reg = unexp && !has_struct;
	if (w->ctx->o->compat != ENC_COMPAT_131 || np < nregs)
		return;
	for (i = 0; i < f->n && !ff->uncertain_loc; i++) {
		const struct ir_type *t;

		if (k[i].kind != CH_PARAM || idx++ < nregs)
			continue;
		t = ir_at(w, k[i].ref_id);
		if (t && t->kind == IR_STRUCT && t->name)
			ff->uncertain_loc = infer_packed(w, k[i].ref_id) > 0;
	}
}

static const struct percpu_sym *percpu_find(const struct enc_syms *sy, uint64_t addr)
{
	size_t lo = 0, hi = sy->npercpu;

	while (lo < hi) {
		size_t mid = (lo + hi) / 2;

		if (sy->percpu[mid].addr < addr)
			lo = mid + 1;
		else
			hi = mid;
	}
	return lo < sy->npercpu && sy->percpu[lo].addr == addr ? &sy->percpu[lo] : NULL;
}

/*
 * Per-CPU variables (pahole 1.24 rules): a top-level variable at an address
 * of a sized STT_OBJECT symbol of .data..percpu, named like the symbol when
 * at address 0; type and linkage from its declaration when it has one.
 * Runs before grouping, since resolving the type may import DIEs.
 */
static int select_vars_modern(struct enc_worker *w);

static int select_vars(struct enc_worker *w)
{
	const struct enc_syms *sy = w->ctx->syms;
	struct dw_die *spec = NULL;
	size_t i;
	int err = 0;

	if (w->ctx->o->compat != ENC_COMPAT_124)
		return select_vars_modern(w);
	if (!w->ctx->o->vars || !sy->have_percpu)
		return 0;
	for (i = 0; i < w->nvars; i++) {
		struct ir_var *v = &w->vars[i];
		const struct percpu_sym *ps;

		v->ps = NULL;
		if ((v->declaration && !v->spec) || !v->has_addr)
			continue;
		v->addr -= sy->percpu_base;
		if (!(ps = percpu_find(sy, v->addr)))
			continue;
		/*
		 * Address 0 of a linked image is also where "special" variables
		 * sit: there the DIE's own name must agree (pahole 1.24).  In
		 * ET_REL files pahole's addresses (libdwfl's section layout)
		 * are not 0, so the check does not apply.
		 */
		if (!v->addr && !w->ctx->syms->is_rel && (!v->name || strcmp(v->name, ps->name)))
			continue;
		if (v->spec) {
			/* A definition of a declared variable: type and linkage are the
			 * declaration's. */
			if (!spec && !(spec = mem_alloc(sizeof(*spec)))) {
				err = -ENOMEM;
				break;
			}
			if ((err = dw_die_at(w->ctx->in->dw, v->spec, spec, w->d)))
				break;
			v->type = dw_ref(w->ctx->in->dw, spec, DW_AT_type);
			v->external = dw_flag(spec, DW_AT_external);
		}
		if (!v->type) {
			if (w->ctx->o->force) {
				note(w, "variable '%s' has void type, skipped", ps->name);
				continue;
			}
			err = diag_err(w->d, EINVAL,
				       "%s: DIE 0x%llx: per-CPU variable '%s' has void type (use --force to skip it)",
				       dw_file_path(w->ctx->in->dw),
				       (unsigned long long)DW_REF_OFF(v->die), ps->name);
			break;
		}
		if ((err = resolve(w, v->type, &v->type_id)))
			break;
		v->ps = ps;
	}
	mem_free(spec);
	return err;
}

/*
 * Variables (pahole 1.30/1.31): each top-level, non-artificial definition
 * whose location is an address in a kept section (.data..percpu; every
 * PROGBITS/NOBITS section with global_vars), named and typed by its
 * declaration when it has one.  Its type's size is checked in
 * emit_vars(), once types are grouped.
 */
static int select_vars_modern(struct enc_worker *w)
{
	const struct enc_syms *sy = w->ctx->syms;
	const struct enc_opts *o = w->ctx->o;
	struct dw_file *dw = w->ctx->in->dw;
	size_t i;
	int err;

	for (i = 0; i < w->nvars; i++) {
		struct ir_var *v = &w->vars[i];
		const struct var_sec *sec;
		uint64_t off;

		v->sec = NULL;
		if (v->declaration || v->artificial || !v->addr_first ||
		    !(sec = policy_var_sec(sy, v->addr)) || !sec->include)
			continue;
		off = v->addr - sec->addr;
		if (v->spec) {
			struct diag d;

			diag_clear(&d);
			if ((err = dw_die_at(dw, v->spec, &w->die2, &d))) {
				*w->d = d;
				return err;
			}
			v->name = dw_name(&w->die2);
			v->type = dw_ref(dw, &w->die2, DW_AT_type);
			v->external = dw_flag(&w->die2, DW_AT_external);
		}
		if (!v->name || policy_var_name_skipped(v->name))
			continue;
		/* address 0 may be a discarded section's: the symbol table must agree */
		if (!off && !policy_obj_in_sec(sy, v->name, sec->idx))
			continue;
		if (!policy_name_valid(v->name)) {
			if (o->force) {
				note(w, "variable '%s': not a valid BTF name, skipped", v->name);
				continue;
			}
			return diag_err(w->d, EINVAL,
					"%s: DIE 0x%llx: variable name '%s' is not a valid BTF name (encode_force skips it)",
					dw_file_path(dw), (unsigned long long)DW_REF_OFF(v->die), v->name);
		}
		if (!v->type) {
			if (o->force) {
				note(w, "variable '%s' has void type, skipped", v->name);
				continue;
			}
			return diag_err(w->d, EINVAL,
					"%s: DIE 0x%llx: variable '%s' has void type (encode_force skips it)",
					dw_file_path(dw), (unsigned long long)DW_REF_OFF(v->die), v->name);
		}
		if ((err = resolve(w, v->type, &v->type_id)))
			return err;
		v->addr = off;
		v->sec = sec;
	}
	return 0;
}

static int emit_vars(struct enc_worker *w)
{
	const struct enc_syms *sy = w->ctx->syms;
	bool modern = w->ctx->o->compat != ENC_COMPAT_124;
	struct cu_frag *fr = w->frag;
	size_t i, j;

	for (i = 0; i < w->nvars; i++) {
		struct ir_var *v = &w->vars[i];
		struct frag_var *fv;
		int err;

		if (modern) {
			if (!v->sec)
				continue;
			v->size = ir_size(w, v->type_id, 0);
			if (!v->size || v->size > UINT32_MAX || v->addr > UINT32_MAX) {
				note(w, "variable '%s': %s, skipped", v->name,
				     v->addr > UINT32_MAX ? "its offset does not fit in 32 bits" :
				     v->size ? "over-sized" : "zero-sized");
				continue;
			}
		} else if (!v->ps) {
			continue;
		}
		if (!rec_add(fr, STR(modern ? v->name : v->ps->name), BTF_KIND_VAR, false, 0,
			     v->type_id, 1))
			return -ENOMEM;
		fr->words[fr->nwords - 1] = v->external ? BTF_VAR_GLOBAL_ALLOCATED : BTF_VAR_STATIC;
		if (VEC_RESERVE(fr->vars, fr->vars_cap, fr->nvars + 1))
			return -ENOMEM;
		fv = &fr->vars[fr->nvars++];
		fv->id = fv->last = (uint32_t)fr->nrecs;
		fv->offset = v->addr;
		fv->size = modern ? v->size : v->ps->size;
		fv->sec = modern ? (uint32_t)(v->sec - sy->secs) : 0;
		for (j = 0; j < w->ntags; j++) {
			const struct ir_decl_tag *dt = &w->tags[j];

			if (dt->on != TAG_ON_VAR || dt->target != i)
				continue;
			if ((err = emit_decl_tag(w, dt->value, fv->id, -1)))
				return err;
			fv->last = (uint32_t)fr->nrecs;
		}
	}
	return 0;
}

static int cmp_u64(const void *a, const void *b)
{
	uint64_t x = *(const uint64_t *)a, y = *(const uint64_t *)b;

	return (x > y) - (x < y);
}

static bool lang_excluded(const struct enc_opts *o, uint32_t lang)
{
	const uint32_t *l;

	for (l = o->lang_exclude; l && *l; l++)
		if (*l == lang)
			return true;
	return false;
}

int enc_convert_unit(struct enc_ctx *ctx, struct enc_worker *w, size_t ui, struct cu_frag *frag)
{
	const struct dw_unit *u = dw_unit_at(ctx->in->dw, ui);
	uint32_t index_id = 0;
	struct dw_cursor c;
	size_t i;
	int err;

	w->ctx = ctx;
	w->unit = u;
	w->frag = frag;
	w->d = &frag->diag;
	w->ntypes = w->nkids = w->nfuncs = w->nvars = w->ntags = w->nunexp = w->packed_n = 0;
	w->split = false;
	w->last_parent = UINT32_MAX;
	w->resolved_types = w->resolved_kids = 0;
	w->int_type = -1;
	if (u->in_types || u->unit_type == DW_UT_type || u->unit_type == DW_UT_partial ||
	    u->unit_type == DW_UT_split_type || lang_excluded(ctx->o, u->lang)) {
		/* Type and partial units are read through references only. */
		frag->skipped = true;
		return 0;
	}
	if (ctx->ref_direct)
		err = map_reset(&w->map, 64) || map_direct(&w->map, u) ? -ENOMEM : 0;
	else	/* few units: a table sized for the unit's type DIEs (about one per 40 bytes) */
		err = map_reset(&w->map, (size_t)MIN((u->end - u->off) / 40, MAP_HINT_MAX));
	if (err)
		goto fail;
	/* the copy lives with the fragment: inline names point into it until merged */
	if ((err = dw_cursor_init_copy(&c, ctx->in->dw, u, &frag->ubuf, &frag->ubuf_cap, w->d)))
		goto fail;
	if ((err = set_open(w, 0, OPEN_NONE, -1)) || (err = walk(w, &c, 0)))
		goto fail;
	select_funcs(w);
	if (w->nunexp)
		qsort(w->unexp_origins, w->nunexp, sizeof(*w->unexp_origins), cmp_u64);
	if ((err = resolve_all(w)) || (err = select_vars(w)) || (err = resolve_all(w)) ||
	    (err = group_children(w)))
		goto fail;

	/* The array index type: the unit's "int", else one made up after the types. */
	if (w->int_type >= 0)
		index_id = (uint32_t)w->int_type + 1;
	else
		for (i = 0; i < w->ntypes; i++)
			if (w->types[i].kind == IR_ARRAY) {
				index_id = (uint32_t)w->ntypes + 1;
				break;
			}
	for (i = 0; i < w->ntypes; i++) {
		if ((err = emit_type(w, &w->types[i], index_id)))
			goto fail;
	}
	if (index_id == w->ntypes + 1) {
		uint32_t *p = rec_add(frag, STR("__ARRAY_SIZE_TYPE__"), BTF_KIND_INT, false, 0, 4, 1);

		if (!p) {
			err = -ENOMEM;
			goto fail;
		}
		*p = BTF_INT_SIGNED << 24 | 32;
		frag->synth_id = index_id;
	}
	for (i = 0; i < w->ntags; i++) {
		const struct ir_decl_tag *dt = &w->tags[i];

		if (dt->on == TAG_ON_TYPE &&
		    (err = emit_decl_tag(w, dt->value, dt->target + 1, dt->component)))
			goto fail;
	}
	frag->ntypes = (uint32_t)frag->nrecs;
	frag->has_int = w->int_type >= 0;
	frag->int_id = (uint32_t)(w->int_type + 1);
	for (i = 0; i < w->nfuncs; i++) {
		if (!w->funcs[i].keep)
			continue;
		if ((err = emit_func(w, &w->funcs[i])))
			goto fail;
	}
	if ((err = emit_vars(w)))
		goto fail;
	return 0;
fail:
	frag->err = err;
	if (!frag->diag.code)
		diag_err(&frag->diag, -err, "%s: unit 0x%llx: %s", dw_file_path(ctx->in->dw),
			 (unsigned long long)u->off, strerror(-err));
	return err;
}

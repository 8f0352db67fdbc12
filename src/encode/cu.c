// SPDX-License-Identifier: GPL-2.0-only
/*
 * One unit's DWARF -> a BTF fragment (enc_convert_unit).
 *
 * Pass 1 (here) walks the unit's DIEs once, in order, and records every
 * type DIE as an IR entry (local BTF id = IR index + 1) with its children
 * (members, enumerators, parameters, array dimensions) and the function
 * and variable candidates (select.c decides which are kept), then
 * resolves DWARF references through a DIE-offset -> id map.  A reference
 * leaving the unit (ref_addr, type units, dwz) pulls the referenced DIE's
 * subtree into the IR on demand.  Pass 2 (emit.c) writes the IR as BTF
 * records.
 *
 * What pahole does is the reference for every choice; where it fails
 * (atomic, complex floats) we degrade instead, with a note.
 */
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>

#include "base/hash.h"
#include "base/mem.h"
#include "encode/worker.h"

/*
 * What the walk decodes (dw_next_filtered), in one place: the leaf shapes
 * (leaf_run(): members, prototype parameters and enumerators whose values
 * are only the ones add_member(), add_param() and add_enumerator() read,
 * in the classes they take whole), then every other attribute anything
 * here reads (visit() and its helpers, select.c, loc.c's location checks,
 * dw_skip_children()'s DW_AT_sibling).  The filter keeps their union; the
 * decoder skips the rest unread (decl_file/line/column alone are half of a
 * member's).  A read of an attribute missing here aborts in checking
 * builds (dw_filter_strict), and BTFC_SLOW_PATHS decodes every DIE whole
 * to compare with (t_encode.sh, fuzz_encode).
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
static const uint16_t other_attrs[] = {
	DW_AT_sibling, DW_AT_location, DW_AT_byte_size, DW_AT_bit_offset, DW_AT_low_pc,
	DW_AT_high_pc, DW_AT_language, DW_AT_producer, DW_AT_lower_bound, DW_AT_upper_bound,
	DW_AT_abstract_origin, DW_AT_count, DW_AT_declaration, DW_AT_encoding, DW_AT_external,
	DW_AT_specification, DW_AT_ranges, DW_AT_alignment, DW_AT_linkage_name, DW_AT_artificial,
	DW_AT_signature, DW_AT_import,
};

/* The filter: other_attrs and the leaves' attributes. */
struct dw_filter *enc_walk_filter(void)
{
	uint16_t ats[sizeof(other_attrs) / sizeof(other_attrs[0]) +
		     sizeof(leaves) / sizeof(leaves[0]) * DW_LEAF_MAX];
	size_t n = 0, i, j, k;
	struct dw_filter *fl;

	for (i = 0; i < sizeof(other_attrs) / sizeof(other_attrs[0]); i++)
		ats[n++] = other_attrs[i];
	for (i = 0; i < sizeof(leaves) / sizeof(leaves[0]); i++)
		for (j = 0; j < leaves[i].n; j++) {
			for (k = 0; k < n && ats[k] != leaves[i].at[j]; k++)
				;
			if (k == n)
				ats[n++] = leaves[i].at[j];
		}
	if (!(fl = dw_filter_new(ats, n)))
		return NULL;
	for (i = 0; i < sizeof(leaves) / sizeof(leaves[0]); i++)
		if (dw_filter_add_leaf(fl, &leaves[i]))
			abort();	/* the shapes above do not fit a filter */
	dw_filter_strict(fl);
	return fl;
}

/* Stored values: local id + 1 (void is 1); 0 marks an alias DIE. */
#define MAP_VOID 1u

/*
 * The DIE a type signature names (DW_FORM_ref_sig8: a type unit's type).
 * One no type unit defines is remembered, the first of the unit, and
 * fails the unit after the walk (enc_convert_unit): never void, never an
 * empty struct.
 */
__attribute__((noinline)) uint64_t enc_sig(struct enc_worker *w, uint64_t die_off, uint64_t sig)
{
	uint64_t r = dw_sig_lookup(w->ctx->in->dw, sig);

	if (!r && !w->badsig_set) {
		w->badsig_set = true;
		w->badsig_die = die_off;
		w->badsig = sig;
	}
	return r;
}

/* The unit's error for a signature no type unit defines (enc_sig()). */
static int badsig_err(struct enc_worker *w)
{
	uint64_t off = w->badsig_die;

	return diag_err(w->d, ENOENT,
			"%s: %sDIE 0x%llx: type signature 0x%016llx names no type unit in this file",
			dw_file_path(w->ctx->in->dw),
			off & DW_REF_ALT ? "alternate file's " : off & DW_REF_TYPES ? ".debug_types " : "",
			(unsigned long long)DW_REF_OFF(off), (unsigned long long)w->badsig);
}


/*
 * What an alias DIE stands for: its DW_AT_signature's type (a
 * declaration standing for a type unit's type), else its DW_AT_type.
 */
static uint64_t alias_target(struct enc_worker *w, const struct dw_die *die)
{
	const struct dw_attr *a = dw_attr(die, DW_AT_signature);

	if (a && a->cls == DW_CL_SIG)
		return enc_sig(w, die->off, a->u);
	if (a && a->cls == DW_CL_REF)
		return a->u;
	return enc_ref(w, die, DW_AT_type);
}

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
	t->nest = -1;
	/* a type DIE right inside a struct or union: emitted before it (emit.c) */
	if (die->depth > 0 && w->open_kind[die->depth - 1] == OPEN_TYPE) {
		int64_t p = w->open[die->depth - 1];

		if (w->types[p].kind == IR_STRUCT || w->types[p].kind == IR_UNION ||
		    w->types[p].kind == IR_FWD) {
			t->nest = (int32_t)p;
			w->nested = true;
		}
	}
	t->name = dw_name(die);
	t->ref = enc_ref(w, die, DW_AT_type);
	if (refmap_put(&w->map, die->off, (uint32_t)w->ntypes + 2))
		return NULL;
	w->ntypes++;
	return t;
}


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
		if (enc_die_at(w, ref, die, &d))
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

/* BTF_ALIGN_TAG "N", for the powers of two a DW_AT_alignment may be. */
#define AT(n) BTF_ALIGN_TAG #n
static const char *const align_tag[] = {
	AT(1), AT(2), AT(4), AT(8), AT(16), AT(32), AT(64), AT(128), AT(256), AT(512), AT(1024),
	AT(2048), AT(4096), AT(8192), AT(16384), AT(32768), AT(65536), AT(131072), AT(262144),
	AT(524288), AT(1048576), AT(2097152), AT(4194304), AT(8388608), AT(16777216),
	AT(33554432), AT(67108864), AT(134217728), AT(268435456), AT(536870912),
	AT(1073741824), AT(2147483648),
};
#undef AT

/*
 * enc_opts.struct_view: DW_AT_alignment of a struct/union (component -1)
 * or of its member as a decl tag (a member with one is never a leaf: the
 * filter keeps the attribute, the leaf shape does not have it).
 */
static int add_align_tag(struct enc_worker *w, const struct dw_die *die, uint32_t type,
			 int32_t component)
{
	struct ir_decl_tag *dt;
	uint64_t a;
	unsigned k;

	if (!dw_udata(die, DW_AT_alignment, &a) || !a || (a & (a - 1)) || a > (1ull << 31))
		return 0;
	for (k = 0; (1ull << k) != a; k++)
		;
	if (VEC_RESERVE(w->tags, w->tags_cap, w->ntags + 1))
		return -ENOMEM;
	dt = &w->tags[w->ntags++];
	dt->value = align_tag[k];
	dt->on = TAG_ON_TYPE;
	dt->target = type;
	dt->component = component;
	return 0;
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
	if (w->ctx->o->struct_view &&
	    add_align_tag(w, die, parent, (int32_t)w->types[parent].nmemb))
		return -ENOMEM;
	w->types[parent].nmemb++;
	c->name = m->name;
	if (m->type)
		c->ref = m->type->cls == DW_CL_SIG ? enc_sig(w, die->off, m->type->u)
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


static int add_param(struct enc_worker *w, uint32_t parent, const struct dw_die *die, bool func)
{
	struct ir_child *c = new_child(w, func ? parent | FUNC_PARENT : parent,
				       die->tag == DW_TAG_formal_parameter ? CH_PARAM : CH_VARARG);

	if (!c)
		return -ENOMEM;
	if (die->tag == DW_TAG_formal_parameter) {
		c->die = die->off;
		c->name = dw_name(die);
		c->ref = enc_ref(w, die, DW_AT_type);
		if (func && w->ctx->o->compat != ENC_COMPAT_124 &&
		    enc_param_modern(w, c, die, w->funcs[parent].nparams))
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
		t->nest = (int32_t)pi;	/* pahole adds a pointer's tags before it */
		w->nested = true;
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

/*
 * A variable at DW_OP_addrx N (clang's DWARF 5, split DWARF; DW_OP_GNU_addr_index
 * in GNU's DWARF 4 split units): the address table's entry N, as if it were
 * DW_OP_addr (pahole 1.24 took N itself for the address).
 */
static int var_addrx(struct enc_worker *w, const struct dw_die *die, struct ir_var *var,
		     const struct dw_attr *a)
{
	const uint8_t *p = a->blk + 1, *end = a->blk + a->len;
	uint64_t idx = 0, addr;
	unsigned shift = 0;

	for (; p < end; p++, shift += 7) {
		if (shift < 64)
			idx |= (uint64_t)(*p & 0x7f) << shift;
		if (!(*p & 0x80))
			break;
	}
	if (p >= end || !dw_addr_index(w->ctx->in->dw, die->unit, idx, &addr))
		return 0;	/* malformed, or out of the table: no address */
	var->addr = addr;
	var->has_addr = p + 1 == end;
	var->addr_first = true;
	return 0;
}

/*
 * DW_TAG_imported_unit (dwz): the partial unit it names, in this file or
 * the alternate one, is part of this unit; walked after it
 * (walk_imports()), each once.
 */
static int add_import(struct enc_worker *w, const struct dw_die *die)
{
	const struct dw_attr *a = dw_attr(die, DW_AT_import);
	size_t i;

	if (!a || a->cls != DW_CL_REF)
		return 0;
	for (i = 0; i < w->nimports; i++)
		if (w->imports[i] == a->u)
			return 0;
	if (VEC_RESERVE(w->imports, w->imports_cap, w->nimports + 1))
		return -ENOMEM;
	w->imports[w->nimports++] = a->u;
	return 0;
}

/*
 * A type DIE that only names a type unit's type by DW_AT_signature (gcc
 * -fdebug-types-section leaves such a declaration where the type was): an
 * alias of that type, which comes in through the reference.
 */
static int sig_alias(struct enc_worker *w, const struct dw_die *die)
{
	alias_target(w, die);	/* an unknown signature fails the unit */
	return refmap_put(&w->map, die->off, 0);
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

/*
 * Convert one DIE.  One piece (200 lines): a switch with a case per DWARF
 * tag, each a few lines that hand off to a helper; the cases share the
 * open-container state read at the top.
 */
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
			/* noted once, at emission, with what it became */
			if (t)
				t->complex = enc == DW_ATE_complex_float || enc == DW_ATE_imaginary_float;
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
			enc_note_die(w, die->off, "%s encoded as a pointer", dw_tag_name(die->tag));
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
			return refmap_put(&w->map, die->off, 0);
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
		enc_note_die(w, die->off, "%s dropped (no BTF equivalent)", dw_tag_name(die->tag));
		return refmap_put(&w->map, die->off, 0);	/* 0 = alias, see resolve() */
	case DW_TAG_unspecified_type:
		return refmap_put(&w->map, die->off, MAP_VOID);
	case DW_TAG_imported_unit:
		return add_import(w, die);
	case DW_TAG_structure_type:
	case DW_TAG_class_type:
	case DW_TAG_union_type:
		if (unlikely(dw_attr(die, DW_AT_signature)))
			return sig_alias(w, die);
		if (dw_flag(die, DW_AT_declaration)) {
			t = new_type(w, die, IR_FWD);
			if (t) {
				t->fwd_union = die->tag == DW_TAG_union_type;
				/* (a C++ declaration may hold types: they nest in it) */
				if (die->has_children)
					err = set_open(w, depth, OPEN_TYPE, (int64_t)w->ntypes - 1);
			}
		} else {
			t = new_type(w, die, die->tag == DW_TAG_union_type ? IR_UNION : IR_STRUCT);
			if (t) {
				dw_udata(die, DW_AT_byte_size, &t->size);
				err = set_open(w, depth, OPEN_TYPE, (int64_t)w->ntypes - 1);
				if (!err && o->struct_view)
					err = add_align_tag(w, die, (uint32_t)w->ntypes - 1, -1);
			}
		}
		break;
	case DW_TAG_enumeration_type:
		if (unlikely(dw_attr(die, DW_AT_signature)))
			return sig_alias(w, die);
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
	case DW_TAG_inheritance:
		/* pahole's choice: a base class is not a member (a hole where it lies) */
		if (pk == 0 && (w->types[pidx].kind == IR_STRUCT || w->types[pidx].kind == IR_UNION))
			enc_note_die(w, die->off, "base class of '%s' dropped, as pahole does",
				     w->types[pidx].name ? w->types[pidx].name : "(anon)");
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
		f->ret = enc_ref(w, die, DW_AT_type);
		f->declaration = dw_flag(die, DW_AT_declaration);
		f->external = dw_flag(die, DW_AT_external);
		f->named_params = true;
		if (!f->name && o->compat != ENC_COMPAT_124 && !f->declaration)
			enc_func_from_origin(w, die, f);
		f->candidate = enc_func_candidate(w, f);
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
			var->type = enc_ref(w, die, DW_AT_type);
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
			} else if (a && a->cls == DW_CL_BLOCK && a->len >= 2 &&
				   (a->blk[0] == DW_OP_addrx || a->blk[0] == DW_OP_GNU_addr_index)) {
				/* the same through the address table (DWARF 5, split DWARF) */
				return var_addrx(w, die, var, a);
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
	switch ((enum ir_kind)w->types[parent].kind) {
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
	case IR_INT: case IR_FLOAT: case IR_PTR: case IR_CONST: case IR_VOLATILE:
	case IR_RESTRICT: case IR_TYPEDEF: case IR_FWD: case IR_ARRAY: case IR_TYPE_TAG:
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
/* enc_opts.slow_paths: every DIE decoded whole (what the filter and leaf runs save). */
static int next_slow(struct enc_worker *w, struct dw_cursor *c)
{
	int r = dw_next(c, &w->die);

	if (r > 0 && !want_die(w, w->die.tag, w->die.depth))
		w->die.nattr = w->die.nattr_in = 0;	/* only the header, as the filter leaves it */
	return r;
}

static int walk(struct enc_worker *w, struct dw_cursor *c, int stop_depth)
{
	bool first = true, slow = w->ctx->o->slow_paths;
	int r;

	while ((r = slow ? next_slow(w, c) : dw_next_filtered(c, &w->die, want_die, w, w->filter)) > 0) {
		if (stop_depth > 0 && !first && w->die.depth <= stop_depth)
			break;
		first = false;
		if (skip_subtree(w->die.tag)) {
			if ((r = dw_skip_children(c, &w->die)) < 0)
				return r;
			continue;
		}
		if ((r = visit(w, &w->die, w->die.depth)) < 0 || (!slow && (r = leaf_run(w, c)) < 0))
			return r;
	}
	return r < 0 ? r : 0;
}

/*
 * The partial units this unit imports, and those they import, as if their
 * DIEs were the unit's own: dwz moved them out of the units that had them,
 * and types no function reaches would otherwise be lost.  A reference to
 * a DIE there finds it in the map, so it is recorded once.
 */
static int walk_imports(struct enc_worker *w)
{
	const struct dw_file *dw = w->ctx->in->dw;
	size_t i;
	int r;

	for (i = 0; i < w->nimports; i++) {
		const struct dw_unit *u = dw_unit_of(dw, w->imports[i]);
		struct dw_cursor c;

		if (!u || u->in_types || DW_REF_OFF(w->imports[i]) != u->die_off)
			return diag_err(w->d, EINVAL,
					"%s: unit 0x%llx: DW_TAG_imported_unit names 0x%llx%s, not a unit",
					dw_file_path(dw), (unsigned long long)w->unit->off,
					(unsigned long long)DW_REF_OFF(w->imports[i]),
					w->imports[i] & DW_REF_ALT ? " of the alternate file" : "");
		if (u->unit_type != DW_UT_partial)
			continue;	/* a compile unit is converted on its own */
		if ((r = dw_cursor_init(&c, dw, u, w->d)) || (r = set_open(w, 0, OPEN_NONE, -1)) ||
		    (r = walk(w, &c, 0)))
			return r;
	}
	return 0;
}

/* Pull a DIE outside this unit (ref_addr, type unit, dwz) into the IR. */
static int import_foreign(struct enc_worker *w, uint64_t ref)
{
	struct dw_cursor c;
	int r;

	if ((r = w->home ? dw_cursor_at_home(&c, w->home, ref, w->d)
			 : dw_cursor_at(&c, w->ctx->in->dw, ref, w->d)))
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
int enc_resolve(struct enc_worker *w, uint64_t ref, uint32_t *id)
{
	int guard;

	for (guard = 0; guard < 64; guard++) {
		uint32_t v;
		int r;

		if (!ref) {
			*id = 0;
			return 0;
		}
		if (refmap_find(&w->map, ref, &v) && v >= MAP_VOID) {
			*id = v - 1;
			return 0;
		}
		if (refmap_find(&w->map, ref, &v)) {
			/* alias: follow the DIE's own DW_AT_type */
			struct dw_die *die = mem_alloc(sizeof(*die));

			if (!die)
				return -ENOMEM;
			r = enc_die_at(w, ref, die, w->d);
			ref = r ? 0 : alias_target(w, die);
			mem_free(die);
			if (r)
				return r;
			if (w->badsig_set)
				return badsig_err(w);
			continue;
		}
		if ((r = import_foreign(w, ref)) < 0)
			return r;
		if (!refmap_find(&w->map, ref, &v))
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

	if (ref && refmap_find(&w->map, ref, &v) && v >= MAP_VOID) {
		*id = v - 1;
		return 0;
	}
	return enc_resolve(w, ref, id);
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
			if ((r = enc_resolve(w, w->funcs[i].ret, &id)))
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


static int cmp_u64(const void *a, const void *b)
{
	uint64_t x = *(const uint64_t *)a, y = *(const uint64_t *)b;

	return (x > y) - (x < y);
}

static bool lang_is_c(uint32_t lang)
{
	switch (lang) {
	case DW_LANG_C89: case DW_LANG_C: case DW_LANG_C99: case DW_LANG_C11:
	case 0x2c:	/* DW_LANG_C17 */
		return true;
	default:
		return false;
	}
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
	struct dw_cursor c;
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
	w->badsig_set = false;
	w->home = NULL;
	w->nimports = 0;
	w->nested = false;
	/* names are checked where producers write non-C ones (C++: templates, vtables) */
	w->check_names = !lang_is_c(u->lang);
	/*
	 * A type unit is converted like a compile unit: the types gcc moved
	 * there (-fdebug-types-section) are the ones the compile units had,
	 * and some are referenced only from DIEs no walk decodes (a local
	 * variable's type).  Dedup merges them with the copies references
	 * pulled into the compile units.  Partial units (dwz) are walked
	 * where they are imported (DW_TAG_imported_unit); a split DWARF
	 * skeleton's unit is its .dwo's, read in its place (input.c).
	 */
	if (u->unit_type == DW_UT_partial || lang_excluded(ctx->o, u->lang) ||
	    u->unit_type == DW_UT_skeleton || (!u->split && u->dwo_name && u->has_dwo_id)) {
		frag->skipped = true;
		return 0;
	}
	if (ctx->ref_direct)
		err = refmap_reset(&w->map, 64) || refmap_direct(&w->map, u) ? -ENOMEM : 0;
	else	/* few units: a table sized for the unit's type DIEs (about one per 40 bytes) */
		err = refmap_reset(&w->map, (size_t)MIN((u->end - u->off) / 40, REFMAP_HINT_MAX));
	if (err)
		goto fail;
	/* the copy lives with the fragment: inline names point into it until merged */
	if ((err = dw_cursor_init_copy(&c, ctx->in->dw, u, &frag->ubuf, &frag->ubuf_cap, w->d)))
		goto fail;
	w->home = ctx->o->slow_paths ? NULL : &c;
	if ((err = set_open(w, 0, OPEN_NONE, -1)) || (err = walk(w, &c, 0)) ||
	    (err = walk_imports(w)))
		goto fail;
	enc_select_funcs(w);
	if (w->nunexp)
		qsort(w->unexp_origins, w->nunexp, sizeof(*w->unexp_origins), cmp_u64);
	if ((err = resolve_all(w)) || (err = enc_select_vars(w)) || (err = resolve_all(w)) ||
	    (err = group_children(w)))
		goto fail;
	if (w->badsig_set) {
		err = badsig_err(w);
		goto fail;
	}

	if ((err = enc_emit_unit(w)))
		goto fail;
	w->home = NULL;
	return 0;
fail:
	w->home = NULL;
	frag->err = err;
	if (!frag->diag.code)
		diag_err(&frag->diag, -err, "%s: unit 0x%llx: %s", dw_file_path(ctx->in->dw),
			 (unsigned long long)u->off, strerror(-err));
	return err;
}

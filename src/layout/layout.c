// SPDX-License-Identifier: GPL-2.0-only
/*
 * pahole's BTF layout model, over struct btf, as pahole 1.24, 1.30 and
 * 1.31 have it (l->compat): the types pahole loads, sizes, alignments,
 * holes, inferred __packed__/__aligned__, flexible arrays, and the
 * context (layout_open, _find, _members, _each_class).  print.c and
 * class.c print it; reorg.c reorganizes it.
 *
 * The functions mirror pahole's (dwarves_fprintf.c, dwarves.c,
 * btf_loader.c) one for one, named after them, because the output must
 * match pahole's byte for byte: the same spacing arithmetic on the same
 * "printed" counts, the same fixed-size name buffers (and truncation),
 * the same inference of __aligned__ and __packed__ from offsets, and the
 * same state carried from one printed type to the next.
 *
 * What 1.30 and 1.31 do differently from 1.24 is marked compat_130(l)
 * where it happens: the "XXX last struct has ..." line names the holes,
 * bit holes, bit padding and flexible arrays of a member's struct type,
 * and the summary totals them ("member types with holes: ...", "flexible
 * array members: ..."); only positive holes count; -E expands named
 * enums too; signed enums print signed; TYPE_TAGs are loaded and
 * looked through; a typedef of a union prints like a member's union.
 * What 1.31 adds to 1.30 is in its BTF loader: zero-sized members
 * (flexible arrays, empty structs) get an inferred __aligned__ too, and
 * a bitfield's extent, not its storage unit, ends it for the next
 * member's alignment inference.
 *
 * pahole's view of BTF ids: kinds pahole does not load (DECL_TAG,
 * DATASEC, and TYPE_TAG before 1.25) and FUNCs (kept in another table)
 * look up as "not found" (ptag() returns NULL), as in pahole.
 */
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "base/fmt.h"
#include "base/hash.h"
#include "base/mem.h"
#include "layout/layout.h"
#include "layout/layout_internal.h"

/* ---- text buffer ---- */

void lbuf_free(struct lbuf *b)
{
	mem_free(b->p);
	b->p = NULL;
	b->len = b->cap = 0;
}

PRINTF_LIKE(2, 0) int lbuf_vprintf(struct lbuf *b, const char *fmt, va_list ap)
{
	va_list aq;
	int n;

	va_copy(aq, ap);
	n = fmt_vsnprintf(b->p ? b->p + b->len : NULL, b->p ? b->cap - b->len : 0, fmt, aq);
	va_end(aq);
	if (n < 0)
		return 0;
	if (!b->p || b->len + (size_t)n + 1 > b->cap) {
		size_t need = b->len + (size_t)n + 1;

		if (b->oom)
			return n;
		if (need < 256)
			need = 256;
		if (mem_grow((void **)&b->p, &b->cap, 1, need)) {
			b->oom = true;
			return n;
		}
		fmt_vsnprintf(b->p + b->len, b->cap - b->len, fmt, ap);
	}
	b->len += (size_t)n;
	return n;
}

int lbuf_printf(struct lbuf *b, const char *fmt, ...)
{
	va_list ap;
	int n;

	va_start(ap, fmt);
	n = lbuf_vprintf(b, fmt, ap);
	va_end(ap);
	return n;
}

/* ---- pahole's tags over BTF ---- */

const struct btf_type *ptag(const struct layout *l, uint32_t id)
{
	const struct btf_type *t;

	if (id == 0 || id >= l->ntypes)
		return NULL;
	t = btf_type_by_id(l->btf, id);
	if (!t)
		return NULL;
	switch (btf_kind(t)) {
	case BTF_KIND_INT: case BTF_KIND_PTR: case BTF_KIND_ARRAY: case BTF_KIND_STRUCT:
	case BTF_KIND_UNION: case BTF_KIND_ENUM: case BTF_KIND_FWD: case BTF_KIND_TYPEDEF:
	case BTF_KIND_VOLATILE: case BTF_KIND_CONST: case BTF_KIND_RESTRICT:
	case BTF_KIND_FUNC_PROTO: case BTF_KIND_VAR: case BTF_KIND_FLOAT: case BTF_KIND_ENUM64:
		return t;
	case BTF_KIND_TYPE_TAG:	/* 1.30: a DW_TAG_LLVM_annotation */
		return compat_130(l) ? t : NULL;
	case BTF_KIND_UNKN: case BTF_KIND_FUNC: case BTF_KIND_DATASEC: case BTF_KIND_DECL_TAG:
	default:
		return NULL;
	}
}

bool pt_is_struct(const struct btf_type *t)
{
	if (!t)
		return false;
	switch (K(t)) {
	case BTF_KIND_STRUCT:
		return true;
	case BTF_KIND_FWD:
		return !btf_kflag(t);
	case BTF_KIND_UNKN: case BTF_KIND_INT: case BTF_KIND_PTR: case BTF_KIND_ARRAY:
	case BTF_KIND_UNION: case BTF_KIND_ENUM: case BTF_KIND_TYPEDEF: case BTF_KIND_VOLATILE:
	case BTF_KIND_CONST: case BTF_KIND_RESTRICT: case BTF_KIND_FUNC:
	case BTF_KIND_FUNC_PROTO: case BTF_KIND_VAR: case BTF_KIND_DATASEC:
	case BTF_KIND_FLOAT: case BTF_KIND_DECL_TAG: case BTF_KIND_TYPE_TAG:
	case BTF_KIND_ENUM64:
		break;
	}
	return false;
}

bool pt_is_union(const struct btf_type *t)
{
	if (!t)
		return false;
	switch (K(t)) {
	case BTF_KIND_UNION:
		return true;
	case BTF_KIND_FWD:
		return btf_kflag(t);
	case BTF_KIND_UNKN: case BTF_KIND_INT: case BTF_KIND_PTR: case BTF_KIND_ARRAY:
	case BTF_KIND_STRUCT: case BTF_KIND_ENUM: case BTF_KIND_TYPEDEF:
	case BTF_KIND_VOLATILE: case BTF_KIND_CONST: case BTF_KIND_RESTRICT:
	case BTF_KIND_FUNC: case BTF_KIND_FUNC_PROTO: case BTF_KIND_VAR: case BTF_KIND_DATASEC:
	case BTF_KIND_FLOAT: case BTF_KIND_DECL_TAG: case BTF_KIND_TYPE_TAG:
	case BTF_KIND_ENUM64:
		break;
	}
	return false;
}

bool pt_is_enum(const struct btf_type *t)
{
	if (!t)
		return false;
	switch (K(t)) {
	case BTF_KIND_ENUM: case BTF_KIND_ENUM64:
		return true;
	case BTF_KIND_UNKN: case BTF_KIND_INT: case BTF_KIND_PTR: case BTF_KIND_ARRAY:
	case BTF_KIND_STRUCT: case BTF_KIND_UNION: case BTF_KIND_FWD: case BTF_KIND_TYPEDEF:
	case BTF_KIND_VOLATILE: case BTF_KIND_CONST: case BTF_KIND_RESTRICT:
	case BTF_KIND_FUNC: case BTF_KIND_FUNC_PROTO: case BTF_KIND_VAR: case BTF_KIND_DATASEC:
	case BTF_KIND_FLOAT: case BTF_KIND_DECL_TAG: case BTF_KIND_TYPE_TAG:
		break;
	}
	return false;
}

bool pt_is_base(const struct btf_type *t)
{
	if (!t)
		return false;
	switch (K(t)) {
	case BTF_KIND_INT: case BTF_KIND_FLOAT:
		return true;
	case BTF_KIND_UNKN: case BTF_KIND_PTR: case BTF_KIND_ARRAY: case BTF_KIND_STRUCT:
	case BTF_KIND_UNION: case BTF_KIND_ENUM: case BTF_KIND_FWD: case BTF_KIND_TYPEDEF:
	case BTF_KIND_VOLATILE: case BTF_KIND_CONST: case BTF_KIND_RESTRICT:
	case BTF_KIND_FUNC: case BTF_KIND_FUNC_PROTO: case BTF_KIND_VAR: case BTF_KIND_DATASEC:
	case BTF_KIND_DECL_TAG: case BTF_KIND_TYPE_TAG: case BTF_KIND_ENUM64:
		break;
	}
	return false;
}

bool pt_is_modifier(const struct btf_type *t)
{
	if (!t)
		return false;
	switch (K(t)) {
	case BTF_KIND_VOLATILE: case BTF_KIND_CONST: case BTF_KIND_RESTRICT:
		return true;
	case BTF_KIND_UNKN: case BTF_KIND_INT: case BTF_KIND_PTR: case BTF_KIND_ARRAY:
	case BTF_KIND_STRUCT: case BTF_KIND_UNION: case BTF_KIND_ENUM: case BTF_KIND_FWD:
	case BTF_KIND_TYPEDEF: case BTF_KIND_FUNC: case BTF_KIND_FUNC_PROTO: case BTF_KIND_VAR:
	case BTF_KIND_DATASEC: case BTF_KIND_FLOAT: case BTF_KIND_DECL_TAG:
	case BTF_KIND_TYPE_TAG: case BTF_KIND_ENUM64:
		break;
	}
	return false;
}

/* tag->type */
uint32_t pt_type(const struct btf_type *t)
{
	switch (K(t)) {
	case BTF_KIND_PTR: case BTF_KIND_TYPEDEF: case BTF_KIND_VOLATILE: case BTF_KIND_CONST:
	case BTF_KIND_RESTRICT: case BTF_KIND_FUNC_PROTO: case BTF_KIND_VAR: case BTF_KIND_TYPE_TAG:
		return t->type;
	case BTF_KIND_ARRAY:
		return btf_array(t)->type;
	case BTF_KIND_UNKN: case BTF_KIND_INT: case BTF_KIND_STRUCT: case BTF_KIND_UNION:
	case BTF_KIND_ENUM: case BTF_KIND_FWD: case BTF_KIND_FUNC: case BTF_KIND_DATASEC:
	case BTF_KIND_FLOAT: case BTF_KIND_DECL_TAG: case BTF_KIND_ENUM64:
	default:
		return 0;
	}
}

const char *pt_name(const struct layout *l, const struct btf_type *t)
{
	return t->name_off ? btf_name(l->btf, t->name_off) : NULL;
}

/* tag__size (dwarves.c).  depth guards against reference loops. */
static uint64_t tag_size_d(const struct layout *l, const struct btf_type *t, int depth)
{
	uint64_t size;

	if (depth > 64)
		return 0;
	switch (K(t)) {
	case BTF_KIND_PTR:
		return l->addr_size;
	case BTF_KIND_INT: case BTF_KIND_FLOAT:
		return base_bits(t) / 8;
	case BTF_KIND_ENUM: case BTF_KIND_ENUM64:
		return enum_bits(t) / 8;
	case BTF_KIND_FUNC_PROTO:
		/* 1.30: a subroutine type is pointer-sized (BTF gives no byte size);
		 * 1.24: the size of its return type */
		if (compat_130(l))
			return l->addr_size;
		break;
	case BTF_KIND_UNKN: case BTF_KIND_ARRAY: case BTF_KIND_STRUCT: case BTF_KIND_UNION:
	case BTF_KIND_FWD: case BTF_KIND_TYPEDEF: case BTF_KIND_VOLATILE: case BTF_KIND_CONST:
	case BTF_KIND_RESTRICT: case BTF_KIND_FUNC: case BTF_KIND_VAR: case BTF_KIND_DATASEC:
	case BTF_KIND_DECL_TAG: case BTF_KIND_TYPE_TAG:
		break;
	}
	if (pt_type(t) == 0) {
		if (!pt_is_struct(t) && !pt_is_union(t))
			return 0;
		if (class_size(t) == 1 && class_nr_members(t) == 0)
			size = 0;
		else
			size = class_size(t);
	} else {
		const struct btf_type *tt = ptag(l, pt_type(t));

		if (!tt)
			return (uint64_t)-1;	/* pahole returns -1 */
		size = tag_size_d(l, tt, depth + 1);
	}
	if (K(t) == BTF_KIND_ARRAY)
		return size * btf_array(t)->nelems;
	return size;
}

uint64_t pt_size(const struct layout *l, const struct btf_type *t)
{
	return tag_size_d(l, t, 0);
}

uint64_t layout_type_size(const struct layout *l, uint32_t id)
{
	const struct btf_type *t = ptag(l, id);

	return t ? pt_size(l, t) : 0;
}

/* tag__strip_typedefs_and_modifiers: start at tag->type. */
static const struct btf_type *strip_from(const struct layout *l, uint32_t id, uint32_t *idp)
{
	const struct btf_type *t = ptag(l, id);
	int n = 0;

	while (t && (pt_is_typedef(t) || pt_is_modifier(t)) && n++ < 64) {
		id = pt_type(t);
		t = ptag(l, id);
	}
	if (idp)
		*idp = t ? id : 0;
	return t;
}

uint32_t layout_strip(const struct layout *l, uint32_t id)
{
	uint32_t r;

	strip_from(l, id, &r);
	return r;
}

/* ---- classes: pahole's struct class / struct type state ---- */

static uint32_t natural_alignment(struct layout *l, uint32_t id, int depth);

static uint32_t type_natural_alignment(struct layout *l, uint32_t id, const struct btf_type *t,
				       int depth)
{
	uint32_t i, vlen = class_nr_members(t), na = 0;
	const struct btf_member *m = btf_members(t);

	if (l->natal[id])
		return l->natal[id];
	if (depth > 64)
		return 1;
	for (i = 0; i < vlen; i++) {
		uint32_t mid, a;

		if (!strip_from(l, m[i].type, &mid))	/* pahole would crash; skip */
			continue;
		a = natural_alignment(l, mid, depth + 1);
		if (na < a)
			na = a;
	}
	l->natal[id] = na;
	return na;
}

/* tag__natural_alignment */
static uint32_t natural_alignment(struct layout *l, uint32_t id, int depth)
{
	const struct btf_type *t = ptag(l, id);
	uint32_t na = 1;

	if (!t)
		return 1;

	if (pt_is_pointer(t)) {
		na = l->addr_size;
	} else if (pt_is_base(t)) {
		na = base_bits(t) / 8;
	} else if (pt_is_enum(t)) {
		na = enum_bits(t) / 8;
	} else if (pt_is_struct(t) || pt_is_union(t)) {
		na = type_natural_alignment(l, id, t, depth);
	} else if (K(t) == BTF_KIND_ARRAY) {
		uint32_t eid;

		na = strip_from(l, pt_type(t), &eid) && depth < 64 ? natural_alignment(l, eid, depth + 1) : 1;
	}
	return na ? na : 1;
}

uint32_t layout_natural_alignment(struct layout *l, uint32_t id)
{
	return natural_alignment(l, id, 0);
}

/* class__infer_alignment (btf_loader.c) */
static uint32_t infer_alignment(const struct layout *l, uint32_t byte_offset,
				uint32_t natural, uint32_t smallest_offset)
{
	uint32_t cacheline_size = l->cacheline_size;
	uint32_t alignment = 0;
	uint32_t offset_delta = byte_offset - smallest_offset;

	if (offset_delta) {
		if (byte_offset % 2 == 0) {
			/* 1 << (32 - clz), with x86's 5-bit shift count */
			unsigned sh = (unsigned)(32 - __builtin_clz(offset_delta)) & 31;

			alignment = (uint32_t)(1u << sh);
		} else {
			alignment = 0;
		}
	}
	if (alignment <= natural || alignment == 1)
		alignment = 0;
	else if (alignment < cacheline_size && cacheline_size % alignment == 0 &&
		 byte_offset % cacheline_size == 0)
		alignment = cacheline_size;
	return alignment;
}

static int cmp_lalign(const void *a, const void *b)
{
	const struct lalign *x = a, *y = b;

	if (x->id != y->id)
		return x->id < y->id ? -1 : 1;
	return x->component < y->component ? -1 : x->component > y->component;
}

/* o.dwarf: the DW_AT_alignment tagged on struct id's member (or -1: itself), 0 if none. */
static uint32_t dwarf_align(const struct layout *l, uint32_t id, int32_t component)
{
	struct lalign key = { id, component, 0 };
	const struct lalign *a;

	if (!l->naligns)
		return 0;
	a = bsearch(&key, l->aligns, l->naligns, sizeof(key), cmp_lalign);
	return a ? a->align : 0;
}

/* Collect the BTF_ALIGN_TAG decl tags (o.dwarf). */
static int load_aligns(struct layout *l)
{
	size_t cap = 0, plen = strlen(BTF_ALIGN_TAG);

	for (uint32_t id = btf_start_id(l->btf); id < l->ntypes; id++) {
		const struct btf_type *t = btf_type_by_id(l->btf, id);
		const char *n;

		if (!t || K(t) != BTF_KIND_DECL_TAG || !(n = btf_name(l->btf, t->name_off)) ||
		    strncmp(n, BTF_ALIGN_TAG, plen))
			continue;
		if (VEC_RESERVE(l->aligns, cap, l->naligns + 1))
			return -ENOMEM;
		l->aligns[l->naligns].id = t->type;
		l->aligns[l->naligns].component = btf_decl_tag(t)->component_idx;
		l->aligns[l->naligns].align = (uint32_t)strtoul(n + plen, NULL, 10);
		l->naligns++;
	}
	if (l->naligns)
		qsort(l->aligns, l->naligns, sizeof(l->aligns[0]), cmp_lalign);
	return 0;
}

/*
 * class__fixup_btf_bitfields: done lazily per struct/union, same result.
 * With o.dwarf, alignments are DWARF's (dwarf_loader.c), not
 * inferred.
 */
struct lclass *lclass_get(struct layout *l, uint32_t id)
{
	const struct btf_type *t = ptag(l, id);
	struct lclass *c;
	uint32_t i, n, mtid, smallest_offset = 0;

	if (!t || (!pt_is_struct(t) && !pt_is_union(t)))
		return NULL;
	if (l->cls[id])
		return l->cls[id];
	n = class_nr_members(t);
	c = mem_zalloc(sizeof(*c) + (size_t)n * sizeof(c->m[0]));
	if (!c) {
		l->oom = true;
		return NULL;
	}
	c->id = id;
	c->t = t;
	c->nr = n;
	c->is_struct = pt_is_struct(t);
	for (i = 0; i < n; i++) {
		const struct btf_member *bm = &btf_members(t)[i];
		struct lmember *m = &c->m[i];
		const struct btf_type *mt;

		m->idx = i;
		m->type = bm->type;
		m->name = bm->name_off ? btf_name(l->btf, bm->name_off) : NULL;
		m->bit_offset = btf_member_bit_offset(t, bm);
		m->bitfield_size = (uint8_t)btf_member_bitfield_size(t, bm);
		m->byte_offset = m->bit_offset / 8;
		if (l->o.dwarf)
			m->alignment = dwarf_align(l, id, (int32_t)i);
		mt = strip_from(l, bm->type, &mtid);
		if (!mt)
			continue;
		m->bitfield_offset = 0;
		m->byte_size = pt_size(l, mt);
		m->bit_size = (uint32_t)(m->byte_size * 8);
		if (m->byte_size == 0) {
			/* 1.31: a flexible array or empty struct may be aligned too */
			if (l->compat >= LAYOUT_COMPAT_1_31 && !l->o.dwarf)
				m->alignment = infer_alignment(l, m->byte_offset,
							       natural_alignment(l, mtid, 0),
							       smallest_offset);
			continue;
		}
		if (pt_is_base(mt) || pt_is_enum(mt)) {
			if (m->bitfield_size) {
				m->byte_offset = m->bit_offset / m->bit_size * m->bit_size / 8;
				m->bitfield_offset = (int8_t)(m->bit_offset - m->byte_offset * 8);
				if (m->bitfield_offset < 0) {
					m->bitfield_offset = (int8_t)(m->bitfield_offset + m->bit_size);
					m->byte_offset -= (uint32_t)m->byte_size;
					m->bit_offset = m->byte_offset * 8 + (uint32_t)m->bitfield_offset;
				}
			} else {
				m->byte_offset = m->bit_offset / 8;
			}
		}
		if (!l->o.dwarf)
			m->alignment = infer_alignment(l, m->byte_offset,
						       natural_alignment(l, mtid, 0), smallest_offset);
		/* 1.31: a bitfield ends where its bits do, not its storage unit */
		if (l->compat >= LAYOUT_COMPAT_1_31 && m->bitfield_size)
			smallest_offset = m->byte_offset +
					  (uint32_t)(m->bitfield_offset + m->bitfield_size + 7) / 8;
		else
			smallest_offset = m->byte_offset + (uint32_t)m->byte_size;
	}
	c->alignment = l->o.dwarf ? dwarf_align(l, id, -1)
					     : infer_alignment(l, class_size(t), natural_alignment(l, id, 0),
							       smallest_offset);
	l->cls[id] = c;
	return c;
}

struct lclass *layout_class(struct layout *l, uint32_t id)
{
	return lclass_get(l, id);
}

/* class__find_holes */
void class_find_holes(const struct layout *l, struct lclass *c)
{
	uint32_t size = class_size(c->t);
	/* pahole computes in int; wrap (unsigned) instead of overflowing on absurd sizes */
	int cur_bitfield_end = (int)(size * 8u), cur_bitfield_size = 0;
	int bit_holes, byte_holes, bit_start, bit_end, last_seen_bit = 0;
	bool in_bitfield = false;
	struct lmember *last = NULL;
	uint32_t i;

	if (!c->is_struct || c->holes_searched)
		return;
	c->nr_holes = 0;
	c->nr_bit_holes = 0;
	for (i = 0; i < c->nr; i++) {
		struct lmember *pos = &c->m[i];

		pos->bit_hole = 0;
		pos->hole = 0;
		bit_start = (int)pos->bit_offset;
		if (pos->bitfield_size)
			bit_end = (int)((unsigned)bit_start + pos->bitfield_size);
		else
			bit_end = (int)((unsigned)bit_start + (unsigned)pos->byte_size * 8u);
		bit_holes = 0;
		byte_holes = 0;
		if (in_bitfield) {
			int bitfield_end = MIN(bit_start, cur_bitfield_end);

			bit_holes = bitfield_end - last_seen_bit;
			last_seen_bit = bitfield_end;
		}
		if (pos->bitfield_size) {
			int aligned_start = (int)pos->byte_offset * 8;

			if (last_seen_bit < aligned_start && aligned_start <= bit_start) {
				byte_holes = (int)pos->byte_offset - last_seen_bit / 8;
				last_seen_bit = aligned_start;
			}
			bit_holes += bit_start - last_seen_bit;
		} else {
			byte_holes = bit_start / 8 - last_seen_bit / 8;
		}
		last_seen_bit = bit_end;
		if (pos->bitfield_size) {
			in_bitfield = true;
			if (bit_end > cur_bitfield_end || (int)pos->bit_size > cur_bitfield_size) {
				cur_bitfield_size = (int)pos->bit_size;
				cur_bitfield_end = (int)pos->byte_offset * 8 + cur_bitfield_size;
				if (bit_end > cur_bitfield_end)
					cur_bitfield_end += cur_bitfield_size;
			}
		} else {
			in_bitfield = false;
			cur_bitfield_size = 0;
			cur_bitfield_end = bit_end;
		}
		if (last) {
			last->hole = byte_holes;
			last->bit_hole = (uint8_t)bit_holes;
		} else {
			c->pre_hole = (uint16_t)byte_holes;
			c->pre_bit_hole = (uint8_t)bit_holes;
		}
		if (bit_holes)
			c->nr_bit_holes++;
		if (byte_holes > 0 || (byte_holes && !compat_130(l)))
			c->nr_holes++;
		last = pos;
	}
	if (in_bitfield) {
		int bitfield_end = MIN((int)size * 8, cur_bitfield_end);

		c->bit_padding = (uint8_t)(bitfield_end - last_seen_bit);
		last_seen_bit = bitfield_end;
	} else {
		c->bit_padding = 0;
	}
	c->padding = (uint16_t)(size - (uint32_t)(last_seen_bit / 8));
	c->holes_searched = true;
}

/* type__check_structs_at_unnatural_alignments */
static void check_structs_at_unnatural_alignments(struct layout *l, struct lclass *c)
{
	uint32_t i;

	for (i = 0; i < c->nr; i++) {
		uint32_t mid;
		const struct btf_type *mt = strip_from(l, c->m[i].type, &mid);
		struct lclass *mc;
		uint32_t na;

		if (!pt_is_struct(mt))
			continue;
		na = natural_alignment(l, mid, 0);
		if (c->m[i].byte_offset % na != 0) {
			mc = lclass_get(l, mid);
			if (mc) {
				mc->is_packed = true;
				mc->packed_inferred = true;
			}
		}
	}
}

/* class__infer_packed_attributes */
bool class_infer_packed(struct layout *l, struct lclass *c)
{
	uint32_t max_na = 1, i;

	if (!c->is_struct)
		return false;
	if (c->packed_inferred)
		return c->is_packed;
	class_find_holes(l, c);
	if (c->padding != 0 || c->nr_holes != 0) {
		check_structs_at_unnatural_alignments(l, c);
		c->is_packed = false;
		goto out;
	}
	for (i = 0; i < c->nr; i++) {
		uint32_t mid, na;

		if (!strip_from(l, c->m[i].type, &mid))
			continue;
		na = natural_alignment(l, mid, 0);
		if (na == 1)
			continue;
		if (max_na < na)
			max_na = na;
		if (c->m[i].byte_offset % na == 0)
			continue;
		c->is_packed = true;
		goto out;
	}
	if ((max_na != 1 && c->alignment == 1) || class_size(c->t) % max_na != 0)
		c->is_packed = true;
out:
	c->packed_inferred = true;
	return c->is_packed;
}

bool layout_infer_packed(struct layout *l, uint32_t id)
{
	struct lclass *c = lclass_get(l, id);

	return c ? class_infer_packed(l, c) : false;
}

/* union__infer_packed_attributes */
void union_infer_packed(struct layout *l, struct lclass *u)
{
	uint32_t union_size = class_size(u->t), i;

	if (u->packed_inferred)
		return;
	for (i = 0; i < u->nr; i++) {
		uint32_t mid;
		const struct btf_type *mt = strip_from(l, u->m[i].type, &mid);
		uint32_t na;

		if (!pt_is_struct(mt))
			continue;
		na = natural_alignment(l, mid, 0);
		if (union_size % na != 0) {
			struct lclass *mc = lclass_get(l, mid);

			if (mc) {
				mc->is_packed = true;
				mc->packed_inferred = true;
			}
		}
	}
	u->packed_inferred = true;
}

/* class__has_flexible_array (1.30's dwarves.c; pahole.c's before): the last member is an array of no elements */
bool class_has_flexible_array(struct layout *l, struct lclass *c)
{
	if (!c->flex_verified) {
		const struct btf_type *mt = c->nr ? ptag(l, c->m[c->nr - 1].type) : NULL;

		c->has_flex = mt && K(mt) == BTF_KIND_ARRAY && btf_array(mt)->nelems == 0;
		c->flex_verified = true;
	}
	return c->has_flex;
}

/*
 * class__has_embedded_flexible_array: some member's struct type (typedefs
 * and modifiers stripped) has a flexible array, or has such a member
 * itself.  A struct cannot contain itself in C; hostile BTF can make it,
 * so the search gives up (false, not cached) past a depth.
 */
bool class_has_embedded_flexible_array(struct layout *l, struct lclass *c, int depth)
{
	uint32_t i;

	if (!c->is_struct)
		return false;
	if (c->emb_searched)
		return c->has_emb;
	if (depth > 64)
		return false;
	for (i = 0; i < c->nr; i++) {
		uint32_t mid;
		const struct btf_type *mt = strip_from(l, c->m[i].type, &mid);
		struct lclass *mc;

		if (!pt_is_struct(mt) || !(mc = lclass_get(l, mid)))
			continue;
		c->has_emb = class_has_flexible_array(l, mc);
		if (c->has_emb)
			break;
		if (mc == c)
			continue;
		c->has_emb = class_has_embedded_flexible_array(l, mc, depth + 1);
		if (c->has_emb)
			break;
	}
	c->emb_searched = true;
	return c->has_emb;
}

bool layout_has_embedded_flexible_array(struct layout *l, uint32_t id)
{
	struct lclass *c = lclass_get(l, id);

	return c && class_has_embedded_flexible_array(l, c, 0);
}
/* ---- context ---- */

int layout_open(const struct btf *btf, const struct layout_opts *o, struct layout **out,
		struct diag *d)
{
	struct layout *l = mem_zalloc(sizeof(*l));

	if (!l)
		return diag_err(d, ENOMEM, "layout: out of memory");
	l->btf = btf;
	if (o)
		l->o = *o;
	switch (l->o.compat) {
	case 0:
		l->compat = LAYOUT_COMPAT_DEFAULT;
		break;
	case LAYOUT_COMPAT_1_24: case LAYOUT_COMPAT_1_30: case LAYOUT_COMPAT_1_31:
		l->compat = l->o.compat;
		break;
	default:
		mem_free(l);
		return diag_err(d, EINVAL, "layout: no text of pahole %u.%u (1.24, 1.30 or 1.31)",
				o->compat / 100, o->compat % 100);
	}
	l->cacheline_size = l->o.cacheline_size ? l->o.cacheline_size : 64;
	l->addr_size = 8;
	l->ntypes = btf_type_count(btf);
	l->cls = mem_array(l->ntypes, sizeof(l->cls[0]));
	l->natal = mem_array(l->ntypes, sizeof(l->natal[0]));
	if (!l->cls || !l->natal || (l->o.dwarf && load_aligns(l))) {
		layout_close(l);
		return diag_err(d, ENOMEM, "layout: out of memory");
	}
	/* btf__pointer_size: the size of the first pointer-sized long, else 8 */
	for (uint32_t id = 1; id < l->ntypes; id++) {
		const struct btf_type *t = btf_type_by_id(btf, id);
		const char *n;

		if (!t || K(t) != BTF_KIND_INT || !t->name_off)
			continue;
		n = btf_name(btf, t->name_off);
		if (n && (!strcmp(n, "long int") || !strcmp(n, "long unsigned int"))) {
			if (t->size == 4 || t->size == 8)
				l->addr_size = t->size;
			break;
		}
	}
	*out = l;
	return 0;
}

void layout_close(struct layout *l)
{
	uint32_t i;

	if (!l)
		return;
	if (l->cls)
		for (i = 0; i < l->ntypes; i++) {
			if (l->cls[i])
				mem_free(l->cls[i]->pub);
			mem_free(l->cls[i]);
		}
	mem_free(l->cls);
	mem_free(l->natal);
	mem_free(l->seen.slots);
	mem_free(l->seen.hashes);
	mem_free(l->aligns);
	mem_free(l);
}

const struct btf *layout_btf(const struct layout *l)
{
	return l->btf;
}

uint32_t layout_find(const struct layout *l, const char *name)
{
	uint32_t id;

	for (id = 1; id < l->ntypes; id++) {
		const struct btf_type *t = btf_type_by_id(l->btf, id);
		const char *n;

		if (!t || !t->name_off)
			continue;
		switch (K(t)) {
		case BTF_KIND_TYPEDEF: case BTF_KIND_STRUCT: case BTF_KIND_UNION:
		case BTF_KIND_ENUM: case BTF_KIND_ENUM64:
			break;
		case BTF_KIND_UNKN: case BTF_KIND_INT: case BTF_KIND_PTR: case BTF_KIND_ARRAY:
		case BTF_KIND_FWD: case BTF_KIND_VOLATILE: case BTF_KIND_CONST:
		case BTF_KIND_RESTRICT: case BTF_KIND_FUNC: case BTF_KIND_FUNC_PROTO:
		case BTF_KIND_VAR: case BTF_KIND_DATASEC: case BTF_KIND_FLOAT:
		case BTF_KIND_DECL_TAG: case BTF_KIND_TYPE_TAG:
		default:
			continue;
		}
		n = btf_name(l->btf, t->name_off);
		if (n && !strcmp(n, name))
			return id;
	}
	return 0;
}

uint32_t layout_first_typedef_of(const struct layout *l, uint32_t target)
{
	uint32_t id;

	for (id = 1; id < l->ntypes; id++) {
		const struct btf_type *t = btf_type_by_id(l->btf, id);

		if (t && K(t) == BTF_KIND_TYPEDEF && t->type == target)
			return id;
	}
	return 0;
}

int layout_members(struct layout *l, uint32_t id, const struct layout_member **m, uint32_t *n)
{
	struct lclass *c = lclass_get(l, id);
	uint32_t i;

	if (!c)
		return -EINVAL;
	class_find_holes(l, c);
	if (!c->pub) {
		c->pub = mem_array(c->nr ? c->nr : 1, sizeof(*c->pub));
		if (!c->pub) {
			l->oom = true;
			return -ENOMEM;
		}
	}
	for (i = 0; i < c->nr; i++) {
		struct layout_member *p = &c->pub[i];
		const struct lmember *x = &c->m[i];
		uint32_t mid;
		const struct btf_type *mt = strip_from(l, x->type, &mid);

		p->name = x->name;
		p->type = x->type;
		p->bit_offset = x->bit_offset;
		p->byte_offset = x->byte_offset;
		p->byte_size = (uint32_t)x->byte_size;
		p->bitfield_offset = (uint32_t)(int)x->bitfield_offset;
		p->bitfield_size = x->bitfield_size;
		p->alignment = x->alignment;
		p->natural_alignment = mt ? natural_alignment(l, mid, 0) : 1;
		p->hole = x->hole;
		p->bit_hole = x->bit_hole;
	}
	*m = c->pub;
	*n = c->nr;
	return 0;
}

uint32_t layout_type_alignment(struct layout *l, uint32_t id)
{
	struct lclass *c = lclass_get(l, id);

	return c ? c->alignment : 0;
}

int layout_class_info(struct layout *l, uint32_t id, struct layout_class_info *ci)
{
	struct lclass *c = lclass_get(l, id);
	const struct btf_type *t;
	uint32_t i;

	memset(ci, 0, sizeof(*ci));
	if (!c) {
		/*
		 * pahole's formatters take any type found by -C for a class:
		 * the name, the struct type's size (an enum's in bits, a
		 * typedef's 0) and member count (enumerators) are the type's;
		 * the holes pahole reads lie past it (uninitialized memory).
		 */
		if (!(t = ptag(l, id)))
			return -EINVAL;
		ci->name = pt_name(l, t);
		if (pt_is_enum(t)) {
			ci->size = enum_bits(t);
			ci->nr_members = btf_vlen(t);
		}
		return -EINVAL;
	}
	class_find_holes(l, c);
	ci->name = pt_name(l, c->t);
	ci->size = class_size(c->t);
	ci->nr_members = c->nr;
	ci->is_union = !c->is_struct;
	ci->nr_holes = c->nr_holes;
	ci->nr_bit_holes = c->nr_bit_holes;
	ci->padding = c->padding;
	ci->is_packed = c->is_packed;
	for (i = 0; i < c->nr; i++)
		if (c->m[i].hole > 0 && (uint32_t)c->m[i].hole > ci->max_hole)
			ci->max_hole = (uint32_t)c->m[i].hole;
	ci->has_flexible_array = class_has_flexible_array(l, c);
	return 0;
}

/* ---- pahole's print_classes: dedup by (name, size, members) ---- */

static uint64_t class_key_hash(const struct layout *l, struct lclass *c)
{
	const char *n = pt_name(l, c->t);
	uint64_t h = hash_bytes(n, strlen(n));
	uint32_t i;

	h = hash_combine(h, class_size(c->t));
	h = hash_combine(h, c->nr);
	for (i = 0; i < c->nr; i++)
		h = hash_combine(h, (uint64_t)c->m[i].bit_offset << 8 | c->m[i].bitfield_size);
	return h;
}

/* type__compare == 0 */
static bool class_same(const struct layout *l, struct lclass *a, struct lclass *b)
{
	uint32_t i;

	if (strcmp(pt_name(l, a->t), pt_name(l, b->t)) || class_size(a->t) != class_size(b->t) ||
	    a->nr != b->nr)
		return false;
	for (i = 0; i < a->nr; i++) {
		const struct lmember *ma = &a->m[i], *mb = &b->m[i];

		if (ma->name && mb->name && strcmp(ma->name, mb->name))
			return false;
		if (ma->bit_offset != mb->bit_offset || ma->bitfield_size != mb->bitfield_size)
			return false;
	}
	return true;
}

/* Returns true if an identical class was already recorded; records c otherwise. */
static int seen_add(struct layout *l, struct lclass *c, bool *existing)
{
	struct lseen *s = &l->seen;
	uint64_t h = class_key_hash(l, c);
	size_t i, mask;

	*existing = false;
	if (s->count * 2 >= s->nslots) {
		size_t n = s->nslots ? s->nslots * 2 : 16384;
		uint32_t *slots = mem_array(n, sizeof(*slots));
		uint64_t *hashes = mem_array(n, sizeof(*hashes));

		if (!slots || !hashes) {
			mem_free(slots);
			mem_free(hashes);
			return -ENOMEM;
		}
		for (i = 0; i < s->nslots; i++) {
			size_t j;

			if (!s->slots[i])
				continue;
			j = s->hashes[i] & (n - 1);
			while (slots[j])
				j = (j + 1) & (n - 1);
			slots[j] = s->slots[i];
			hashes[j] = s->hashes[i];
		}
		mem_free(s->slots);
		mem_free(s->hashes);
		s->slots = slots;
		s->hashes = hashes;
		s->nslots = n;
	}
	mask = s->nslots - 1;
	for (i = h & mask; s->slots[i]; i = (i + 1) & mask) {
		if (s->hashes[i] == h && class_same(l, l->cls[s->slots[i]], c)) {
			*existing = true;
			return 0;
		}
	}
	s->slots[i] = c->id;
	s->hashes[i] = h;
	s->count++;
	return 0;
}

int layout_each_class(struct layout *l, layout_filter_fn filter, layout_each_fn fn, void *ctx)
{
	uint32_t id;
	int err;

	for (id = 1; id < l->ntypes; id++) {
		const struct btf_type *t = ptag(l, id);
		struct lclass *c;
		bool existing;

		if (!t || (K(t) != BTF_KIND_STRUCT && K(t) != BTF_KIND_UNION) || !t->name_off)
			continue;
		if (filter && !filter(ctx, l, id))
			continue;
		c = lclass_get(l, id);
		if (!c)
			return -ENOMEM;
		if ((err = seen_add(l, c, &existing)))
			return err;
		if (existing)
			continue;
		if ((err = fn(ctx, l, id)))
			return err;
	}
	return 0;
}

bool layout_oom(const struct layout *l)
{
	return l && l->oom;
}

// SPDX-License-Identifier: GPL-2.0-only
/*
 * pahole's BTF layout model and struct printer, over struct btf, as
 * pahole 1.24, 1.30 and 1.31 have them (l->compat).
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

static PRINTF_LIKE(2, 0) int lbuf_vprintf(struct lbuf *b, const char *fmt, va_list ap)
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

/*
 * pahole writes some names through fmemopen(bf, len): at most len - 1
 * characters land.  sink is an lbuf, optionally capped like that.
 */
struct sink {
	struct lbuf *b;
	size_t start, cap;	/* cap: max chars kept after start, SIZE_MAX = none */
};

static int PRINTF_LIKE(2, 3) sp(struct sink *s, const char *fmt, ...)
{
	va_list ap;
	int n;

	va_start(ap, fmt);
	n = lbuf_vprintf(s->b, fmt, ap);
	va_end(ap);
	if (s->cap != SIZE_MAX && s->b->len - s->start > s->cap) {
		s->b->len = s->start + s->cap;
		if (s->b->p)
			s->b->p[s->b->len] = 0;
	}
	return n;
}

/* Append n bytes of str (no formatting): the hot path for tabs and punctuation. */
static inline int sput(struct sink *s, const char *str, size_t n)
{
	struct lbuf *b = s->b;

	if (s->cap != SIZE_MAX)
		return sp(s, "%.*s", (int)n, str);
	if (b->len + n + 1 > b->cap) {
		if (b->oom || mem_grow((void **)&b->p, &b->cap, 1, b->len + n + 256)) {
			b->oom = true;
			return (int)n;
		}
	}
	memcpy(b->p + b->len, str, n);
	b->len += n;
	b->p[b->len] = 0;
	return (int)n;
}

static const char tabs[] = "\t\t\t\t\t\t\t\t\t\t\t\t\t\t\t\t";
#define NTABS ((int)sizeof(tabs) - 1)

/* "%.*s" of tabs: n tabs, at most the NTABS there are */
static int sput_tabs(struct sink *s, int n)
{
	return sput(s, tabs, (size_t)(n < 0 ? 0 : n > NTABS ? NTABS : n));
}

static int sput_s(struct sink *s, const char *str)
{
	return sput(s, str, strlen(str));
}

/* n spaces */
static int sput_pad(struct sink *s, int n)
{
	static const char spaces[] = "                                                                ";
	int done = 0;

	while (n > done) {
		int k = n - done < (int)sizeof(spaces) - 1 ? n - done : (int)sizeof(spaces) - 1;

		done += sput(s, spaces, (size_t)k);
	}
	return done;
}

/* "%*u": v right-aligned in width (left-aligned for a negative width) */
static int sput_u(struct sink *s, unsigned v, int width)
{
	char buf[12], *e = buf + sizeof(buf), *d = e;
	int n, w = width < 0 ? -width : width;

	do
		*--d = (char)('0' + v % 10);
	while (v /= 10);
	n = (int)(e - d);
	if (width > n)
		sput_pad(s, width - n);
	sput(s, d, (size_t)n);
	if (width < 0 && w > n)
		sput_pad(s, w - n);
	return n > w ? n : w;
}

/* "%-*s %s" */
static int sput_name_pair(struct sink *s, int width, const char *a, const char *b)
{
	int n = sput_s(s, a), w = width < 0 ? -width : width;

	if (w > n)
		n += sput_pad(s, w - n);
	return n + sput(s, " ", 1) + sput_s(s, b);
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

static inline enum btf_kind K(const struct btf_type *t) { return btf_kind(t); }

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

static bool pt_is_enum(const struct btf_type *t)
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

static bool pt_is_typedef(const struct btf_type *t) { return t && K(t) == BTF_KIND_TYPEDEF; }
static bool pt_is_pointer(const struct btf_type *t) { return t && K(t) == BTF_KIND_PTR; }
static bool pt_is_base(const struct btf_type *t)
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

static bool pt_is_modifier(const struct btf_type *t)
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

/* base_type bit size (pahole bt->bit_size) */
static uint32_t base_bits(const struct btf_type *t)
{
	return K(t) == BTF_KIND_INT ? BTF_INT_BITS(btf_int_word(t)) : t->size * 8;
}

/* enumeration type->size, in bits */
static uint32_t enum_bits(const struct btf_type *t)
{
	return t->size ? t->size * 8 : 32;
}

static uint32_t class_size(const struct btf_type *t)
{
	return K(t) == BTF_KIND_FWD ? 0 : t->size;
}

static uint32_t class_nr_members(const struct btf_type *t)
{
	return K(t) == BTF_KIND_FWD ? 0 : btf_vlen(t);
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
static struct lclass *lclass_get(struct layout *l, uint32_t id)
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
static void union_infer_packed(struct layout *l, struct lclass *u)
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
static bool class_has_flexible_array(struct layout *l, struct lclass *c)
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
static bool class_has_embedded_flexible_array(struct layout *l, struct lclass *c, int depth)
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

/* ---- names (dwarves_fprintf.c) ---- */

/*
 * The structs and unions a print is inside, innermost first.  No C type
 * contains itself, so pahole never expands one inside itself; hostile BTF
 * can make it do so (each such member doubles the output per level).
 */
struct expanding {
	uint32_t id;
	const struct expanding *up;
};

/*
 * Member lines one layout_print may expand, summed over the nested
 * structs and unions it prints inline (a type used k times counts k
 * times), and function prototype parameters it prints.  The largest -E
 * print in the Debian 6.12 corpus, bcachefs's
 * struct bch_fs, is 8,100 lines.  Acyclic BTF can still nest a type twice
 * in each of 48 levels: 2^48 lines.
 */
#define EXPAND_MAX_MEMBERS (1u << 16)

struct conf {
	const struct expanding *expanding;	/* NULL: none yet */
	uint32_t *expand_left;			/* NULL: no limit */
	const char *prefix, *suffix;
	int32_t type_spacing, name_spacing;
	uint32_t base_offset;
	uint32_t *cachelinep;
	uint8_t indent;
	bool expand_types, rel_offset, emit_stats, suppress_comments, suppress_offset_comment;
	bool hex_fmt, suppress_aligned_attribute, suppress_packed, no_semicolon;
	bool union_member, first_member, last_member;
};

static size_t ftype_fprintf(struct layout *l, const struct btf_type *ft, const char *name,
			    int inlined, int is_pointer, int type_spacing, const struct conf *conf,
			    struct sink *s);

static const char *tag_name(struct layout *l, const struct btf_type *t, char *bf, size_t len,
			    const struct conf *conf, int depth);

/* snprintf(bf, len, "%s%s%s%s", a, b, c, d) for the names built here */
static void cat_names(char *bf, size_t len, const char *a, const char *b, const char *c,
		      const char *d)
{
	const char *part[4] = { a, b, c, d };
	size_t n = 0;

	if (!len)
		return;
	for (int i = 0; i < 4; i++) {
		size_t k = strlen(part[i]);

		if (k > len - 1 - n)
			k = len - 1 - n;
		memcpy(bf + n, part[i], k);
		n += k;
	}
	bf[n] = 0;
}

static void copy_name(char *bf, size_t len, const char *s)
{
	/* strncpy semantics without the unterminated case */
	cat_names(bf, len, s, "", "", "");
}

/* base_type__name: pahole 1.24 prints BTF base type names as they are. */
static const char *base_type_name(struct layout *l, const struct btf_type *t, char *bf, size_t len)
{
	const char *name = pt_name(l, t);

	copy_name(bf, len, name ? name : "");
	return bf;
}


/* tag__ptr_name */
static const char *tag_ptr_name(struct layout *l, const struct btf_type *t, char *bf, size_t len,
				const char *ptr_suffix, const struct conf *conf, int depth)
{
	if (pt_type(t) == 0) {
		fmt_snprintf(bf, len, "void %s", ptr_suffix);
	} else {
		const struct btf_type *type = ptag(l, pt_type(t));

		if (!type) {
			int n = fmt_snprintf(bf, len, "<ERROR(%s:%d): %#llx not found!>", "__tag__name",
					 0, (unsigned long long)pt_type(t));

			if (n >= 0 && (size_t)n < len)
				fmt_snprintf(bf + n, len - (size_t)n, " %s", ptr_suffix);
		} else {
			char tmpbf[1024];
			const char *const_pointer = "";

			if (K(type) == BTF_KIND_CONST) {
				const struct btf_type *next = ptag(l, pt_type(type));

				if (next && pt_is_pointer(next)) {
					const_pointer = "const ";
					type = next;
				}
			}
			fmt_snprintf(bf, len, "%s %s%s", tag_name(l, type, tmpbf, sizeof(tmpbf), conf, depth + 1),
				 const_pointer, ptr_suffix);
		}
	}
	return bf;
}

/* __tag__name */
static const char *tag_name(struct layout *l, const struct btf_type *t, char *bf, size_t len,
			    const struct conf *conf, int depth)
{
	const struct btf_type *type;

	if (depth > 32) {
		copy_name(bf, len, "<ERROR: type loop>");
		return bf;
	}
	if (!t) {
		copy_name(bf, len, "void");
		return bf;
	}
	switch (K(t)) {
	case BTF_KIND_INT:
	case BTF_KIND_FLOAT: {
		char bf2[64];
		const char *name = "nameless base type!";

		if (t->name_off)
			name = base_type_name(l, t, bf2, sizeof(bf2));
		copy_name(bf, len, name);
		break;
	}
	case BTF_KIND_PTR:
		return tag_ptr_name(l, t, bf, len, "*", conf, depth);
	case BTF_KIND_VOLATILE:
	case BTF_KIND_CONST:
	case BTF_KIND_RESTRICT:
		type = ptag(l, pt_type(t));
		if (!type && pt_type(t) != 0) {
			fmt_snprintf(bf, len, "<ERROR(%s:%d): %#llx not found!>", "__tag__name", 0,
				 (unsigned long long)pt_type(t));
		} else {
			char tmpbf[128];
			const char *prefix = "", *suffix = "";
			const char *type_str = tag_name(l, type, tmpbf, sizeof(tmpbf), conf, depth + 1);

			switch (K(t)) {
			case BTF_KIND_VOLATILE: prefix = "volatile "; break;
			case BTF_KIND_CONST: prefix = "const "; break;
			case BTF_KIND_RESTRICT: suffix = " restrict"; break;
			case BTF_KIND_UNKN: case BTF_KIND_INT: case BTF_KIND_PTR:
			case BTF_KIND_ARRAY: case BTF_KIND_STRUCT: case BTF_KIND_UNION:
			case BTF_KIND_ENUM: case BTF_KIND_FWD: case BTF_KIND_TYPEDEF:
			case BTF_KIND_FUNC: case BTF_KIND_FUNC_PROTO: case BTF_KIND_VAR:
			case BTF_KIND_DATASEC: case BTF_KIND_FLOAT: case BTF_KIND_DECL_TAG:
			case BTF_KIND_TYPE_TAG: case BTF_KIND_ENUM64:
				break;
			}
			cat_names(bf, len, prefix, type_str, suffix, " ");
		}
		break;
	case BTF_KIND_ARRAY:
		type = ptag(l, pt_type(t));
		if (!type)
			fmt_snprintf(bf, len, "<ERROR(%s:%d): %#llx not found!>", "__tag__name", 0,
				 (unsigned long long)pt_type(t));
		else
			return tag_name(l, type, bf, len, conf, depth + 1);
		break;
	case BTF_KIND_FUNC_PROTO: {
		struct lbuf tb = { 0 };
		struct sink s = { &tb, 0, len ? len - 1 : 0 };

		ftype_fprintf(l, t, NULL, 0, 0, 0, conf, &s);
		copy_name(bf, len, tb.p ? tb.p : "");
		lbuf_free(&tb);
		break;
	}
	case BTF_KIND_VAR:
		copy_name(bf, len, pt_name(l, t) ? pt_name(l, t) : "(null)");
		break;
	case BTF_KIND_TYPE_TAG:	/* 1.30: an annotation names what it annotates */
		type = ptag(l, pt_type(t));
		if (!type && pt_type(t) != 0)
			fmt_snprintf(bf, len, "<ERROR(%s:%d): %#llx not found!>", "__tag__name", 0,
				     (unsigned long long)pt_type(t));
		else
			return tag_name(l, type, bf, len, conf, depth + 1);
		break;
	case BTF_KIND_UNKN: case BTF_KIND_STRUCT: case BTF_KIND_UNION: case BTF_KIND_ENUM:
	case BTF_KIND_FWD: case BTF_KIND_TYPEDEF: case BTF_KIND_FUNC: case BTF_KIND_DATASEC:
	case BTF_KIND_DECL_TAG: case BTF_KIND_ENUM64:
	default: {
		const char *prefix = "";
		const char *name = pt_name(l, t);

		if (pt_is_enum(t))
			prefix = "enum ";
		else if (pt_is_struct(t))
			prefix = "struct ";
		else if (pt_is_union(t))
			prefix = "union ";
		cat_names(bf, len, prefix, name ? name : "", "", "");
		break;
	}
	}
	return bf;
}

int layout_type_name(struct layout *l, uint32_t id, char *buf, size_t len)
{
	struct conf c = { 0 };

	tag_name(l, ptag(l, id), buf, len, &c, 0);
	return 0;
}

/* ftype__fprintf_parms */
static size_t ftype_fprintf_parms(struct layout *l, const struct btf_type *ft, int indent,
				  const struct conf *conf, struct sink *s)
{
	const struct btf_param *p = btf_params(ft);
	uint32_t i, vlen = btf_vlen(ft);
	int first_parm = 1, unspec = 0;
	char sbf[128];
	size_t printed = (size_t)sp(s, "(");

	/* Prototypes nest in their parameters without a pointer between: hostile
	 * BTF can print one 32 levels deep, vlen times per level.  Parameters
	 * come out of the print's expansion budget. */
	if (conf->expand_left) {
		if (*conf->expand_left <= vlen)
			return printed + (size_t)sp(s, "<ERROR: expansion limit>)");
		*conf->expand_left -= vlen;
	}
	for (i = 0; i < vlen; i++) {
		const char *name, *stype;
		const struct btf_type *type;

		if (p[i].type == 0) {
			unspec = 1;
			continue;
		}
		if (!first_parm) {
			if (indent == 0)
				printed += (size_t)sp(s, ", ");
			else
				printed += (size_t)sp(s, ",\n%.*s", indent, tabs);
		} else {
			first_parm = 0;
		}
		name = p[i].name_off ? btf_name(l->btf, p[i].name_off) : NULL;
		type = ptag(l, p[i].type);
		if (!type) {
			fmt_snprintf(sbf, sizeof(sbf), "<ERROR: type %d not found>", (int)p[i].type);
			stype = sbf;
			goto print_it;
		}
		if (pt_is_pointer(type)) {
			if (pt_type(type) != 0) {
				const struct btf_type *ptype = ptag(l, pt_type(type));

				if (!ptype) {
					printed += (size_t)sp(s, "<ERROR(%s:%d): %#llx not found!>",
							      "ftype__fprintf_parms", 0,
							      (unsigned long long)pt_type(type));
					continue;
				}
				if (K(ptype) == BTF_KIND_FUNC_PROTO) {
					printed += ftype_fprintf(l, ptype, name, 0, 1, 0, conf, s);
					continue;
				}
			}
		} else if (K(type) == BTF_KIND_FUNC_PROTO) {
			printed += ftype_fprintf(l, type, name, 1, 0, 0, conf, s);
			continue;
		}
		stype = tag_name(l, type, sbf, sizeof(sbf), conf, 0);
print_it:
		printed += (size_t)sp(s, "%s%s%s", stype, name ? " " : "", name ? name : "");
	}
	if (first_parm)
		printed += (size_t)sp(s, "void)");
	else if (unspec)
		printed += (size_t)sp(s, ", ...)");
	else
		printed += (size_t)sp(s, ")");
	return printed;
}

/* ftype__fprintf (is_prototype always true here) */
static size_t ftype_fprintf(struct layout *l, const struct btf_type *ft, const char *name,
			    int inlined, int is_pointer, int type_spacing, const struct conf *conf,
			    struct sink *s)
{
	const struct btf_type *type = ptag(l, ft->type);
	char sbf[128];
	const char *stype;
	size_t printed;

	if (++l->depth > 32) {
		--l->depth;
		return (size_t)sp(s, "<ERROR: type loop>");
	}
	stype = tag_name(l, type, sbf, sizeof(sbf), conf, 0);
	printed = (size_t)sp(s, "%s%-*s %s%s%s%s", inlined ? "inline " : "", type_spacing, stype, "(",
			     is_pointer ? "*" : "", name ? name : "", ")");
	printed += ftype_fprintf_parms(l, ft, 0, conf, s);
	--l->depth;
	return printed;
}

/* ---- printing ---- */

static size_t class_fprintf(struct layout *l, struct lclass *c, const struct conf *conf,
			    struct sink *s);
static size_t union_fprintf(struct layout *l, struct lclass *u, const struct conf *conf,
			    struct sink *s);
static size_t enumeration_fprintf(struct layout *l, const struct btf_type *t,
				  const struct conf *conf, struct sink *s);
static size_t type_fprintf(struct layout *l, uint32_t tid, const char *name,
			   const struct conf *conf, struct sink *s);

/* array_type__fprintf */
static size_t array_fprintf(struct layout *l, const struct btf_type *t, const char *name,
			    const struct conf *conf, struct sink *s)
{
	uint32_t etid = pt_type(t);
	const struct btf_type *type = ptag(l, etid);
	size_t printed;
	uint32_t nelems = btf_array(t)->nelems;
	bool single_member;

	if (!type)
		return (size_t)sp(s, "<ERROR(%s:%d): %#llx not found!>", "array_type__fprintf", 0,
				  (unsigned long long)etid);
	/* Zero sized arrays? */
	if (nelems == 0 && K(type) == BTF_KIND_CONST)
		etid = pt_type(type);
	/* o.dwarf: DWARF's one array type with every dimension, outermost first */
	if (l->o.dwarf && K(type) == BTF_KIND_ARRAY) {
		const struct btf_type *dims[16];
		unsigned n = 0;

		dims[n++] = t;
		while (n < 16 && type && K(type) == BTF_KIND_ARRAY) {
			dims[n++] = type;
			etid = pt_type(type);
			type = ptag(l, etid);
		}
		printed = type_fprintf(l, etid, name, conf, s);
		single_member = conf->last_member && conf->first_member;
		for (unsigned i = 0; i < n; i++) {
			uint32_t ne = btf_array(dims[i])->nelems;

			if (ne != 0 || !conf->last_member || single_member || conf->union_member)
				printed += (size_t)sp(s, "[%u]", ne);
			else
				printed += (size_t)sp(s, "[]");
		}
		return printed;
	}
	printed = type_fprintf(l, etid, name, conf, s);
	single_member = conf->last_member && conf->first_member;
	if (nelems != 0 || !conf->last_member || single_member || conf->union_member)
		printed += (size_t)sp(s, "[%u]", nelems);
	else
		printed += (size_t)sp(s, "[]");
	return printed;
}

/*
 * Why struct/union tid (nr members) is not expanded inline under conf, or
 * NULL: it is expanded, and its members are taken from the print's budget.
 */
static const char *expand_refused(const struct conf *conf, uint32_t tid, uint32_t nr)
{
	for (const struct expanding *e = conf->expanding; e; e = e->up)
		if (e->id == tid)
			return "<ERROR: type loop>";
	if (conf->expand_left) {
		if (*conf->expand_left <= nr)
			return "<ERROR: expansion limit>";
		*conf->expand_left -= nr + 1;
	}
	return NULL;
}

/* skip_llvm_annotations (1.30): the type a pointer points to, past TYPE_TAGs */
static uint32_t skip_annotations(const struct layout *l, uint32_t id)
{
	int n = 0;

	while (id != 0 && n++ < 64) {
		const struct btf_type *t = ptag(l, id);

		if (!t || K(t) != BTF_KIND_TYPE_TAG || t->type == id)
			break;
		id = t->type;
	}
	return id;
}

/* type__fprintf */
static size_t type_fprintf(struct layout *l, uint32_t tid, const char *name,
			   const struct conf *conf, struct sink *s)
{
	char tbf[128], namebfptr[258];
	const struct btf_type *type = ptag(l, tid);
	struct conf tconf;
	size_t printed = 0;
	int expand_types = conf->expand_types;
	bool suppress_offset_comment = conf->suppress_offset_comment;
	const char *modifier;
	int hops = 0;	/* typedef and const steps: hostile BTF can loop them */

	tconf = *conf;
	if (!type)
		goto out_type_not_found;
	if (++l->depth > 48) {
		--l->depth;
		return (size_t)sp(s, "<ERROR: type loop>");
	}
	if (expand_types) {
		int typedef_expanded = 0;

		while (pt_is_typedef(type)) {
			const struct btf_type *tt;
			const char *tn = pt_name(l, type);

			if (typedef_expanded)
				printed += (size_t)sp(s, " -> %s", tn ? tn : "(null)");
			else {
				printed += (size_t)sp(s, "/* typedef %s", tn ? tn : "(null)");
				typedef_expanded = 1;
			}
			tid = pt_type(type);
			tt = ptag(l, tid);
			if (!tt) {
				--l->depth;
				goto out_type_not_found;
			}
			if (++hops > 48) {
				--l->depth;
				return printed + (size_t)sp(s, " <ERROR: type loop>");
			}
			type = tt;
		}
		if (typedef_expanded)
			printed += (size_t)sp(s, " */ ");
	}
	if (pt_is_struct(type) || pt_is_union(type) || pt_is_enum(type)) {
inner_struct:
		tconf.prefix = NULL;
		tconf.suffix = name;
		tconf.emit_stats = 0;
		tconf.suppress_offset_comment = suppress_offset_comment;
	}
next_type:
	switch (K(type)) {
	case BTF_KIND_PTR: {
		uint32_t ptid = skip_annotations(l, pt_type(type));

		if (ptid != 0) {
			const struct btf_type *ptype = ptag(l, ptid);

			if (!ptype) {
				--l->depth;
				goto out_type_not_found;
			}
			if (K(ptype) == BTF_KIND_FUNC_PROTO) {
				printed += ftype_fprintf(l, ptype, name, 0, 1, tconf.type_spacing, &tconf, s);
				break;
			}
			if ((pt_is_struct(ptype) || pt_is_union(ptype) || pt_is_enum(ptype)) &&
			    pt_name(l, ptype) == NULL) {
				if (name == namebfptr) {
					--l->depth;
					goto out_type_not_found;
				}
				fmt_snprintf(namebfptr, sizeof(namebfptr), "* %.*s",
					 (int)sizeof(namebfptr) - 3, name ? name : "(null)");
				tconf.rel_offset = 1;
				name = namebfptr;
				type = ptype;
				tid = ptid;
				tconf.type_spacing -= 8;
				goto inner_struct;
			}
		}
	}
		/* fallthrough */
	case BTF_KIND_UNKN: case BTF_KIND_INT: case BTF_KIND_TYPEDEF: case BTF_KIND_VOLATILE:
	case BTF_KIND_RESTRICT: case BTF_KIND_FUNC: case BTF_KIND_VAR: case BTF_KIND_DATASEC:
	case BTF_KIND_FLOAT: case BTF_KIND_DECL_TAG:
	default:
print_default:
		printed += (size_t)sput_name_pair(s, tconf.type_spacing,
						  tag_name(l, type, tbf, sizeof(tbf), &tconf, 0),
						  name ? name : "(null)");
		break;
	case BTF_KIND_FUNC_PROTO:
		printed += ftype_fprintf(l, type, name, 0, 0, tconf.type_spacing, &tconf, s);
		break;
	case BTF_KIND_CONST: {
		const struct btf_type *tt;
		size_t mp;

		modifier = "const";
		mp = (size_t)sp(s, "%s ", modifier);
		tconf.type_spacing -= (int32_t)mp;
		printed += mp;
		tt = ptag(l, pt_type(type));
		if (tt && ++hops > 48) {
			printed += (size_t)sp(s, "<ERROR: type loop>");
			break;
		}
		if (tt) {
			tid = pt_type(type);
			type = tt;
			goto next_type;
		}
		goto print_default;
	}
	case BTF_KIND_ARRAY:
		printed += array_fprintf(l, type, name, &tconf, s);
		break;
	case BTF_KIND_STRUCT:
	case BTF_KIND_FWD:
	case BTF_KIND_UNION:
		if (pt_is_struct(type)) {
			const char *tn = pt_name(l, type);

			if (tn && !expand_types) {
				printed += (size_t)sp(s, "%s %-*s %s", "struct", tconf.type_spacing - 7,
						      tn, name ? name : "");
			} else {
				struct lclass *cc = lclass_get(l, tid);
				struct expanding e = { tid, tconf.expanding };
				const char *refused;

				if (!cc)
					break;
				if ((refused = expand_refused(&tconf, tid, cc->nr))) {
					printed += (size_t)sp(s, "%s", refused);
					break;
				}
				tconf.expanding = &e;
				if (!tconf.suppress_comments)
					class_find_holes(l, cc);
				tconf.type_spacing -= 8;
				printed += class_fprintf(l, cc, &tconf, s);
			}
		} else {
			const char *tn = pt_name(l, type);

			if (tn && !expand_types) {
				printed += (size_t)sp(s, "union %-*s %s", tconf.type_spacing - 6, tn,
						      name ? name : "");
			} else {
				struct lclass *uc = lclass_get(l, tid);
				struct expanding e = { tid, tconf.expanding };
				const char *refused;

				if (!uc)
					break;
				if ((refused = expand_refused(&tconf, tid, uc->nr))) {
					printed += (size_t)sp(s, "%s", refused);
					break;
				}
				tconf.expanding = &e;
				tconf.type_spacing -= 8;
				printed += union_fprintf(l, uc, &tconf, s);
			}
		}
		break;
	case BTF_KIND_TYPE_TAG: {	/* 1.30: print what it annotates */
		const struct btf_type *tt = ptag(l, pt_type(type));

		if (!tt) {
			--l->depth;
			goto out_type_not_found;
		}
		if (++hops > 48) {
			printed += (size_t)sp(s, "<ERROR: type loop>");
			break;
		}
		tid = pt_type(type);
		type = tt;
		goto next_type;
	}
	case BTF_KIND_ENUM:
	case BTF_KIND_ENUM64: {
		const char *tn = pt_name(l, type);

		/* 1.24 does not expand named enums under -E, 1.30 does */
		if (tn && !(expand_types && compat_130(l)))
			printed += (size_t)sp(s, "enum %-*s %s", tconf.type_spacing - 5, tn,
					      name ? name : "");
		else
			printed += enumeration_fprintf(l, type, &tconf, s);
		break;
	}
	}
	--l->depth;
	return printed;
out_type_not_found:
	printed = (size_t)sp(s, "%-*s%s> %s", tconf.type_spacing, "<ERROR",
			     name == namebfptr ? ": pointer to pointer to inner struct/union/enum?" : "",
			     name ? name : "(null)");
	return printed;
}

/* class__fprintf_cacheline_boundary */
static size_t cacheline_boundary(struct layout *l, const struct conf *conf, uint32_t offset,
				 struct sink *s)
{
	int indent = conf->indent;
	uint32_t cls = l->cacheline_size;
	uint32_t cacheline = offset / cls;
	size_t printed = 0;

	if (cacheline > *conf->cachelinep) {
		const uint32_t cacheline_pos = offset % cls;
		const uint32_t cacheline_in_bytes = offset - cacheline_pos;

		if (cacheline_pos == 0)
			printed += (size_t)sp(s, "/* --- cacheline %u boundary (%u bytes) --- */\n",
					      cacheline, cacheline_in_bytes);
		else
			printed += (size_t)sp(s, "/* --- cacheline %u boundary (%u bytes) was %u byte%s ago --- */\n",
					      cacheline, cacheline_in_bytes, cacheline_pos,
					      cacheline_pos > 1 ? "s" : "");
		printed += (size_t)sput_tabs(s, indent);
		*conf->cachelinep = cacheline;
	}
	return printed;
}

/*
 * A member line's offset and size comment, as class_member__fprintf
 * prints it ("%*s" then the comment with "%5u", ":%2u", "%*u", or the
 * --hex forms); decimal without printf.
 */
static size_t offset_comment(struct sink *s, bool hex, int spacing, uint32_t offset,
			     const struct lmember *m, int size)
{
	int size_spacing = 5, pad = spacing < 0 ? -spacing : spacing;
	size_t printed;

	if (hex)
		printed = (size_t)sp(s, "%*s/* %#5x", spacing, " ", offset);
	else
		printed = (size_t)(sput_pad(s, pad > 1 ? pad : 1) + sput(s, "/* ", 3) +
				   sput_u(s, offset, 5));
	if (m->bitfield_size != 0) {
		unsigned bitfield_offset = (unsigned)m->bitfield_offset;

		if (m->bitfield_offset < 0)
			bitfield_offset = (unsigned)((int)m->byte_size * 8 + m->bitfield_offset);
		if (hex)
			printed += (size_t)sp(s, ":%#2x", bitfield_offset);
		else
			printed += (size_t)(sput(s, ":", 1) + sput_u(s, bitfield_offset, 2));
		size_spacing -= 3;
	}
	if (hex)
		printed += (size_t)sp(s, " %#*x */", size_spacing, size);
	else
		printed += (size_t)(sput(s, " ", 1) + sput_u(s, (unsigned)size, size_spacing) +
				    sput(s, " */", 3));
	return printed;
}

/* class_member__fprintf */
static size_t class_member_fprintf(struct layout *l, struct lmember *member, bool union_member,
				   uint32_t tid, const struct conf *conf, struct sink *s)
{
	const struct btf_type *type = ptag(l, tid);
	const int size = (int)member->byte_size;
	int member_alignment_printed = 0;
	struct conf sconf = *conf;
	uint32_t offset = member->byte_offset;
	size_t printed = 0, printed_cacheline = 0;
	const char *cm_name = member->name, *name = cm_name;
	bool scomposite = pt_is_union(type) || pt_is_struct(type) || pt_is_enum(type);

	if (!sconf.rel_offset) {
		offset += sconf.base_offset;
		if (!union_member)
			sconf.base_offset = offset;
	}
	if (member->bitfield_offset < 0)
		offset += (uint32_t)member->byte_size;
	if (!conf->suppress_comments)
		printed_cacheline = cacheline_boundary(l, conf, offset, s);
	if (scomposite) {
		printed += type_fprintf(l, tid, NULL, &sconf, s);
		if (name) {
			/* 1.30: an expanded named type ends in "}" too */
			if (!pt_name(l, type) || (sconf.expand_types && compat_130(l)))
				printed += (size_t)sput(s, " ", 1);
			printed += (size_t)sput_s(s, name);
		}
	} else {
		printed += type_fprintf(l, tid, name, &sconf, s);
	}
	if (member->bitfield_size != 0)
		printed += (size_t)sp(s, ":%u", member->bitfield_size);
	if (!sconf.suppress_aligned_attribute && member->alignment != 0) {
		member_alignment_printed = sp(s, " __attribute__((__aligned__(%u)))", member->alignment);
		printed += (size_t)member_alignment_printed;
	}
	sput(s, ";", 1);
	++printed;
	if (scomposite && pt_name(l, type) == NULL) {
		if (!sconf.suppress_offset_comment) {
			int slen = member_alignment_printed + (cm_name ? (int)strlen(cm_name) : -1);

			if (pt_is_struct(type) && !conf->suppress_packed) {
				struct lclass *mc = lclass_get(l, tid);

				if (mc && mc->is_packed)
					slen += (int)sizeof("__attribute__((__packed__))");
			}
			printed += offset_comment(s, sconf.hex_fmt,
						  sconf.type_spacing + sconf.name_spacing - slen - 3,
						  offset, member, size);
		}
	} else {
		int spacing = sconf.type_spacing + sconf.name_spacing - (int)printed;

		if (!sconf.suppress_offset_comment)
			printed += offset_comment(s, sconf.hex_fmt, spacing > 0 ? spacing : 0, offset,
						  member, size);
	}
	return printed + printed_cacheline;
}

/* union__fprintf */
static size_t union_fprintf(struct layout *l, struct lclass *u, const struct conf *conf,
			    struct sink *s)
{
	size_t printed = 0;
	int indent = conf->indent;
	struct conf uconf;
	uint32_t initial_union_cacheline, cacheline = 0, i;
	const char *tn = pt_name(l, u->t);

	if (indent > NTABS)	/* pahole: >= sizeof(tabs), the NUL counted */
		indent = NTABS;
	if (conf->prefix)
		printed += (size_t)sp(s, "%s ", conf->prefix);
	printed += (size_t)sp(s, "union%s%s {\n", tn ? " " : "", tn ? tn : "");
	uconf = *conf;
	uconf.indent = (uint8_t)(indent + 1);
	union_infer_packed(l, u);
	if (!uconf.cachelinep)
		uconf.cachelinep = &cacheline;
	initial_union_cacheline = *uconf.cachelinep;
	for (i = 0; i < u->nr; i++) {
		struct lmember *pos = &u->m[i];

		if (!ptag(l, pos->type)) {
			printed += (size_t)sput_tabs(s, uconf.indent);
			printed += (size_t)sp(s, "<ERROR(%s:%d): %#llx not found!>", "union__fprintf", 0,
					      (unsigned long long)pos->type);
			continue;
		}
		uconf.union_member = 1;
		printed += (size_t)sput_tabs(s, uconf.indent);
		printed += class_member_fprintf(l, pos, true, pos->type, &uconf, s);
		sput(s, "\n", 1);
		++printed;
		*uconf.cachelinep = initial_union_cacheline;
	}
	return printed + (size_t)sp(s, "%.*s}%s%s", indent, tabs, conf->suffix ? " " : "",
				    conf->suffix ? conf->suffix : "");
}

/* enumeration__fprintf */
static size_t enumeration_fprintf(struct layout *l, const struct btf_type *t,
				  const struct conf *conf, struct sink *s)
{
	const char *tn = pt_name(l, t);
	uint32_t i, n = btf_vlen(t);
	int max_len = 0, indent = conf->indent;
	size_t printed = (size_t)sp(s, "enum%s%s", tn ? " " : "", tn ? tn : "");
	bool is64 = K(t) == BTF_KIND_ENUM64;
	bool is_signed = (compat_130(l) || l->o.dwarf) && btf_kflag(t);	/* DWARF: from the values */

	if (indent > NTABS)	/* pahole: >= sizeof(tabs), the NUL counted */
		indent = NTABS;
	if (!n)
		return printed;
	printed += (size_t)sput(s, " {\n", 3);
	for (i = 0; i < n; i++) {
		uint32_t off = is64 ? btf_enum64s(t)[i].name_off : btf_enums(t)[i].name_off;
		const char *en = btf_name(l->btf, off);
		int len = en ? (int)strlen(en) : 0;

		if (max_len < len)
			max_len = len;
	}
	for (i = 0; i < n; i++) {
		uint32_t off = is64 ? btf_enum64s(t)[i].name_off : btf_enums(t)[i].name_off;
		const char *en = btf_name(l->btf, off);
		unsigned long long v;

		/* pahole 1.24 keeps BTF enum values in a uint64 from an unsigned read;
		 * 1.30 sign-extends those of a signed enum (kind flag) and prints them signed */
		if (is64)
			v = btf_enum64_value(&btf_enum64s(t)[i]);
		else if (is_signed)
			v = (unsigned long long)(long long)btf_enums(t)[i].val;
		else
			v = (uint32_t)btf_enums(t)[i].val;
		printed += (size_t)sp(s, "%.*s\t%-*s = ", indent, tabs, max_len, en ? en : "");
		if (conf->hex_fmt)
			printed += (size_t)sp(s, "%#llx", v);
		else if (is_signed)
			printed += (size_t)sp(s, "%lld", (long long)v);
		else
			printed += (size_t)sp(s, "%llu", v);
		printed += (size_t)sp(s, ",\n");
	}
	printed += (size_t)sp(s, "%.*s}", indent, tabs);
	if (enum_bits(t) / 8 != sizeof(int))
		printed += (size_t)sp(s, " %s", "__attribute__((__packed__))");
	if (conf->suffix)
		printed += (size_t)sp(s, " %s", conf->suffix);
	return printed;
}

/*
 * What 1.30 totals about the struct types of a struct's members (struct
 * member_types_holes, with its field widths: hostile BTF can wrap them).
 */
struct member_types_holes {
	uint16_t nr_paddings, nr_with_bit_paddings, nr_with_holes, nr_with_bit_holes;
	uint16_t total_nr_holes, total_nr_bit_holes;
	uint16_t nr_flexible_array_members, nr_embedded_flexible_array_members;
	uint32_t sum_paddings, sum_bit_paddings;
};

/*
 * The "XXX last struct has ..." line after a member whose type is struct
 * tc: its padding (1.24: nothing else), or 1.30's list of its flexible
 * array, embedded flexible arrays, padding, bit padding, holes and bit
 * holes (class__fprintf_member_type_holes).  Counted into h.
 */
static size_t member_type_holes(struct layout *l, struct lclass *tc, struct member_types_holes *h,
				uint8_t *newline, const struct conf *conf, struct sink *s)
{
	uint16_t padding;
	uint8_t nr_holes, nr_bit_holes, bit_padding;	/* pahole's widths: more than 255 holes wrap */
	bool first = true, flex = false, emb = false;
	size_t printed = 0;

	class_find_holes(l, tc);
	class_infer_packed(l, tc);
	padding = tc->padding;
	bit_padding = tc->bit_padding;
	nr_holes = (uint8_t)tc->nr_holes;
	nr_bit_holes = (uint8_t)tc->nr_bit_holes;
	if (!compat_130(l)) {
		if (padding == 0)
			return 0;
		h->nr_paddings++;
		h->sum_paddings += padding;
		if (!(*newline)++)
			printed += (size_t)sput(s, "\n", 1);
		return printed + (size_t)sp(s, "\n%.*s/* XXX last struct has %d byte%s of padding */",
					    conf->indent, tabs, padding, padding != 1 ? "s" : "");
	}
	flex = class_has_flexible_array(l, tc);
	emb = class_has_embedded_flexible_array(l, tc, 0);
	if (!padding && !bit_padding && !nr_holes && !nr_bit_holes && !flex && !emb)
		return 0;
	if (!(*newline)++)
		printed += (size_t)sput(s, "\n", 1);
	printed += (size_t)sp(s, "\n%.*s/* XXX last struct has", conf->indent, tabs);
	if (flex) {
		printed += (size_t)sp(s, " a flexible array");
		h->nr_flexible_array_members++;
		first = false;
	}
	if (emb) {
		printed += (size_t)sp(s, "%s embedded flexible array(s)", first ? "" : ",");
		h->nr_embedded_flexible_array_members++;
		first = false;
	}
	if (padding) {
		h->nr_paddings++;
		h->sum_paddings += padding;
		printed += (size_t)sp(s, "%s %d byte%s of padding", first ? "" : ",", padding,
				      padding != 1 ? "s" : "");
		first = false;
	}
	if (bit_padding) {
		h->nr_with_bit_paddings++;
		h->sum_bit_paddings += bit_padding;
		printed += (size_t)sp(s, "%s %d bit%s of padding", first ? "" : ",", bit_padding,
				      bit_padding != 1 ? "s" : "");
		first = false;
	}
	if (nr_holes) {
		h->nr_with_holes++;
		h->total_nr_holes += nr_holes;
		printed += (size_t)sp(s, "%s %d hole%s", first ? "" : ",", nr_holes, nr_holes != 1 ? "s" : "");
		first = false;
	}
	if (nr_bit_holes) {
		h->nr_with_bit_holes++;
		h->total_nr_bit_holes += nr_bit_holes;
		printed += (size_t)sp(s, "%s %d bit hole%s", first ? "" : ",", nr_bit_holes,
				      nr_bit_holes != 1 ? "s" : "");
	}
	return printed + (size_t)sp(s, " */");
}

/* __class__fprintf */
static size_t class_fprintf(struct layout *l, struct lclass *c, const struct conf *conf,
			    struct sink *s)
{
	const struct btf_type *t = c->t;
	const char *tn = pt_name(l, t);
	size_t last_size = 0, size;
	uint8_t newline = 0;
	uint16_t nr_forced_alignments = 0, nr_forced_alignment_holes = 0;
	uint32_t sum_forced_alignment_holes = 0;
	uint32_t sum_bytes = 0, sum_bits = 0, sum_holes = 0, sum_bit_holes = 0;
	struct member_types_holes mth = { 0 };
	uint32_t cacheline = 0, i;
	int size_diff;
	struct lmember *last = NULL;
	struct conf cconf = *conf;
	int indent = cconf.indent;
	size_t printed = (size_t)sp(s, "%s%s%s%s%s", cconf.prefix ? cconf.prefix : "",
				    cconf.prefix ? " " : "", "struct", tn ? " " : "", tn ? tn : "");

	if (indent > NTABS)	/* pahole: >= sizeof(tabs), the NUL counted */
		indent = NTABS;
	if (!cconf.cachelinep)
		cconf.cachelinep = &cacheline;
	cconf.indent = (uint8_t)(indent + 1);
	cconf.no_semicolon = 0;
	class_infer_packed(l, c);
	printed += (size_t)sput(s, " {\n", 3);
	if (c->pre_bit_hole > 0 && !cconf.suppress_comments) {
		if (!newline++) {
			sput(s, "\n", 1);
			++printed;
		}
		printed += (size_t)sp(s, "%.*s/* XXX %d bit%s hole, try to pack */\n", cconf.indent,
				      tabs, c->pre_bit_hole, c->pre_bit_hole != 1 ? "s" : "");
		sum_bit_holes += c->pre_bit_hole;
	}
	if (c->pre_hole > 0 && !cconf.suppress_comments) {
		if (!newline++) {
			sput(s, "\n", 1);
			++printed;
		}
		printed += (size_t)sp(s, "%.*s/* XXX %d byte%s hole, try to pack */\n", cconf.indent,
				      tabs, c->pre_hole, c->pre_hole != 1 ? "s" : "");
		sum_holes += c->pre_hole;
	}
	for (i = 0; i < c->nr; i++) {
		struct lmember *pos = &c->m[i];
		const struct btf_type *pos_type;

		if (!cconf.suppress_aligned_attribute && pos->alignment != 0) {
			uint32_t fah = last ? (uint32_t)last->hole : c->pre_hole;

			if (fah != 0) {
				++nr_forced_alignment_holes;
				sum_forced_alignment_holes += fah;
			}
			++nr_forced_alignments;
		}
		if (last != NULL && last_size != 0) {
			if (last->bit_hole != 0 && pos->bitfield_size) {
				uint8_t bitfield_size = last->bit_hole;

				if (!ptag(l, pos->type)) {
					printed += (size_t)sput_tabs(s, cconf.indent);
					printed += (size_t)sp(s, "<ERROR(%s:%d): %#llx not found!>",
							      "__class__fprintf", 0,
							      (unsigned long long)pos->type);
					goto next_member;
				}
				if (last->byte_offset != pos->byte_offset) {
					printed += (size_t)sp(s, "\n%.*s/* Force alignment to the next boundary: */\n",
							      cconf.indent, tabs);
					bitfield_size = 0;
				}
				printed += (size_t)sput_tabs(s, cconf.indent);
				printed += type_fprintf(l, pos->type, "", &cconf, s);
				printed += (size_t)sp(s, ":%u;\n", bitfield_size);
			}
			if (pos->byte_offset < last->byte_offset ||
			    (pos->byte_offset == last->byte_offset && last->bitfield_size == 0 &&
			     pos->bitfield_size != 0)) {
				if (!cconf.suppress_comments) {
					if (!newline++) {
						sput(s, "\n", 1);
						++printed;
					}
					printed += (size_t)sp(s, "%.*s/* Bitfield combined with previous fields */\n",
							      cconf.indent, tabs);
				}
			} else {
				const long long cc_last_size = (long long)pos->byte_offset -
							       (long long)last->byte_offset;

				if (cc_last_size > 0 && (size_t)cc_last_size < last_size) {
					if (!cconf.suppress_comments) {
						if (!newline++) {
							sput(s, "\n", 1);
							++printed;
						}
						printed += (size_t)sp(s, "%.*s/* Bitfield combined with next fields */\n",
								      cconf.indent, tabs);
					}
				}
			}
		}
		if (newline) {
			sput(s, "\n", 1);
			newline = 0;
			++printed;
		}
		pos_type = ptag(l, pos->type);
		if (!pos_type) {
			printed += (size_t)sput_tabs(s, cconf.indent);
			printed += (size_t)sp(s, "<ERROR(%s:%d): %#llx not found!>", "__class__fprintf", 0,
					      (unsigned long long)pos->type);
			goto next_member;
		}
		cconf.last_member = i == c->nr - 1;
		cconf.first_member = last == NULL;
		size = (size_t)pos->byte_size;
		printed += (size_t)sput_tabs(s, cconf.indent);
		printed += class_member_fprintf(l, pos, false, pos->type, &cconf, s);
		if (pt_is_struct(pos_type) && !cconf.suppress_comments) {
			struct lclass *tc = lclass_get(l, pos->type);

			if (tc)
				printed += member_type_holes(l, tc, &mth, &newline, &cconf, s);
		}
		if (pos->bit_hole != 0 && !cconf.suppress_comments) {
			if (!newline++) {
				sput(s, "\n", 1);
				++printed;
			}
			printed += (size_t)sp(s, "\n%.*s/* XXX %d bit%s hole, try to pack */", cconf.indent,
					      tabs, pos->bit_hole, pos->bit_hole != 1 ? "s" : "");
			sum_bit_holes += pos->bit_hole;
		}
		if (pos->hole > 0 && !cconf.suppress_comments) {
			if (!newline++) {
				sput(s, "\n", 1);
				++printed;
			}
			printed += (size_t)sp(s, "\n%.*s/* XXX %d byte%s hole, try to pack */", cconf.indent,
					      tabs, pos->hole, pos->hole != 1 ? "s" : "");
			sum_holes += (uint32_t)pos->hole;
		}
		sput(s, "\n", 1);
		++printed;
		if (pos->bitfield_size)
			sum_bits += pos->bitfield_size;
		else
			sum_bytes += (uint32_t)pos->byte_size;
		if (last == NULL || last_size == 0 || last->byte_offset != pos->byte_offset)
			last_size = size;
		else if (last->bitfield_size == 0 && pos->bitfield_size != 0)
			last_size = size;
		last = pos;
		continue;
next_member:
		/* 1.24 goes on as if the member was not there, 1.30 as if it was printed */
		if (compat_130(l))
			last = pos;
	}
	if (!cconf.emit_stats)
		goto out;
	printed += (size_t)sp(s, "\n%.*s/* size: %d, cachelines: %zd, members: %u */\n", cconf.indent,
			      tabs, (int)class_size(t),
			      (size_t)((class_size(t) + l->cacheline_size - 1) / l->cacheline_size),
			      class_nr_members(t));
	if (sum_holes > 0 || sum_bit_holes > 0) {
		if (sum_bytes > 0) {
			printed += (size_t)sp(s, "%.*s/* sum members: %u", cconf.indent, tabs, sum_bytes);
			if (sum_holes > 0)
				printed += (size_t)sp(s, ", holes: %d, sum holes: %u", c->nr_holes, sum_holes);
			printed += (size_t)sp(s, " */\n");
		}
		if (sum_bits > 0) {
			printed += (size_t)sp(s, "%.*s/* sum bitfield members: %u bits", cconf.indent, tabs,
					      sum_bits);
			if (sum_bit_holes > 0)
				printed += (size_t)sp(s, ", bit holes: %d, sum bit holes: %u bits",
						      c->nr_bit_holes, sum_bit_holes);
			else
				printed += (size_t)sp(s, " (%u bytes)", sum_bits / 8);
			printed += (size_t)sp(s, " */\n");
		}
	}
	if (c->padding > 0)
		printed += (size_t)sp(s, "%.*s/* padding: %u */\n", cconf.indent, tabs, c->padding);
	if (mth.nr_with_holes > 0 || mth.nr_with_bit_holes > 0 || mth.nr_with_bit_paddings > 0) {
		const char *sep = "";

		printed += (size_t)sp(s, "%.*s/* member types with ", cconf.indent, tabs);
		if (mth.nr_with_holes > 0) {
			printed += (size_t)sp(s, "holes: %u, total: %u", mth.nr_with_holes,
					      mth.total_nr_holes);
			sep = ", ";
		}
		if (mth.nr_with_bit_holes > 0) {
			printed += (size_t)sp(s, "%sbit holes: %u, total: %u", sep, mth.nr_with_bit_holes,
					      mth.total_nr_bit_holes);
			sep = ", ";
		}
		if (mth.nr_with_bit_paddings > 0)
			printed += (size_t)sp(s, "%sbit paddings: %u, total: %u bit%s", sep,
					      mth.nr_with_bit_paddings, mth.sum_bit_paddings,
					      mth.sum_bit_paddings > 1 ? "s" : "");
		printed += (size_t)sp(s, " */\n");
	}
	if (mth.nr_paddings > 0)
		printed += (size_t)sp(s, "%.*s/* paddings: %u, sum paddings: %u */\n", cconf.indent, tabs,
				      mth.nr_paddings, mth.sum_paddings);
	if (c->bit_padding > 0)
		printed += (size_t)sp(s, "%.*s/* bit_padding: %u bits */\n", cconf.indent, tabs,
				      c->bit_padding);
	if (!cconf.suppress_aligned_attribute && nr_forced_alignments != 0) {
		printed += (size_t)sp(s, "%.*s/* forced alignments: %u", cconf.indent, tabs,
				      nr_forced_alignments);
		if (nr_forced_alignment_holes != 0)
			printed += (size_t)sp(s, ", forced holes: %u, sum forced holes: %u",
					      nr_forced_alignment_holes, sum_forced_alignment_holes);
		printed += (size_t)sp(s, " */\n");
	}
	if (mth.nr_flexible_array_members > 0 || mth.nr_embedded_flexible_array_members > 0) {
		printed += (size_t)sp(s, "%.*s/* flexible array members: ", cconf.indent, tabs);
		if (mth.nr_flexible_array_members > 0)
			printed += (size_t)sp(s, "end: %u", mth.nr_flexible_array_members);
		if (mth.nr_embedded_flexible_array_members > 0)
			printed += (size_t)sp(s, "%smiddle: %u", mth.nr_flexible_array_members ? ", " : "",
					      mth.nr_embedded_flexible_array_members);
		printed += (size_t)sp(s, " */\n");
	}
	/*
	 * 1.30 takes the cacheline size from conf, 1.31 from its copy cconf
	 * (dwarves_fprintf.c): the same number, as nothing here changes it.
	 */
	cacheline = (cconf.base_offset + class_size(t)) % l->cacheline_size;
	if (cacheline != 0)
		printed += (size_t)sp(s, "%.*s/* last cacheline: %u bytes */\n", cconf.indent, tabs,
				      cacheline);
	size_diff = (int)(class_size(t) * 8) - (int)(sum_bytes * 8 + sum_bits + sum_holes * 8 +
						     sum_bit_holes + c->padding * 8u + c->bit_padding);
	if (size_diff && class_nr_members(t) != 0)
		printed += (size_t)sp(s, "\n%.*s/* BRAIN FART ALERT! %d bytes != %u (member bytes) + %u (member bits) + %u (byte holes) + %u (bit holes), diff = %d bits */\n",
				      cconf.indent, tabs, (int)class_size(t), sum_bytes, sum_bits,
				      sum_holes, sum_bit_holes, size_diff);
out:
	printed += (size_t)sp(s, "%.*s}", indent, tabs);
	if (c->is_packed && !cconf.suppress_packed)
		printed += (size_t)sp(s, " __attribute__((__packed__))");
	if (cconf.suffix)
		printed += (size_t)sp(s, " %s", cconf.suffix);
	if (!cconf.suppress_aligned_attribute && c->alignment != 0 && !c->is_packed)
		printed += (size_t)sp(s, " __attribute__((__aligned__(%u)))", c->alignment);
	return printed;
}

/* typedef__fprintf */
static size_t typedef_fprintf(struct layout *l, const struct btf_type *t, const struct conf *conf,
			      struct sink *s)
{
	const char *tn = pt_name(l, t);
	const struct btf_type *tt;
	uint32_t ttid = pt_type(t);
	char bf[512];
	size_t printed = (size_t)sp(s, "typedef ");

	if (!tn)
		tn = "(null)";
	if (ttid == 0)
		return printed + (size_t)sp(s, "void %s", tn);
	tt = ptag(l, ttid);
	if (!tt) {
		printed += (size_t)sp(s, "<ERROR(%s:%d): %#llx not found!>", "typedef__fprintf", 0,
				      (unsigned long long)ttid);
		return printed + (size_t)sp(s, " %s", tn);
	}
	switch (K(tt)) {
	case BTF_KIND_ARRAY:
		return printed + array_fprintf(l, tt, tn, conf, s);
	case BTF_KIND_PTR: {
		const struct btf_type *pt;

		if (pt_type(tt) == 0)
			break;
		pt = ptag(l, pt_type(tt));
		if (!pt) {
			printed += (size_t)sp(s, "<ERROR(%s:%d): %#llx not found!>", "typedef__fprintf",
					      0, (unsigned long long)pt_type(tt));
			return printed + (size_t)sp(s, " *%s", tn);
		}
		if (K(pt) != BTF_KIND_FUNC_PROTO)
			break;
		return printed + ftype_fprintf(l, pt, tn, 0, 1, 0, conf, s);
	}
	case BTF_KIND_FUNC_PROTO:
		return printed + ftype_fprintf(l, tt, tn, 0, 0, 0, conf, s);
	case BTF_KIND_STRUCT:
	case BTF_KIND_FWD:
	case BTF_KIND_UNION:
		if (pt_is_struct(tt)) {
			struct conf tconf;
			struct lclass *c;

			/* 1.30 expands a named one under -E, and indents an expanded one like a member's */
			if (pt_name(l, tt) && !(compat_130(l) && conf->expand_types))
				return printed + (size_t)sp(s, "struct %s %s", pt_name(l, tt), tn);
			tconf = *conf;
			c = lclass_get(l, ttid);
			if (!c)
				return printed;
			if (compat_130(l)) {
				if (!tconf.suppress_comments)
					class_find_holes(l, c);
				tconf.type_spacing -= 8;
			}
			tconf.suffix = tn;
			return printed + class_fprintf(l, c, &tconf, s);
		}
		/* 1.30: union_decl__fprintf, as for a member; 1.24: its name */
		if (compat_130(l)) {
			struct conf tconf;
			struct lclass *u;

			if (pt_name(l, tt) && !conf->expand_types)
				return printed + (size_t)sp(s, "union %-*s %s", conf->type_spacing - 6,
							    pt_name(l, tt), tn);
			u = lclass_get(l, ttid);
			if (!u)
				return printed;
			tconf = *conf;
			tconf.type_spacing -= 8;
			tconf.suffix = tn;
			return printed + union_fprintf(l, u, &tconf, s);
		}
		break;
	case BTF_KIND_ENUM:
	case BTF_KIND_ENUM64: {
		struct conf tconf;

		if (pt_name(l, tt))
			return printed + (size_t)sp(s, "enum %s %s", pt_name(l, tt), tn);
		tconf = *conf;
		tconf.suffix = tn;
		return printed + enumeration_fprintf(l, tt, &tconf, s);
	}
	case BTF_KIND_UNKN: case BTF_KIND_INT: case BTF_KIND_TYPEDEF: case BTF_KIND_VOLATILE:
	case BTF_KIND_CONST: case BTF_KIND_RESTRICT: case BTF_KIND_FUNC: case BTF_KIND_VAR:
	case BTF_KIND_DATASEC: case BTF_KIND_FLOAT: case BTF_KIND_DECL_TAG:
	case BTF_KIND_TYPE_TAG:
		break;
	}
	return printed + (size_t)sp(s, "%s %s", tag_name(l, tt, bf, sizeof(bf), conf, 0), tn);
}

static void conf_init(const struct layout *l, struct conf *c)
{
	memset(c, 0, sizeof(*c));
	c->emit_stats = !l->o.quiet;
	c->suppress_comments = l->o.quiet;
	c->suppress_offset_comment = l->o.quiet;
	c->expand_types = l->o.expand_types;
	c->rel_offset = l->o.rel_offset;
	c->hex_fmt = l->o.hex;
	c->suppress_aligned_attribute = l->o.suppress_aligned;
	c->suppress_packed = l->o.suppress_packed;
}

/* tag__fprintf */
int layout_print(struct layout *l, uint32_t id, const char *prefix, const char *suffix,
		 struct lbuf *out)
{
	const struct btf_type *t = ptag(l, id);
	struct sink s = { out, 0, SIZE_MAX };
	struct expanding top = { id, NULL };
	uint32_t expand_left = EXPAND_MAX_MEMBERS;
	struct conf c;

	if (!t)
		return -ENOENT;
	conf_init(l, &c);
	c.expanding = &top;
	c.expand_left = &expand_left;
	c.prefix = prefix;
	c.suffix = suffix;
	if (c.expand_types)
		c.name_spacing = 55;
	else
		c.name_spacing = pt_is_union(t) ? 21 : 23;
	c.type_spacing = 26;
	l->depth = 0;
	if (pt_is_struct(t) || pt_is_union(t)) {
		struct lclass *lc = lclass_get(l, id);

		if (!lc)
			return -ENOMEM;
		class_find_holes(l, lc);
		if (pt_is_struct(t))
			class_fprintf(l, lc, &c, &s);
		else
			union_fprintf(l, lc, &c, &s);
	} else if (pt_is_enum(t)) {
		enumeration_fprintf(l, t, &c, &s);
	} else if (pt_is_typedef(t)) {
		typedef_fprintf(l, t, &c, &s);
	} else if (K(t) == BTF_KIND_ARRAY) {
		array_fprintf(l, t, "array", &c, &s);
	} else if (K(t) == BTF_KIND_FUNC_PROTO) {
		ftype_fprintf(l, t, NULL, 0, 0, 0, &c, &s);
	} else if (K(t) == BTF_KIND_VAR) {
		if (pt_name(l, t))
			type_fprintf(l, pt_type(t), pt_name(l, t), &c, &s);
	} else {
		sp(&s, "/* %s: %s tag not supported! */", "tag__fprintf", btf_kind_str(K(t)));
	}
	sput(&s, ";", 1);
	return out->oom ? -ENOMEM : 0;
}

/* Print a (possibly synthetic, e.g. reorganized) struct like layout_print. */
int layout_print_class(struct layout *l, struct lclass *lc, struct lbuf *out)
{
	struct sink s = { out, 0, SIZE_MAX };
	struct expanding top = { lc->id, NULL };
	uint32_t expand_left = EXPAND_MAX_MEMBERS;
	struct conf c;

	conf_init(l, &c);
	c.expanding = &top;
	c.expand_left = &expand_left;
	c.name_spacing = l->o.expand_types ? 55 : 23;
	c.type_spacing = 26;
	l->depth = 0;
	class_find_holes(l, lc);
	class_fprintf(l, lc, &c, &s);
	sput(&s, ";", 1);
	return out->oom ? -ENOMEM : 0;
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

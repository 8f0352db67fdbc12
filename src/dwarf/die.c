// SPDX-License-Identifier: GPL-2.0-only
/* DIE decoding: the hot loop of the whole tool. */
#include <stdio.h>
#include <stdlib.h>

#include "base/mem.h"
#include "dwarf/internal.h"

#define dctx dw_dctx

/*
 * Whether ab->fixed is the size of ab's values in a DIE of x's unit: some
 * form varies otherwise, or the table was parsed for a unit of other
 * address or offset sizes (tables are shared by offset).
 */
static inline bool has_fixed_size(const struct dctx *x, const struct dw_abbrev *ab)
{
	return ab->fixed >= 0 && x->sizes_ok;
}

static void dctx_init(struct dctx *x, const struct dw_file *f, const struct dw_unit *u,
		      struct diag *d)
{
	x->f = dw_owner(f, u);
	x->u = u;
	x->altbit = x->f != f ? DW_REF_ALT : 0;
	x->dflags = (u->in_types ? DW_REF_TYPES : 0) | x->altbit;
	x->refbase = u->off | x->dflags;
	x->d = d;
	x->hbase[0] = 0;	/* HOW_PLAIN, HOW_REF, HOW_STRP */
	x->hbase[1] = x->refbase;
	x->str_base = u->str_base <= x->f->s.str.len ? u->str_base : x->f->s.str.len;
	x->hbase[2] = (uint64_t)(uintptr_t)x->f->s.str.p + x->str_base;
	x->hlim[0] = x->hlim[1] = ~0ull;
	x->hlim[2] = x->f->s.str.len - x->str_base;
	x->sizes_ok = u->abbrevs && u->abbrevs->asz == u->addr_size &&
		      u->abbrevs->osz == u->offset_size;
}

static int bad(const struct dctx *x, uint64_t die_off, const char *what, unsigned v)
{
	return diag_err(x->d, EINVAL, "%s: %s unit 0x%llx: DIE 0x%llx: %s%s%x", x->f->path,
			x->u->in_types ? ".debug_types" : ".debug_info",
			(unsigned long long)x->u->off, (unsigned long long)DW_REF_OFF(die_off), what,
			v != ~0u ? " 0x" : "", v != ~0u ? v : 0);
}

static inline const char *str_at(const struct dw_file *f, uint64_t off)
{
	return off < f->s.str.len ? (const char *)f->s.str.p + off : NULL;
}

static const char *strx(const struct dctx *x, uint64_t idx)
{
	const struct dw_file *f = x->f;
	unsigned osz = x->u->offset_size;
	uint64_t pos = x->u->str_offsets_base + idx * osz;

	if (idx > f->s.str_offsets.len / osz || pos + osz > f->s.str_offsets.len)
		return NULL;
	return str_at(f, dw_uN(f, f->s.str_offsets.p + pos, osz) + x->str_base);
}

static bool addrx(const struct dctx *x, uint64_t idx, uint64_t *out)
{
	const struct dw_file *f = x->f;
	unsigned asz = x->u->addr_size;
	uint64_t pos = x->u->addr_base + idx * asz;

	if (unlikely(x->u->no_addr)) {	/* a .dwo read without its skeleton */
		*out = 0;
		return true;
	}

	if (idx > f->s.addr.len / asz || pos + asz > f->s.addr.len)
		return false;
	*out = dw_uN(f, f->s.addr.p + pos, asz);
	return true;
}

bool dw_addr_index(const struct dw_file *f, const struct dw_unit *u, uint64_t idx, uint64_t *out)
{
	struct dctx x;
	struct diag d;

	dctx_init(&x, f, u, &d);
	return addrx(&x, idx, out);
}

static bool listx(const struct dctx *x, uint64_t base, struct bslice sec, uint64_t idx,
		  uint64_t *out)
{
	unsigned osz = x->u->offset_size;
	uint64_t pos = base + idx * osz;

	if (idx > sec.len / osz || pos + osz > sec.len)
		return false;
	*out = base + dw_uN(x->f, sec.p + pos, osz);
	return true;
}

#define NEED(n)                                                  \
	do {                                                     \
		if (unlikely((size_t)(end - p) < (size_t)(n)))   \
			return bad(x, die_off, "attribute value runs past the unit end", ~0u); \
	} while (0)

/*
 * Decode one attribute value of form at *pp into a (when a is non-NULL).
 * Shared by the decoder and the skipper so both accept the same forms.
 * One piece (210 lines): a switch with one short case per DWARF form,
 * inlined into the two hot loops that read every attribute of the
 * kernel's DWARF.
 */
static inline int read_value(const struct dctx *x, unsigned form, int64_t implicit,
			     const uint8_t **pp, const uint8_t *end, struct dw_attr *a,
			     uint64_t die_off)
{
	const struct dw_file *f = x->f;
	const struct dw_unit *u = x->u;
	const uint8_t *p = *pp;
	uint64_t v = 0;
	uint8_t cls = DW_CL_NONE;
	unsigned n;

again:
	switch (form) {
	case DW_FORM_addr:
		NEED(u->addr_size);
		v = dw_uN(f, p, u->addr_size);
		p += u->addr_size;
		cls = DW_CL_ADDR;
		break;
	case DW_FORM_data1: NEED(1); v = *p++; cls = DW_CL_CONST; break;
	case DW_FORM_data2: NEED(2); v = dw_u16(f, p); p += 2; cls = DW_CL_CONST; break;
	case DW_FORM_data4: NEED(4); v = dw_u32(f, p); p += 4; cls = DW_CL_CONST; break;
	case DW_FORM_data8: NEED(8); v = dw_u64(f, p); p += 8; cls = DW_CL_CONST; break;
	case DW_FORM_data16:
		NEED(16);
		if (a) {
			a->blk = p;
			a->len = 16;
		}
		p += 16;
		cls = DW_CL_DATA16;
		goto store_blk;
	case DW_FORM_udata:
		v = dw_uleb(&p, end);
		cls = DW_CL_CONST;
		break;
	case DW_FORM_sdata:
		v = (uint64_t)dw_sleb(&p, end);
		cls = DW_CL_SCONST;
		break;
	case DW_FORM_implicit_const:
		v = (uint64_t)implicit;
		cls = DW_CL_SCONST;
		break;
	case DW_FORM_flag: NEED(1); v = *p++ != 0; cls = DW_CL_FLAG; break;
	case DW_FORM_flag_present: v = 1; cls = DW_CL_FLAG; break;
	case DW_FORM_string: {
		const uint8_t *z = memchr(p, 0, (size_t)(end - p));

		if (!z)
			return bad(x, die_off, "unterminated DW_FORM_string", ~0u);
		if (a)
			a->str = (const char *)p;
		p = z + 1;
		cls = DW_CL_STRING;
		goto store_str;
	}
	case DW_FORM_strp:
	case DW_FORM_line_strp:
	case DW_FORM_GNU_strp_alt:
	case DW_FORM_strp_sup: {
		const char *s;

		NEED(u->offset_size);
		v = dw_uN(f, p, u->offset_size);
		p += u->offset_size;
		cls = DW_CL_STRING;
		if (!a)
			break;
		if (form == DW_FORM_strp)
			s = str_at(f, v + x->str_base);
		else if (form == DW_FORM_line_strp)
			s = v < f->s.line_str.len ? (const char *)f->s.line_str.p + v : NULL;
		else if (!f->alt)
			return bad(x, die_off, "alternate-file string but no .gnu_debugaltlink file loaded, form", form);
		else
			s = str_at(f->alt, v);
		if (!s)
			return bad(x, die_off, "string offset past the end of the string section, form", form);
		a->str = s;
		goto store_str;
	}
	case DW_FORM_strx: case DW_FORM_GNU_str_index:
		v = dw_uleb(&p, end);
		goto do_strx;
	case DW_FORM_strx1: n = 1; goto strxn;
	case DW_FORM_strx2: n = 2; goto strxn;
	case DW_FORM_strx3: n = 3; goto strxn;
	case DW_FORM_strx4: n = 4;
strxn:
		NEED(n);
		v = dw_uN(f, p, n);
		p += n;
do_strx:
		cls = DW_CL_STRING;
		if (!a)
			break;
		if (p > end)
			break;
		if (!(a->str = strx(x, v)))
			return bad(x, die_off, "string index out of range of .debug_str_offsets, form", form);
		goto store_str;
	case DW_FORM_addrx: case DW_FORM_GNU_addr_index:
		v = dw_uleb(&p, end);
		goto do_addrx;
	case DW_FORM_addrx1: n = 1; goto addrxn;
	case DW_FORM_addrx2: n = 2; goto addrxn;
	case DW_FORM_addrx3: n = 3; goto addrxn;
	case DW_FORM_addrx4: n = 4;
addrxn:
		NEED(n);
		v = dw_uN(f, p, n);
		p += n;
do_addrx:
		cls = DW_CL_ADDR;
		if (a && p <= end && !addrx(x, v, &v))
			return bad(x, die_off, "address index out of range of .debug_addr, form", form);
		break;
	case DW_FORM_ref1: NEED(1); v = *p++ + x->refbase; cls = DW_CL_REF; break;
	case DW_FORM_ref2: NEED(2); v = dw_u16(f, p) + x->refbase; p += 2; cls = DW_CL_REF; break;
	case DW_FORM_ref4: NEED(4); v = dw_u32(f, p) + x->refbase; p += 4; cls = DW_CL_REF; break;
	case DW_FORM_ref8: NEED(8); v = dw_u64(f, p) + x->refbase; p += 8; cls = DW_CL_REF; break;
	case DW_FORM_ref_udata:
		v = dw_uleb(&p, end) + x->refbase;
		cls = DW_CL_REF;
		break;
	case DW_FORM_ref_addr:
		n = u->version <= 2 ? u->addr_size : u->offset_size;
		NEED(n);
		v = dw_uN(f, p, n) | x->altbit;
		p += n;
		cls = DW_CL_REF;
		break;
	case DW_FORM_GNU_ref_alt:
	case DW_FORM_ref_sup4:
	case DW_FORM_ref_sup8:
		n = form == DW_FORM_ref_sup4 ? 4 : form == DW_FORM_ref_sup8 ? 8 : u->offset_size;
		NEED(n);
		v = dw_uN(f, p, n) | DW_REF_ALT;
		p += n;
		cls = DW_CL_REF;
		break;
	case DW_FORM_ref_sig8:
		NEED(8);
		v = dw_u64(f, p);
		p += 8;
		cls = DW_CL_SIG;
		break;
	case DW_FORM_sec_offset:
		NEED(u->offset_size);
		v = dw_uN(f, p, u->offset_size);
		p += u->offset_size;
		cls = DW_CL_SECOFF;
		break;
	case DW_FORM_loclistx:
	case DW_FORM_rnglistx:
		v = dw_uleb(&p, end);
		cls = DW_CL_LISTX;
		if (a && p <= end) {
			bool loc = form == DW_FORM_loclistx;

			if (!listx(x, loc ? u->loclists_base : u->rnglists_base,
				   loc ? f->s.loclists : f->s.rnglists, v, &v))
				return bad(x, die_off, "list index out of range, form", form);
		}
		break;
	case DW_FORM_block1: NEED(1); n = *p++; goto blk;
	case DW_FORM_block2: NEED(2); n = dw_u16(f, p); p += 2; goto blk;
	case DW_FORM_block4: NEED(4); n = dw_u32(f, p); p += 4; goto blk;
	case DW_FORM_block:
	case DW_FORM_exprloc: {
		uint64_t l = dw_uleb(&p, end);

		if (p > end || l > (uint64_t)(end - p))
			return bad(x, die_off, "block length runs past the unit end", ~0u);
		n = (unsigned)l;
	}
blk:
		NEED(n);
		if (a) {
			a->blk = p;
			a->len = n;
		}
		p += n;
		cls = DW_CL_BLOCK;
		goto store_blk;
	case DW_FORM_indirect:
		form = (unsigned)dw_uleb(&p, end);
		if (p > end)
			break;
		if (form == DW_FORM_indirect || form == DW_FORM_implicit_const)
			return bad(x, die_off, "invalid DW_FORM_indirect target", form);
		if (a)
			a->form = (uint16_t)form;
		goto again;
	default:
		return bad(x, die_off, "unknown attribute form", form);
	}
	if (unlikely(p > end))
		return bad(x, die_off, "attribute value runs past the unit end", ~0u);
	if (a) {
		a->u = v;
		a->cls = cls;
	}
	*pp = p;
	return 0;
store_str:
store_blk:
	if (a)
		a->cls = cls;
	*pp = p;
	return 0;
}

/*
 * The common forms, without per-value bounds checks: the caller checked
 * that ab->maxfix bytes remain, which covers every fixed-size value; the
 * variable-size forms check for themselves.  Rare forms go to read_value().
 */
static inline __attribute__((always_inline)) int
decode_fast(const struct dctx *x, const struct dw_abbrev *ab, const uint8_t **pp,
	    const uint8_t *end, struct dw_die *die, const bool swap)
{
	const struct dw_file *f = x->f;
	const struct dw_unit *u = x->u;
	const uint8_t *p = *pp;
	const unsigned osz = u->offset_size;
	const uint64_t refbase = x->refbase;
	unsigned i;
	int err;

#define U16(q) (swap ? bswap16(load16(q)) : load16(q))
#define U32(q) (swap ? bswap32(load32(q)) : load32(q))
#define U64(q) (swap ? bswap64(load64(q)) : load64(q))
	for (i = 0; i < ab->nattr; i++) {
		const struct dw_spec *sp = &ab->specs[i];
		struct dw_attr *a = &die->attr[i];
		uint64_t v;

		a->at = sp->at;
		a->form = sp->form;
		switch (sp->form) {
		case DW_FORM_data1:
			a->u = *p++;
			a->cls = DW_CL_CONST;
			continue;
		case DW_FORM_data2:
			a->u = U16(p);
			p += 2;
			a->cls = DW_CL_CONST;
			continue;
		case DW_FORM_data4:
			a->u = U32(p);
			p += 4;
			a->cls = DW_CL_CONST;
			continue;
		case DW_FORM_data8:
			a->u = U64(p);
			p += 8;
			a->cls = DW_CL_CONST;
			continue;
		case DW_FORM_ref4:
			a->u = U32(p) + refbase;
			p += 4;
			a->cls = DW_CL_REF;
			continue;
		case DW_FORM_implicit_const:
			a->s = x->u->abbrevs->imps[sp->imp];
			a->cls = DW_CL_SCONST;
			continue;
		case DW_FORM_flag_present:
			a->u = 1;
			a->cls = DW_CL_FLAG;
			continue;
		case DW_FORM_strp:
			v = (osz == 4 ? U32(p) : U64(p)) + x->str_base;
			p += osz;
			if (unlikely(v >= f->s.str.len))
				return bad(x, die->off, "string offset past the end of .debug_str, form",
					   DW_FORM_strp);
			a->str = (const char *)f->s.str.p + v;
			__builtin_prefetch(a->str);	/* names are read soon, far from here */
			a->cls = DW_CL_STRING;
			continue;
		case DW_FORM_line_strp:
			v = osz == 4 ? U32(p) : U64(p);
			p += osz;
			if (unlikely(v >= f->s.line_str.len))
				return bad(x, die->off, "string offset past the end of .debug_line_str, form",
					   DW_FORM_line_strp);
			a->str = (const char *)f->s.line_str.p + v;
			a->cls = DW_CL_STRING;
			continue;
		case DW_FORM_sec_offset:
			a->u = osz == 4 ? U32(p) : U64(p);
			p += osz;
			a->cls = DW_CL_SECOFF;
			continue;
		case DW_FORM_addr:
			if (u->addr_size == 8)
				a->u = U64(p);
			else
				a->u = dw_uN(f, p, u->addr_size);
			p += u->addr_size;
			a->cls = DW_CL_ADDR;
			continue;
		case DW_FORM_exprloc: {
			uint64_t l = dw_uleb(&p, end);

			if (unlikely(p > end || l > (uint64_t)(end - p)))
				return bad(x, die->off, "block length runs past the unit end", ~0u);
			a->blk = p;
			a->len = (uint32_t)l;
			p += l;
			a->cls = DW_CL_BLOCK;
			if (unlikely((size_t)(end - p) < ab->maxfix))
				goto slow;
			continue;
		}
		case DW_FORM_udata:
			a->u = dw_uleb(&p, end);
			a->cls = DW_CL_CONST;
			if (unlikely(p > end))
				return bad(x, die->off, "attribute value runs past the unit end", ~0u);
			if (unlikely((size_t)(end - p) < ab->maxfix))
				goto slow;
			continue;
		case DW_FORM_sdata:
			a->s = dw_sleb(&p, end);
			a->cls = DW_CL_SCONST;
			if (unlikely(p > end))
				return bad(x, die->off, "attribute value runs past the unit end", ~0u);
			if (unlikely((size_t)(end - p) < ab->maxfix))
				goto slow;
			continue;
		default:
			a->len = 0;
			if ((err = read_value(x, sp->form, dw_spec_implicit(x->u->abbrevs, sp), &p, end,
					      a, die->off)))
				return err;
			if (unlikely((size_t)(end - p) < ab->maxfix))
				goto slow;
		}
	}
#undef U16
#undef U32
#undef U64
	*pp = p;
	return 0;
slow:
	/*
	 * A variable-size value ate into the bytes the entry check counted on
	 * for the fixed-size ones (possible only in malformed input): finish
	 * with the checked decoder.
	 */
	for (i++; i < ab->nattr; i++) {
		const struct dw_spec *sp = &ab->specs[i];
		struct dw_attr *a = &die->attr[i];

		a->at = sp->at;
		a->form = sp->form;
		a->len = 0;
		if ((err = read_value(x, sp->form, dw_spec_implicit(x->u->abbrevs, sp), &p, end, a,
				      die->off)))
			return err;
	}
	*pp = p;
	return 0;
}

/* Decode (die != NULL) or skip the attribute values of a DIE of abbreviation ab. */
static inline int decode_body(const struct dctx *x, const uint8_t **pp, const uint8_t *end,
			      uint64_t die_off, const struct dw_abbrev *ab, struct dw_die *die)
{
	const uint8_t *p = *pp;
	unsigned i;
	int err;

	if (die) {
		die->off = die_off;
		die->tag = ab->tag;
		die->nattr = die->nattr_in = ab->nattr;
		die->has_children = ab->children;
		die->unit = x->u;
		die->slot = NULL;
		if (likely((size_t)(end - p) >= ab->maxfix)) {
			err = x->f->swap ? decode_fast(x, ab, &p, end, die, true)
					 : decode_fast(x, ab, &p, end, die, false);
			if (err)
				return err;
			*pp = p;
			return 1;
		}
		for (i = 0; i < ab->nattr; i++) {
			const struct dw_spec *sp = &ab->specs[i];
			struct dw_attr *a = &die->attr[i];

			a->at = sp->at;
			a->form = sp->form;
			a->len = 0;
			if ((err = read_value(x, sp->form, dw_spec_implicit(x->u->abbrevs, sp), &p, end,
					      a, die_off)))
				return err;
		}
	} else if (has_fixed_size(x, ab)) {
		if (unlikely((size_t)(end - p) < (size_t)ab->fixed))
			return bad(x, die_off, "attribute value runs past the unit end", ~0u);
		p += ab->fixed;
	} else {
		for (i = 0; i < ab->nattr; i++)
			if ((err = read_value(x, ab->specs[i].form,
					      dw_spec_implicit(x->u->abbrevs, &ab->specs[i]), &p, end,
					      NULL, die_off)))
				return err;
	}
	*pp = p;
	return 1;
}

/* Read a DIE's abbreviation code: 1 with *abp set, 0 for a null entry, or an error. */
static inline int decode_code(const struct dctx *x, const uint8_t **pp, const uint8_t *end,
			      uint64_t die_off, const struct dw_abbrev **abp)
{
	const uint8_t *p = *pp;
	uint64_t code = dw_uleb(&p, end);

	if (p > end)
		return bad(x, die_off, "abbreviation code runs past the unit end", ~0u);
	*pp = p;
	if (code == 0) {
		*abp = NULL;
		return 0;
	}
	*abp = dw_abbrev_find(x->u->abbrevs, code);
	if (unlikely(!*abp))
		return bad(x, die_off, "abbreviation code not in the unit's table: code", (unsigned)code);
	return 1;
}

/* Section offset of the cursor's next byte. */
static inline uint64_t cur_off(const struct dw_cursor *c)
{
	return (uint64_t)(c->p - c->sec) + c->base;
}

/* Decode the DIE at *pp, whose section offset is off. */
static inline int decode_one(const struct dctx *x, const uint8_t **pp, const uint8_t *end,
			     uint64_t off, struct dw_die *die, const struct dw_abbrev **abp)
{
	uint64_t die_off = off | (x->u->in_types ? DW_REF_TYPES : 0) | x->altbit;
	int r = decode_code(x, pp, end, die_off, abp);

	if (r <= 0)
		return r;
	return decode_body(x, pp, end, die_off, *abp, die);
}

/* c on [sec, sec + ...), the bytes of u from section offset base on. */
static void cursor_place(struct dw_cursor *c, const struct dw_unit *u, const uint8_t *sec,
			 uint64_t base)
{
	c->sec = sec;
	c->base = base;
	c->p = sec + (u->die_off - base);
	c->end = sec + (u->end - base);
}

/* dw_cursor_init() without the unit's bytes: 1 if it may take them (u is usable). */
static int cursor_setup(struct dw_cursor *c, const struct dw_file *f, const struct dw_unit *u,
			struct diag *d)
{
	const struct dw_file *o = dw_owner(f, u);
	static const uint8_t none[1];

	c->f = f;
	dctx_init(&c->x, f, u, d);
	c->depth = 0;
	c->sec = c->p = c->end = none;
	c->base = 0;
	if (u->bad && u->bad_msg && !strncmp(u->bad_msg, o->path, strlen(o->path)))
		return diag_err(d, EINVAL, "%s", u->bad_msg);	/* already names file and place */
	if (u->bad)
		return diag_err(d, EINVAL, "%s: %s unit 0x%llx: %s", o->path,
				u->in_types ? ".debug_types" : ".debug_info",
				(unsigned long long)u->off, u->bad_msg ? u->bad_msg : "unusable unit header");
	return 0;
}

int dw_cursor_init(struct dw_cursor *c, const struct dw_file *f, const struct dw_unit *u,
		   struct diag *d)
{
	const uint8_t *sec;
	uint64_t base;
	int r;

	if ((r = cursor_setup(c, f, u, d)) || (r = dw_unit_bytes(f, u, &sec, &base, d)))
		return r;
	cursor_place(c, u, sec, base);
	return 0;
}

int dw_cursor_init_copy(struct dw_cursor *c, const struct dw_file *f, const struct dw_unit *u,
			uint8_t **buf, size_t *cap, struct diag *d)
{
	size_t n = (size_t)(u->end - u->off);
	int r;

	if ((r = cursor_setup(c, f, u, d)))
		return r;
	if (u->in_types || dw_owner(f, u) != f || !f->s.info_peek)
		return dw_cursor_init(c, f, u, d);
	if (n > *cap) {
		size_t want = (n + 0xffff) & ~(size_t)0xffff;
		uint8_t *nb = mem_alloc(want);

		if (!nb)
			return dw_cursor_init(c, f, u, d);	/* in place will do */
		mem_tag(nb, "unit copy");
		mem_free(*buf);
		*buf = nb;
		*cap = want;
	}
	if (f->s.info_peek(f->s.peek_ctx, u->off, *buf, n) != (ssize_t)n)
		return dw_cursor_init(c, f, u, d);
	cursor_place(c, u, *buf, u->off);
	return 0;
}

int dw_cursor_at(struct dw_cursor *c, const struct dw_file *f, uint64_t ref, struct diag *d)
{
	const struct dw_unit *u = dw_unit_of(f, ref);
	int r;

	if (!u)
		return diag_err(d, EINVAL, "%s: DIE reference 0x%llx%s is outside every unit", f->path,
				(unsigned long long)DW_REF_OFF(ref), ref & DW_REF_ALT ? " (alt file)" : "");
	if ((r = dw_cursor_init(c, f, u, d)))
		return r;
	if (DW_REF_OFF(ref) < u->die_off)
		return diag_err(d, EINVAL, "%s: DIE reference 0x%llx points into a unit header",
				f->path, (unsigned long long)DW_REF_OFF(ref));
	c->p = c->sec + (DW_REF_OFF(ref) - c->base);
	c->depth = 1;
	return 0;
}

/* Whether ref is a DIE of home's unit, in the bytes home reads. */
static bool in_home(const struct dw_cursor *home, uint64_t ref)
{
	const struct dw_unit *u = home->x.u;
	uint64_t off = DW_REF_OFF(ref);

	return home->x.f == home->f && !(ref & DW_REF_ALT) && !!(ref & DW_REF_TYPES) == u->in_types &&
	       off >= u->die_off && off < u->end && home->sec + (u->end - home->base) == home->end;
}

int dw_cursor_at_home(struct dw_cursor *c, const struct dw_cursor *home, uint64_t ref,
		      struct diag *d)
{
	if (!in_home(home, ref))
		return dw_cursor_at(c, home->f, ref, d);
	*c = *home;
	c->x.d = d;
	c->p = c->sec + (DW_REF_OFF(ref) - c->base);
	c->depth = 1;
	return 0;
}

int dw_next(struct dw_cursor *c, struct dw_die *die)
{
	const struct dw_abbrev *ab = NULL;
	int r;

	for (;;) {
		if (c->p >= c->end)
			return 0;
		r = decode_one(&c->x, &c->p, c->end, cur_off(c), die, &ab);
		if (r < 0)
			return r;
		if (r == 0) {	/* null entry closes a sibling list */
			if (--c->depth < 0)
				c->depth = 0;	/* stray padding after the unit DIE */
			if (c->depth == 0)
				return 0;
			continue;
		}
		die->depth = c->depth;
		if (ab->children) {
			if (c->depth >= DW_MAX_DEPTH)
				return bad(&c->x, die->off, "DIE nesting deeper than the limit", DW_MAX_DEPTH);
			c->depth++;
		}
		return 1;
	}
}

/* ---- filtered decoding: plans of kept values (dw_next_filtered) ---- */

/*
 * A kept value of a planned abbreviation: (the 8 bytes at off & mask | cst)
 * + the base `how` names; in a big-endian file the 8 bytes are swapped and
 * shifted right by `shift` first.
 */
struct pspec {
	uint64_t hdr;		/* dw_attr's first 8 bytes: at, form, cls */
	uint16_t off;		/* of its value, from the first value (< 96 * 16) */
	uint8_t how, shift;
	uint64_t mask, cst;
};

_Static_assert(offsetof(struct dw_attr, len) == 8 && offsetof(struct dw_attr, cls) < 8,
	       "pspec.hdr is the bytes of dw_attr before len");

enum { HOW_PLAIN, HOW_REF, HOW_STRP };	/* + 0, the unit's refbase, .debug_str */

enum { PLAN_UNBUILT, PLAN_NONE, PLAN_OK };

/*
 * The slot index a filtered decode hands out with a DIE (dw_die.slot): by
 * slot number (dw_filter.widx[code] for kept codes < 256, DW_NO_SLOT for
 * the others), the position + 1 in dw_die.attr, 0 absent.
 */
#define DW_SLOTS (DW_NO_SLOT + 1)
_Static_assert(DW_MAX_ATTRS < 256, "a slot holds a position + 1 in a byte");

struct plan {
	uint32_t first;		/* in pspecs */
	uint16_t n;
	uint8_t state;
	uint8_t leaf_have;	/* a leaf (dw_next_leaves; PLAN_OK only): bit i set if its */
				/* shape's at[i] is kept; 0: not a leaf */
	uint8_t leaf_dst[DW_LEAF_MAX];	/* pspec k's value goes to dw_leaf_val.v[leaf_dst[k]] */
	uint8_t slot[DW_SLOTS];	/* for the planned decode (PLAN_OK) */
	uint8_t fslot[DW_SLOTS];	/* for the full decoder */
};

struct dw_filter {
	uint64_t keep[4];		/* attribute codes < 256 */
	uint8_t widx[256];		/* kept code < 256 -> its slot; others DW_NO_SLOT */
	bool slots;			/* at most DW_NO_SLOT kept codes < 256: slots work */
	const struct dw_abbrevs *tab;	/* the table plans[] describes (NULL: none) */
	struct plan *plans;		/* by index in that table's list */
	size_t plans_cap;
	struct pspec *ps;
	size_t nps, ps_cap;
	struct dw_leaf leaf[DW_LEAF_SHAPES];	/* nleaf of them, distinct tags */
	unsigned nleaf;
	bool strict;			/* dw_filter_strict() */
};

struct dw_filter *dw_filter_new(const uint16_t *ats, size_t n)
{
	struct dw_filter *fl = mem_zalloc(sizeof(*fl));
	unsigned nslots = 0;
	size_t i;

	if (!fl)
		return NULL;
	memset(fl->widx, DW_NO_SLOT, sizeof(fl->widx));
	for (i = 0; i < n; i++)
		if (ats[i] < 256 && !(fl->keep[ats[i] >> 6] >> (ats[i] & 63) & 1)) {
			fl->keep[ats[i] >> 6] |= 1ull << (ats[i] & 63);
			if (nslots < DW_NO_SLOT)
				fl->widx[ats[i]] = (uint8_t)nslots;
			nslots++;
		}
	fl->slots = nslots <= DW_NO_SLOT;
	return fl;
}

void dw_filter_strict(struct dw_filter *fl)
{
	fl->strict = true;
}

void dw_attr_unkept(const struct dw_die *die, unsigned at)
{
	fprintf(stderr, "btfc: internal error: DIE 0x%llx: %s read, but the walk's filter does not keep it\n",
		(unsigned long long)DW_REF_OFF(die->off), dw_at_name(at));
	abort();
}

void dw_filter_forget(struct dw_filter *fl)
{
	fl->tab = NULL;
}

void dw_filter_free(struct dw_filter *fl)
{
	if (!fl)
		return;
	mem_free(fl->plans);
	mem_free(fl->ps);
	mem_free(fl);
}

static inline bool keeps(const struct dw_filter *fl, unsigned at)
{
	return at >= 256 || (fl->keep[at >> 6] >> (at & 63) & 1);
}

/* The first attribute of code at, if kept and slotted, is at position pos1 - 1 of the DIE. */
static inline void set_slot(const struct dw_filter *fl, uint8_t *slot, unsigned at, unsigned pos1)
{
	if (at < 256 && fl->widx[at] != DW_NO_SLOT && !slot[fl->widx[at]])
		slot[fl->widx[at]] = (uint8_t)pos1;
}

/* The first 8 bytes of a dw_attr of these fields: what pspec.hdr stores. */
static uint64_t attr_hdr(unsigned at, unsigned form, unsigned cls)
{
	struct dw_attr a;
	uint64_t h;

	memset(&a, 0, sizeof(a));
	a.at = (uint16_t)at;
	a.form = (uint16_t)form;
	a.cls = (uint8_t)cls;
	memcpy(&h, &a, sizeof(h));
	return h;
}

/*
 * Whether DIEs of ab are leaves dw_next_leaves() takes: a leaf shape's tag,
 * no children, every kept value one of the shape's attributes (each once)
 * in its class.  Returns the mask of the shape's attributes present (bit
 * 7: a leaf with none of them), 0 if not a leaf; fills dst for each pspec.
 */
static uint8_t leaf_plan(const struct dw_filter *fl, const struct dw_abbrev *ab,
			 const struct pspec *ps, unsigned n, uint8_t *dst)
{
	const struct dw_leaf *lf = NULL;
	unsigned k, i, have = 0x80;

	for (i = 0; i < fl->nleaf; i++)
		if (fl->leaf[i].tag == ab->tag)
			lf = &fl->leaf[i];
	if (!lf || ab->children || !ab->nattr || n > DW_LEAF_MAX)
		return 0;	/* (a DIE without attributes may mean "not decoded" to a caller) */
	for (k = 0; k < n; k++) {
		struct dw_attr a;

		memcpy(&a, &ps[k].hdr, sizeof(ps[k].hdr));
		for (i = 0; i < lf->n && lf->at[i] != a.at; i++)
			;
		if (i == lf->n || have >> i & 1 || a.cls != lf->cls[i])
			return 0;
		dst[k] = (uint8_t)i;
		have |= 1u << i;
	}
	return (uint8_t)have;
}

/*
 * Build ab's plan (an abbreviation whose values all have fixed sizes): the
 * full decoder runs for an abbreviation keeping a value of another form.
 */
static void plan_build(struct dw_filter *fl, const struct dw_abbrevs *t, const struct dw_abbrev *ab,
		       struct plan *pl)
{
	unsigned i, off = 0, mx, cls;

	pl->state = PLAN_NONE;	/* also on allocation failure: the full decoder is right too */
	/* The slot index for the full decoder (every attribute, in order)... */
	memset(pl->fslot, 0, sizeof(pl->fslot));
	for (i = 0; i < ab->nattr; i++)
		set_slot(fl, pl->fslot, ab->specs[i].at, i + 1);
	if (fl->nps + ab->nattr > UINT32_MAX ||
	    VEC_RESERVE(fl->ps, fl->ps_cap, fl->nps + ab->nattr + 1))	/* never NULL */
		return;
	/* ... and for the planned one (the kept values, in order). */
	memset(pl->slot, 0, sizeof(pl->slot));
	pl->first = (uint32_t)fl->nps;
	pl->n = 0;
	for (i = 0; i < ab->nattr; i++) {
		const struct dw_spec *sp = &ab->specs[i];
		int fs = dw_form_size(sp->form, t->asz, t->osz, &mx);
		struct pspec *ps = &fl->ps[pl->first + pl->n];

		if (fs < 0)
			return;
		off += (unsigned)fs;
		if (!keeps(fl, sp->at))
			continue;
		*ps = (struct pspec){ .off = (uint16_t)(off - fs), .how = HOW_PLAIN,
				      .shift = (uint8_t)(fs && fs < 8 ? 64 - 8 * fs : 0),
				      .mask = fs >= 8 ? ~0ull : (1ull << (8 * fs)) - 1 };
		switch (sp->form) {
		case DW_FORM_data1: case DW_FORM_data2: case DW_FORM_data4: case DW_FORM_data8:
			cls = DW_CL_CONST;
			break;
		case DW_FORM_ref1: case DW_FORM_ref2: case DW_FORM_ref4: case DW_FORM_ref8:
			cls = DW_CL_REF;
			ps->how = HOW_REF;
			break;
		case DW_FORM_strp:
			cls = DW_CL_STRING;
			ps->how = HOW_STRP;
			break;
		case DW_FORM_addr:
			cls = DW_CL_ADDR;
			break;
		case DW_FORM_sec_offset:
			cls = DW_CL_SECOFF;
			break;
		case DW_FORM_implicit_const:
			cls = DW_CL_SCONST;
			ps->mask = 0;
			ps->cst = (uint64_t)dw_spec_implicit(t, sp);
			break;
		case DW_FORM_flag_present:
			cls = DW_CL_FLAG;
			ps->mask = 0;
			ps->cst = 1;
			break;
		default:	/* (flag: 0/1, strx and others: an index to resolve) */
			return;
		}
		ps->hdr = attr_hdr(sp->at, sp->form, cls);
		set_slot(fl, pl->slot, sp->at, ++pl->n);
	}
	fl->nps += pl->n;
	pl->state = PLAN_OK;
	pl->leaf_have = leaf_plan(fl, ab, fl->ps + pl->first, pl->n, pl->leaf_dst);
}

/* ab's plan (PLAN_NONE: the full decoder must run); NULL if out of memory. */
static inline __attribute__((always_inline)) const struct plan *
plan_of(struct dw_filter *fl, const struct dw_abbrevs *t, const struct dw_abbrev *ab)
{
	struct plan *pl;

	if (fl->tab != t) {	/* tables of one file live as long as it (dw_filter_forget) */
		if (VEC_RESERVE(fl->plans, fl->plans_cap, t->n))
			return NULL;
		memset(fl->plans, 0, t->n * sizeof(*fl->plans));
		fl->nps = 0;
		fl->tab = t;
	}
	pl = &fl->plans[ab->idx];
	if (pl->state == PLAN_UNBUILT)
		plan_build(fl, t, ab, pl);
	return pl;
}

/* The value of pspec s of a planned DIE whose values start at p; false: a bad string offset. */
static inline __attribute__((always_inline)) bool
planned_value(const struct dctx *x, const struct pspec *s, const uint8_t *p, uint64_t *out,
	      const bool swap)
{
	uint64_t w = load64(p + s->off);
	uint64_t v = ((swap ? bswap64(w) >> s->shift : w) & s->mask) | s->cst;

	if (unlikely(v >= x->hlim[s->how]) && s->how == HOW_STRP)
		return false;	/* a string offset past the end of .debug_str */
	*out = v + x->hbase[s->how];
	return true;
}

/*
 * The kept values of a DIE of a planned abbreviation at p, with 8 bytes
 * readable from every value's offset.  No branch per value: the forms
 * alternate from DIE to DIE, and a switch on them (this function's
 * predecessor) mispredicted its indirect jump (vmlinux -j1: conversion
 * 2-4% faster without).  The unit test and the DWARF fuzzer compare the
 * values with the full decoder's.
 */
static inline __attribute__((always_inline)) int
decode_planned(const struct dctx *x, const struct pspec *ps, unsigned n, const uint8_t *p,
	       struct dw_die *die, const bool swap)
{
	unsigned k;

	for (k = 0; k < n; k++) {
		struct dw_attr *a = &die->attr[k];
		uint64_t v;

		if (!planned_value(x, &ps[k], p, &v, swap))
			return bad(x, die->off, "string offset past the end of .debug_str, form",
				   DW_FORM_strp);
		memcpy(a, &ps[k].hdr, sizeof(ps[k].hdr));
		a->u = v;
	}
	return 0;
}

static inline int next_sel(struct dw_cursor *c, struct dw_die *die, dw_want_fn want, void *ctx,
			   struct dw_filter *fl)
{
	for (;;) {
		uint64_t die_off;
		const struct dw_abbrev *ab;
		const struct plan *pl;
		bool wanted;
		int r;

		if (c->p >= c->end)
			return 0;
		die_off = cur_off(c) | c->x.dflags;
		r = decode_code(&c->x, &c->p, c->end, die_off, &ab);
		if (r < 0)
			return r;
		if (r == 0) {	/* null entry closes a sibling list */
			if (--c->depth < 0)
				c->depth = 0;
			if (c->depth == 0)
				return 0;
			continue;
		}
		wanted = want(ctx, ab->tag, c->depth);
		pl = wanted && fl ? plan_of(fl, c->x.u->abbrevs, ab) : NULL;
		if (pl && pl->state == PLAN_OK && has_fixed_size(&c->x, ab) &&
		    (size_t)(c->end - c->p) >= (size_t)ab->fixed + 8) {
			die->off = die_off;
			die->tag = ab->tag;
			die->nattr = pl->n;
			die->nattr_in = ab->nattr;
			die->has_children = ab->children;
			die->unit = c->x.u;
			die->slot = fl->slots ? pl->slot : NULL;
			die->widx = fl->widx;
			die->strict = fl->strict;
			r = c->x.f->swap ? decode_planned(&c->x, fl->ps + pl->first, pl->n, c->p, die, true)
					 : decode_planned(&c->x, fl->ps + pl->first, pl->n, c->p, die, false);
			if (r < 0)
				return r;
			c->p += ab->fixed;
		} else if ((r = decode_body(&c->x, &c->p, c->end, die_off, ab,
					    wanted ? die : NULL)) < 0) {
			return r;
		} else if (pl && fl->slots) {
			die->slot = pl->fslot;	/* the full decoder's positions */
			die->widx = fl->widx;
			die->strict = fl->strict;
		}
		if (!wanted) {	/* header only */
			die->off = die_off;
			die->tag = ab->tag;
			die->nattr = die->nattr_in = 0;
			die->has_children = ab->children;
			die->unit = c->x.u;
			die->slot = NULL;
		}
		die->depth = c->depth;
		if (ab->children) {
			if (c->depth >= DW_MAX_DEPTH)
				return bad(&c->x, die->off, "DIE nesting deeper than the limit", DW_MAX_DEPTH);
			c->depth++;
		}
		return 1;
	}
}

int dw_next_sel(struct dw_cursor *c, struct dw_die *die, dw_want_fn want, void *ctx)
{
	return next_sel(c, die, want, ctx, NULL);
}

int dw_next_filtered(struct dw_cursor *c, struct dw_die *die, dw_want_fn want, void *ctx,
		     struct dw_filter *fl)
{
	return next_sel(c, die, want, ctx, fl);
}

/* A leaf's values at p, as decode_planned() reads them; false on a bad string offset. */
static inline __attribute__((always_inline)) bool
leaf_values(const struct dctx *x, const struct pspec *ps, const struct plan *pl, const uint8_t *p,
	    uint64_t *vals, const bool swap)
{
	const unsigned n = pl->n;
	const uint8_t *dst = pl->leaf_dst;
	unsigned k;

	for (k = 0; k < n; k++) {
		uint64_t v;

		if (!planned_value(x, &ps[k], p, &v, swap))
			return false;
		vals[dst[k]] = v;
	}
	return true;
}

int dw_filter_add_leaf(struct dw_filter *fl, const struct dw_leaf *leaf)
{
	unsigned i;

	if (fl->nleaf == DW_LEAF_SHAPES || leaf->n > DW_LEAF_MAX || !leaf->tag || fl->tab)
		return -EINVAL;
	for (i = 0; i < fl->nleaf; i++)
		if (fl->leaf[i].tag == leaf->tag)
			return -EINVAL;
	for (i = 0; i < leaf->n; i++)
		if (!keeps(fl, leaf->at[i]))
			return -EINVAL;
	fl->leaf[fl->nleaf++] = *leaf;
	return 0;
}

size_t dw_next_leaves(struct dw_cursor *c, struct dw_filter *fl, unsigned tag,
		      struct dw_leaf_val *out, size_t max)
{
	const struct dw_abbrev *ab = NULL;
	const struct plan *pl = NULL;
	uint64_t code, last = 0;	/* (code 0 ends a sibling list: never "last") */
	size_t n = 0;

	while (n < max && c->p < c->end) {
		const uint8_t *p = c->p;
		bool ok;

		code = dw_uleb(&p, c->end);
		if (p > c->end || !code)
			break;
		if (code != last) {	/* runs mostly repeat one abbreviation */
			if (!(ab = dw_abbrev_find(c->x.u->abbrevs, code)) || ab->tag != tag ||
			    !(pl = plan_of(fl, c->x.u->abbrevs, ab)) || !pl->leaf_have ||
			    !has_fixed_size(&c->x, ab))
				break;
			last = code;
		}
		if ((size_t)(c->end - p) < (size_t)ab->fixed + 8)
			break;
		ok = c->x.f->swap ? leaf_values(&c->x, fl->ps + pl->first, pl, p, out[n].v, true)
				  : leaf_values(&c->x, fl->ps + pl->first, pl, p, out[n].v, false);
		if (unlikely(!ok))
			break;	/* a string offset out of bounds: the general walk reports it */
		out[n].have = pl->leaf_have & 0x7f;
		out[n].off = cur_off(c) | c->x.dflags;
		n++;
		c->p = p + ab->fixed;
	}
	return n;
}

int dw_skip_children(struct dw_cursor *c, const struct dw_die *die)
{
	const struct dw_attr *sib;
	int target, r;

	if (!die->has_children)
		return 0;
	sib = dw_attr(die, DW_AT_sibling);
	if (sib && sib->cls == DW_CL_REF) {
		uint64_t off = DW_REF_OFF(sib->u);

		if (off > cur_off(c) && off <= (uint64_t)(c->end - c->sec) + c->base) {
			c->p = c->sec + (off - c->base);
			c->depth = die->depth;
			return 0;
		}
	}
	target = die->depth;
	while (c->depth > target) {
		const struct dw_abbrev *ab = NULL;

		if (c->p >= c->end)
			return bad(&c->x, die->off, "children run past the unit end", ~0u);
		r = decode_one(&c->x, &c->p, c->end, cur_off(c), NULL, &ab);
		if (r < 0)
			return r;
		if (r == 0)
			c->depth--;
		else if (ab->children)
			c->depth++;
	}
	return 0;
}

int dw_walk_skip(const struct dw_file *f, const struct dw_unit *u, uint64_t *ndies,
		 struct diag *d)
{
	struct dw_cursor c;
	uint64_t n = 0;
	int r;

	if ((r = dw_cursor_init(&c, f, u, d)))
		return r;
	while (c.p < c.end) {
		const struct dw_abbrev *ab = NULL;

		r = decode_one(&c.x, &c.p, c.end, cur_off(&c), NULL, &ab);
		if (r < 0)
			return r;
		if (r == 0) {
			if (--c.depth <= 0)
				break;
			continue;
		}
		n++;
		if (ab->children)
			c.depth++;
	}
	*ndies += n;
	return 0;
}

/* The DIE at c's position, ref (dw_die_at). */
static int die_here(struct dw_cursor *c, uint64_t ref, struct dw_die *die, struct diag *d)
{
	const struct dw_abbrev *ab = NULL;
	int r;

	r = decode_one(&c->x, &c->p, c->end, cur_off(c), die, &ab);
	if (r < 0)
		return r;
	if (r == 0)
		return diag_err(d, EINVAL, "%s: DIE reference 0x%llx points at a null entry", c->f->path,
				(unsigned long long)DW_REF_OFF(ref));
	die->depth = -1;
	return 0;
}

int dw_die_at(const struct dw_file *f, uint64_t ref, struct dw_die *die, struct diag *d)
{
	const struct dw_unit *u = dw_unit_of(f, ref);
	struct dw_cursor c;
	int r;

	if (!u)
		return diag_err(d, EINVAL, "%s: DIE reference 0x%llx%s is outside every unit", f->path,
				(unsigned long long)DW_REF_OFF(ref), ref & DW_REF_ALT ? " (alt file)" : "");
	if ((r = dw_cursor_init(&c, f, u, d)))
		return r;
	if (DW_REF_OFF(ref) < u->die_off)
		return diag_err(d, EINVAL, "%s: DIE reference 0x%llx points into a unit header",
				f->path, (unsigned long long)DW_REF_OFF(ref));
	c.p = c.sec + (DW_REF_OFF(ref) - c.base);
	return die_here(&c, ref, die, d);
}

int dw_die_at_home(const struct dw_cursor *home, uint64_t ref, struct dw_die *die, struct diag *d)
{
	struct dw_cursor c;

	if (!in_home(home, ref))
		return dw_die_at(home->f, ref, die, d);
	c = *home;
	c.x.d = d;
	c.p = c.sec + (DW_REF_OFF(ref) - c.base);
	return die_here(&c, ref, die, d);
}

const char *dw_name(const struct dw_die *die)
{
	const struct dw_attr *a = dw_attr(die, DW_AT_name);

	return a && a->cls == DW_CL_STRING ? a->str : NULL;
}

bool dw_udata(const struct dw_die *die, unsigned at, uint64_t *v)
{
	const struct dw_attr *a = dw_attr(die, at);

	if (!a || (a->cls != DW_CL_CONST && a->cls != DW_CL_SCONST && a->cls != DW_CL_FLAG &&
		   a->cls != DW_CL_SECOFF))
		return false;
	*v = a->u;
	return true;
}

bool dw_sdata(const struct dw_die *die, unsigned at, int64_t *v)
{
	const struct dw_attr *a = dw_attr(die, at);

	if (!a || (a->cls != DW_CL_CONST && a->cls != DW_CL_SCONST))
		return false;
	if (a->cls == DW_CL_SCONST)
		*v = a->s;
	else if (a->form == DW_FORM_data1)
		*v = (int8_t)a->u;
	else if (a->form == DW_FORM_data2)
		*v = (int16_t)a->u;
	else if (a->form == DW_FORM_data4)
		*v = (int32_t)a->u;
	else
		*v = (int64_t)a->u;
	return true;
}

bool dw_flag(const struct dw_die *die, unsigned at)
{
	const struct dw_attr *a = dw_attr(die, at);

	return a && a->cls == DW_CL_FLAG && a->u;
}

uint64_t dw_ref(const struct dw_file *f, const struct dw_die *die, unsigned at)
{
	const struct dw_attr *a = dw_attr(die, at);

	if (!a)
		return 0;
	if (a->cls == DW_CL_REF)
		return a->u;
	if (a->cls == DW_CL_SIG)
		return dw_sig_lookup(f, a->u);
	return 0;
}

/*
 * A string read from a copy of [start, end) as the same bytes at map, or
 * (map NULL: the section's bytes are not the copy's) copied into the
 * file's arena; *oom set if that failed.
 */
static const char *copy_str_at(const struct dw_file *f, const char *s, const uint8_t *start,
			       const uint8_t *end, const uint8_t *map, bool *oom)
{
	uintptr_t a = (uintptr_t)s;
	size_t n;
	char *c;

	if (!s || a < (uintptr_t)start || a >= (uintptr_t)end)
		return s;
	if (map)
		return (const char *)map + (a - (uintptr_t)start);
	/* indexing is serial: the arena is the file's alone here */
	n = strlen(s) + 1;
	if (!(c = arena_alloc((struct arena *)&f->abbrev_arena, n))) {
		*oom = true;
		return NULL;
	}
	return memcpy(c, s, n);
}

/* The unit DIE's bytes at p (up to end), which are the section's at map. */
static int scan_unit_die_at(const struct dw_file *f, struct dw_unit *u, const uint8_t *p,
			    const uint8_t *end, const uint8_t *map, struct diag *d)
{
	const uint8_t *start = p;
	const struct dw_abbrev *ab = NULL;
	uint64_t code, die_off;
	struct dw_die *die;
	struct dctx x;
	bool oom = false;
	unsigned i;
	int r;

	dctx_init(&x, f, u, d);
	die_off = u->die_off | (u->in_types ? DW_REF_TYPES : 0) | x.altbit;
	if (p >= end)
		return 0;
	code = dw_uleb(&p, end);
	if (p > end || code == 0)
		return 0;
	ab = dw_abbrev_find(u->abbrevs, code);
	if (!ab)
		return bad(&x, u->die_off, "abbreviation code not in the unit's table: code", (unsigned)code);
	for (i = 0; i < ab->nattr; i++) {
		unsigned at = ab->specs[i].at, form = ab->specs[i].form;
		struct dw_attr a;

		if (form == DW_FORM_sec_offset &&
		    (at == DW_AT_str_offsets_base || at == DW_AT_addr_base ||
		     at == DW_AT_GNU_addr_base || at == DW_AT_rnglists_base ||
		     at == DW_AT_loclists_base)) {
			if ((r = read_value(&x, form, 0, &p, end, &a, u->die_off)))
				return r;
			if (at == DW_AT_str_offsets_base)
				u->str_offsets_base = a.u;
			else if (at == DW_AT_addr_base || at == DW_AT_GNU_addr_base)
				u->addr_base = a.u;
			else if (at == DW_AT_rnglists_base)
				u->rnglists_base = a.u;
			else
				u->loclists_base = a.u;
		} else if ((r = read_value(&x, form, dw_spec_implicit(u->abbrevs, &ab->specs[i]), &p,
					   end, NULL, u->die_off))) {
			return r;
		}
	}
	die = mem_alloc(sizeof(*die));
	if (!die)
		return diag_err(d, ENOMEM, "%s: out of memory", f->path);
	p = start;
	r = decode_code(&x, &p, end, die_off, &ab);
	if (r > 0)
		r = decode_body(&x, &p, end, die_off, ab, die);
	if (r > 0) {
		uint64_t v;
		const struct dw_attr *a;

		/* an inline (DW_FORM_string) name or producer: the section's copy */
		u->name = copy_str_at(f, dw_name(die), start, end, map, &oom);
		a = dw_attr(die, DW_AT_producer);
		u->producer = a && a->cls == DW_CL_STRING ? copy_str_at(f, a->str, start, end, map, &oom) : NULL;
		if (dw_udata(die, DW_AT_language, &v))
			u->lang = (uint32_t)v;
		a = dw_attr(die, DW_AT_low_pc);
		if (a && a->cls == DW_CL_ADDR)
			u->low_pc = a->u;
		/* DWARF 4 has no unit types: a dwz partial unit is known by its tag */
		if (die->tag == DW_TAG_partial_unit && u->unit_type == DW_UT_compile)
			u->unit_type = DW_UT_partial;
		/* split DWARF: the skeleton's .dwo (DWARF 5, and GNU's DWARF 4 extension) */
		a = dw_attr(die, DW_AT_dwo_name);
		if (!a)
			a = dw_attr(die, DW_AT_GNU_dwo_name);
		if (a && a->cls == DW_CL_STRING)
			u->dwo_name = copy_str_at(f, a->str, start, end, map, &oom);
		a = dw_attr(die, DW_AT_comp_dir);
		if (a && a->cls == DW_CL_STRING)
			u->comp_dir = copy_str_at(f, a->str, start, end, map, &oom);
		a = dw_attr(die, DW_AT_GNU_dwo_id);
		if (a && a->cls == DW_CL_CONST && u->version < 5) {
			u->dwo_id = a->u;
			u->has_dwo_id = true;
		}
		if (u->version >= 5 && (u->unit_type == DW_UT_skeleton || u->unit_type == DW_UT_split_compile))
			u->has_dwo_id = true;
	}
	mem_free(die);
	if (oom)
		return diag_err(d, ENOMEM, "%s: out of memory", f->path);
	return r < 0 ? r : 0;
}

/*
 * Fill a unit's bases (str_offsets, addr, rnglists, loclists) from its
 * unit DIE, then decode the unit DIE fully for name, producer, language
 * and low_pc.  Called while indexing, before the unit is shared.  head,
 * if not NULL, holds headlen bytes of the unit from its DIE on (a copy,
 * so that the index touches none of the section's pages): the DIE is
 * read from there, and from the section only if it does not fit.
 */
int dw_scan_unit_die(const struct dw_file *f, struct dw_unit *u, const uint8_t *head,
		     size_t headlen, struct diag *d);
int dw_scan_unit_die(const struct dw_file *f, struct dw_unit *u, const uint8_t *head,
		     size_t headlen, struct diag *d)
{
	const struct bslice *sec = u->in_types ? &f->s.types : &f->s.info;
	bool peek_only = f->s.info_peek_only && !u->in_types;
	const uint8_t *map = peek_only ? NULL : sec->p + u->die_off;
	size_t left = (size_t)(u->end - u->die_off);
	uint8_t *tmp;
	int r;

	if (head) {
		struct diag hd;	/* the first error sticks in d: only the answer's goes there */

		diag_clear(&hd);
		r = scan_unit_die_at(f, u, head, head + MIN(headlen, left), map, &hd);
		if (r == 0 || r == -ENOMEM || headlen >= left) {
			if (r)
				diag_err(d, -r, "%s", hd.msg);
			return r;
		}
	}
	if (!peek_only)
		return scan_unit_die_at(f, u, map, map + left, map, d);
	/* the DIE past head: from a copy of the rest of the unit */
	if (!(tmp = mem_alloc(left ? left : 1)))
		return diag_err(d, ENOMEM, "%s: out of memory", f->path);
	if (f->s.info_peek(f->s.peek_ctx, u->die_off, tmp, left) != (ssize_t)left)
		r = diag_err(d, EIO, "%s: .debug_info unit 0x%llx: cannot read its 0x%zx bytes",
			     f->path, (unsigned long long)u->off, left);
	else
		r = scan_unit_die_at(f, u, tmp, tmp + left, NULL, d);
	mem_free(tmp);
	return r;
}

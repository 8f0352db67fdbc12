// SPDX-License-Identifier: GPL-2.0-only
/* Abbreviation tables: parsed once per offset, shared read-only by units. */
#include "base/arena.h"
#include "base/mem.h"
#include "dwarf/internal.h"

#define DENSE_MAX 65536

/*
 * The finished table moves into the file's arena: one exact-size block per
 * table, back to back, instead of a trail of step-by-step growths in fresh
 * heap pages (a kernel image has thousands of tables, and their growth
 * was half the page faults of its encode).  The parse vectors are freed
 * and reused by the next table's parse.
 */
static struct dw_abbrevs *settle(struct arena *ar, const struct dw_abbrevs *t, size_t nspecs,
				 size_t nimps)
{
	size_t lsz = t->n * sizeof(*t->list), ssz = nspecs * sizeof(*t->specs);
	size_t dsz = t->ndense * sizeof(*t->dense), isz = nimps * sizeof(*t->imps), i;
	struct dw_abbrevs *n;
	char *p;

	if (t->ndense > SIZE_MAX / sizeof(*t->dense) ||
	    !(p = arena_alloc(ar, sizeof(*n) + isz + dsz + lsz + ssz)))
		return NULL;
	/* 8-byte arrays first: the specs are 8 bytes each, the table 16-aligned */
	n = (struct dw_abbrevs *)p;
	*n = *t;
	n->imps = nimps ? (int64_t *)(p + sizeof(*n)) : NULL;
	n->dense = t->ndense ? (struct dw_abbrev **)(p + sizeof(*n) + isz) : NULL;
	n->list = (struct dw_abbrev *)(p + sizeof(*n) + isz + dsz);
	n->specs = nspecs ? (struct dw_spec *)(p + sizeof(*n) + isz + dsz + lsz) : NULL;
	if (isz)
		memcpy(n->imps, t->imps, isz);
	if (lsz)
		memcpy(n->list, t->list, lsz);
	if (ssz)
		memcpy(n->specs, t->specs, ssz);
	for (i = 0; i < n->n; i++)
		n->list[i].specs = n->specs ? n->specs + (uintptr_t)t->list[i].specs : NULL;
	if (n->dense) {
		memset(n->dense, 0, dsz);
		/* First definition of a code wins, as in other readers. */
		for (i = n->n; i-- > 0;)
			n->dense[n->list[i].code] = &n->list[i];
	}
	return n;
}

int dw_form_size(unsigned form, unsigned asz, unsigned osz, unsigned *max)
{
	switch (form) {
	case DW_FORM_flag_present: case DW_FORM_implicit_const: *max = 0; return 0;
	case DW_FORM_data1: case DW_FORM_ref1: case DW_FORM_flag: case DW_FORM_strx1:
	case DW_FORM_addrx1: *max = 1; return 1;
	case DW_FORM_data2: case DW_FORM_ref2: case DW_FORM_strx2: case DW_FORM_addrx2:
		*max = 2; return 2;
	case DW_FORM_strx3: case DW_FORM_addrx3: *max = 3; return 3;
	case DW_FORM_data4: case DW_FORM_ref4: case DW_FORM_strx4: case DW_FORM_addrx4:
	case DW_FORM_ref_sup4: *max = 4; return 4;
	case DW_FORM_data8: case DW_FORM_ref8: case DW_FORM_ref_sig8: case DW_FORM_ref_sup8:
		*max = 8; return 8;
	case DW_FORM_data16: *max = 16; return 16;
	case DW_FORM_addr: *max = 8; return (int)asz;
	case DW_FORM_strp: case DW_FORM_line_strp: case DW_FORM_sec_offset:
	case DW_FORM_GNU_strp_alt: case DW_FORM_strp_sup: case DW_FORM_GNU_ref_alt:
		*max = 8; return (int)osz;
	case DW_FORM_ref_addr: *max = 8; return -1;	/* depends on the version */
	default: *max = 0; return -1;
	}
}

int dw_abbrevs_parse(const struct dw_file *f, struct arena *ar, uint64_t off, uint8_t asz,
		     uint8_t osz, struct dw_abbrevs **out, struct diag *d)
{
	const uint8_t *start = f->s.abbrev.p, *end = start + f->s.abbrev.len, *p;
	struct dw_abbrevs tab = { 0 }, *t = &tab;
	size_t cap_list = 0, cap_specs = 0, cap_imps = 0, nspecs = 0, nimps = 0;
	uint64_t maxcode = 0;
	int err = 0;

	*out = NULL;
	if (off >= f->s.abbrev.len)
		return diag_err(d, EINVAL, "%s: .debug_abbrev offset 0x%llx is past the end (0x%zx)",
				f->path, (unsigned long long)off, f->s.abbrev.len);
	t->off = off;
	t->asz = asz;
	t->osz = osz;
	p = start + off;
	for (;;) {
		const uint8_t *at_start = p;
		uint64_t code = dw_uleb(&p, end), tag;
		struct dw_abbrev *a;

		if (p > end)
			goto trunc;
		if (code == 0)
			break;
		tag = dw_uleb(&p, end);
		if (p >= end)
			goto trunc;
		if ((err = VEC_RESERVE(t->list, cap_list, t->n + 1)))
			goto fail;
		a = &t->list[t->n];
		memset(a, 0, sizeof(*a));
		a->idx = (uint32_t)t->n++;
		a->code = code;
		a->tag = (uint32_t)tag;
		a->children = *p++ != 0;
		a->sibling = -1;
		a->specs = (const struct dw_spec *)(uintptr_t)nspecs;	/* index; fixed below */
		for (;;) {
			uint64_t at = dw_uleb(&p, end), form = dw_uleb(&p, end);
			int64_t implicit = 0;

			if (p > end)
				goto trunc;
			if (form == DW_FORM_implicit_const) {
				implicit = dw_sleb(&p, end);
				if (p > end)
					goto trunc;
			}
			if (at == 0 && form == 0)
				break;
			if (a->nattr >= DW_MAX_ATTRS) {
				err = diag_err(d, EINVAL,
					       "%s: .debug_abbrev 0x%llx: abbreviation %llu has more than %d attributes",
					       f->path, (unsigned long long)(at_start - start),
					       (unsigned long long)code, DW_MAX_ATTRS);
				goto fail;
			}
			if ((err = VEC_RESERVE(t->specs, cap_specs, nspecs + 1)))
				goto fail;
			t->specs[nspecs].imp = 0;
			if (form == DW_FORM_implicit_const) {
				if (nimps == UINT32_MAX) {
					err = -ENOMEM;
					goto fail;
				}
				if ((err = VEC_RESERVE(t->imps, cap_imps, nimps + 1)))
					goto fail;
				t->imps[nimps] = implicit;
				t->specs[nspecs].imp = (uint32_t)nimps++;
			}
			if (at == DW_AT_sibling)
				a->sibling = (int16_t)a->nattr;
			{
				unsigned mx;
				int fs = dw_form_size((unsigned)form, asz, osz, &mx);

				a->maxfix += mx;
				if (fs < 0 || a->fixed < 0)
					a->fixed = -1;
				else
					a->fixed += fs;
			}
			t->specs[nspecs].at = (uint16_t)at;
			t->specs[nspecs].form = (uint16_t)form;
			nspecs++;
			a->nattr++;
		}
		if (code > maxcode)
			maxcode = code;
	}
	if (maxcode < DENSE_MAX)
		t->ndense = maxcode + 1;
	if (!(*out = settle(ar, t, nspecs, nimps)))
		err = -ENOMEM;
	goto fail;	/* the parse vectors go either way */
trunc:
	err = diag_err(d, EINVAL, "%s: .debug_abbrev: table at 0x%llx is truncated at 0x%zx",
		       f->path, (unsigned long long)off, f->s.abbrev.len);
fail:
	if (err == -ENOMEM)
		diag_err(d, ENOMEM, "%s: out of memory parsing .debug_abbrev", f->path);
	mem_free(t->list);
	mem_free(t->specs);
	mem_free(t->imps);
	return err;
}

const struct dw_abbrev *dw_abbrev_find(const struct dw_abbrevs *t, uint64_t code)
{
	size_t i;

	if (t->dense)
		return code < t->ndense ? t->dense[code] : NULL;
	for (i = 0; i < t->n; i++)
		if (t->list[i].code == code)
			return &t->list[i];
	return NULL;
}

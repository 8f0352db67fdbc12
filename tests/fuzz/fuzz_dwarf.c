// SPDX-License-Identifier: GPL-2.0-only
/*
 * DWARF reader over hand-assembled sections: dw_file_open, every unit
 * walked with dw_next (all attributes decoded), references followed with
 * dw_die_at / dw_unit_of, locations classified, subtrees skipped, the
 * skip-only walk, and dw_next_filtered() against dw_next() (the same
 * DIEs; the kept attributes with the same values; an error only where
 * the full decoder fails too), with dw_next_leaves() asked ahead of them
 * (a leaf: the same DIE and values, the cursor where the walk leaves it).
 *
 * Input: byte 0 = flags (bit 0: big endian, bit 1: also skip children of
 * every other DIE), then for each section of struct dw_sections in order
 * (info, abbrev, str, line_str, str_offsets, addr, rnglists, loclists,
 * loc, ranges, types) a little-endian u32 length and the bytes.  A
 * short input leaves the remaining sections empty.  tests/fuzz/run.sh
 * makes seeds in this format from compiled fixtures.
 */
#include <stddef.h>
#include <stdlib.h>
#include <string.h>

#include "base/diag.h"
#include "base/mem.h"
#include "dwarf/internal.h"
#include "fuzz_common.h"

#define MAX_DIES 20000		/* per input, to keep one run short */
#define MAX_REFS 2000

static struct dw_die die, tdie, fdie;	/* big: keep them off the stack */

static const uint16_t keep_ats[] = { DW_AT_name, DW_AT_type, DW_AT_byte_size, DW_AT_sibling,
				     DW_AT_data_member_location, DW_AT_location, DW_AT_const_value,
				     DW_AT_upper_bound, DW_AT_decl_line, 0x2101 };

static bool want_all(void *ctx, unsigned tag, int depth)
{
	(void)ctx, (void)tag, (void)depth;
	return true;
}

static bool kept(unsigned at)
{
	size_t i;

	for (i = 0; i < sizeof(keep_ats) / sizeof(keep_ats[0]); i++)
		if (keep_ats[i] == at)
			return true;
	return at >= 256;
}

/* fdie (filtered) against die (full): the same DIE, the kept attributes. */
static void same_die(void)
{
	unsigned i, j = 0;

	if (fdie.off != die.off || fdie.tag != die.tag || fdie.depth != die.depth ||
	    fdie.has_children != die.has_children || fdie.nattr_in != die.nattr)
		abort();
	for (i = 0; i < die.nattr; i++) {
		const struct dw_attr *a = &die.attr[i], *b;

		/* dw_attr() of the filtered DIE (its slot index): the first of a kept code */
		b = dw_attr(&fdie, a->at);
		if (!kept(a->at)) {
			if (b)
				abort();
		} else if (dw_attr(&die, a->at) == a &&
			   (!b || b->at != a->at || b->form != a->form || b->u != a->u)) {
			abort();
		}
		if (!kept(a->at) && fdie.nattr < die.nattr)
			continue;
		if (j >= fdie.nattr)
			abort();
		b = &fdie.attr[j++];
		if (a->at != b->at || a->form != b->form || a->cls != b->cls || a->u != b->u ||
		    ((a->cls == DW_CL_BLOCK) && a->len != b->len))
			abort();
	}
	if (j != fdie.nattr)
		abort();
}

/* The leaf shapes dw_next_leaves() is checked with (all kept by keep_ats). */
static const struct dw_leaf leaves[] = {
	{ .tag = DW_TAG_member, .n = 5,
	  .at = { DW_AT_name, DW_AT_type, DW_AT_data_member_location, DW_AT_byte_size,
		  DW_AT_decl_line },
	  .cls = { DW_CL_STRING, DW_CL_REF, DW_CL_CONST, DW_CL_CONST, DW_CL_CONST } },
	{ .tag = DW_TAG_enumerator, .n = 2, .at = { DW_AT_name, DW_AT_const_value },
	  .cls = { DW_CL_STRING, DW_CL_CONST } },
};
#define NLEAVES (sizeof(leaves) / sizeof(leaves[0]))

/* A leaf of shape lf read (x) against die (full), cl and cf the cursors after each. */
static void same_leaf(const struct dw_leaf *lf, const struct dw_leaf_val *x,
		      const struct dw_cursor *cl, const struct dw_cursor *cf)
{
	unsigned i;

	if (die.tag != lf->tag || die.has_children || !die.nattr || x->off != die.off ||
	    cl->p != cf->p || cl->depth != cf->depth)
		abort();
	for (i = 0; i < lf->n; i++) {
		const struct dw_attr *a = dw_attr(&die, lf->at[i]);

		if (!a != !(x->have >> i & 1) || (a && (a->u != x->v[i] || a->cls != lf->cls[i])))
			abort();
	}
}

/* Walk unit u with both decoders in step (and the leaf reader ahead of them). */
static void filtered_walk(const struct dw_file *f, const struct dw_unit *u, struct dw_filter *fl)
{
	struct dw_cursor c, cf;
	struct diag d, df;
	unsigned n = 0;
	int r, rf;

	diag_clear(&d);
	diag_clear(&df);
	if (dw_cursor_init(&c, f, u, &d) || dw_cursor_init(&cf, f, u, &df))
		return;
	while (n++ < MAX_DIES) {
		const struct dw_leaf *lf = &leaves[n % NLEAVES];	/* the shape asked for */
		struct dw_cursor cl = cf;
		struct dw_leaf_val lv;
		size_t rl = dw_next_leaves(&cl, fl, lf->tag, &lv, 1);

		if (rl > 1 || (!rl && cl.p != cf.p))
			abort();
		r = dw_next(&c, &die);
		rf = dw_next_filtered(&cf, &fdie, want_all, NULL, fl);
		if (r < 0)	/* the filtered decoder may not read the bad value */
			return;
		if (rf < 0 || rf != r)
			abort();
		if (!r)
			return;
		same_die();
		if (rl)
			same_leaf(lf, &lv, &cl, &cf);
	}
}

static void split(const uint8_t *data, size_t size, struct dw_sections *s)
{
	struct bslice *v = (struct bslice *)s;
	size_t nsec = offsetof(struct dw_sections, info_peek) / sizeof(*v), i, off = 1;

	memset(s, 0, sizeof(*s));
	for (i = 0; i < nsec && off + 4 <= size; i++) {
		uint32_t n = (uint32_t)data[off] | (uint32_t)data[off + 1] << 8 |
			     (uint32_t)data[off + 2] << 16 | (uint32_t)data[off + 3] << 24;

		off += 4;
		if (n > size - off)
			n = (uint32_t)(size - off);
		v[i].p = data + off;
		v[i].len = n;
		off += n;
	}
}

static void touch_die(const struct dw_file *f, const struct dw_die *x, unsigned *nrefs)
{
	unsigned i;

	for (i = 0; i < x->nattr; i++) {
		const struct dw_attr *a = &x->attr[i];

		switch (a->cls) {
		case DW_CL_STRING:
			fuzz_touch_str(a->str);
			break;
		case DW_CL_BLOCK:
		case DW_CL_DATA16:
			fuzz_touch(a->blk, a->cls == DW_CL_DATA16 ? 16 : a->len);
			break;
		case DW_CL_REF:
		case DW_CL_SIG:
			if (*nrefs < MAX_REFS) {
				struct diag d;
				uint64_t r = a->cls == DW_CL_SIG ? dw_sig_lookup(f, a->u) : a->u;

				(*nrefs)++;
				(void)dw_unit_of(f, r);
				diag_clear(&d);
				if (r)
					fuzz_check_err(dw_die_at(f, r, &tdie, &d), &d);
			}
			break;
		}
	}
	(void)dw_tag_name(x->tag);
	fuzz_touch_str(dw_name(x));
	(void)dw_ref(f, x, DW_AT_type);
	if (dw_attr(x, DW_AT_location)) {
		struct dw_loc loc;
		struct diag d;

		diag_clear(&d);
		fuzz_check_err(dw_loc_classify(f, x, 0, &loc, &d), &d);
	}
}

/*
 * s opened again (jobs threads) with the same outcome as f1 (err1): the
 * same error, unit count and index error, and per unit the same bad flag
 * and message, or abort.  NULL when both failed.
 */
static struct dw_file *reopen_same(const struct dw_sections *s, bool big, unsigned jobs, int err1,
				   const struct dw_file *f1)
{
	struct dw_file *f2;
	struct diag d;
	size_t i;
	int err2;

	diag_clear(&d);
	err2 = dw_file_open(&f2, "fuzz", s, big, NULL, jobs, &d);
	if (err2 != err1)
		abort();
	if (err2)
		return NULL;
	if (dw_nunits(f2) != dw_nunits(f1) ||
	    !dw_file_index_error(f1) != !dw_file_index_error(f2) ||
	    (dw_file_index_error(f1) &&
	     strcmp(dw_file_index_error(f1)->msg, dw_file_index_error(f2)->msg)))
		abort();
	for (i = 0; i < dw_nunits(f1); i++) {
		const struct dw_unit *a = dw_unit_at(f1, i), *b = dw_unit_at(f2, i);

		if (a->bad != b->bad || !a->bad_msg != !b->bad_msg ||
		    (a->bad_msg && strcmp(a->bad_msg, b->bad_msg)))
			abort();
	}
	return f2;
}

/*
 * The index built with tables parsed ahead on two threads is the serial
 * one (the fuzz build parses ahead from 2 tables, not 64): same units,
 * same bad ones and messages, same tables and sizes.
 */
static void same_index_ahead(const struct dw_sections *s, bool big, int err1,
			     const struct dw_file *f1)
{
	struct dw_file *f2 = reopen_same(s, big, 2, err1, f1);
	size_t i;

	for (i = 0; f2 && i < dw_nunits(f1); i++) {
		const struct dw_unit *a = dw_unit_at(f1, i), *b = dw_unit_at(f2, i);

		if (!a->abbrevs != !b->abbrevs)
			abort();
		if (a->abbrevs && (a->abbrevs->off != b->abbrevs->off ||
				   a->abbrevs->asz != b->abbrevs->asz ||
				   a->abbrevs->osz != b->abbrevs->osz ||
				   a->abbrevs->n != b->abbrevs->n))
			abort();
	}
	dw_file_free(f2);
}

/* .debug_info through a peek (dw_sections.info_peek): every third one fails. */
struct peek {
	struct bslice info;
	unsigned calls;
};

static ssize_t peek_info(void *ctx, uint64_t off, void *buf, size_t len)
{
	struct peek *pk = ctx;

	if (++pk->calls % 3 == 0 || off > pk->info.len || len > pk->info.len - off)
		return -1;
	memcpy(buf, pk->info.p + off, len);
	return (ssize_t)len;
}

/* tdie (walked in a copy) against die (in place): the same DIE and values. */
static void same_die_copy(void)
{
	unsigned i;

	if (tdie.off != die.off || tdie.tag != die.tag || tdie.depth != die.depth ||
	    tdie.has_children != die.has_children || tdie.nattr != die.nattr)
		abort();
	for (i = 0; i < die.nattr; i++) {
		const struct dw_attr *a = &die.attr[i], *b = &tdie.attr[i];

		if (a->at != b->at || a->form != b->form || a->cls != b->cls)
			abort();
		if (a->cls == DW_CL_STRING ? strcmp(a->str, b->str)
		    : a->cls == DW_CL_BLOCK || a->cls == DW_CL_DATA16
			? a->len != b->len || (a->len && memcmp(a->blk, b->blk, a->len))
			: a->u != b->u)
			abort();
	}
}

/*
 * Unit ui of f1 walked in place and of f2 (the same sections, with a peek)
 * in a copy (dw_cursor_init_copy), skipping the same subtrees: the same
 * DIEs and values, an error at the same DIE.
 */
static void copy_walk(const struct dw_file *f1, const struct dw_file *f2, size_t ui, bool skip,
		      uint8_t **buf, size_t *cap)
{
	struct dw_cursor c, cc;
	struct diag d, dc;
	unsigned n = 0;
	int r, rc;

	diag_clear(&d);
	diag_clear(&dc);
	r = dw_cursor_init(&c, f1, dw_unit_at(f1, ui), &d);
	rc = dw_cursor_init_copy(&cc, f2, dw_unit_at(f2, ui), buf, cap, &dc);
	if (!r != !rc)
		abort();
	if (r)
		return;
	while (n++ < MAX_DIES) {
		r = dw_next(&c, &die);
		rc = dw_next(&cc, &tdie);
		if (r != rc || (r < 0 && strcmp(d.msg, dc.msg)))
			abort();
		if (r <= 0)
			return;
		same_die_copy();
		/* every other subtree skipped, which ones by the flag (sibling jumps) */
		if (die.has_children && (n & 1) == (unsigned)skip) {
			r = dw_skip_children(&c, &die);
			rc = dw_skip_children(&cc, &tdie);
			if (r != rc || c.depth != cc.depth || (uint64_t)(c.p - c.sec) + c.base !=
								(uint64_t)(cc.p - cc.sec) + cc.base)
				abort();
			if (r < 0)
				return;
		}
	}
}

/*
 * The index read through a peek (unit headers and unit DIEs copied) is
 * the index read in place: same units, bad ones and messages, bases, and
 * the same name and producer pointers (into the sections, never a copy).
 * Then every unit walked in a copy is the unit walked in place.
 */
static void same_index_peek(const struct dw_sections *s, bool big, int err1,
			    const struct dw_file *f1, bool skip)
{
	uint8_t *buf = NULL;
	size_t cap = 0;
	struct dw_sections sp = *s;
	struct peek pk = { s->info, 0 };
	struct dw_file *f2;
	size_t i;

	sp.info_peek = peek_info;
	sp.peek_ctx = &pk;
	f2 = reopen_same(&sp, big, 1, err1, f1);
	for (i = 0; f2 && i < dw_nunits(f1); i++) {
		const struct dw_unit *a = dw_unit_at(f1, i), *b = dw_unit_at(f2, i);

		if (a->end != b->end || a->die_off != b->die_off || a->name != b->name ||
		    a->producer != b->producer || a->lang != b->lang || a->low_pc != b->low_pc ||
		    a->str_offsets_base != b->str_offsets_base || a->addr_base != b->addr_base)
			abort();
	}
	for (i = 0; f2 && i < dw_nunits(f1); i++)
		copy_walk(f1, f2, i, skip, &buf, &cap);
	mem_free(buf);
	dw_file_free(f2);
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	struct dw_sections s;
	struct dw_file *f;
	struct dw_filter *fl;
	struct diag d;
	unsigned ndies = 0, nrefs = 0;
	bool big, skip;
	size_t i;
	int err;

	if (size < 1)
		return 0;
	big = data[0] & 1;
	skip = data[0] & 2;
	split(data, size, &s);
	diag_clear(&d);
	err = dw_file_open(&f, "fuzz", &s, big, NULL, 1, &d);
	fuzz_check_err(err, &d);
	same_index_ahead(&s, big, err, f);
	same_index_peek(&s, big, err, f, skip);
	if (err)
		return 0;
	if (dw_file_index_error(f))
		fuzz_check_diag(dw_file_index_error(f));
	fl = dw_filter_new(keep_ats, sizeof(keep_ats) / sizeof(keep_ats[0]));
	for (i = 0; fl && i < NLEAVES; i++)
		if (dw_filter_add_leaf(fl, &leaves[i]))
			abort();
	for (i = 0; i < dw_nunits(f) && ndies < MAX_DIES; i++) {
		const struct dw_unit *u = dw_unit_at(f, i);
		struct dw_cursor c;
		uint64_t n = 0;
		int r = 0;

		fuzz_touch_str(u->name);
		fuzz_touch_str(u->producer);
		diag_clear(&d);
		fuzz_check_err(dw_walk_skip(f, u, &n, &d), &d);
		diag_clear(&d);
		err = dw_cursor_init(&c, f, u, &d);
		fuzz_check_err(err, &d);
		if (err)
			continue;
		while (ndies < MAX_DIES && (r = dw_next(&c, &die)) > 0) {
			ndies++;
			touch_die(f, &die, &nrefs);
			if (skip && die.has_children && (ndies & 1)) {
				r = dw_skip_children(&c, &die);
				if (r < 0)
					break;
			}
		}
		fuzz_check_err(r < 0 ? r : 0, &d);
		if (fl)
			filtered_walk(f, u, fl);
	}
	dw_filter_free(fl);
	/* Cursor positioned on a reference: the unit DIE of the first unit. */
	if (dw_nunits(f)) {
		struct dw_cursor c;

		diag_clear(&d);
		if (!dw_cursor_at(&c, f, dw_unit_at(f, 0)->die_off, &d)) {
			int k = 0;

			while (k++ < 100 && dw_next(&c, &die) > 0)
				;
		} else {
			fuzz_check_diag(&d);
		}
	}
	dw_file_free(f);
	return 0;
}

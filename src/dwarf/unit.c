// SPDX-License-Identifier: GPL-2.0-only
/* The unit index: one serial pass over unit headers. */
#include <limits.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdio.h>
#include <stdlib.h>

#include "base/hash.h"
#include "base/mem.h"
#include "base/pool.h"
#include "dwarf/internal.h"

int dw_scan_unit_die(const struct dw_file *f, struct dw_unit *u, const uint8_t *head,
		     size_t headlen, struct diag *d);

/* Keep a bad unit's message for later walks (bad units are rare). */
static const char *keep_msg(struct dw_file *f, const char *msg)
{
	char **n = mem_realloc(f->msgs, (f->nmsgs + 1) * sizeof(*n));

	if (!n)
		return NULL;
	f->msgs = n;
	if (!(n[f->nmsgs] = mem_strdup(msg)))
		return NULL;
	return n[f->nmsgs++];
}

PRINTF_LIKE(4, 5)
static int unit_err(struct dw_file *f, struct dw_unit *u, const char *sec, const char *fmt, ...)
{
	char msg[160];
	va_list ap;

	va_start(ap, fmt);
	vsnprintf(msg, sizeof(msg), fmt, ap);
	va_end(ap);
	u->bad = true;
	u->bad_msg = keep_msg(f, msg);
	return diag_err(&f->index_err, EINVAL, "%s: %s unit 0x%llx: %s", f->path, sec,
			(unsigned long long)u->off, msg);
}

static int find_abbrevs(struct dw_file *f, uint64_t off, uint8_t asz, uint8_t osz,
			const struct dw_abbrevs **out, struct diag *d)
{
	size_t lo = 0, hi = f->ntabs, i;
	struct dw_abbrevs *t;
	int err;

	/* Units usually come in abbrev-offset order: check the last table first. */
	if (f->ntabs && f->tabs[f->ntabs - 1]->off == off) {
		*out = f->tabs[f->ntabs - 1];
		return 0;
	}
	while (lo < hi) {
		size_t mid = (lo + hi) / 2;

		if (f->tabs[mid]->off < off)
			lo = mid + 1;
		else
			hi = mid;
	}
	if (lo < f->ntabs && f->tabs[lo]->off == off) {
		*out = f->tabs[lo];
		return 0;
	}
	if ((err = dw_abbrevs_parse(f, &f->abbrev_arena, off, asz, osz, &t, d)))
		return err;
	if (VEC_RESERVE(f->tabs, f->tabs_cap, f->ntabs + 1))
		return diag_err(d, ENOMEM, "%s: out of memory", f->path);
	for (i = f->ntabs; i > lo; i--)
		f->tabs[i] = f->tabs[i - 1];
	f->tabs[lo] = t;
	f->ntabs++;
	*out = t;
	return 0;
}

/* What read_header() makes of a unit. */
enum hdr {
	HDR_OK,
	HDR_BAD,	/* a unit the index records as bad; the next starts at u->end */
	HDR_BAD_LAST,	/* recorded as bad, and no unit can follow it */
	HDR_STOP,	/* no unit here: the index stops */
};

struct hdr_msg {
	char s[160];
};

PRINTF_LIKE(3, 4)
static enum hdr hdr_fail(enum hdr h, struct hdr_msg *m, const char *fmt, ...)
{
	va_list ap;

	va_start(ap, fmt);
	vsnprintf(m->s, sizeof(m->s), fmt, ap);
	va_end(ap);
	return h;
}

/*
 * A unit's first bytes (header and unit DIE), copied through the
 * section's peek hook when it has one: reading them in place would map
 * the pages around each (the kernel's fault-around), and opening a kernel
 * image reads 2,401 of them twice before any unit is converted (vmlinux:
 * 38 ms of faults, serial, and pages let go again before the conversion).
 * Bytes read, or -1: read the section itself.
 */
#define HEAD_PEEK 256

static ssize_t peek_head(const struct dw_file *f, bool types, uint64_t off, uint8_t *buf)
{
	if (types || !f->s.info_peek || off >= f->s.info.len)
		return -1;
	return f->s.info_peek(f->s.peek_ctx, off, buf, (size_t)MIN((uint64_t)HEAD_PEEK,
								   f->s.info.len - off));
}

/*
 * The header of the unit at off in sec (.debug_types if types): fills u
 * (u->off, u->in_types and u->index are the caller's) and *abbrev_off.
 * One reader for the index and the scan of parse_tables_ahead(), so both
 * skip exactly the same units.  win, if not NULL, holds winlen bytes of
 * sec from off on (fewer only at its end): read instead of sec's.
 */
static enum hdr read_header(const struct dw_file *f, struct bslice sec, uint64_t off, bool types,
			    const uint8_t *win, size_t winlen, struct dw_unit *u, uint64_t *abbrev_off,
			    struct hdr_msg *m)
{
	const uint8_t *p0 = win ? win : sec.p + off, *p = p0;
	const uint8_t *end = p0 + (win ? MIN(winlen, sec.len - off) : sec.len - off);
	uint64_t len;

	if (!win && !types && f->s.info_peek_only)	/* its bytes in place are not the DWARF */
		return hdr_fail(HDR_STOP, m, "cannot read the unit header at 0x%llx",
				(unsigned long long)off);
	if (end - p < 4)
		return hdr_fail(HDR_STOP, m, "truncated unit length at 0x%llx", (unsigned long long)off);
	len = dw_u32(f, p);
	p += 4;
	u->offset_size = 4;
	if (len == 0xffffffff) {
		if (end - p < 8)
			return hdr_fail(HDR_STOP, m, "truncated 64-bit unit length at 0x%llx",
					(unsigned long long)off);
		len = dw_u64(f, p);
		p += 8;
		u->offset_size = 8;
	} else if (len >= 0xfffffff0) {
		return hdr_fail(HDR_STOP, m, "reserved unit length value 0x%llx", (unsigned long long)len);
	}
	if (len > (uint64_t)(sec.len - off) - (uint64_t)(p - p0))
		return hdr_fail(HDR_BAD_LAST, m, "unit length 0x%llx runs past the end of the section",
				(unsigned long long)len);
	u->end = off + (uint64_t)(p - p0) + len;
	if (u->end - off < (uint64_t)(end - p0))
		end = p0 + (u->end - off);
	if (end - p < 2)
		return hdr_fail(HDR_BAD, m, "unit too short for a header (length 0x%llx)",
				(unsigned long long)len);
	u->version = (uint8_t)dw_u16(f, p);
	p += 2;
	if (u->version < 2 || u->version > 5)
		return hdr_fail(HDR_BAD, m, "unsupported DWARF version %llu", (unsigned long long)u->version);
	if (u->version >= 5) {
		if (end - p < 2 + u->offset_size)
			goto truncated;
		u->unit_type = p[0];
		u->addr_size = p[1];
		p += 2;
		*abbrev_off = dw_uN(f, p, u->offset_size);
		p += u->offset_size;
		switch (u->unit_type) {
		case DW_UT_compile:
		case DW_UT_partial:
			break;
		case DW_UT_skeleton:
		case DW_UT_split_compile:
			if (end - p < 8)
				goto truncated;
			u->dwo_id = dw_u64(f, p);
			p += 8;
			break;
		case DW_UT_type:
		case DW_UT_split_type:
			if (end - p < 8 + u->offset_size)
				goto truncated;
			u->type_sig = dw_u64(f, p);
			u->type_off = dw_uN(f, p + 8, u->offset_size);
			p += 8 + u->offset_size;
			break;
		default:
			return hdr_fail(HDR_BAD, m, "unknown unit type 0x%llx", (unsigned long long)u->unit_type);
		}
	} else {
		if (end - p < u->offset_size + 1)
			goto truncated;
		*abbrev_off = dw_uN(f, p, u->offset_size);
		p += u->offset_size;
		u->addr_size = *p++;
		u->unit_type = DW_UT_compile;
		if (types) {
			if (end - p < 8 + u->offset_size)
				goto truncated;
			u->unit_type = DW_UT_type;
			u->type_sig = dw_u64(f, p);
			u->type_off = dw_uN(f, p + 8, u->offset_size);
			p += 8 + u->offset_size;
		}
	}
	if (u->addr_size != 4 && u->addr_size != 8 && u->addr_size != 2)
		return hdr_fail(HDR_BAD, m, "unsupported address size %llu", (unsigned long long)u->addr_size);
	u->die_off = off + (uint64_t)(p - p0);
	if (u->type_off && (u->type_off < u->die_off - u->off || u->off + u->type_off >= u->end))
		return hdr_fail(HDR_BAD, m, "type offset 0x%llx outside the unit",
				(unsigned long long)u->type_off);
	return HDR_OK;
truncated:
	return hdr_fail(HDR_BAD, m, "truncated header (length 0x%llx)", (unsigned long long)len);
}

/* ---- abbreviation tables parsed ahead, in parallel ---- */

/*
 * A kernel image has a table per unit (vmlinux: 2,360 distinct ones for
 * 2,401 units, 6 MB): parsing them one by one was half of opening it.  A
 * scan of the unit headers (read_header(), as the index reads them) finds
 * each table's offset and the sizes of the first unit the index will ask
 * for it; the tables are parsed on the pool, each thread into its own
 * arena, and the index then finds them as if it had parsed them itself.
 * A table that fails to parse is left out: the index meets it and reports
 * it as before.
 */
#ifndef AHEAD_MIN_TABLES		/* the fuzz build sets 2 */
#define AHEAD_MIN_TABLES 64
#endif

struct ahead_tab {
	uint64_t off;
	uint32_t seq;			/* unit order */
	uint8_t asz, osz;
	struct dw_abbrevs *t;
};

struct ahead {
	struct dw_file *f;
	struct ahead_tab *v;
};

static int cmp_ahead(const void *a, const void *b)
{
	const struct ahead_tab *x = a, *y = b;

	if (x->off != y->off)
		return x->off < y->off ? -1 : 1;
	return x->seq < y->seq ? -1 : x->seq > y->seq;
}

static int parse_ahead(void *ctx, unsigned worker, size_t item)
{
	struct ahead *a = ctx;
	struct ahead_tab *at = &a->v[item];
	struct diag d;

	diag_clear(&d);
	if (dw_abbrevs_parse(a->f, &a->f->ahead_arenas[worker], at->off, at->asz, at->osz, &at->t,
			     &d))
		at->t = NULL;
	return 0;
}

/* .debug_info's units' tables and first sizes, sorted by offset; n of them. */
static size_t scan_ahead(const struct dw_file *f, struct ahead_tab **out)
{
	struct ahead_tab *v = NULL;
	size_t n = 0, cap = 0, i, k;
	uint64_t off = 0;

	while (off < f->s.info.len) {
		struct dw_unit u = { .off = off };
		struct hdr_msg m;
		uint64_t aoff = 0;
		uint8_t head[HEAD_PEEK];
		ssize_t nh = peek_head(f, false, off, head);
		enum hdr h = read_header(f, f->s.info, off, false, nh >= 0 ? head : NULL,
					 nh >= 0 ? (size_t)nh : 0, &u, &aoff, &m);

		if (h == HDR_STOP || h == HDR_BAD_LAST || VEC_RESERVE(v, cap, n + 1))
			break;
		off = u.end;
		if (h != HDR_OK)
			continue;
		v[n].off = aoff;
		v[n].asz = u.addr_size;
		v[n].osz = u.offset_size;
		v[n].seq = (uint32_t)n;
		v[n].t = NULL;
		n++;
	}
	if (n)
		qsort(v, n, sizeof(*v), cmp_ahead);
	for (i = k = 0; i < n; i++)
		if ((!k || v[k - 1].off != v[i].off) && v[i].off < f->s.abbrev.len)
			v[k++] = v[i];
	*out = v;
	return k;
}

static void parse_tables_ahead(struct dw_file *f, unsigned jobs)
{
	struct ahead a = { .f = f };
	size_t n = scan_ahead(f, &a.v), i, k;
	unsigned w;

	if (n < AHEAD_MIN_TABLES || !(f->ahead_arenas = mem_array(jobs, sizeof(struct arena))) ||
	    !(f->tabs = mem_array(n, sizeof(*f->tabs)))) {
		mem_free(a.v);
		return;
	}
	f->tabs_cap = n;
	f->nahead_arenas = jobs;
	for (w = 0; w < jobs; w++)
		arena_init(&f->ahead_arenas[w], MAX((size_t)64 << 10,
						    MIN(f->s.abbrev.len * 6 / jobs, (size_t)16 << 20)));
	pool_for(jobs, n, parse_ahead, &a);
	for (i = k = 0; i < n; i++)
		if (a.v[i].t)
			f->tabs[k++] = a.v[i].t;
	f->ntabs = k;
	mem_free(a.v);
}

/* The split-DWARF contribution holding the unit at off, or NULL. */
static const struct dw_contrib *find_contrib(const struct dw_file *f, bool types, uint64_t off)
{
	size_t lo = 0, hi = f->s.ncontrib;

	while (lo < hi) {
		size_t mid = (lo + hi) / 2;
		const struct dw_contrib *c = &f->s.contrib[mid];

		if (c->types != types ? c->types < types : c->off + c->len <= off)
			lo = mid + 1;
		else
			hi = mid;
	}
	if (lo < f->s.ncontrib && f->s.contrib[lo].types == types &&
	    off >= f->s.contrib[lo].off && off - f->s.contrib[lo].off < f->s.contrib[lo].len)
		return &f->s.contrib[lo];
	return NULL;
}

/*
 * Parse the units of one section from *offp, at most max of them; *offp
 * is where the index stopped (sec.len: at the end, or where no later unit
 * can be located).  Returns <0 only for fatal errors.
 */
static int index_section(struct dw_file *f, struct bslice sec, bool types, size_t *cap,
			 size_t max, uint64_t *offp, struct diag *d)
{
	const char *sname = types ? ".debug_types" : ".debug_info";
	uint64_t off = *offp;
	size_t first = f->nunits;
	int err;

	while (off < sec.len && f->nunits - first < max) {
		struct dw_unit *u;
		struct hdr_msg m;
		struct diag ud;
		uint64_t abbrev_off = 0;
		uint8_t head[HEAD_PEEK];
		ssize_t nh = peek_head(f, types, off, head);
		const struct dw_contrib *c = NULL;
		size_t at;
		enum hdr h;

		if ((err = VEC_RESERVE(f->units, *cap, f->nunits + 1)))
			return diag_err(d, ENOMEM, "%s: out of memory", f->path);
		u = &f->units[f->nunits];
		memset(u, 0, sizeof(*u));
		u->off = off;
		u->in_types = types;
		u->index = (uint32_t)f->nunits;
		h = read_header(f, sec, off, types, nh >= 0 ? head : NULL, nh >= 0 ? (size_t)nh : 0,
				u, &abbrev_off, &m);
		if (h != HDR_STOP)
			f->nunits++;
		if (h != HDR_OK) {
			unit_err(f, u, sname, "%s", m.s);
			if (h != HDR_BAD) {
				off = sec.len;	/* later units cannot be located */
				break;
			}
			off = u->end;
			continue;
		}
		off = u->end;
		diag_clear(&ud);
		if (f->s.ncontrib && (c = find_contrib(f, types, u->off))) {
			u->split = true;
			abbrev_off += c->abbrev;
		}
		if ((err = find_abbrevs(f, abbrev_off, u->addr_size, u->offset_size, &u->abbrevs,
					 &ud))) {
			if (err == -ENOMEM)
				return diag_err(d, ENOMEM, "%s: out of memory", f->path);
			u->bad = true;
			u->bad_msg = keep_msg(f, ud.msg);
			diag_err(&f->index_err, -err, "%s", ud.msg);
			continue;
		}
		if (u->version >= 5) {
			/* Defaults for units without explicit bases (split units). */
			u->str_offsets_base = u->offset_size == 8 ? 16 : 8;
			u->addr_base = 8;
		}
		if (u->split) {
			/* the unit's parts; a DWARF 5 list section's offsets follow its header */
			unsigned lh = u->version >= 5 ? (u->offset_size == 8 ? 20 : 12) : 0;

			u->str_offsets_base += c->str_offsets;
			u->str_base = c->str;
			u->loc_base = u->version >= 5 ? c->loclists : c->loc;
			u->loclists_base = c->loclists + lh;
			u->rnglists_base = c->rnglists + lh;
			u->addr_base = c->addr_base;
			u->no_addr = !c->has_addr;
		}
		at = (size_t)(u->die_off - u->off);	/* the DIE in head */
		if ((err = dw_scan_unit_die(f, u, nh > (ssize_t)at ? head + at : NULL,
					    nh > (ssize_t)at ? (size_t)nh - at : 0, &ud))) {
			if (err == -ENOMEM)
				return diag_err(d, ENOMEM, "%s: out of memory", f->path);
			u->bad = true;
			u->bad_msg = keep_msg(f, ud.msg);
			diag_err(&f->index_err, -err, "%s", ud.msg);
		}
	}
	*offp = off;
	return 0;
}

static int build_sig_index(struct dw_file *f, struct diag *d)
{
	size_t i, n = 0;

	mem_free(f->sig_keys);
	mem_free(f->sig_vals);
	f->sig_keys = f->sig_vals = NULL;
	f->sig_slots = 0;
	for (i = 0; i < f->nunits; i++)
		if (f->units[i].type_sig && !f->units[i].bad)
			n++;
	if (!n)
		return 0;
	f->sig_slots = 16;
	while (f->sig_slots < n * 2)
		f->sig_slots *= 2;
	f->sig_keys = mem_array(f->sig_slots, sizeof(uint64_t));
	f->sig_vals = mem_array(f->sig_slots, sizeof(uint64_t));
	if (!f->sig_keys || !f->sig_vals)
		return diag_err(d, ENOMEM, "%s: out of memory", f->path);
	for (i = 0; i < f->nunits; i++) {
		const struct dw_unit *u = &f->units[i];
		size_t j;

		if (!u->type_sig || u->bad)
			continue;
		for (j = hash_mix(u->type_sig) & (f->sig_slots - 1); f->sig_keys[j];
		     j = (j + 1) & (f->sig_slots - 1))
			if (f->sig_keys[j] == u->type_sig)
				break;
		if (f->sig_keys[j])
			continue;	/* duplicate signature: first unit wins */
		f->sig_keys[j] = u->type_sig;
		f->sig_vals[j] = (u->off + u->type_off) | (u->in_types ? DW_REF_TYPES : 0);
	}
	return 0;
}

/* The common part of dw_file_open() and dw_file_open_lazy(). */
static int file_new(struct dw_file **out, const char *path, const struct dw_sections *s,
		    bool big_endian, const struct dw_file *alt, size_t arena_size, struct diag *d)
{
	struct dw_file *f;

	*out = NULL;
	if (!s->info.len && !s->types.len)
		return diag_err(d, ENODATA, "%s: no DWARF debug info (.debug_info is missing or empty)",
				path);
	f = mem_zalloc(sizeof(*f));
	if (!f)
		return diag_err(d, ENOMEM, "%s: out of memory", path);
	f->path = path;
	f->s = *s;
	if (f->s.info_peek_only && !f->s.info_peek) {
		mem_free(f);
		return diag_err(d, EINVAL, "%s: .debug_info needs relocations and has no reader", path);
	}
	pthread_mutex_init(&f->copy_lock, NULL);
	arena_init(&f->abbrev_arena, arena_size);
	/* Empty sections may come as NULL: give them a real (empty) address so
	 * that p + len arithmetic on them is defined. */
	for (size_t i = 0; i < offsetof(struct dw_sections, info_peek) / sizeof(struct bslice); i++)
		if (!((struct bslice *)&f->s)[i].p)
			((struct bslice *)&f->s)[i].p = (const uint8_t *)"";
	f->swap = big_endian != (__BYTE_ORDER__ == __ORDER_BIG_ENDIAN__);
	f->alt = alt;
	/* String sections: only offsets before the last NUL are valid, so every
	 * string handed out is terminated inside the section. */
	while (f->s.str.len && f->s.str.p[f->s.str.len - 1])
		f->s.str.len--;
	while (f->s.line_str.len && f->s.line_str.p[f->s.line_str.len - 1])
		f->s.line_str.len--;
	*out = f;
	return 0;
}

int dw_file_open(struct dw_file **out, const char *path, const struct dw_sections *s,
		 bool big_endian, const struct dw_file *alt, unsigned jobs, struct diag *d)
{
	struct dw_file *f;
	uint64_t off = 0;
	int err;

	/* parsed tables take about 6 bytes per byte of .debug_abbrev */
	if ((err = file_new(&f, path, s, big_endian, alt,
			    MAX((size_t)64 << 10, MIN(s->abbrev.len * 6, (size_t)16 << 20)), d)))
		return err;
	if (jobs > 1 && !s->ncontrib)	/* (the scan knows no contributions) */
		parse_tables_ahead(f, jobs);
	if ((err = index_section(f, f->s.info, false, &f->units_cap, SIZE_MAX, &off, d)))
		goto fail;
	f->ninfo = f->nunits;
	off = 0;
	if ((err = index_section(f, f->s.types, true, &f->units_cap, SIZE_MAX, &off, d)))
		goto fail;
	if ((err = build_sig_index(f, d)))
		goto fail;
	*out = f;
	return 0;
fail:
	dw_file_free(f);
	return err;
}

int dw_file_open_lazy(struct dw_file **out, const char *path, const struct dw_sections *s,
		      bool big_endian, const struct dw_file *alt, struct diag *d)
{
	struct dw_file *f;
	int err;

	/* .debug_types units go after all of .debug_info's: index them all now */
	if (s->types.len)
		return dw_file_open(out, path, s, big_endian, alt, 1, d);
	if ((err = file_new(&f, path, s, big_endian, alt, (size_t)64 << 10, d)))
		return err;
	f->lazy = true;
	*out = f;
	return 0;
}

int dw_file_index_more(struct dw_file *f, size_t n, struct diag *d)
{
	size_t had = f->nunits;
	int err;

	if (!f->lazy)
		return 0;
	if ((err = index_section(f, f->s.info, false, &f->units_cap, n, &f->lazy_off, d)))
		return err;
	f->ninfo = f->nunits;
	if (f->lazy_off >= f->s.info.len)
		f->lazy = false;
	/* DWARF 5 type units may be among them (a linear rebuild: few calls) */
	for (size_t i = had; i < f->nunits; i++)
		if (f->units[i].type_sig) {
			if ((err = build_sig_index(f, d)))
				return err;
			break;
		}
	return (int)MIN(f->nunits - had, (size_t)INT_MAX);
}

void dw_file_free(struct dw_file *f)
{
	size_t i;

	if (!f)
		return;
	arena_free(&f->abbrev_arena);
	for (i = 0; i < f->nahead_arenas; i++)
		arena_free(&f->ahead_arenas[i]);
	mem_free(f->ahead_arenas);
	for (i = 0; i < f->nmsgs; i++)
		mem_free(f->msgs[i]);
	mem_free(f->msgs);
	mem_free(f->tabs);
	mem_free(f->units);
	mem_free(f->sig_keys);
	mem_free(f->sig_vals);
	for (i = 0; i < f->ucopy_n; i++)
		mem_free(f->ucopy[i]);
	mem_free(f->ucopy);
	pthread_mutex_destroy(&f->copy_lock);
	mem_free(f);
}

int dw_unit_bytes(const struct dw_file *f, const struct dw_unit *u, const uint8_t **out,
		  uint64_t *base, struct diag *d)
{
	const struct dw_file *o = dw_owner(f, u);
	struct dw_file *m = (struct dw_file *)o;	/* its copy_lock and ucopy only */
	size_t n = (size_t)(u->end - u->off);
	uint8_t *p = NULL;

	*base = 0;
	*out = u->in_types ? o->s.types.p : o->s.info.p;
	if (u->in_types || !o->s.info_peek_only)
		return 0;
	*base = u->off;
	pthread_mutex_lock(&m->copy_lock);
	if (u->index >= m->ucopy_n) {
		size_t want = MAX((size_t)u->index + 1, o->nunits);
		uint8_t **nv = mem_realloc(m->ucopy, want * sizeof(*nv));

		if (!nv)
			goto out;
		memset(nv + m->ucopy_n, 0, (want - m->ucopy_n) * sizeof(*nv));
		m->ucopy = nv;
		m->ucopy_n = want;
	}
	if ((p = m->ucopy[u->index]))
		goto out;
	if (!(p = mem_alloc(n ? n : 1)))
		goto out;
	mem_tag(p, "unit copy (kept)");
	if (o->s.info_peek(o->s.peek_ctx, u->off, p, n) != (ssize_t)n) {
		mem_free(p);
		pthread_mutex_unlock(&m->copy_lock);
		return diag_err(d, EIO, "%s: .debug_info unit 0x%llx: cannot read its 0x%zx bytes",
				o->path, (unsigned long long)u->off, n);
	}
	m->ucopy[u->index] = p;
out:
	pthread_mutex_unlock(&m->copy_lock);
	if (!p)
		return diag_err(d, ENOMEM, "%s: out of memory reading unit 0x%llx", o->path,
				(unsigned long long)u->off);
	*out = p;
	return 0;
}

size_t dw_nunits(const struct dw_file *f) { return f->nunits; }
const struct dw_unit *dw_unit_at(const struct dw_file *f, size_t i)
{
	return i < f->nunits ? &f->units[i] : NULL;
}
const char *dw_file_path(const struct dw_file *f) { return f->path; }
const struct dw_file *dw_file_alt(const struct dw_file *f) { return f->alt; }
const struct diag *dw_file_index_error(const struct dw_file *f)
{
	return f->index_err.code ? &f->index_err : NULL;
}

const struct dw_unit *dw_unit_of(const struct dw_file *f, uint64_t ref)
{
	uint64_t off = DW_REF_OFF(ref);
	size_t lo, hi;

	if (ref & DW_REF_ALT) {
		if (!f->alt)
			return NULL;
		f = f->alt;
	}
	if (ref & DW_REF_TYPES) {
		lo = f->ninfo;
		hi = f->nunits;
	} else {
		lo = 0;
		hi = f->ninfo;
	}
	while (lo < hi) {
		size_t mid = (lo + hi) / 2;
		const struct dw_unit *u = &f->units[mid];

		if (off < u->off)
			hi = mid;
		else if (off >= u->end)
			lo = mid + 1;
		else
			return u->bad ? NULL : u;
	}
	return NULL;
}

uint64_t dw_sig_lookup(const struct dw_file *f, uint64_t sig)
{
	size_t j;

	if (!f->sig_slots || !sig)
		return 0;
	for (j = hash_mix(sig) & (f->sig_slots - 1); f->sig_keys[j]; j = (j + 1) & (f->sig_slots - 1))
		if (f->sig_keys[j] == sig)
			return f->sig_vals[j];
	return 0;
}

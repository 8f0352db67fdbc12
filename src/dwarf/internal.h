/* SPDX-License-Identifier: GPL-2.0-only */
#ifndef BTFC_DWARF_INTERNAL_H
#define BTFC_DWARF_INTERNAL_H

#include <pthread.h>

#include "base/arena.h"
#include "dwarf/dwarf.h"

struct dw_spec {
	uint16_t at, form;
	uint32_t imp;		/* DW_FORM_implicit_const: index of the value in the table's imps */
};

struct dw_abbrev {
	uint64_t code;
	uint32_t tag;
	uint16_t nattr;
	bool children;
	int16_t sibling;	/* index of DW_AT_sibling among specs, -1 if none */
	uint32_t maxfix;	/* upper bound of the fixed-size value bytes */
	int32_t fixed;		/* exact size of all values for the table's
				 * addr/offset size, -1 if some form varies */
	uint32_t idx;		/* position in the table's list */
	const struct dw_spec *specs;
};

struct dw_abbrevs {
	uint64_t off;		/* in .debug_abbrev */
	uint8_t asz, osz;	/* sizes "fixed" was computed for */
	struct dw_abbrev *list;	/* in table order */
	size_t n;
	struct dw_abbrev **dense;	/* dense[code] when codes are small */
	uint64_t ndense;
	struct dw_spec *specs;
	int64_t *imps;		/* DW_FORM_implicit_const values */
};

/* A spec's DW_FORM_implicit_const value (0 for other forms). */
static inline int64_t dw_spec_implicit(const struct dw_abbrevs *t, const struct dw_spec *sp)
{
	return sp->form == DW_FORM_implicit_const ? t->imps[sp->imp] : 0;
}

struct dw_file {
	const char *path;
	struct dw_sections s;
	bool swap;
	const struct dw_file *alt;
	struct dw_unit *units;	/* .debug_info units, then .debug_types units */
	size_t nunits, ninfo, units_cap;
	bool lazy;		/* dw_file_open_lazy: .debug_info indexed up to lazy_off */
	uint64_t lazy_off;
	struct dw_abbrevs **tabs;	/* distinct tables, sorted by offset */
	size_t ntabs, tabs_cap;
	struct arena abbrev_arena;	/* the tables themselves */
	struct arena *ahead_arenas;	/* tables parsed ahead, one per thread */
	unsigned nahead_arenas;
	uint64_t *sig_keys, *sig_vals;	/* open addressing, 0 = empty key */
	size_t sig_slots;
	struct diag index_err;
	char **msgs;			/* bad units' messages */
	size_t nmsgs;
	/*
	 * s.info_peek_only: the units' copies in-place readers read
	 * (dw_unit_bytes), by unit index, made under copy_lock: the one part
	 * of an open file that changes while threads read it.
	 */
	pthread_mutex_t copy_lock;
	uint8_t **ucopy;
	size_t ucopy_n;
};

/* The file holding unit u: f, or its alt file. */
static inline const struct dw_file *dw_owner(const struct dw_file *f, const struct dw_unit *u)
{
	if (f->alt && u >= f->alt->units && u < f->alt->units + f->alt->nunits)
		return f->alt;
	return f;
}

/*
 * The bytes unit u (of f or its alt file) is read from in place, in
 * *out, *base the section offset of the first: the section itself (base
 * 0), or with info_peek_only a copy of the unit (base u->off).  0 or a
 * negative errno (no memory, a failed read).
 */
int dw_unit_bytes(const struct dw_file *f, const struct dw_unit *u, const uint8_t **out,
		  uint64_t *base, struct diag *d);

const struct dw_abbrev *dw_abbrev_find(const struct dw_abbrevs *t, uint64_t code);
/* Size of a form's value: >= 0 fixed, -1 variable; *max the bound for 8-byte sizes. */
int dw_form_size(unsigned form, unsigned asz, unsigned osz, unsigned *max);
/* The table is allocated from ar (the file's abbreviation arena). */
int dw_abbrevs_parse(const struct dw_file *f, struct arena *ar, uint64_t off, uint8_t asz,
		     uint8_t osz, struct dw_abbrevs **out, struct diag *d);

/* Byte-order aware loads. */
static inline uint16_t dw_u16(const struct dw_file *f, const uint8_t *p)
{
	uint16_t v = load16(p);
	return f->swap ? bswap16(v) : v;
}
static inline uint32_t dw_u32(const struct dw_file *f, const uint8_t *p)
{
	uint32_t v = load32(p);
	return f->swap ? bswap32(v) : v;
}
static inline uint64_t dw_u64(const struct dw_file *f, const uint8_t *p)
{
	uint64_t v = load64(p);
	return f->swap ? bswap64(v) : v;
}
static inline uint64_t dw_uN(const struct dw_file *f, const uint8_t *p, unsigned n)
{
	switch (n) {
	case 1: return p[0];
	case 2: return dw_u16(f, p);
	case 3: return f->swap ? (uint64_t)p[0] << 16 | p[1] << 8 | p[2]
			       : (uint64_t)p[2] << 16 | p[1] << 8 | p[0];
	case 4: return dw_u32(f, p);
	default: return dw_u64(f, p);
	}
}

/*
 * LEB128.  On overrun *pp is set to one past end (callers check p > end);
 * computed on integers so no out-of-bounds pointer arithmetic happens.
 */
#define DW_OVERRUN(end) ((const uint8_t *)((uintptr_t)(end) + 1))
static inline uint64_t dw_uleb(const uint8_t **pp, const uint8_t *end)
{
	const uint8_t *p = *pp;
	uint64_t v = 0;
	unsigned shift = 0;

	if (likely(p < end && !(*p & 0x80))) {	/* one byte: most codes and values */
		*pp = p + 1;
		return *p;
	}
	while (p < end) {
		uint8_t b = *p++;

		if (shift < 64)
			v |= (uint64_t)(b & 0x7f) << shift;
		shift += 7;
		if (!(b & 0x80)) {
			*pp = p;
			return v;
		}
	}
	*pp = DW_OVERRUN(end);
	return 0;
}

static inline int64_t dw_sleb(const uint8_t **pp, const uint8_t *end)
{
	const uint8_t *p = *pp;
	int64_t v = 0;
	unsigned shift = 0;
	uint8_t b = 0;

	while (p < end) {
		b = *p++;
		if (shift < 64)
			v |= (int64_t)((uint64_t)(b & 0x7f) << shift);
		shift += 7;
		if (!(b & 0x80)) {
			if (shift < 64 && (b & 0x40))
				v = (int64_t)((uint64_t)v | (~(uint64_t)0 << shift));
			*pp = p;
			return v;
		}
	}
	*pp = DW_OVERRUN(end);
	return 0;
}

#endif

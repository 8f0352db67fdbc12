// SPDX-License-Identifier: GPL-2.0-only
/*
 * Location expressions and lists, decoded only as far as the encoder needs
 * to tell where a parameter lives at function entry.
 */
#include "dwarf/internal.h"

int dw_expr_classify(const uint8_t *p, size_t len, uint8_t addr_size, struct dw_loc *out)
{
	const uint8_t *end = p + len;
	uint8_t op;

	memset(out, 0, sizeof(*out));
	if (!len) {
		out->kind = DW_LOC_NONE;
		return 0;
	}
	op = *p++;
	if (op >= DW_OP_reg0 && op <= DW_OP_reg31) {
		out->kind = DW_LOC_REG;
		out->reg = op - DW_OP_reg0;
	} else if (op == DW_OP_regx) {
		out->kind = DW_LOC_REG;
		out->reg = (unsigned)dw_uleb(&p, end);
	} else if ((op >= DW_OP_breg0 && op <= DW_OP_breg31) || op == DW_OP_bregx ||
		   op == DW_OP_fbreg || op == DW_OP_call_frame_cfa) {
		out->kind = DW_LOC_STACK;
	} else if (op == DW_OP_addr) {
		out->kind = DW_LOC_STACK;
		if ((size_t)(end - p) >= addr_size) {
			uint64_t a = 0;

			memcpy(&a, p, addr_size <= 8 ? addr_size : 8);
			out->addr = a;
			out->has_addr = true;
		}
	} else if (op == DW_OP_entry_value || op == DW_OP_GNU_entry_value) {
		uint64_t sub = dw_uleb(&p, end);

		out->kind = DW_LOC_OTHER;
		if (p < end && sub >= 1 && sub <= (uint64_t)(end - p)) {
			uint8_t sop = *p;

			if (sop >= DW_OP_reg0 && sop <= DW_OP_reg31) {
				out->kind = DW_LOC_ENTRY_VALUE;
				out->reg = sop - DW_OP_reg0;
			} else if (sop == DW_OP_regx) {
				const uint8_t *q = p + 1;

				out->kind = DW_LOC_ENTRY_VALUE;
				out->reg = (unsigned)dw_uleb(&q, p + sub);
			}
		}
	} else if (op == DW_OP_implicit_value || op == DW_OP_stack_value ||
		   (op >= DW_OP_lit0 && op <= DW_OP_lit31) ||
		   (op >= DW_OP_const1u && op <= DW_OP_consts)) {
		out->kind = DW_LOC_CONST;
	} else if (op == DW_OP_piece) {
		out->kind = DW_LOC_NONE;	/* leading piece with no location */
	} else {
		out->kind = DW_LOC_OTHER;
	}
	if (p > end)
		return -EINVAL;
	return 0;
}

/* Per-entry callback for the list walkers: return non-zero to stop. */
typedef int (*loc_visit_fn)(void *ctx, const struct dw_loc *l);

static int loclist5(const struct dw_file *f, const struct dw_unit *u, uint64_t off,
		    uint64_t entry_pc, struct dw_loc *out, struct diag *d, loc_visit_fn visit,
		    void *vctx)
{
	const uint8_t *p, *end;
	uint64_t base = u->low_pc;
	bool have_first = false;
	struct dw_loc first = { 0 };

	if (off >= f->s.loclists.len)
		return diag_err(d, EINVAL, "%s: .debug_loclists offset 0x%llx past the end", f->path,
				(unsigned long long)off);
	p = f->s.loclists.p + off;
	end = f->s.loclists.p + f->s.loclists.len;
	while (p < end) {
		uint8_t k = *p++;
		uint64_t lo = 0, hi = 0, a, b;
		bool has_range = true;
		struct dw_loc l;
		uint64_t elen;

		switch (k) {
		case DW_LLE_end_of_list:
			goto done;
		case DW_LLE_base_addressx:
			dw_uleb(&p, end);
			continue;	/* index into .debug_addr; ranges below only compared loosely */
		case DW_LLE_base_address:
			if ((size_t)(end - p) < u->addr_size)
				goto trunc;
			base = dw_uN(f, p, u->addr_size);
			p += u->addr_size;
			continue;
		case DW_LLE_startx_endx:
			dw_uleb(&p, end);
			dw_uleb(&p, end);
			has_range = false;
			break;
		case DW_LLE_startx_length:
			dw_uleb(&p, end);
			dw_uleb(&p, end);
			has_range = false;
			break;
		case DW_LLE_offset_pair:
			a = dw_uleb(&p, end);
			b = dw_uleb(&p, end);
			lo = base + a;
			hi = base + b;
			break;
		case DW_LLE_default_location:
			has_range = false;
			break;
		case DW_LLE_start_end:
			if ((size_t)(end - p) < 2u * u->addr_size)
				goto trunc;
			lo = dw_uN(f, p, u->addr_size);
			hi = dw_uN(f, p + u->addr_size, u->addr_size);
			p += 2 * u->addr_size;
			break;
		case DW_LLE_start_length:
			if ((size_t)(end - p) < u->addr_size)
				goto trunc;
			lo = dw_uN(f, p, u->addr_size);
			p += u->addr_size;
			hi = lo + dw_uleb(&p, end);
			break;
		case DW_LLE_GNU_view_pair:
			dw_uleb(&p, end);
			dw_uleb(&p, end);
			continue;
		default:
			return diag_err(d, EINVAL, "%s: .debug_loclists 0x%llx: unknown entry kind 0x%x",
					f->path, (unsigned long long)(p - 1 - f->s.loclists.p), k);
		}
		elen = dw_uleb(&p, end);
		if (p > end || elen > (uint64_t)(end - p))
			goto trunc;
		dw_expr_classify(p, (size_t)elen, u->addr_size, &l);
		p += elen;
		l.is_list = true;
		if (visit && visit(vctx, &l))
			return 0;
		if (!have_first) {
			first = l;
			have_first = true;
		}
		if (has_range && entry_pc && entry_pc >= lo && entry_pc < hi) {
			*out = l;
			return 0;
		}
	}
done:
	*out = first;
	out->is_list = true;
	if (!have_first)
		out->kind = DW_LOC_NONE;
	return 0;
trunc:
	return diag_err(d, EINVAL, "%s: .debug_loclists list at 0x%llx is truncated", f->path,
			(unsigned long long)off);
}

static int loclist4(const struct dw_file *f, const struct dw_unit *u, uint64_t off,
		    uint64_t entry_pc, struct dw_loc *out, struct diag *d, loc_visit_fn visit,
		    void *vctx)
{
	const uint8_t *p, *end;
	unsigned as = u->addr_size;
	uint64_t base = u->low_pc, maxaddr = as == 8 ? ~0ULL : (1ULL << (8 * as)) - 1;
	bool have_first = false;
	struct dw_loc first = { 0 };

	if (off >= f->s.loc.len)
		return diag_err(d, EINVAL, "%s: .debug_loc offset 0x%llx past the end", f->path,
				(unsigned long long)off);
	p = f->s.loc.p + off;
	end = f->s.loc.p + f->s.loc.len;
	for (;;) {
		uint64_t lo, hi, elen;
		struct dw_loc l;

		if ((size_t)(end - p) < 2u * as)
			goto trunc;
		lo = dw_uN(f, p, as);
		hi = dw_uN(f, p + as, as);
		p += 2 * as;
		if (!lo && !hi)
			break;
		if (lo == maxaddr) {
			base = hi;
			continue;
		}
		if (end - p < 2)
			goto trunc;
		elen = dw_u16(f, p);
		p += 2;
		if (elen > (uint64_t)(end - p))
			goto trunc;
		dw_expr_classify(p, (size_t)elen, (uint8_t)as, &l);
		p += elen;
		l.is_list = true;
		if (visit && visit(vctx, &l))
			return 0;
		if (!have_first) {
			first = l;
			have_first = true;
		}
		if (entry_pc && entry_pc >= base + lo && entry_pc < base + hi) {
			*out = l;
			return 0;
		}
	}
	*out = first;
	out->is_list = true;
	if (!have_first)
		out->kind = DW_LOC_NONE;
	return 0;
trunc:
	return diag_err(d, EINVAL, "%s: .debug_loc list at 0x%llx is truncated", f->path,
			(unsigned long long)off);
}

int dw_loc_classify(const struct dw_file *f, const struct dw_die *die, uint64_t entry_pc,
		    struct dw_loc *out, struct diag *d)
{
	const struct dw_attr *a = dw_attr(die, DW_AT_location);
	const struct dw_unit *u = die->unit;

	memset(out, 0, sizeof(*out));
	if (!a) {
		out->kind = DW_LOC_NONE;
		return 0;
	}
	if (die->off & DW_REF_ALT)
		f = f->alt;
	if (a->cls == DW_CL_BLOCK)
		return dw_expr_classify(a->blk, a->len, u->addr_size, out) ? diag_err(d, EINVAL,
			"%s: DIE 0x%llx: malformed location expression", f->path,
			(unsigned long long)DW_REF_OFF(die->off)) : 0;
	if (a->cls == DW_CL_SECOFF || a->cls == DW_CL_LISTX) {
		if (u->version >= 5)
			return loclist5(f, u, a->u, entry_pc, out, d, NULL, NULL);
		return loclist4(f, u, a->u, entry_pc, out, d, NULL, NULL);
	}
	if (a->cls == DW_CL_CONST && u->version < 4)	/* DWARF 2/3 loclistptr as data4/8 */
		return loclist4(f, u, a->u, entry_pc, out, d, NULL, NULL);
	out->kind = DW_LOC_OTHER;
	return 0;
}

struct reg_usage {
	unsigned expected;
	bool *exp, *other;
};

static int note_reg(void *ctx, const struct dw_loc *l)
{
	struct reg_usage *r = ctx;

	if (l->kind == DW_LOC_REG || l->kind == DW_LOC_ENTRY_VALUE) {
		if (l->reg == r->expected)
			*r->exp = true;
		else
			*r->other = true;
	}
	return 0;
}

int dw_loc_reg_usage(const struct dw_file *f, const struct dw_die *die, unsigned expected,
		     bool *uses_expected, bool *uses_other, struct diag *d)
{
	const struct dw_attr *a = dw_attr(die, DW_AT_location);
	const struct dw_unit *u = die->unit;
	struct reg_usage r = { expected, uses_expected, uses_other };
	struct dw_loc l;

	*uses_expected = *uses_other = false;
	if (!a)
		return 0;
	if (die->off & DW_REF_ALT)
		f = f->alt;
	if (a->cls == DW_CL_BLOCK) {
		if (dw_expr_classify(a->blk, a->len, u->addr_size, &l))
			return 0;
		note_reg(&r, &l);
		return 0;
	}
	if (a->cls == DW_CL_SECOFF || a->cls == DW_CL_LISTX)
		return u->version >= 5 ? loclist5(f, u, a->u, 0, &l, d, note_reg, &r)
				       : loclist4(f, u, a->u, 0, &l, d, note_reg, &r);
	if (a->cls == DW_CL_CONST && u->version < 4)
		return loclist4(f, u, a->u, 0, &l, d, note_reg, &r);
	return 0;
}

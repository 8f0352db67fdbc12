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

/*
 * Per-entry callback for the list walkers, with the entry's expression
 * (expr NULL: an entry kind libdw does not read, DW_LLE_GNU_view_pair):
 * return non-zero to stop.
 */
typedef int (*loc_visit_fn)(void *ctx, const uint8_t *expr, size_t len, const struct dw_loc *l);

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
			if (visit && visit(vctx, NULL, 0, NULL))
				return 0;
			continue;
		default:
			return diag_err(d, EINVAL, "%s: .debug_loclists 0x%llx: unknown entry kind 0x%x",
					f->path, (unsigned long long)(p - 1 - f->s.loclists.p), k);
		}
		elen = dw_uleb(&p, end);
		if (p > end || elen > (uint64_t)(end - p))
			goto trunc;
		dw_expr_classify(p, (size_t)elen, u->addr_size, &l);
		l.is_list = true;
		if (visit && visit(vctx, p, (size_t)elen, &l))
			return 0;
		p += elen;
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

/*
 * GNU's split DWARF 4 lists (.debug_loc.dwo): a kind byte, address
 * indexes into the skeleton's .debug_addr, a 2-byte expression length.
 * Their ranges are not compared (as DWARF 5's indexed ones in loclist5):
 * the first entry stands for the list.
 */
static int loclist_gnu_dwo(const struct dw_file *f, const struct dw_unit *u, const uint8_t *p,
			   const uint8_t *end, uint64_t off, struct dw_loc *out, struct diag *d,
			   loc_visit_fn visit, void *vctx)
{
	bool have_first = false;
	struct dw_loc first = { 0 };

	while (p < end) {
		uint8_t k = *p++;
		uint64_t elen;
		struct dw_loc l;

		switch (k) {
		case 0:		/* DW_LLE_GNU_end_of_list_entry */
			goto done;
		case 1:		/* base_address_selection: an index */
			dw_uleb(&p, end);
			continue;
		case 2:		/* start_end: two indexes */
			dw_uleb(&p, end);
			dw_uleb(&p, end);
			break;
		case 3:		/* start_length: an index and a 4-byte length */
			dw_uleb(&p, end);
			if (p > end || end - p < 4)
				goto trunc;
			p += 4;
			break;
		default:
			return diag_err(d, EINVAL, "%s: .debug_loc.dwo 0x%llx: unknown entry kind 0x%x",
					f->path, (unsigned long long)(p - 1 - f->s.loc.p), k);
		}
		if (p > end || end - p < 2)
			goto trunc;
		elen = dw_u16(f, p);
		p += 2;
		if (elen > (uint64_t)(end - p))
			goto trunc;
		dw_expr_classify(p, (size_t)elen, u->addr_size, &l);
		l.is_list = true;
		if (visit && visit(vctx, p, (size_t)elen, &l))
			return 0;
		p += elen;
		if (!have_first) {
			first = l;
			have_first = true;
		}
	}
done:
	*out = first;
	out->is_list = true;
	if (!have_first)
		out->kind = DW_LOC_NONE;
	return 0;
trunc:
	return diag_err(d, EINVAL, "%s: .debug_loc.dwo list at 0x%llx is truncated", f->path,
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
	if (u->split)
		return loclist_gnu_dwo(f, u, p, end, off, out, d, visit, vctx);
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
		l.is_list = true;
		if (visit && visit(vctx, p, (size_t)elen, &l))
			return 0;
		p += elen;
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
		uint64_t off = a->u + (a->cls == DW_CL_SECOFF ? u->loc_base : 0);

		if (u->version >= 5)
			return loclist5(f, u, off, entry_pc, out, d, NULL, NULL);
		return loclist4(f, u, off, entry_pc, out, d, NULL, NULL);
	}
	if (a->cls == DW_CL_CONST && u->version < 4)	/* DWARF 2/3 loclistptr as data4/8 */
		return loclist4(f, u, a->u, entry_pc, out, d, NULL, NULL);
	out->kind = DW_LOC_OTHER;
	return 0;
}

/*
 * The length of the DWARF operation at p (opcode and operands), or 0 when
 * libdw would not read it (an opcode it does not know, operands cut off).
 */
static size_t op_len(const uint8_t *p, const uint8_t *end, const struct dw_unit *u)
{
	enum { BAD, NONE, FIX1, FIX2, FIX4, FIX8, ADDR, OFFS, LEB, LEB2, BLOCK, IMPLPTR,
	       CONSTTYPE, DEREFTYPE };
	const uint8_t *q = p + 1;
	uint8_t op = *p;
	size_t n = 0;
	int k;

	if (op >= 0x30 && op <= 0x6f)		/* lit0-31, reg0-31 */
		k = NONE;
	else if (op >= 0x70 && op <= 0x8f)	/* breg0-31 */
		k = LEB;
	else if (op >= 0x12 && op <= 0x2e)	/* stack and arithmetic; pick, plus_uconst, bra */
		k = op == 0x15 ? FIX1 : op == 0x23 ? LEB : op == 0x28 ? FIX2 : NONE;
	else
		switch (op) {
		case 0x03: k = ADDR; break;
		case 0x06: case 0x96: case 0x97: case 0x9b: case 0x9c: case 0x9f: case 0xe0:
		case 0xf0:
			k = NONE; break;
		case 0x08: case 0x09: case 0x94: case 0x95: k = FIX1; break;
		case 0x0a: case 0x0b: case 0x2f: case 0x98: k = FIX2; break;
		case 0x0c: case 0x0d: case 0x99: case 0xfa: k = FIX4; break;
		case 0x0e: case 0x0f: k = FIX8; break;
		case 0x9a: case 0xfd: k = OFFS; break;
		case 0x10: case 0x11: case 0x90: case 0x91: case 0x93: case 0xa1: case 0xa2:
		case 0xa8: case 0xa9: case 0xf7: case 0xf9: case 0xfb: case 0xfc:
			k = LEB; break;
		case 0x92: case 0x9d: case 0xa5: case 0xf5: k = LEB2; break;
		case 0x9e: case 0xa3: case 0xf3: k = BLOCK; break;
		case 0xa0: case 0xf2: k = IMPLPTR; break;
		case 0xa4: case 0xf4: k = CONSTTYPE; break;
		case 0xa6: case 0xa7: case 0xf6: k = DEREFTYPE; break;
		default: k = BAD; break;
		}
	switch (k) {
	case BAD: return 0;
	case FIX1: n = 1; break;
	case FIX2: n = 2; break;
	case FIX4: n = 4; break;
	case FIX8: n = 8; break;
	case ADDR: n = u->addr_size; break;
	case OFFS: n = u->offset_size; break;
	case LEB2: dw_uleb(&q, end); /* fall through */
	case LEB: dw_uleb(&q, end); break;
	case BLOCK: n = (size_t)dw_uleb(&q, end); break;
	case IMPLPTR:
		q += u->offset_size;
		if (q <= end)
			dw_uleb(&q, end);
		break;
	case CONSTTYPE:
		dw_uleb(&q, end);
		if (q < end)
			n = (size_t)*q++;
		break;
	case DEREFTYPE:
		q++;
		if (q <= end)
			dw_uleb(&q, end);
		break;
	default: break;
	}
	if (q > end || n > (size_t)(end - q))
		return 0;
	return (size_t)(q - p) + n;
}

/*
 * How many operations libdw reads from an expression, with the offset of
 * the last one; -1 when it would refuse the expression.
 */
static int expr_ops(const uint8_t *p, size_t len, const struct dw_unit *u, size_t *last)
{
	const uint8_t *s = p, *end = p + len;
	int n = 0;

	while (p < end) {
		size_t l = op_len(p, end, u);

		if (!l)
			return -1;
		*last = (size_t)(p - s);
		p += l;
		n++;
	}
	return n;
}

struct entry_reg {
	const struct dw_unit *u;
	int expected, found, nloc;
};

/* One location of the parameter: the body of pahole's parameter__reg loop. */
static int entry_reg_visit(void *ctx, const uint8_t *expr, size_t len, const struct dw_loc *l)
{
	struct entry_reg *r = ctx;
	size_t last = 0, sub;
	const uint8_t *q;
	int n;

	(void)l;
	if (!expr || (n = expr_ops(expr, len, r->u, &last)) < 0)
		return 1;	/* libdw ends the walk with an error */
	r->nloc++;
	if (n > 1 && expr[last] == DW_OP_stack_value)
		n--;
	if (n != 1)
		return 0;
	if (expr[0] >= DW_OP_reg0 && expr[0] <= DW_OP_reg31) {
		if (r->nloc != 1)	/* a register counts in the first location only */
			return 0;
		r->found = expr[0];
	} else if (expr[0] == DW_OP_entry_value || expr[0] == DW_OP_GNU_entry_value) {
		q = expr + 1;
		sub = (size_t)dw_uleb(&q, expr + len);
		if (!sub || q + sub > expr + len || expr_ops(q, sub, r->u, &last) != 1)
			return 0;
		r->found = *q;
	} else {
		return 0;
	}
	return r->found == r->expected;
}

int dw_param_entry_op(const struct dw_file *f, const struct dw_die *die, int expected)
{
	const struct dw_attr *a = dw_attr(die, DW_AT_location);
	const struct dw_unit *u = die->unit;
	struct entry_reg r = { u, expected, -1, 0 };
	struct dw_loc l;
	struct diag d;

	if (!a)
		return -1;
	if (die->off & DW_REF_ALT)
		f = f->alt;
	diag_clear(&d);
	if (a->cls == DW_CL_BLOCK)
		entry_reg_visit(&r, a->blk, a->len, NULL);
	else if (a->cls == DW_CL_SECOFF || a->cls == DW_CL_LISTX) {
		uint64_t off = a->u + (a->cls == DW_CL_SECOFF ? u->loc_base : 0);

		u->version >= 5 ? loclist5(f, u, off, 0, &l, &d, entry_reg_visit, &r)
				: loclist4(f, u, off, 0, &l, &d, entry_reg_visit, &r);
	}
	else if (a->cls == DW_CL_CONST && u->version < 4)
		loclist4(f, u, a->u, 0, &l, &d, entry_reg_visit, &r);
	return r.found;
}

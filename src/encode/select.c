// SPDX-License-Identifier: GPL-2.0-only
/*
 * Which of a unit's functions and variables are kept, per pahole version
 * (docs/pahole-policies.md): the candidates met in the walk, the flags
 * pahole 1.30/1.31 judge each instance by, and the variables.  What
 * depends on all units (prototype checks, ambiguous addresses) is
 * policy.c's.
 */
#include <stdlib.h>
#include <string.h>

#include "base/mem.h"
#include "encode/worker.h"

/* Could this subprogram be kept?  (The parameter-name rule comes later.) */
bool enc_func_candidate(struct enc_worker *w, struct ir_func *f)
{
	const struct enc_syms *sy = w->ctx->syms;
	const struct enc_opts *o = w->ctx->o;
	bool exact;

	f->suffix_only = false;
	if (f->declaration || !f->name)
		return false;
	if (o->compat != ENC_COMPAT_124) {
		/* no function symbols at all: pahole 1.30+ encodes no function */
		if (!policy_func_match(sy, o, f->name, &exact, &f->elf_name))
			return false;
		f->suffix_only = !exact;
		f->kfunc_ok = o->compat == ENC_COMPAT_131 || exact;
		return true;
	}
	if (!sy->have_funcs)
		return f->external;
	return strset_find(&sy->funcs, f->name, strlen(f->name)) >= 0;
}

/*
 * 1.30+: a concrete instance (an out-of-line copy of an inline function,
 * a GCC clone) has no name of its own: pahole takes its origin's, and
 * its origin's return type when it has none, and judges it beside the
 * other instances.
 */
void enc_func_from_origin(struct enc_worker *w, const struct dw_die *die, struct ir_func *f)
{
	struct dw_file *dw = w->ctx->in->dw;
	uint64_t ao = dw_ref(dw, die, DW_AT_abstract_origin), ref = ao;
	struct diag d;
	int hop;

	if (!ref)
		ref = dw_ref(dw, die, DW_AT_specification);
	for (hop = 0; ref && hop < 2 && !f->name; hop++) {
		diag_clear(&d);
		if (enc_die_at(w, ref, &w->die2, &d))
			return;
		f->name = dw_name(&w->die2);
		if (hop == 0 && ao && !f->ret)
			f->ret = enc_ref(w, &w->die2, DW_AT_type);
		ref = dw_ref(dw, &w->die2, DW_AT_abstract_origin);
		if (!ref)
			ref = dw_ref(dw, &w->die2, DW_AT_specification);
	}
}

/*
 * 1.30+: a parameter of a concrete instance takes its origin's name and
 * type when it has no type of its own; one in a register other than the
 * calling convention's (pahole's "unexpected register") is marked, and
 * counts against its origin too.
 */
int enc_param_modern(struct enc_worker *w, struct ir_child *c, const struct dw_die *die,
			uint32_t idx)
{
	const struct enc_syms *sy = w->ctx->syms;
	struct dw_file *dw = w->ctx->in->dw;
	uint64_t ao = c->ref ? 0 : dw_ref(dw, die, DW_AT_abstract_origin);
	int exp = -1, got = -1;

	if (idx < sy->nparam_regs && (exp = sy->param_ops[idx]) >= 0) {
		const struct dw_attr *loc = dw_attr(die, DW_AT_location);

		if (loc && loc->cls == DW_CL_SECOFF && loc->u < w->frag->loc_min)
			w->frag->loc_min = loc->u;	/* consume_one() gives the pages back */
		got = loc ? dw_param_entry_op(dw, die, exp) : -1;
	}
	if (got >= 0 && got != exp) {
		c->unexp = true;
		if (ao) {
			if (VEC_RESERVE(w->unexp_origins, w->unexp_cap, w->nunexp + 1))
				return -ENOMEM;
			w->unexp_origins[w->nunexp++] = ao;
		}
	}
	if (ao) {
		struct diag d;

		diag_clear(&d);
		if (!enc_die_at(w, ao, &w->die2, &d)) {
			c->name = dw_name(&w->die2);
			c->ref = enc_ref(w, &w->die2, DW_AT_type);
		}
	}
	return 0;
}

/*
 * Function candidates.  pahole 1.24: a definition with every parameter
 * named whose name is an ELF function symbol; "first one wins" is applied
 * at merge.  Modern (pahole 1.31): the symbol table is keyed by the name
 * before the first '.', so foo also matches foo.isra.0.
 */
void enc_select_funcs(struct enc_worker *w)
{
	size_t i;

	/* The name rules were applied at the DIE (func_candidate); add the parameter rule. */
	for (i = 0; i < w->nfuncs; i++)
		w->funcs[i].keep = w->funcs[i].candidate && w->funcs[i].named_params;
}

/* ---- 1.30/1.31: what pahole finds wrong with an instance ---- */

/* The IR type at local id, or NULL (void, or out of range). */
static const struct ir_type *ir_at(const struct enc_worker *w, uint32_t id)
{
	return id && id <= w->ntypes ? &w->types[id - 1] : NULL;
}

/* pahole's tag__strip_typedefs_and_modifiers() of what id refers to. */
static uint32_t strip_mods(const struct enc_worker *w, uint32_t id)
{
	const struct ir_type *t;
	int guard;

	for (guard = 0; (t = ir_at(w, id)) && guard < 64; guard++) {
		if (t->kind != IR_TYPEDEF && t->kind != IR_CONST && t->kind != IR_VOLATILE &&
		    t->kind != IR_RESTRICT && t->kind != IR_TYPE_TAG)
			break;
		id = t->ref_id;
	}
	return id;
}

/* pahole's tag__size(): bytes of the type at id (0: none, or an empty struct). */
uint64_t enc_ir_size(const struct enc_worker *w, uint32_t id, int depth)
{
	const struct ir_type *t = ir_at(w, strip_mods(w, id));
	const struct ir_child *k;
	uint64_t n = 1, i;

	if (!t || depth > 32)
		return 0;
	switch ((enum ir_kind)t->kind) {
	case IR_PTR: case IR_PROTO:
		return w->unit->addr_size;
	case IR_STRUCT: case IR_UNION:
		return t->size == 1 && !t->n ? 0 : t->size;
	case IR_ARRAY:
		k = w->grouped + t->first;
		for (i = 0; i < t->n; i++)
			if (k[i].kind == CH_DIM)
				n *= (uint64_t)k[i].value;
		return enc_ir_size(w, t->ref_id, depth + 1) * n;
	case IR_FWD:
		return 0;
	case IR_INT: case IR_FLOAT: case IR_CONST: case IR_VOLATILE: case IR_RESTRICT:
	case IR_TYPEDEF: case IR_ENUM: case IR_TYPE_TAG:
	default:
		return t->size;
	}
}

/* pahole's tag__natural_alignment(). */
static uint64_t natural_align(const struct enc_worker *w, uint32_t id, int depth)
{
	const struct ir_type *t = ir_at(w, id);
	uint64_t a = 1, m, i;
	const struct ir_child *k;

	if (!t || depth > 32)
		return 1;
	switch ((enum ir_kind)t->kind) {
	case IR_PTR:
		a = w->unit->addr_size;
		break;
	case IR_INT: case IR_FLOAT: case IR_ENUM:
		a = t->size;
		break;
	case IR_STRUCT: case IR_UNION:
		k = w->grouped + t->first;
		for (a = 0, i = 0; i < t->n; i++)
			if (k[i].kind == CH_MEMBER &&
			    (m = natural_align(w, strip_mods(w, k[i].ref_id), depth + 1)) > a)
				a = m;
		break;
	case IR_ARRAY:
		a = natural_align(w, strip_mods(w, t->ref_id), depth + 1);
		break;
	case IR_CONST: case IR_VOLATILE: case IR_RESTRICT: case IR_TYPEDEF: case IR_FWD:
	case IR_PROTO: case IR_TYPE_TAG:
	default:
		break;
	}
	return a ? a : 1;
}

/* A member as pahole's class__find_holes() sees it. */
struct pmember {
	uint64_t bit_offset, byte_offset, byte_size;
	uint32_t bitfield_size;
};

static void pmember_of(const struct enc_worker *w, const struct ir_child *c, struct pmember *m)
{
	m->bit_offset = c->bit_offset;
	m->bitfield_size = c->bit_size;
	m->byte_size = enc_ir_size(w, c->ref_id, 0);
	m->byte_offset = c->bit_offset / 8;
	if (c->bit_size && m->byte_size)	/* the storage unit's offset */
		m->byte_offset = c->bit_offset / (m->byte_size * 8) * (m->byte_size * 8) / 8;
}

/* Does pahole (class__find_holes) find a hole or padding in struct t? */
static bool has_holes(const struct enc_worker *w, const struct ir_type *t)
{
	const struct ir_child *k = w->grouped + t->first;
	uint64_t cur_end = t->size * 8, cur_size = 0, last_seen = 0;
	bool in_bitfield = false;
	uint32_t i;

	for (i = 0; i < t->n; i++) {
		struct pmember m;
		uint64_t start, end;

		if (k[i].kind != CH_MEMBER)
			continue;
		pmember_of(w, &k[i], &m);
		start = m.bit_offset;
		end = start + (m.bitfield_size ? m.bitfield_size : m.byte_size * 8);
		if (in_bitfield)
			last_seen = start < cur_end ? start : cur_end;
		if (m.bitfield_size) {
			uint64_t aligned = m.byte_offset * 8;

			if (last_seen < aligned && aligned <= start) {
				if (m.byte_offset > last_seen / 8)
					return true;
				last_seen = aligned;
			}
		} else if ((int64_t)(start / 8) - (int64_t)(last_seen / 8) > 0) {
			return true;
		}
		last_seen = end;
		if (m.bitfield_size) {
			in_bitfield = true;
			if (end > cur_end || m.byte_size * 8 > cur_size) {
				cur_size = m.byte_size * 8;
				cur_end = m.byte_offset * 8 + cur_size;
				if (end > cur_end)
					cur_end += cur_size;
			}
		} else {
			in_bitfield = false;
			cur_size = 0;
			cur_end = end;
		}
	}
	if (in_bitfield)
		last_seen = t->size * 8 < cur_end ? t->size * 8 : cur_end;
	return t->size != last_seen / 8;
}

/*
 * pahole's class__infer_packed_attributes() for struct id, with its state
 * across types of the unit: a struct with holes or padding marks the
 * structs it holds at unnatural offsets packed.
 */
static int infer_packed(struct enc_worker *w, uint32_t id)
{
	const struct ir_type *t = ir_at(w, id);
	const struct ir_child *k;
	uint64_t al, max_al = 1, i;
	bool packed = false;

	if (!t || t->kind != IR_STRUCT)
		return 0;
	if (w->packed_n < w->ntypes + 1) {
		if (VEC_RESERVE(w->packed, w->packed_cap, w->ntypes + 1))
			return -ENOMEM;
		memset(w->packed + w->packed_n, 0, w->ntypes + 1 - w->packed_n);
		w->packed_n = w->ntypes + 1;
	}
	if (w->packed[id])
		return w->packed[id] == 2;
	k = w->grouped + t->first;
	if (has_holes(w, t)) {
		for (i = 0; i < t->n; i++) {
			struct pmember m;
			uint32_t mt = strip_mods(w, k[i].ref_id);
			const struct ir_type *mty = ir_at(w, mt);

			if (k[i].kind != CH_MEMBER || !mty || mty->kind != IR_STRUCT)
				continue;
			pmember_of(w, &k[i], &m);
			if (m.byte_offset % natural_align(w, mt, 0))
				w->packed[mt] = 2;
		}
	} else {
		for (i = 0; i < t->n && !packed; i++) {
			struct pmember m;

			if (k[i].kind != CH_MEMBER)
				continue;
			al = natural_align(w, strip_mods(w, k[i].ref_id), 0);
			if (al == 1)
				continue;
			if (al > max_al)
				max_al = al;
			pmember_of(w, &k[i], &m);
			packed = m.byte_offset % al != 0;
		}
		if (!packed) {
			uint64_t align = 0;
			struct diag d;

			/* DW_AT_alignment of the struct: packed if 1 while members need more */
			diag_clear(&d);
			if (max_al != 1 && !enc_die_at(w, t->die, &w->die2, &d))
				dw_udata(&w->die2, DW_AT_alignment, &align);
			packed = (max_al != 1 && align == 1) || t->size % max_al != 0;
		}
	}
	w->packed[id] = packed ? 2 : 1;
	return packed;
}

/* pahole's param__is_struct(): through const and typedefs to a struct. */
static bool param_is_struct(const struct enc_worker *w, uint32_t id)
{
	const struct ir_type *t;
	int guard;

	for (guard = 0; (t = ir_at(w, id)) && guard < 64; guard++) {
		if (t->kind == IR_CONST || t->kind == IR_TYPEDEF) {
			id = t->ref_id;
			continue;
		}
		return t->kind == IR_STRUCT || (t->kind == IR_FWD && !t->fwd_union);
	}
	return false;
}

static bool unexp_origin(const struct enc_worker *w, uint64_t die)
{
	size_t lo = 0, hi = w->nunexp;

	while (lo < hi) {
		size_t mid = (lo + hi) / 2;

		if (w->unexp_origins[mid] == die)
			return true;
		if (w->unexp_origins[mid] < die)
			lo = mid + 1;
		else
			hi = mid;
	}
	return false;
}

/*
 * An instance's flags.  Unexpected register: a parameter (or, through
 * DW_AT_abstract_origin, one of its concrete copies) in another register
 * than the ABI's, unless some parameter is a struct (several registers
 * throw the count off).  1.31's uncertain location: a named struct passed
 * on the stack (beyond the register parameters) that pahole infers is
 * packed.
 */
void enc_func_flags(struct enc_worker *w, const struct ir_func *f, struct frag_func *ff)
{
	const struct ir_child *k = w->grouped + f->first;
	unsigned nregs = w->ctx->syms->nparam_regs;
	bool unexp = false, has_struct = false;
	uint32_t i, np = 0, idx = 0;

	for (i = 0; i < f->n; i++) {
		if (k[i].kind != CH_PARAM)
			continue;
		np++;
		unexp |= k[i].unexp || (w->nunexp && unexp_origin(w, k[i].die));
		has_struct |= param_is_struct(w, k[i].ref_id);
	}
	ff->unexpected_reg = unexp && !has_struct;
	if (w->ctx->o->compat != ENC_COMPAT_131 || np < nregs)
		return;
	for (i = 0; i < f->n && !ff->uncertain_loc; i++) {
		const struct ir_type *t;

		if (k[i].kind != CH_PARAM || idx++ < nregs)
			continue;
		t = ir_at(w, k[i].ref_id);
		if (t && t->kind == IR_STRUCT && t->name)
			ff->uncertain_loc = infer_packed(w, k[i].ref_id) > 0;
	}
}

static const struct percpu_sym *percpu_find(const struct enc_syms *sy, uint64_t addr)
{
	size_t lo = 0, hi = sy->npercpu;

	while (lo < hi) {
		size_t mid = (lo + hi) / 2;

		if (sy->percpu[mid].addr < addr)
			lo = mid + 1;
		else
			hi = mid;
	}
	return lo < sy->npercpu && sy->percpu[lo].addr == addr ? &sy->percpu[lo] : NULL;
}

/*
 * Per-CPU variables (pahole 1.24 rules): a top-level variable at an address
 * of a sized STT_OBJECT symbol of .data..percpu, named like the symbol when
 * at address 0; type and linkage from its declaration when it has one.
 * Runs before grouping, since resolving the type may import DIEs.
 */
static int select_vars_modern(struct enc_worker *w);

int enc_select_vars(struct enc_worker *w)
{
	const struct enc_syms *sy = w->ctx->syms;
	struct dw_die *spec = NULL;
	size_t i;
	int err = 0;

	if (w->ctx->o->compat != ENC_COMPAT_124)
		return select_vars_modern(w);
	if (!w->ctx->o->vars || !sy->have_percpu)
		return 0;
	for (i = 0; i < w->nvars; i++) {
		struct ir_var *v = &w->vars[i];
		const struct percpu_sym *ps;

		v->ps = NULL;
		if ((v->declaration && !v->spec) || !v->has_addr)
			continue;
		v->addr -= sy->percpu_base;
		if (!(ps = percpu_find(sy, v->addr)))
			continue;
		/*
		 * Address 0 of a linked image is also where "special" variables
		 * sit: there the DIE's own name must agree (pahole 1.24).  In
		 * ET_REL files pahole's addresses (libdwfl's section layout)
		 * are not 0, so the check does not apply.
		 */
		if (!v->addr && !w->ctx->syms->is_rel && (!v->name || strcmp(v->name, ps->name)))
			continue;
		if (v->spec) {
			/* A definition of a declared variable: type and linkage are the
			 * declaration's. */
			if (!spec && !(spec = mem_alloc(sizeof(*spec)))) {
				err = -ENOMEM;
				break;
			}
			if ((err = enc_die_at(w, v->spec, spec, w->d)))
				break;
			v->type = enc_ref(w, spec, DW_AT_type);
			v->external = dw_flag(spec, DW_AT_external);
		}
		if (!v->type) {
			if (w->ctx->o->force) {
				enc_note(w, "variable '%s' has void type, skipped", ps->name);
				continue;
			}
			err = diag_err(w->d, EINVAL,
				       "%s: DIE 0x%llx: per-CPU variable '%s' has void type (use --force to skip it)",
				       dw_file_path(w->ctx->in->dw),
				       (unsigned long long)DW_REF_OFF(v->die), ps->name);
			break;
		}
		if ((err = enc_resolve(w, v->type, &v->type_id)))
			break;
		v->ps = ps;
	}
	mem_free(spec);
	return err;
}

/*
 * Variables (pahole 1.30/1.31): each top-level, non-artificial definition
 * whose location is an address in a kept section (.data..percpu; every
 * PROGBITS/NOBITS section with global_vars), named and typed by its
 * declaration when it has one.  Its type's size is checked in
 * emit_vars(), once types are grouped.
 */
static int select_vars_modern(struct enc_worker *w)
{
	const struct enc_syms *sy = w->ctx->syms;
	const struct enc_opts *o = w->ctx->o;
	struct dw_file *dw = w->ctx->in->dw;
	size_t i;
	int err;

	for (i = 0; i < w->nvars; i++) {
		struct ir_var *v = &w->vars[i];
		const struct var_sec *sec;
		uint64_t off;

		v->sec = NULL;
		if (v->declaration || v->artificial || !v->addr_first ||
		    !(sec = policy_var_sec(sy, v->addr)) || !sec->include)
			continue;
		off = v->addr - sec->addr;
		if (v->spec) {
			struct diag d;

			diag_clear(&d);
			if ((err = enc_die_at(w, v->spec, &w->die2, &d))) {
				*w->d = d;
				return err;
			}
			v->name = dw_name(&w->die2);
			v->type = enc_ref(w, &w->die2, DW_AT_type);
			v->external = dw_flag(&w->die2, DW_AT_external);
		}
		if (!v->name || policy_var_name_skipped(v->name))
			continue;
		/* address 0 may be a discarded section's: the symbol table must agree */
		if (!off && !policy_obj_in_sec(sy, v->name, sec->idx))
			continue;
		if (!policy_name_valid(v->name)) {
			if (o->force) {
				enc_note(w, "variable '%s': not a valid BTF name, skipped", v->name);
				continue;
			}
			return diag_err(w->d, EINVAL,
					"%s: DIE 0x%llx: variable name '%s' is not a valid BTF name (encode_force skips it)",
					dw_file_path(dw), (unsigned long long)DW_REF_OFF(v->die), v->name);
		}
		if (!v->type) {
			if (o->force) {
				enc_note(w, "variable '%s' has void type, skipped", v->name);
				continue;
			}
			return diag_err(w->d, EINVAL,
					"%s: DIE 0x%llx: variable '%s' has void type (encode_force skips it)",
					dw_file_path(dw), (unsigned long long)DW_REF_OFF(v->die), v->name);
		}
		if ((err = enc_resolve(w, v->type, &v->type_id)))
			return err;
		v->addr = off;
		v->sec = sec;
	}
	return 0;
}

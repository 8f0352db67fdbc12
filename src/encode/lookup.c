// SPDX-License-Identifier: GPL-2.0-only
/*
 * The struct view's DWARF path (encode.h): `pahole -F dwarf -C TYPE FILE`
 * loads units one at a time and stops at the first that defines TYPE, so
 * it reads a unit or two of a kernel image, not all 2,400.  The same
 * here: units are indexed lazily (dw_file_open_lazy), walked for a
 * definition of the name, and only that unit is converted, alone: no
 * symbols, no functions or variables, no merge, no dedup.
 */
#include "base/mem.h"
#include "encode/internal.h"

/* The kinds pahole's cu__find_type_by_name takes (tag__is_type). */
static bool named_type_tag(void *ctx, unsigned tag, int depth)
{
	(void)ctx;
	(void)depth;
	return tag == DW_TAG_structure_type || tag == DW_TAG_union_type ||
	       tag == DW_TAG_class_type || tag == DW_TAG_interface_type ||
	       tag == DW_TAG_typedef || tag == DW_TAG_enumeration_type ||
	       tag == DW_TAG_rvalue_reference_type;
}

/* 1: unit u defines name; 0: it does not; <0: error. */
static int unit_defines(const struct dw_file *f, const struct dw_unit *u, const char *name,
			struct dw_die *die, struct diag *d)
{
	struct dw_cursor c;
	int r;

	if ((r = dw_cursor_init(&c, f, u, d)))
		return r;
	while ((r = dw_next_sel(&c, die, named_type_tag, NULL)) > 0) {
		const char *n;

		if (!die->nattr || !named_type_tag(NULL, die->tag, 0))
			continue;
		n = dw_name(die);
		if (n && !strcmp(n, name) && !dw_flag(die, DW_AT_declaration))
			return 1;
	}
	return r;
}

int enc_find_type_unit(struct dwarf_input *in, const char *name, size_t from, size_t *unit,
		       struct diag *d)
{
	struct dw_die *die = mem_alloc(sizeof(*die));
	size_t i, step = 1;
	int r = 0;

	if (!die)
		return diag_err(d, ENOMEM, "out of memory");
	for (i = from;; i++) {
		const struct dw_unit *u;

		/* lazily: one unit, then more at a time as the search goes on */
		while (i >= dw_nunits(in->dw)) {
			if ((r = dw_file_index_more(in->dw, step, d)) < 0)
				goto out;
			if (!r) {
				r = -ENOENT;
				goto out;
			}
			step = MIN(step * 2, (size_t)64);
		}
		u = dw_unit_at(in->dw, i);
		/* what pahole walks: compile units (type and partial units by reference) */
		if (u->bad || u->in_types || u->unit_type == DW_UT_type ||
		    u->unit_type == DW_UT_split_type || u->unit_type == DW_UT_partial)
			continue;
		if ((r = unit_defines(in->dw, u, name, die, d)) < 0)
			goto out;
		if (r) {
			*unit = i;
			r = 0;
			goto out;
		}
	}
out:
	mem_free(die);
	return r;
}

int btf_encode_unit(struct dwarf_input *in, size_t i, const struct enc_opts *o, struct btf **out,
		    struct diag *d)
{
	struct enc_opts uo = *o;
	struct enc_syms sy;
	struct enc_ctx ctx;
	struct cu_frag f;
	struct enc_worker *w = NULL;
	struct enc_builder b;
	uint32_t *p;
	size_t nw;
	int err;

	*out = NULL;
	memset(&sy, 0, sizeof(sy));
	memset(&ctx, 0, sizeof(ctx));
	memset(&f, 0, sizeof(f));
	/* types only: no function is a candidate (an empty symbol table), no variables */
	uo.compat = ENC_COMPAT_124;
	uo.vars = false;
	uo.decl_tag_kfuncs = false;
	uo.jobs = 1;
	sy.have_funcs = true;
	err = encb_init(&b, NULL);
	if (err || strset_init(&sy.funcs, false) || !(w = enc_worker_new())) {
		err = diag_err(d, ENOMEM, "out of memory");
		goto out;
	}
	ctx.o = &uo;
	ctx.in = in;
	ctx.syms = &sy;
	ctx.out = &b;
	err = enc_convert_unit(&ctx, w, i, &f);
	if (f.notes && f.notes_len && uo.log) {
		char *line = f.notes, *nl;

		for (; (nl = strchr(line, '\n')); line = nl + 1) {
			*nl = 0;
			uo.log(uo.log_ctx, line);
		}
	}
	if (err) {
		*d = f.diag;
		goto out;
	}
	if (f.skipped || !f.ntypes) {
		err = diag_err(d, ENODATA, "%s: unit %zu: no types to read", belf_path(in->elf), i);
		goto out;
	}
	/* local ids 1..ntypes are b's own ids: b is empty and has no base */
	nw = f.ntypes < f.nrecs ? f.recs[f.ntypes] : f.nwords;
	if ((err = encb_add_raw_n(&b, f.words, nw, f.recs, f.ntypes, &p)) < 0) {
		err = diag_err(d, -err, "%s: unit %zu: %s", belf_path(in->elf), i,
			       encb_error(&b) ? encb_error(&b)->msg : strerror(-err));
		goto out;
	}
	err = encb_finish(&b, belf_big_endian(in->elf) ? BTF_BIG_ENDIAN : BTF_LITTLE_ENDIAN, out, d);
out:
	cu_frag_free(&f);
	enc_worker_free(w);
	strset_free(&sy.funcs);
	encb_free(&b);
	return err;
}

// SPDX-License-Identifier: GPL-2.0-only
/*
 * The encoder pipeline: ELF facts, per-unit fragments in parallel, merge in
 * unit order with the function and variable policy, DATASEC, dedup.
 */
#include <elf.h>
#include <stdio.h>
#include <stdlib.h>
#include <time.h>

#include "base/mem.h"
#include "base/pool.h"
#include "btf/dedup.h"
#include "encode/internal.h"

#define PERCPU_SECTION ".data..percpu"

static const uint32_t default_lang_exclude[] = { 0 };

void enc_opts_default(struct enc_opts *o)
{
	memset(o, 0, sizeof(*o));
	o->compat = ENC_COMPAT_124;
	o->enum64 = true;
	o->vars = true;
	o->decl_tags = true;
	o->type_tags = true;
	o->jobs = 1;
	o->lang_exclude = default_lang_exclude;
}

static double now(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (double)ts.tv_sec + (double)ts.tv_nsec / 1e9;
}

static int cmp_percpu(const void *a, const void *b)
{
	const struct percpu_sym *x = a, *y = b;

	if (x->addr != y->addr)
		return x->addr < y->addr ? -1 : 1;
	/* Aliases at one address: keep symbol-table order (stable below). */
	return x->name < y->name ? -1 : x->name > y->name;
}

static int syms_load(struct enc_syms *sy, struct belf *e, struct diag *d)
{
	size_t i, n, pidx = belf_find(e, PERCPU_SECTION), cap = 0;
	int err;

	memset(sy, 0, sizeof(*sy));
	if ((err = strset_init(&sy->funcs, false)))
		return diag_err(d, ENOMEM, "out of memory");
	if ((err = belf_load_syms(e, d)))
		return err;
	n = belf_nsyms(e);
	if (pidx) {
		sy->have_percpu = true;
		if (belf_type(e) != ET_REL)
			sy->percpu_base = belf_section(e, pidx)->addr;
	}
	for (i = 0; i < n; i++) {
		const struct belf_sym *s = belf_sym(e, i);

		if (s->type == STT_FUNC && s->name[0]) {
			if (strset_add(&sy->funcs, s->name, strlen(s->name)) < 0)
				return diag_err(d, ENOMEM, "out of memory");
			sy->have_funcs = true;
		} else if (pidx && s->type == STT_OBJECT && s->shndx == pidx && s->size) {
			if (VEC_RESERVE(sy->percpu, cap, sy->npercpu + 1))
				return diag_err(d, ENOMEM, "out of memory");
			sy->percpu[sy->npercpu].addr = s->value - sy->percpu_base;
			sy->percpu[sy->npercpu].size = s->size;
			sy->percpu[sy->npercpu].name = s->name;
			sy->npercpu++;
		}
	}
	if (sy->npercpu)
		qsort(sy->percpu, sy->npercpu, sizeof(*sy->percpu), cmp_percpu);
	return 0;
}

static void syms_free(struct enc_syms *sy)
{
	strset_free(&sy->funcs);
	mem_free(sy->percpu);
}

struct conv_run {
	struct enc_ctx ctx;
	struct enc_worker **w;
};

static int convert_one(void *p, unsigned worker, size_t i)
{
	struct conv_run *r = p;

	return enc_convert_unit(&r->ctx, r->w[worker], i);
}

/* ---- merge ---- */

struct merger {
	struct btf *out;
	const struct btf *frag;
	uint32_t *idmap;		/* frag id -> out id */
	size_t idmap_cap;
	uint32_t *tmp;			/* record copy */
	size_t tmp_cap;
	struct strset generated;	/* function names already emitted */
	uint32_t first_int;		/* out id of the first unit's "int", 0 if none yet */
	struct diag *d;
};

/*
 * Append fragment records [first, last] to out, remapping ids and strings.
 * The range lands contiguously, so its ids are known before copying (the
 * records may refer forward inside the range); references before the range
 * were mapped by earlier calls.
 */
static int merge_range(struct merger *m, uint32_t first, uint32_t last)
{
	uint32_t id, next = btf_type_count(m->out);

	for (id = first; id <= last; id++)
		m->idmap[id] = next + (id - first);
	for (id = first; id <= last; id++) {
		const struct btf_type *t = btf_type_by_id(m->frag, id);
		size_t sz = btf_type_size(t);
		struct btf_field_iter it;
		uint32_t *f;
		int nid;

		if (VEC_RESERVE(m->tmp, m->tmp_cap, sz / 4))
			return -ENOMEM;
		memcpy(m->tmp, t, sz);
		btf_field_iter_init(&it, (struct btf_type *)m->tmp, BTF_FIELD_IDS);
		while ((f = btf_field_iter_next(&it)))
			*f = m->idmap[*f];
		btf_field_iter_init(&it, (struct btf_type *)m->tmp, BTF_FIELD_STRS);
		while ((f = btf_field_iter_next(&it))) {
			int64_t off;

			if (!*f)
				continue;
			off = btf_add_str(m->out, btf_name(m->frag, *f));
			if (off < 0)
				return (int)off;
			*f = (uint32_t)off;
		}
		nid = btf_add_raw(m->out, (const struct btf_type *)m->tmp, sz);
		if (nid < 0)
			return nid;
	}
	return 0;
}

struct secinfo {
	uint32_t var;
	uint64_t offset, size;
	size_t seq;
};

static int cmp_secinfo(const void *a, const void *b)
{
	const struct secinfo *x = a, *y = b;

	if (x->offset != y->offset)
		return x->offset < y->offset ? -1 : 1;
	return x->seq < y->seq ? -1 : x->seq > y->seq;
}

static int merge_all(struct enc_ctx *ctx, size_t nunits, struct btf *out, struct enc_stats *st,
		     struct diag *d)
{
	struct merger m = { .out = out, .d = d };
	struct secinfo *si = NULL;
	size_t nsi = 0, si_cap = 0, u;
	int err = 0;

	if (strset_init(&m.generated, false))
		return diag_err(d, ENOMEM, "out of memory");
	for (u = 0; u < nunits && !err; u++) {
		struct cu_frag *f = &ctx->frags[u];
		uint32_t n, i;

		if (f->notes && ctx->o->log) {
			char *line = f->notes, *nl;

			for (; (nl = strchr(line, '\n')); line = nl + 1) {
				*nl = 0;
				ctx->o->log(ctx->o->log_ctx, line);
			}
		}
		if (f->skipped || !f->btf)
			continue;
		m.frag = f->btf;
		n = btf_type_count(f->btf);
		if (VEC_RESERVE(m.idmap, m.idmap_cap, n)) {
			err = -ENOMEM;
			break;
		}
		m.idmap[0] = 0;
		/*
		 * pahole 1.24 indexes every array with the first unit's "int";
		 * a unit without one gets __ARRAY_SIZE_TYPE__ only while no
		 * earlier unit had an int.
		 */
		if (f->synth_id && m.first_int) {
			/* Ranges land contiguously: map the skipped id first. */
			m.idmap[f->synth_id] = m.first_int;
			err = merge_range(&m, 1, f->synth_id - 1);
			if (!err && f->synth_id < f->ntypes) {
				/* ids after synth shift down by one */
				err = merge_range(&m, f->synth_id + 1, f->ntypes);
			}
		} else {
			err = merge_range(&m, 1, f->ntypes);
		}
		if (err)
			break;
		if (f->has_int && !m.first_int)
			m.first_int = m.idmap[f->int_id];
		for (i = 0; i < f->nfuncs; i++) {
			const struct frag_func *ff = &f->funcs[i];
			size_t len = strlen(ff->name);

			/* pahole 1.24: the first definition of a name wins. */
			if (strset_find(&m.generated, ff->name, len) >= 0)
				continue;
			if (strset_add(&m.generated, ff->name, len) < 0 ||
			    (err = merge_range(&m, ff->first, ff->last))) {
				err = err ? err : -ENOMEM;
				break;
			}
			st->funcs++;
		}
		for (i = 0; !err && i < f->nvars; i++) {
			const struct frag_var *fv = &f->vars[i];

			if ((err = merge_range(&m, fv->id, fv->last)))
				break;
			if (VEC_RESERVE(si, si_cap, nsi + 1)) {
				err = -ENOMEM;
				break;
			}
			si[nsi].var = m.idmap[fv->id];
			si[nsi].offset = fv->offset;
			si[nsi].size = fv->size;
			si[nsi].seq = nsi;
			nsi++;
			st->vars++;
		}
		cu_frag_free(f);
	}
	if (!err && nsi) {
		size_t i;
		int id;

		qsort(si, nsi, sizeof(*si), cmp_secinfo);
		id = btf_add_datasec(out, PERCPU_SECTION,
				     (uint32_t)(si[nsi - 1].offset + si[nsi - 1].size));
		for (i = 0; id > 0 && i < nsi; i++)
			if (btf_add_secinfo(out, si[i].var, (uint32_t)si[i].offset,
					    (uint32_t)si[i].size) < 0)
				id = -EINVAL;
		if (id < 0)
			err = id;
	}
	if (err && !d->code)
		diag_err(d, -err, "merging units: %s",
			 btf_error(out) ? btf_error(out)->msg : strerror(-err));
	mem_free(si);
	mem_free(m.idmap);
	mem_free(m.tmp);
	strset_free(&m.generated);
	return err;
}

int btf_encode(struct dwarf_input *in, const struct btf *base, const struct enc_opts *o,
	       struct btf **out, struct enc_stats *st, struct diag *d)
{
	size_t nunits = dw_nunits(in->dw), u;
	unsigned jobs = o->jobs ? o->jobs : 1, w;
	struct conv_run run = { 0 };
	struct enc_syms syms;
	struct btf *b = NULL;
	double t0 = now(), t1, t2, t3;
	int err;

	*out = NULL;
	memset(st, 0, sizeof(*st));
	if ((err = syms_load(&syms, in->elf, d)))
		goto out;
	run.ctx.o = o;
	run.ctx.in = in;
	run.ctx.syms = &syms;
	run.ctx.frags = mem_array(nunits ? nunits : 1, sizeof(struct cu_frag));
	run.w = mem_array(jobs, sizeof(*run.w));
	if (!run.ctx.frags || !run.w) {
		err = diag_err(d, ENOMEM, "out of memory");
		goto out;
	}
	for (w = 0; w < jobs; w++)
		if (!(run.w[w] = enc_worker_new())) {
			err = diag_err(d, ENOMEM, "out of memory");
			goto out;
		}
	t1 = now();
	st->open = t1 - t0;
	pool_for(jobs, nunits, convert_one, &run);
	t2 = now();
	st->convert = t2 - t1;
	/* The first failing unit in unit order is the one reported. */
	for (u = 0; u < nunits; u++) {
		if (run.ctx.frags[u].err) {
			*d = run.ctx.frags[u].diag;
			err = run.ctx.frags[u].err;
			goto out;
		}
		st->units++;
		if (run.ctx.frags[u].skipped)
			st->units_skipped++;
	}
	b = btf_new(base);
	if (!b) {
		err = diag_err(d, ENOMEM, "out of memory");
		goto out;
	}
	btf_set_endian(b, belf_big_endian(in->elf) ? BTF_BIG_ENDIAN : BTF_LITTLE_ENDIAN);
	if ((err = merge_all(&run.ctx, nunits, b, st, d)))
		goto out;
	t3 = now();
	st->merge = t3 - t2;
	st->types_pre_dedup = btf_type_count(b) - btf_start_id(b);
	if (!st->types_pre_dedup) {
		err = diag_err(d, ENODATA, "%s: no types to encode (no C compile units with DWARF types)",
			       belf_path(in->elf));
		goto out;
	}
	if (!o->no_dedup) {
		struct btf_dedup_opts dop = { .nr_threads = jobs, .keep_strings = true };

		if ((err = btf_dedup(b, &dop, d)))
			goto out;
	}
	st->dedup = now() - t3;
	*out = b;
	b = NULL;
out:
	if (run.ctx.frags)
		for (u = 0; u < nunits; u++)
			cu_frag_free(&run.ctx.frags[u]);
	mem_free(run.ctx.frags);
	if (run.w)
		for (w = 0; w < jobs; w++)
			enc_worker_free(run.w[w]);
	mem_free(run.w);
	syms_free(&syms);
	btf_free(b);
	return err;
}

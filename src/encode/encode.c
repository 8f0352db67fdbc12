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

/* ---- the pipeline: workers convert units, this thread merges in order ---- */

#define WINDOW_PER_THREAD 4

struct run {
	struct enc_ctx ctx;
	struct enc_worker **w;
	struct cu_frag *slots;		/* window slots, item % nslots */
	size_t nslots;
	struct enc_stats *st;
	/* merge state */
	struct btf *out;
	uint32_t *idmap;		/* fragment id -> out id */
	size_t idmap_cap;
	struct strset generated;	/* function names already emitted */
	uint32_t first_int;		/* out id of the first unit's "int", 0 if none yet */
	struct secinfo *si;
	size_t nsi, si_cap;
	struct diag *d;
	int err;
};

struct secinfo {
	uint32_t var;
	uint64_t offset, size;
	size_t seq;
};

static int convert_one(void *p, unsigned worker, size_t i)
{
	struct run *r = p;
	struct cu_frag *f = &r->slots[i % r->nslots];

	cu_frag_reset(f);
	enc_convert_unit(&r->ctx, r->w[worker], i, f);
	return 0;
}

/*
 * Append fragment records [first, last] to out, remapping type ids.  The
 * range lands contiguously, so its ids are known before copying (records
 * may refer forward inside the range); references before the range were
 * mapped by earlier calls.  Strings already are out's.
 */
static int merge_range(struct run *r, const struct cu_frag *f, uint32_t first, uint32_t last)
{
	uint32_t id, next = btf_type_count(r->out);

	for (id = first; id <= last; id++)
		r->idmap[id] = next + (id - first);
	for (id = first; id <= last; id++) {
		const uint32_t *rec = f->words + f->recs[id - 1];
		size_t end = id < f->nrecs ? f->recs[id] : f->nwords;
		struct btf_field_iter it;
		struct btf_type *t;
		uint32_t *fld;
		int nid;

		nid = btf_add_raw(r->out, (const struct btf_type *)rec, (end - f->recs[id - 1]) * 4);
		if (nid < 0)
			return nid;
		t = btf_type_mut(r->out, (uint32_t)nid);
		btf_field_iter_init(&it, t, BTF_FIELD_IDS);
		while ((fld = btf_field_iter_next(&it)))
			*fld = r->idmap[*fld];
	}
	return 0;
}

static int merge_frag(struct run *r, const struct cu_frag *f)
{
	uint32_t i;
	int err;

	if (VEC_RESERVE(r->idmap, r->idmap_cap, f->nrecs + 1))
		return -ENOMEM;
	r->idmap[0] = 0;
	/*
	 * pahole 1.24 indexes every array with the first unit's "int"; a unit
	 * without one gets __ARRAY_SIZE_TYPE__ only while no earlier unit had
	 * an int.
	 */
	if (f->synth_id && r->first_int) {
		r->idmap[f->synth_id] = r->first_int;
		err = merge_range(r, f, 1, f->synth_id - 1);
		if (!err && f->synth_id < f->ntypes)
			err = merge_range(r, f, f->synth_id + 1, f->ntypes);
	} else {
		err = merge_range(r, f, 1, f->ntypes);
	}
	if (err)
		return err;
	if (f->has_int && !r->first_int)
		r->first_int = r->idmap[f->int_id];
	for (i = 0; i < f->nfuncs; i++) {
		const struct frag_func *ff = &f->funcs[i];
		size_t len = strlen(ff->name);

		/* pahole 1.24: the first definition of a name wins. */
		if (strset_find(&r->generated, ff->name, len) >= 0)
			continue;
		if (strset_add(&r->generated, ff->name, len) < 0)
			return -ENOMEM;
		if ((err = merge_range(r, f, ff->first, ff->last)))
			return err;
		r->st->funcs++;
	}
	for (i = 0; i < f->nvars; i++) {
		const struct frag_var *fv = &f->vars[i];

		if ((err = merge_range(r, f, fv->id, fv->last)))
			return err;
		if (VEC_RESERVE(r->si, r->si_cap, r->nsi + 1))
			return -ENOMEM;
		r->si[r->nsi].var = r->idmap[fv->id];
		r->si[r->nsi].offset = fv->offset;
		r->si[r->nsi].size = fv->size;
		r->si[r->nsi].seq = r->nsi;
		r->nsi++;
		r->st->vars++;
	}
	return 0;
}

static int consume_one(void *p, size_t i)
{
	struct run *r = p;
	struct cu_frag *f = &r->slots[i % r->nslots];
	const struct enc_opts *o = r->ctx.o;
	const struct dw_unit *u = dw_unit_at(r->ctx.in->dw, i);
	int err;

	if (f->notes && f->notes_len && o->log) {
		char *line = f->notes, *nl;

		for (; (nl = strchr(line, '\n')); line = nl + 1) {
			*nl = 0;
			o->log(o->log_ctx, line);
		}
	}
	if (f->err) {
		*r->d = f->diag;
		return f->err;
	}
	r->st->units++;
	/* This unit's DWARF is done with: let its pages go (they count in RSS). */
	if (!u->in_types && u->unit_type != DW_UT_partial)
		belf_drop_range(r->ctx.in->elf, r->ctx.in->dw_info.p + u->off, u->end - u->off);
	if (f->skipped) {
		r->st->units_skipped++;
		return 0;
	}
	if ((err = merge_frag(r, f)))
		return diag_err(r->d, -err, "%s: merging unit 0x%llx: %s", belf_path(r->ctx.in->elf),
				(unsigned long long)u->off,
				btf_error(r->out) ? btf_error(r->out)->msg : strerror(-err));
	return 0;
}

static int cmp_secinfo(const void *a, const void *b)
{
	const struct secinfo *x = a, *y = b;

	if (x->offset != y->offset)
		return x->offset < y->offset ? -1 : 1;
	return x->seq < y->seq ? -1 : x->seq > y->seq;
}

static int add_datasec(struct run *r)
{
	size_t i;
	int id;

	if (!r->nsi)
		return 0;
	qsort(r->si, r->nsi, sizeof(*r->si), cmp_secinfo);
	id = btf_add_datasec(r->out, PERCPU_SECTION,
			     (uint32_t)(r->si[r->nsi - 1].offset + r->si[r->nsi - 1].size));
	for (i = 0; id > 0 && i < r->nsi; i++)
		if (btf_add_secinfo(r->out, r->si[i].var, (uint32_t)r->si[i].offset,
				    (uint32_t)r->si[i].size) < 0)
			id = -EINVAL;
	return id < 0 ? diag_err(r->d, EINVAL, "per-CPU DATASEC: %s",
				 btf_error(r->out) ? btf_error(r->out)->msg : "") : 0;
}

int btf_encode(struct dwarf_input *in, const struct btf *base, const struct enc_opts *o,
	       struct btf **out, struct enc_stats *st, struct diag *d)
{
	size_t nunits = dw_nunits(in->dw), i;
	unsigned jobs = o->jobs ? o->jobs : 1, w;
	pthread_mutex_t str_lock = PTHREAD_MUTEX_INITIALIZER;
	struct run r = { 0 };
	struct enc_syms syms;
	double t0 = now(), t1, t2;
	int err;

	*out = NULL;
	memset(st, 0, sizeof(*st));
	r.st = st;
	r.d = d;
	if ((err = syms_load(&syms, in->elf, d)))
		goto out;
	r.out = btf_new(base);
	r.nslots = (size_t)jobs * WINDOW_PER_THREAD;
	r.slots = mem_array(r.nslots, sizeof(*r.slots));
	r.w = mem_array(jobs, sizeof(*r.w));
	if (!r.out || !r.slots || !r.w || strset_init(&r.generated, false)) {
		err = diag_err(d, ENOMEM, "out of memory");
		goto out;
	}
	btf_set_endian(r.out, belf_big_endian(in->elf) ? BTF_BIG_ENDIAN : BTF_LITTLE_ENDIAN);
	r.ctx.o = o;
	r.ctx.in = in;
	r.ctx.syms = &syms;
	r.ctx.out = r.out;
	r.ctx.str_lock = &str_lock;
	for (w = 0; w < jobs; w++)
		if (!(r.w[w] = enc_worker_new())) {
			err = diag_err(d, ENOMEM, "out of memory");
			goto out;
		}
	t1 = now();
	st->open = t1 - t0;
	err = pool_pipeline(jobs, nunits, r.nslots, convert_one, consume_one, &r);
	if (!err)
		err = add_datasec(&r);
	if (err) {
		if (!d->code)
			diag_err(d, -err, "%s: %s", belf_path(in->elf), strerror(-err));
		goto out;
	}
	t2 = now();
	st->convert = t2 - t1;	/* conversion and the overlapping merge */
	st->types_pre_dedup = btf_type_count(r.out) - btf_start_id(r.out);
	if (!st->types_pre_dedup) {
		err = diag_err(d, ENODATA, "%s: no types to encode (no C compile units with DWARF types)",
			       belf_path(in->elf));
		goto out;
	}
	if (!o->no_dedup) {
		struct btf_dedup_opts dop = { .nr_threads = jobs, .keep_strings = true };

		if ((err = btf_dedup(r.out, &dop, d)))
			goto out;
	}
	/* String offsets depended on which worker interned first: fix the order. */
	if ((err = btf_strings_relayout(r.out, d)))
		goto out;
	st->dedup = now() - t2;
	*out = r.out;
	r.out = NULL;
out:
	if (r.slots)
		for (i = 0; i < r.nslots; i++)
			cu_frag_free(&r.slots[i]);
	mem_free(r.slots);
	if (r.w)
		for (w = 0; w < jobs; w++)
			enc_worker_free(r.w[w]);
	mem_free(r.w);
	mem_free(r.idmap);
	mem_free(r.si);
	strset_free(&r.generated);
	syms_free(&syms);
	btf_free(r.out);
	return err;
}

// SPDX-License-Identifier: GPL-2.0-only
/*
 * The encoder pipeline: ELF facts, per-unit fragments in parallel, merge in
 * unit order with the function and variable policy, DATASEC, dedup.
 */
#include <elf.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>

#include "base/clock.h"
#include "base/hash.h"
#include "base/mem.h"
#include "base/pool.h"
#include "btf/dedup.h"
#include "encode/internal.h"

#define PERCPU_SECTION ".data..percpu"
/* Units from which an input is a kernel image: per-position tables pay, its pages count. */
#define MANY_UNITS 64
/* freed big blocks kept, after the conversion, for the index and dedup */
#define KEEP_FOR_DEDUP (64ul << 20)
/* Units from which an output without base starts its strings as .debug_str (btf_encode). */
#define SEED_STR_UNITS 1024

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

static int cmp_percpu(const void *a, const void *b)
{
	const struct percpu_sym *x = a, *y = b;

	if (x->addr != y->addr)
		return x->addr < y->addr ? -1 : 1;
	/* Aliases at one address: keep symbol-table order (stable below). */
	return x->name < y->name ? -1 : x->name > y->name;
}

static int kfuncs_load(struct enc_syms *sy, struct belf *e, struct diag *d);

/*
 * The symbols the policies read: exact function names (1.24; 1.31's
 * suffix notes), per-CPU symbols (1.24), kfuncs, and policy.c's tables
 * for 1.30/1.31.  Sized once: a kernel image has 100,000 functions, 2.5 MB
 * of names (no rehash, no move of the text on the way: the copies were
 * half the time of this function, mostly faults of fresh pages).
 */
static int syms_load(struct enc_syms *sy, struct belf *e, const struct enc_opts *o,
		     struct diag *d)
{
	size_t i, n, pidx = belf_find(e, PERCPU_SECTION), cap = 0, nfuncs = 0, bytes = 0;
	bool modern = o->compat != ENC_COMPAT_124;
	int err;

	memset(sy, 0, sizeof(*sy));
	sy->is_rel = belf_type(e) == ET_REL;
	if ((err = strset_init(&sy->funcs, false)) || strset_init(&sy->funcs_prefix, false) ||
	    strset_init(&sy->ambiguous, false) || strset_init(&sy->kfuncs, false))
		return diag_err(d, ENOMEM, "out of memory");
	if ((err = belf_load_syms(e, d)))
		return err;
	n = belf_nsyms(e);
	if (pidx) {
		sy->have_percpu = true;
		sy->percpu_base = belf_section_addr(e, pidx);
	}
	for (i = 0; i < n; i++) {
		const struct belf_sym *s = belf_sym(e, i);

		if (s->type == STT_FUNC) {
			nfuncs++;
			bytes += strlen(s->name) + 1;
		}
	}
	if (strset_reserve(&sy->funcs, nfuncs, bytes) ||
	    (modern && strset_reserve(&sy->funcs_prefix, nfuncs, bytes)))
		return diag_err(d, ENOMEM, "out of memory");
	for (i = 0; i < n; i++) {
		const struct belf_sym *s = belf_sym(e, i);

		if (s->type == STT_FUNC && s->name[0]) {
			if (strset_add(&sy->funcs, s->name, strlen(s->name)) < 0)
				return diag_err(d, ENOMEM, "out of memory");
			sy->have_funcs = true;
		} else if (!modern && pidx && s->type == STT_OBJECT && s->shndx == pidx && s->size) {
			if (VEC_RESERVE(sy->percpu, cap, sy->npercpu + 1))
				return diag_err(d, ENOMEM, "out of memory");
			/* symbol values are section-relative in ET_REL files */
			sy->percpu[sy->npercpu].addr = belf_type(e) == ET_REL ? s->value
							       : s->value - sy->percpu_base;
			sy->percpu[sy->npercpu].size = s->size;
			sy->percpu[sy->npercpu].name = s->name;
			sy->npercpu++;
		}
	}
	if (sy->npercpu)
		qsort(sy->percpu, sy->npercpu, sizeof(*sy->percpu), cmp_percpu);
	if (modern && (err = policy_syms_load(sy, e, o, nfuncs, d)))
		return err;
	return kfuncs_load(sy, e, d);
}

#define BTF_SET8_KFUNCS (1u << 0)
#define KF_FASTCALL (1u << 12)

/*
 * kfuncs (pahole's decl_tag_kfuncs): .BTF_ids holds btf_id_set8 {u32 cnt,
 * flags; {u32 id, flags} pairs[]} sets; one with BTF_SET8_KFUNCS names, by
 * __BTF_ID__func__NAME__N symbols inside it, the kfuncs and their flags.
 */
static int kfuncs_load(struct enc_syms *sy, struct belf *e, struct diag *d)
{
	size_t idx = belf_find(e, ".BTF_ids"), i, n = belf_nsyms(e), nr = 0, cap = 0;
	uint64_t base = belf_type(e) == ET_REL ? 0 : belf_section(e, idx)->addr;
	struct { uint64_t lo, hi; } *ranges = NULL;
	struct bslice sec;
	int err = 0;

	if (!idx)
		return 0;
	if ((err = belf_raw(e, idx, &sec, d)))
		return err;
#define RD32(off) (belf_big_endian(e) ? __builtin_bswap32(load32(sec.p + (off))) : load32(sec.p + (off)))
	for (i = 0; i < n; i++) {
		const struct belf_sym *s = belf_sym(e, i);
		uint64_t off = s->value - base;

		if (s->shndx != idx || strncmp(s->name, "__BTF_ID__set8__", 16) || off + 8 > sec.len)
			continue;
		if (!(RD32(off + 4) & BTF_SET8_KFUNCS))
			continue;
		if (VEC_RESERVE(ranges, cap, nr + 1)) {
			err = diag_err(d, ENOMEM, "out of memory");
			goto out;
		}
		ranges[nr].lo = off;
		ranges[nr].hi = off + s->size;
		nr++;
	}
	for (i = 0; i < n && nr; i++) {
		const struct belf_sym *s = belf_sym(e, i);
		uint64_t off = s->value - base;
		const char *name, *end;
		size_t k;
		int64_t so;

		if (s->shndx != idx || strncmp(s->name, "__BTF_ID__func__", 16) || off + 8 > sec.len)
			continue;
		for (k = 0; k < nr && !(off >= ranges[k].lo && off < ranges[k].hi); k++)
			;
		if (k == nr)
			continue;
		name = s->name + 16;
		end = strrchr(name, '_');	/* NAME__N: drop the "__N" */
		if (!end || end - name < 2 || end[-1] != '_')
			continue;
		so = strset_add(&sy->kfuncs, name, (size_t)(end - 1 - name));
		if (so < 0 || VEC_RESERVE(sy->kfunc_flags, sy->kfunc_flags_cap, (size_t)so + 1)) {
			err = diag_err(d, ENOMEM, "out of memory");
			goto out;
		}
		sy->kfunc_flags[so] = RD32(off + 4);
	}
#undef RD32
out:
	mem_free(ranges);
	return err;
}

static void syms_free(struct enc_syms *sy)
{
	policy_syms_free(sy);
	strset_free(&sy->kfuncs);
	mem_free(sy->kfunc_flags);
	strset_free(&sy->funcs);
	strset_free(&sy->funcs_prefix);
	strset_free(&sy->ambiguous);
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
	struct enc_builder out;		/* what the merge appends */
	uint32_t *idmap;		/* fragment id -> out id */
	size_t idmap_cap;
	uint32_t *ustart;		/* each unit's first id (btf_dedup_opts.unit_starts) */
	size_t nu, ucap;
	struct strset generated;	/* function names already emitted */
	uint32_t first_int;		/* out id of the first unit's "int", 0 if none yet */
	struct secinfo *si;
	size_t nsi, si_cap;
	/* 1.30/1.31: every instance of a function, judged after all units */
	struct fpolicy pol;
	uint32_t *scratch;		/* an instance's FUNC_PROTO, ids remapped */
	size_t scratch_cap;
	/* .debug_info bytes merged but not yet given back: [drop_lo, drop_hi) */
	uint64_t drop_lo, drop_hi;
	uint64_t loc_lo;		/* .debug_loclists given back below this */
	uint64_t str_mark;		/* .debug_info merged when .debug_str was last given back */
	struct diag *d;
	int err;
};

/*
 * Units' .debug_info pages are given back in steps of this many bytes: each
 * madvise() flushes every thread's TLB, too much to do per unit (2% of a
 * kernel image's encode on two threads).
 */
#define DROP_STEP (4u << 20)
/*
 * A big module's .debug_str (amdgpu.ko: 130 MB, every page read by the
 * end) is given back whole each time this much more of .debug_info was
 * merged: units' strings come mostly in unit order after the first
 * units' common ones, so what the next units read is mapped again (a few
 * MB), and the section's pages in RSS stay a window's worth.  Smaller
 * ones (vmlinux's 4.7 MB) stay.
 */
#define STR_DROP_STEP (16u << 20)

struct secinfo {
	uint32_t var;
	uint64_t offset, size;
	size_t seq;
	uint32_t sec;			/* 1.30/1.31: index into enc_syms.secs */
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
/*
 * Rewrite a copied record's type ids through the unit's id map: the
 * fields of docs/btf.md 1.7, from the kind table, specialised per kind
 * (this runs for every record of every unit, and the generic iterator
 * costs twice as much).
 */
static void remap_ids(struct run *r, struct btf_type *t)
{
	const uint32_t *m = r->idmap;

#define REMAP(k) BTF_FOR_EACH_ID((uint32_t *)t, k, p, *p = m[*p])
	BTF_KIND_DISPATCH(btf_kind(t), REMAP, (void)0)
#undef REMAP
}

static int merge_range(struct run *r, const struct cu_frag *f, uint32_t first, uint32_t last)
{
	uint32_t id, next = encb_count(&r->out), w0, w1;
	uint32_t *p = NULL;	/* set when encb_add_raw_n() succeeds */
	int nid;

	if (first > last)
		return 0;
	for (id = first; id <= last; id++)
		r->idmap[id] = next + (id - first);
	/* one copy of the range, then each record's ids patched where it landed */
	w0 = f->recs[first - 1];
	w1 = last < f->nrecs ? f->recs[last] : (uint32_t)f->nwords;
	nid = encb_add_raw_n(&r->out, f->words + w0, w1 - w0, f->recs + first - 1,
			     last - first + 1, &p);
	if (nid < 0)
		return nid;
	for (id = first; id <= last; id++)
		remap_ids(r, (struct btf_type *)(p + f->recs[id - 1] - w0));
	return 0;
}

/* 1.30/1.31: hand an instance to the policy, its prototype's ids remapped. */
static int save_func(struct run *r, const struct cu_frag *f, const struct frag_func *ff)
{
	size_t p0 = f->recs[ff->first - 1], pw = f->recs[ff->first] - p0, t0, t1;

	if (VEC_RESERVE(r->scratch, r->scratch_cap, pw))
		return -ENOMEM;
	memcpy(r->scratch, f->words + p0, pw * 4);
	remap_ids(r, (struct btf_type *)r->scratch);
	/* decl tags after the FUNC record */
	t0 = ff->first + 1 < f->nrecs ? f->recs[ff->first + 1] : f->nwords;
	t1 = ff->last < f->nrecs ? f->recs[ff->last] : f->nwords;
	return fpol_save(&r->pol, ff, r->scratch, pw, f->words + t0, t1 - t0);
}

static int merge_frag(struct run *r, const struct cu_frag *f)
{
	uint32_t i;
	int err;

	if (VEC_RESERVE(r->idmap, r->idmap_cap, f->nrecs + 1) ||
	    VEC_RESERVE(r->ustart, r->ucap, r->nu + 1))
		return -ENOMEM;
	r->ustart[r->nu++] = encb_count(&r->out);
	r->idmap[0] = 0;
	/*
	 * pahole 1.24 indexes every array with the first unit's "int"; a unit
	 * without one gets a made-up "int" only while no earlier unit had
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

		if (r->ctx.o->compat != ENC_COMPAT_124) {
			if ((err = save_func(r, f, ff)))
				return err;
			continue;
		}
		/* pahole 1.24: the first definition of a name wins. */
		if (strset_find(&r->generated, ff->name, len) >= 0)
			continue;
		if (strset_add(&r->generated, ff->name, len) < 0)
			return -ENOMEM;
		if ((err = merge_range(r, f, ff->first, ff->last)) ||
		    (err = policy_kfunc_tags(r->ctx.o, r->ctx.syms, &r->out, ff->name,
					      r->idmap[ff->first + 1])))
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
		r->si[r->nsi].sec = fv->sec;
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
	double t;
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
	/*
	 * This unit's DWARF is done with: let go the pages its lookups by
	 * reference (or a walk without a copy) mapped; they count in RSS.
	 */
	if (!u->in_types && u->unit_type != DW_UT_partial) {
		if (u->off != r->drop_hi || u->end - r->drop_lo >= DROP_STEP) {
			belf_drop_range(r->ctx.in->elf, r->ctx.in->dw_info.p + r->drop_lo,
					r->drop_hi - r->drop_lo);
			r->drop_lo = u->off;
		}
		r->drop_hi = u->end;
		if (r->ctx.in->dw_str.len >= STR_DROP_STEP && u->end - r->str_mark >= STR_DROP_STEP) {
			belf_drop_range(r->ctx.in->elf, r->ctx.in->dw_str.p, r->ctx.in->dw_str.len);
			r->str_mark = u->end;
		}
		/*
		 * 1.30/1.31 read parameters' location lists (vmlinux: 27 MB of
		 * them).  Compilers lay units' lists out in unit order, so what
		 * lies below this unit's lowest is done with (a list read again
		 * would only come from the file again).
		 */
		if (f->loc_min != UINT64_MAX && f->loc_min > r->loc_lo + DROP_STEP) {
			belf_drop_range(r->ctx.in->elf, r->ctx.in->dw_loclists.p + r->loc_lo,
					f->loc_min - r->loc_lo);
			r->loc_lo = f->loc_min;
		}
	}
	if (f->skipped) {
		r->st->units_skipped++;
		return 0;
	}
	t = clock_now();
	err = merge_frag(r, f);
	r->st->merge += clock_now() - t;
	if (err)
		return diag_err(r->d, -err, "%s: merging unit 0x%llx: %s", belf_path(r->ctx.in->elf),
				(unsigned long long)u->off,
				encb_error(&r->out) ? encb_error(&r->out)->msg : strerror(-err));
	return 0;
}

static int cmp_secinfo(const void *a, const void *b)
{
	const struct secinfo *x = a, *y = b;

	if (x->offset != y->offset)
		return x->offset < y->offset ? -1 : 1;
	return x->seq < y->seq ? -1 : x->seq > y->seq;
}

/*
 * 1.30/1.31: by section, then pahole's comparison of offsets (a u32
 * difference as an int), in merge order among equals (glibc's sort is
 * stable).
 */
static int cmp_secinfo_sec(const void *a, const void *b)
{
	const struct secinfo *x = a, *y = b;
	int c = (int)((uint32_t)x->offset - (uint32_t)y->offset);

	if (x->sec != y->sec)
		return x->sec < y->sec ? -1 : 1;
	if (c)
		return c;
	return x->seq < y->seq ? -1 : x->seq > y->seq;
}

static void var_overlap_note(struct run *r, const char *sec, const struct secinfo *v,
			     const struct secinfo *prev)
{
	const struct enc_opts *o = r->ctx.o;
	const struct btf_type *a = encb_type_by_id(&r->out, v->var);
	const struct btf_type *b = encb_type_by_id(&r->out, prev->var);
	char line[512];

	if (!o->verbose || !o->log)
		return;
	snprintf(line, sizeof(line),
		 "variable '%s' at %s+0x%llx (%llu bytes) overlaps '%s' at 0x%llx (%llu bytes): left out of the DATASEC",
		 a ? encb_name(&r->out, a->name_off) : "?", sec, (unsigned long long)v->offset,
		 (unsigned long long)v->size, b ? encb_name(&r->out, b->name_off) : "?",
		 (unsigned long long)prev->offset, (unsigned long long)prev->size);
	o->log(o->log_ctx, line);
}

/*
 * DATASECs: 1.24 one for .data..percpu; 1.30/1.31 one per section with a
 * variable, in section order, each as long as its last variable's end.
 */
static int add_datasecs(struct run *r)
{
	bool by_sec = r->ctx.o->compat != ENC_COMPAT_124;
	struct btf_var_secinfo *vs;
	size_t i, j, k;
	int id = 0;

	if (!r->nsi)
		return 0;
	qsort(r->si, r->nsi, sizeof(*r->si), by_sec ? cmp_secinfo_sec : cmp_secinfo);
	if (!(vs = mem_array(r->nsi, sizeof(*vs))))
		return diag_err(r->d, ENOMEM, "out of memory");
	for (i = 0; i < r->nsi && id >= 0; i = j) {
		const char *name = by_sec ? r->ctx.syms->secs[r->si[i].sec].name : PERCPU_SECTION;
		size_t last, n;

		for (j = i + 1; j < r->nsi && (!by_sec || r->si[j].sec == r->si[i].sec); j++)
			;
		/*
		 * The kernel refuses a variable that starts before the one
		 * before it ends ("Invalid offset"): the same variable from
		 * two units (vmlinux with global_var: 3 of them), or a DWARF
		 * size larger than the storage (clang's pieces of an
		 * optimized static).  pahole writes them; the later one is
		 * left out of the DATASEC here, with a note (its VAR stays).
		 */
		for (k = last = i, n = 0; k < j; k++) {
			if (k > i && r->si[k].offset < r->si[last].offset + r->si[last].size) {
				var_overlap_note(r, name, &r->si[k], &r->si[last]);
				continue;
			}
			vs[n].type = r->si[k].var;
			vs[n].offset = (uint32_t)r->si[k].offset;
			vs[n].size = (uint32_t)r->si[k].size;
			n++;
			last = k;
		}
		id = encb_add_datasec(&r->out, name, (uint32_t)(r->si[last].offset + r->si[last].size),
				      vs, n);
	}
	mem_free(vs);
	return id < 0 ? diag_err(r->d, -id, "DATASEC: %s",
				 encb_error(&r->out) ? encb_error(&r->out)->msg : strerror(-id)) : 0;
}

/*
 * The kernel's checks (btf_validate's kernel mode) on what was made: what
 * the conversion could not encode validly was degraded with a note, or
 * failed the unit; whatever still got through (broken DWARF of a kind
 * nobody handles yet) is one line here, never a file the kernel refuses.
 * A merged BTF (--no-dedup) past the kernel's type limit (a vmlinux's
 * 4 M types) is dedup's input, never a kernel's: not checked.
 */
static int check_output(const struct btf *out, const struct btf *base,
			const struct dwarf_input *in, struct diag *d)
{
	struct diag vd;
	void *blob;
	size_t len;
	int err;

	if ((err = btf_write(out, &blob, &len, d)))
		return err;
	diag_clear(&vd);
	err = btf_validate(blob, len, base, 0, NULL, &vd);
	mem_free(blob);
	if (err)
		return diag_err(d, EINVAL, "%s: the BTF made of its DWARF would not load: %s",
				belf_path(in->elf), vd.msg);
	return 0;
}

/*
 * One piece (210 lines): the pipeline in order (convert the units on the
 * workers, merge, dedup, relayout, finalize), most of it the comments on
 * what each step keeps in memory and why; the steps share the run's
 * state and one cleanup path.
 */
int btf_encode(struct dwarf_input *in, const struct btf *base, const struct enc_opts *o,
	       struct btf **out, struct enc_stats *st, struct diag *d)
{
	size_t nunits = dw_nunits(in->dw), i;
	bool many_units = nunits >= MANY_UNITS;
	unsigned jobs = o->jobs ? o->jobs : 1, w;
	pthread_mutex_t str_lock = PTHREAD_MUTEX_INITIALIZER;
	struct run r = { 0 };
	struct enc_syms syms;
	double t0 = clock_now(), t1, t2;
	struct mem_cache *keep = NULL, *prev_cache = NULL;
	struct btf *bt = NULL;
	uint32_t *sorder = NULL;
	size_t nsorder = 0;
	int err;

	*out = NULL;
	memset(st, 0, sizeof(*st));
	r.st = st;
	r.d = d;
	if ((err = syms_load(&syms, in->elf, o, d)))
		goto out;
	if (o->verbose && o->log) {
		const char *first;
		size_t n = belf_skipped_relocs(in->elf, &first);
		char line[400];

		if (n) {
			snprintf(line, sizeof(line),
				 "%s: %zu relocation(s) of location or range lists left unapplied (first: %s)",
				 belf_path(in->elf), n, first);
			o->log(o->log_ctx, line);
		}
	}
	if (many_units)		/* decoded and copied: their pages go until a name is read */
		belf_drop_syms(in->elf);
	/*
	 * The merge only appends (builder.h), keeping the id index as records
	 * land; own strings are matched against a base without a string
	 * index (a lone module's mapped vmlinux BTF) once each at the end,
	 * not once per DWARF reference.
	 */
	err = encb_init(&r.out, base);
	r.nslots = (size_t)jobs * WINDOW_PER_THREAD;
	r.slots = mem_array(r.nslots, sizeof(*r.slots));
	r.w = mem_array(jobs, sizeof(*r.w));
	if (err || !r.slots || !r.w || strset_init(&r.generated, false) ||
	    fpol_init(&r.pol, o, &syms)) {
		err = diag_err(d, ENOMEM, "out of memory");
		goto out;
	}
	r.ctx.o = o;
	r.ctx.in = in;
	r.ctx.syms = &syms;
	r.ctx.out = &r.out;
	r.ctx.str_lock = jobs > 1 ? &str_lock : NULL;
	/*
	 * A kernel image's string section starts as a copy of .debug_str
	 * (encb_seed_strs), so a name there has its offset from its position:
	 * after the first reference (which makes that copy the text's
	 * offset), no lookup and no read of the string.  Its units repeat the
	 * same header strings thousands of times (vmlinux: 107 k first
	 * references, millions of later ones); the relayout after dedup keeps
	 * only the strings the types use.  Not for a module: positions repeat
	 * less, and ld -r leaves duplicate texts in .debug_str (xfs: 10.7 k)
	 * whose positions cannot take the text's offset, so every reference
	 * to one goes to the locked set (xfs alone at -j2: 50% more CPU);
	 * the per-worker cache by text serves it better.  A split BTF's
	 * strings start after its base's anyway.
	 *
	 * Each worker's DIE-offset array (a word per byte of its largest
	 * unit) is neutral on the largest modules (xfs, mlx5_core, bcachefs,
	 * btrfs: 66-113 units) and kept from MANY_UNITS; a lone module's few
	 * units are better off hashed (the array is fresh memory).  In a
	 * batch (a prepared dedup base) freed blocks come back, and the array
	 * saves 1.6% of the CPU of 1,138 modules.
	 */
	r.ctx.ref_direct = many_units || o->dedup_base;
	if (!base && nunits >= (o->seed_units ? o->seed_units : SEED_STR_UNITS) &&
	    in->dw_str.len && in->dw_str.len < SEED_STRS_MAX) {
		if (!(r.ctx.str_first = mem_array((in->dw_str.len + 63) / 64, sizeof(uint64_t))) ||
		    encb_seed_strs(&r.out, (const char *)in->dw_str.p, in->dw_str.len)) {
			err = diag_err(d, ENOMEM, "out of memory");
			goto out;
		}
	}
	if (jobs == 1 && o->worker) {
		enc_worker_recycle(o->worker);
		r.w[0] = o->worker;
	}
	for (w = 0; w < jobs; w++)
		if (!r.w[w] && !(r.w[w] = enc_worker_new())) {
			err = diag_err(d, ENOMEM, "out of memory");
			goto out;
		}
	/*
	 * Opening the DWARF reads every unit's header and unit DIE through a
	 * copy (dw_sections.info_peek) and maps none of .debug_info.  Where it
	 * could not (a peek that failed), each read mapped the 64 KB around
	 * it (the kernel's fault-around), most of .debug_info counted in RSS
	 * before the first unit was converted (vmlinux: 190 MB at 0.1 s, the
	 * run's peak when the file is cached): let those pages go.  Units are
	 * walked in copies too (dw_cursor_init_copy); only lookups by
	 * reference, and walks whose copy failed, map pages again.
	 */
	if (many_units)
		belf_drop_range(in->elf, in->dw_info.p, in->dw_info.len);
	t1 = clock_now();
	enc_phase(o, "convert");
	st->read = t1 - t0;
	err = pool_pipeline(jobs, nunits, r.nslots, convert_one, consume_one, &r);
	st->serial = clock_now();	/* from here to dedup: one thread */
	if (err) {
		if (!d->code)
			diag_err(d, -err, "%s: %s", belf_path(in->elf), strerror(-err));
		goto out;
	}
	/* Give the conversion's memory back before dedup allocates its own. */
	mem_free(r.ctx.str_first);
	r.ctx.str_first = NULL;
	for (i = 0; i < r.nslots; i++)
		cu_frag_free(&r.slots[i]);
	for (w = 0; w < jobs; w++) {
		if (r.w[w] != o->worker)	/* the caller's stays, for its next run */
			enc_worker_free(r.w[w]);
		r.w[w] = NULL;
	}
	if (jobs > 1)	/* the workers' arenas: the dedup runs on this thread's */
		mem_give_back();
	/*
	 * Nothing reads the DWARF from here on, and a kernel image's indexes
	 * and file pages count in RSS (tens of MB: abbreviation tables,
	 * strings, location list tables, unit boundaries).  A module's are
	 * few, and an in-place write would read them back.
	 */
	if (many_units) {
		/*
		 * Its abbreviation tables' blocks (vmlinux: 3 x 16 MB) go just
		 * before the id index and dedup's maps ask for as much: keep
		 * them for those rather than clear as many fresh pages (and only
		 * them: a block kept later would only add to dedup's peak).
		 */
		if ((keep = mem_cache_new(KEEP_FOR_DEDUP)))
			prev_cache = mem_cache_use(keep);
		dwarf_input_done(in);
		mem_cache_set_limit(keep, 0);	/* from here on it only hands them out */
	}
	enc_phase(o, "index");
	/* 1.30/1.31 judge prototypes type by type (the builder's id index) */
	if (o->compat != ENC_COMPAT_124)
		err = fpol_emit(&r.pol, &r.out, &st->funcs, d);
	fpol_free(&r.pol);	/* before dedup's peak */
	if (!err)
		err = add_datasecs(&r);
	if (err) {
		if (!d->code && encb_error(&r.out))
			*d = *encb_error(&r.out);
		if (!d->code)
			diag_err(d, -err, "%s: %s", belf_path(in->elf), strerror(-err));
		goto out;
	}
	t2 = clock_now();
	st->convert = t2 - t1;	/* conversion and the overlapping merge */
	st->serial = st->read + (t2 - st->serial);
	st->types_pre_dedup = encb_count(&r.out) - r.out.start_id;
	if (!st->types_pre_dedup) {
		err = diag_err(d, ENODATA, "%s: no types to encode (no C compile units with DWARF types)",
			       belf_path(in->elf));
		goto out;
	}
	if ((err = encb_finish(&r.out, belf_big_endian(in->elf) ? BTF_BIG_ENDIAN : BTF_LITTLE_ENDIAN,
			       &bt, d)))
		goto out;
	/*
	 * libbpf's string order (pahole's bytes): first references in the
	 * types before dedup; strings only the types dedup removes refer to
	 * stay, as there (a declaration's name where it was first met).
	 */
	if ((err = btf_strings_first_refs(bt, jobs, &sorder, &nsorder, d)))
		goto out;
	enc_phase(o, "dedup");
	if (!o->no_dedup) {
		/* compile-unit order: the serial reference phase is faster here */
		struct btf_dedup_opts dop = { .nr_threads = jobs, .keep_strings = true,
					      .prepared_base = base ? o->dedup_base : NULL,
					      .stats = &st->ded, .serial_refs = true,
					      .ids_checked = true, .unit_starts = r.ustart,
					      .nunits = (uint32_t)r.nu };

		if ((err = btf_dedup(bt, &dop, d)))
			goto out;
	}
	if (keep) {	/* what the index and dedup did not take goes to the caller's cache, if any */
		mem_cache_use(prev_cache);
		mem_cache_pass(keep, prev_cache);
		mem_cache_free(keep);
		keep = NULL;
	}
	/*
	 * The kernel refuses BTF with more types than ids it can address
	 * (--no-dedup output is for tools, e.g. dedup benchmarks, not kernels).
	 */
	if (!o->no_dedup && btf_type_count(bt) - 1 > BTF_MAX_TYPE - 1) {
		err = diag_err(d, E2BIG,
			       "%s: %u types (base included) exceed the kernel's limit of %u; the kernel would not load this BTF",
			       belf_path(in->elf), btf_type_count(bt) - 1, BTF_MAX_TYPE - 1);
		goto out;
	}
	/* String offsets depended on which worker interned first: libbpf's order. */
	t1 = clock_now();
	if ((err = btf_strings_relayout_order(bt, sorder, nsorder, d)) ||
	    (btf_type_count(bt) - 1 <= BTF_MAX_TYPE - 1 && (err = check_output(bt, base, in, d))))
		goto out;
	st->dedup = clock_now() - t2;
	st->serial += st->ded.serial_secs + (clock_now() - t1);
	*out = bt;
	bt = NULL;
out:
	if (keep) {
		mem_cache_use(prev_cache);
		mem_cache_free(keep);
	}
	if (r.slots)
		for (i = 0; i < r.nslots; i++)
			cu_frag_free(&r.slots[i]);
	mem_free(r.slots);
	if (r.w)
		for (w = 0; w < jobs; w++)
			if (r.w[w] != o->worker)
				enc_worker_free(r.w[w]);
	mem_free(r.w);
	mem_free(r.idmap);
	mem_free(r.ustart);
	mem_free(r.ctx.str_first);
	mem_free(r.si);
	strset_free(&r.generated);
	fpol_free(&r.pol);
	mem_free(r.scratch);
	mem_free(sorder);
	syms_free(&syms);
	encb_free(&r.out);
	btf_free(bt);
	return err;
}

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

/* Calling-convention registers of the first parameters, as DWARF numbers. */
static void param_regs(struct enc_syms *sy, uint16_t machine)
{
	static const uint8_t x86_64[] = { 5, 4, 1, 2, 8, 9 };		/* rdi rsi rdx rcx r8 r9 */
	static const uint8_t a64[] = { 0, 1, 2, 3, 4, 5, 6, 7 };	/* x0-x7 */
	static const uint8_t riscv[] = { 10, 11, 12, 13, 14, 15, 16, 17 };	/* a0-a7 */
	static const uint8_t s390[] = { 2, 3, 4, 5, 6 };		/* r2-r6 */
	static const uint8_t ppc[] = { 3, 4, 5, 6, 7, 8, 9, 10 };	/* r3-r10 */
	static const uint8_t larch[] = { 4, 5, 6, 7, 8, 9, 10, 11 };	/* a0-a7 */

	switch (machine) {
	case EM_X86_64: sy->param_regs = x86_64; sy->nparam_regs = 6; break;
	case EM_AARCH64: sy->param_regs = a64; sy->nparam_regs = 8; break;
	case EM_RISCV: sy->param_regs = riscv; sy->nparam_regs = 8; break;
	case EM_S390: sy->param_regs = s390; sy->nparam_regs = 5; break;
	case EM_PPC64: sy->param_regs = ppc; sy->nparam_regs = 8; break;
	case EM_LOONGARCH: sy->param_regs = larch; sy->nparam_regs = 8; break;
	default: sy->param_regs = NULL; sy->nparam_regs = 0;
	}
}

/* A function name's first address, by the name's offset in funcs_prefix. */
struct faddr {
	uint32_t off1;		/* offset + 1; 0: empty slot */
	bool ambiguous;		/* already in sy->ambiguous */
	uint64_t addr;
};

/* .cold and .part pieces are not functions of their own (pahole 1.31). */
static bool non_fn_suffix(const char *dot)
{
	return dot && (strstr(dot, ".cold") || strstr(dot, ".part"));
}

static int kfuncs_load(struct enc_syms *sy, struct belf *e, struct diag *d);

/*
 * The symbols the policies read.  Function names cut at the first '.' and
 * names at several addresses only serve the modern policy (suffix
 * matches, ambiguous addresses): not built for compat-1.24, whose
 * kernel-image run is serial up to here.
 */
static int syms_load(struct enc_syms *sy, struct belf *e, bool modern, struct diag *d)
{
	size_t i, n, pidx = belf_find(e, PERCPU_SECTION), cap = 0, nfuncs = 0, bytes = 0, mask;
	struct faddr *fa;
	int err;

	memset(sy, 0, sizeof(*sy));
	param_regs(sy, belf_machine(e));
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
	/*
	 * Sized once: a kernel image has 100,000 functions, 2.5 MB of names
	 * (no rehash, no move of the text on the way: the copies were half
	 * the time of this function, mostly faults of fresh pages).
	 */
	for (i = 0; i < n; i++) {
		const struct belf_sym *s = belf_sym(e, i);

		if (s->type == STT_FUNC) {
			nfuncs++;
			bytes += strlen(s->name) + 1;
		}
	}
	for (mask = 15; modern && mask < nfuncs * 2; mask = mask * 2 + 1)
		;
	fa = modern ? mem_array(mask + 1, sizeof(*fa)) : NULL;
	if ((modern && !fa) || strset_reserve(&sy->funcs, nfuncs, bytes) ||
	    (modern && strset_reserve(&sy->funcs_prefix, nfuncs, bytes))) {
		mem_free(fa);
		return diag_err(d, ENOMEM, "out of memory");
	}
	for (i = 0; i < n; i++) {
		const struct belf_sym *s = belf_sym(e, i);

		if (s->type == STT_FUNC && s->name[0]) {
			const char *dot;
			size_t plen, j;
			int64_t off;

			if (strset_add(&sy->funcs, s->name, strlen(s->name)) < 0) {
				mem_free(fa);
				return diag_err(d, ENOMEM, "out of memory");
			}
			sy->have_funcs = true;
			if (!modern)
				continue;
			dot = strchr(s->name, '.');
			plen = dot ? (size_t)(dot - s->name) : strlen(s->name);
			if ((off = strset_add(&sy->funcs_prefix, s->name, plen)) < 0) {
				mem_free(fa);
				return diag_err(d, ENOMEM, "out of memory");
			}
			if (non_fn_suffix(dot))
				continue;
			/* Names whose (non-.cold/.part) symbols sit at several addresses. */
			for (j = hash_mix((uint64_t)off) & mask; fa[j].off1 && fa[j].off1 != off + 1;
			     j = (j + 1) & mask)
				;
			if (!fa[j].off1) {
				fa[j].off1 = (uint32_t)off + 1;
				fa[j].addr = s->value;
			} else if (fa[j].addr != s->value && !fa[j].ambiguous) {
				fa[j].ambiguous = true;
				if (strset_add(&sy->ambiguous, s->name, plen) < 0) {
					mem_free(fa);
					return diag_err(d, ENOMEM, "out of memory");
				}
			}
		} else if (pidx && s->type == STT_OBJECT && s->shndx == pidx && s->size) {
			if (VEC_RESERVE(sy->percpu, cap, sy->npercpu + 1)) {
				mem_free(fa);
				return diag_err(d, ENOMEM, "out of memory");
			}
			/* symbol values are section-relative in ET_REL files */
			sy->percpu[sy->npercpu].addr = belf_type(e) == ET_REL ? s->value
							       : s->value - sy->percpu_base;
			sy->percpu[sy->npercpu].size = s->size;
			sy->percpu[sy->npercpu].name = s->name;
			sy->npercpu++;
		}
	}
	mem_free(fa);
	if (sy->npercpu)
		qsort(sy->percpu, sy->npercpu, sizeof(*sy->percpu), cmp_percpu);
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
	struct btf *out;
	uint32_t *idmap;		/* fragment id -> out id */
	size_t idmap_cap;
	struct strset generated;	/* function names already emitted */
	uint32_t first_int;		/* out id of the first unit's "int", 0 if none yet */
	struct secinfo *si;
	size_t nsi, si_cap;
	/* modern policy: every instance of a function, judged after all units */
	struct strset fnames;
	struct fstate *fs;
	size_t nfs, fs_cap;
	uint32_t *fidx;			/* fnames offset -> fs index */
	size_t fidx_cap;
	/* .debug_info bytes merged but not yet given back: [drop_lo, drop_hi) */
	uint64_t drop_lo, drop_hi;
	struct diag *d;
	int err;
};

/*
 * Units' .debug_info pages are given back in steps of this many bytes: each
 * madvise() flushes every thread's TLB, too much to do per unit (2% of a
 * kernel image's encode on two threads).
 */
#define DROP_STEP (4u << 20)

/* One function name under the modern policy (pahole 1.31's saved function). */
struct fstate {
	uint32_t name;		/* in fnames (the unit's copy of an inline name is reused) */
	uint32_t *recs;		/* FUNC_PROTO then decl tags, ids already out's; FUNC made at the end */
	size_t nwords, proto_words;
	bool unexpected_reg, inconsistent, uncertain, suffix_only;
	unsigned bad_param;
	char why[96];		/* first prototype mismatch */
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
/*
 * Rewrite a copied record's type ids through the unit's id map: the
 * fields of doc section 1.7, spelled out per kind (this runs for every
 * record of every unit, and the generic iterator costs twice as much).
 */
static void remap_ids(struct run *r, struct btf_type *t)
{
	const uint32_t *m = r->idmap;
	uint32_t i, n = btf_vlen(t);

	switch (btf_kind(t)) {
	case BTF_KIND_PTR: case BTF_KIND_TYPEDEF: case BTF_KIND_VOLATILE: case BTF_KIND_CONST:
	case BTF_KIND_RESTRICT: case BTF_KIND_FUNC: case BTF_KIND_VAR: case BTF_KIND_DECL_TAG:
	case BTF_KIND_TYPE_TAG: case BTF_KIND_FWD:
		t->type = m[t->type];
		break;
	case BTF_KIND_ARRAY:
		btf_array(t)->type = m[btf_array(t)->type];
		btf_array(t)->index_type = m[btf_array(t)->index_type];
		break;
	case BTF_KIND_STRUCT: case BTF_KIND_UNION:
		for (i = 0; i < n; i++)
			btf_members(t)[i].type = m[btf_members(t)[i].type];
		break;
	case BTF_KIND_FUNC_PROTO:
		t->type = m[t->type];
		for (i = 0; i < n; i++)
			btf_params(t)[i].type = m[btf_params(t)[i].type];
		break;
	case BTF_KIND_DATASEC:
		for (i = 0; i < n; i++)
			btf_secinfos(t)[i].type = m[btf_secinfos(t)[i].type];
		break;
	default:	/* INT, ENUM, ENUM64, FLOAT: no type ids */
		break;
	}
}

static int merge_range(struct run *r, const struct cu_frag *f, uint32_t first, uint32_t last)
{
	uint32_t id, next = btf_type_count(r->out), w0, w1;
	uint32_t *p = NULL;	/* set when btf_add_raw_n() succeeds */
	int nid;

	if (first > last)
		return 0;
	for (id = first; id <= last; id++)
		r->idmap[id] = next + (id - first);
	/* one copy of the range, then each record's ids patched where it landed */
	w0 = f->recs[first - 1];
	w1 = last < f->nrecs ? f->recs[last] : (uint32_t)f->nwords;
	nid = btf_add_raw_n(r->out, f->words + w0, w1 - w0, f->recs + first - 1,
			    last - first + 1, &p);
	if (nid < 0)
		return nid;
	for (id = first; id <= last; id++)
		remap_ids(r, (struct btf_type *)(p + f->recs[id - 1] - w0));
	return 0;
}

/* pahole's types__match(): loose comparison of two types of out. */
static bool types_match(const struct btf *b, uint32_t id1, uint32_t id2, int depth)
{
	while (depth-- > 0) {
		const struct btf_type *t1, *t2;
		unsigned k1, k2;

		if (id1 == id2)
			return true;
		if (!id1 || !id2)
			return false;
		t1 = btf_type_by_id(b, id1);
		t2 = btf_type_by_id(b, id2);
		k1 = btf_kind(t1) == BTF_KIND_FWD ? (btf_kflag(t1) ? BTF_KIND_UNION : BTF_KIND_STRUCT)
						 : btf_kind(t1);
		k2 = btf_kind(t2) == BTF_KIND_FWD ? (btf_kflag(t2) ? BTF_KIND_UNION : BTF_KIND_STRUCT)
						 : btf_kind(t2);
		if (k1 != k2) {
			/* const-insensitive */
			if (k1 == BTF_KIND_CONST) {
				id1 = t1->type;
				continue;
			}
			if (k2 == BTF_KIND_CONST) {
				id2 = t2->type;
				continue;
			}
			return false;
		}
		switch (k1) {
		case BTF_KIND_INT:
			return t1->size == t2->size && btf_int_word(t1) == btf_int_word(t2) &&
			       t1->name_off == t2->name_off;
		case BTF_KIND_FLOAT:
			return t1->size == t2->size && t1->name_off == t2->name_off;
		case BTF_KIND_TYPEDEF: case BTF_KIND_STRUCT: case BTF_KIND_UNION:
		case BTF_KIND_ENUM: case BTF_KIND_ENUM64:
			return t1->name_off == t2->name_off;	/* strings are unique in out */
		case BTF_KIND_PTR: case BTF_KIND_VOLATILE: case BTF_KIND_CONST:
		case BTF_KIND_RESTRICT: case BTF_KIND_TYPE_TAG:
			id1 = t1->type;
			id2 = t2->type;
			break;
		case BTF_KIND_ARRAY:
			if (btf_array(t1)->nelems != btf_array(t2)->nelems)
				return false;
			id1 = btf_array(t1)->type;
			id2 = btf_array(t2)->type;
			break;
		case BTF_KIND_FUNC_PROTO: {
			const struct btf_param *p1 = btf_params(t1), *p2 = btf_params(t2);
			unsigned i;

			if (btf_vlen(t1) != btf_vlen(t2) || !types_match(b, t1->type, t2->type, depth))
				return false;
			for (i = 0; i < btf_vlen(t1); i++)
				if (!types_match(b, p1[i].type, p2[i].type, depth))
					return false;
			return true;
		}
		default:
			return false;
		}
	}
	return false;
}

/* pahole's funcs__match(): param count, return type, each param type. */
static bool protos_match(const struct btf *b, const struct btf_type *p1, const struct btf_type *p2,
			 char *why, size_t why_len)
{
	const struct btf_param *a = btf_params(p1), *c = btf_params(p2);
	unsigned i;

	if (btf_vlen(p1) != btf_vlen(p2)) {
		snprintf(why, why_len, "param count mismatch; %u params != %u params", btf_vlen(p1),
			 btf_vlen(p2));
		return false;
	}
	if (!types_match(b, p1->type, p2->type, 64)) {
		snprintf(why, why_len, "return type mismatch");
		return false;
	}
	for (i = 0; i < btf_vlen(p1); i++)
		if (!types_match(b, a[i].type, c[i].type, 64)) {
			snprintf(why, why_len, "param type mismatch for param#%u %s != %s", i + 1,
				 btf_name(b, a[i].name_off), btf_name(b, c[i].name_off));
			return false;
		}
	return true;
}

/* Modern policy: remember this instance; judged in modern_emit(). */
static int modern_save(struct run *r, const struct cu_frag *f, const struct frag_func *ff)
{
	size_t len = strlen(ff->name), nw, pw, i;
	int64_t idx = strset_find(&r->fnames, ff->name, len);
	const uint32_t *start = f->words + f->recs[ff->first - 1];
	size_t end = ff->last < f->nrecs ? f->recs[ff->last] : f->nwords;
	struct fstate *st;
	uint32_t *w;

	if (idx >= 0) {
		struct btf_type *tmp;
		bool ok;

		st = &r->fs[r->fidx[idx]];
		st->unexpected_reg |= ff->unexpected_reg;
		st->uncertain |= ff->uncertain_loc;
		if (st->unexpected_reg || st->inconsistent)
			return 0;
		/* this instance's prototype with out's ids */
		pw = (f->recs[ff->first] - f->recs[ff->first - 1]);
		tmp = mem_alloc(pw * 4);
		if (!tmp)
			return -ENOMEM;
		memcpy(tmp, start, pw * 4);
		remap_ids(r, tmp);
		ok = protos_match(r->out, (const struct btf_type *)st->recs, tmp, st->why,
				  sizeof(st->why));
		mem_free(tmp);
		if (!ok)
			st->inconsistent = true;
		return 0;
	}
	idx = strset_add(&r->fnames, ff->name, len);
	if (idx < 0 || VEC_RESERVE(r->fs, r->fs_cap, r->nfs + 1) ||
	    VEC_RESERVE(r->fidx, r->fidx_cap, (size_t)idx + 1))
		return -ENOMEM;
	r->fidx[idx] = (uint32_t)r->nfs;
	st = &r->fs[r->nfs++];
	memset(st, 0, sizeof(*st));
	st->name = (uint32_t)idx;
	st->unexpected_reg = ff->unexpected_reg;
	st->uncertain = ff->uncertain_loc;
	st->suffix_only = ff->suffix_only;
	st->bad_param = ff->bad_param;
	/* Keep the FUNC_PROTO and the decl tags; drop the FUNC record (re-made at the end). */
	nw = (size_t)(end - f->recs[ff->first - 1]);
	pw = f->recs[ff->first] - f->recs[ff->first - 1];
	st->recs = w = mem_alloc(nw * 4);
	if (!w)
		return -ENOMEM;
	memcpy(w, start, pw * 4);
	remap_ids(r, (struct btf_type *)w);
	st->proto_words = pw;
	st->nwords = pw;
	for (i = ff->first + 2; i <= ff->last; i++) {	/* decl tags after the FUNC */
		size_t b0 = f->recs[i - 1], b1 = i < f->nrecs ? f->recs[i] : f->nwords;

		memcpy(w + st->nwords, f->words + b0, (b1 - b0) * 4);
		st->nwords += b1 - b0;
	}
	return 0;
}

/* decl_tag_kfuncs: tag FUNC func_id of name if it is a kfunc. */
static int kfunc_tags(struct run *r, const char *name, uint32_t func_id)
{
	const struct enc_syms *sy = r->ctx.syms;
	int64_t so;
	uint32_t flags;
	int id;

	if (!r->ctx.o->decl_tag_kfuncs || !r->ctx.o->decl_tags ||
	    (so = strset_find(&sy->kfuncs, name, strlen(name))) < 0)
		return 0;
	flags = sy->kfunc_flags[so];
	if ((id = btf_add_decl_tag(r->out, "bpf_kfunc", func_id, -1)) < 0)
		return id;
	if ((flags & KF_FASTCALL) && (id = btf_add_decl_tag(r->out, "bpf_fastcall", func_id, -1)) < 0)
		return id;
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

		if (r->ctx.o->compat == ENC_MODERN) {
			if ((err = modern_save(r, f, ff)))
				return err;
			continue;
		}
		/* pahole 1.24: the first definition of a name wins. */
		if (strset_find(&r->generated, ff->name, len) >= 0)
			continue;
		if (strset_add(&r->generated, ff->name, len) < 0)
			return -ENOMEM;
		if ((err = merge_range(r, f, ff->first, ff->last)) ||
		    (err = kfunc_tags(r, ff->name, r->idmap[ff->first + 1])))
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
				btf_error(r->out) ? btf_error(r->out)->msg : strerror(-err));
	return 0;
}

PRINTF_LIKE(2, 3)
static void vlog(struct run *r, const char *fmt, ...)
{
	char line[512];
	va_list ap;

	if (!r->ctx.o->verbose || !r->ctx.o->log)
		return;
	va_start(ap, fmt);
	vsnprintf(line, sizeof(line), fmt, ap);
	va_end(ap);
	r->ctx.o->log(r->ctx.o->log_ctx, line);
}

/*
 * Modern policy, after all units: drop what pahole 1.31 drops (with
 * consistent_func), emit the rest.  One -v line per dropped function in
 * pahole's wording.
 */
static int modern_emit(struct run *r)
{
	const struct enc_syms *sy = r->ctx.syms;
	size_t i;

	for (i = 0; i < r->nfs; i++) {
		struct fstate *st = &r->fs[i];
		const char *name = strset_get(&r->fnames, st->name);
		const char *why = NULL;
		char buf[160];
		uint32_t proto, func, w;
		int id;

		if (r->ctx.o->consistent_func) {
			if (strset_find(&sy->ambiguous, name, strlen(name)) >= 0)
				why = "ambiguous address";
			else if (st->unexpected_reg) {
				snprintf(buf, sizeof(buf), "unexpected register used for parameter");
				why = buf;
			} else if (st->inconsistent)
				why = st->why;
			else if (st->uncertain)
				why = "uncertain parameter location";
		}
		if (why) {
			vlog(r, "%s : skipping BTF encoding of function due to %s", name, why);
			continue;
		}
		if (st->suffix_only)
			vlog(r, "%s : encoded from an ELF symbol with a '.' suffix (optimized_func)",
			     name);
		id = btf_add_raw(r->out, (const struct btf_type *)st->recs, st->proto_words * 4);
		if (id < 0)
			return id;
		proto = (uint32_t)id;
		{
			struct btf_type fn = { 0 };
			int64_t off = btf_add_str(r->out, name);

			if (off < 0)
				return (int)off;
			fn.name_off = (uint32_t)off;
			fn.info = BTF_INFO_ENC(BTF_KIND_FUNC, 0, BTF_FUNC_STATIC);
			fn.type = proto;
			id = btf_add_raw(r->out, &fn, sizeof(fn));
			if (id < 0)
				return id;
			func = (uint32_t)id;
		}
		for (w = (uint32_t)st->proto_words; w < st->nwords; w += 4) {	/* decl tags: 4 words */
			struct btf_type *tag = (struct btf_type *)(st->recs + w);

			tag->type = func;
			if ((id = btf_add_raw(r->out, tag, 16)) < 0)
				return id;
		}
		if ((id = kfunc_tags(r, name, func)) < 0)
			return id;
		r->st->funcs++;
	}
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
	bool many_units = nunits >= MANY_UNITS;
	unsigned jobs = o->jobs ? o->jobs : 1, w;
	pthread_mutex_t str_lock = PTHREAD_MUTEX_INITIALIZER;
	struct run r = { 0 };
	struct enc_syms syms;
	double t0 = clock_now(), t1, t2;
	bool release_kept = false;
	int err;

	*out = NULL;
	memset(st, 0, sizeof(*st));
	r.st = st;
	r.d = d;
	if ((err = syms_load(&syms, in->elf, o->compat == ENC_MODERN, d)))
		goto out;
	if (many_units)		/* decoded and copied: their pages go until a name is read */
		belf_drop_syms(in->elf);
	r.out = btf_new(base);
	r.nslots = (size_t)jobs * WINDOW_PER_THREAD;
	r.slots = mem_array(r.nslots, sizeof(*r.slots));
	r.w = mem_array(jobs, sizeof(*r.w));
	if (!r.out || !r.slots || !r.w || strset_init(&r.generated, false) ||
	    strset_init(&r.fnames, false)) {
		err = diag_err(d, ENOMEM, "out of memory");
		goto out;
	}
	btf_set_endian(r.out, belf_big_endian(in->elf) ? BTF_BIG_ENDIAN : BTF_LITTLE_ENDIAN);
	/*
	 * A base without a string index (a lone module's mapped vmlinux BTF):
	 * own strings are matched against it once each, after conversion
	 * (btf_resolve_base_strs), not once per DWARF reference.  An indexed
	 * base is asked as each string is first added.
	 */
	btf_defer_base_strs(r.out);
	/*
	 * Merging only appends (the modern policy compares prototypes by id,
	 * so it keeps the index): a kernel image's id index waits until the
	 * conversion's memory is given back, lowering the peak RSS by its
	 * 17 MB.  A module's is small and no peak.
	 */
	if (many_units && o->compat != ENC_MODERN)
		btf_defer_index(r.out);
	r.ctx.o = o;
	r.ctx.in = in;
	r.ctx.syms = &syms;
	r.ctx.out = r.out;
	r.ctx.str_lock = jobs > 1 ? &str_lock : NULL;
	/*
	 * A kernel image's string section starts as a copy of .debug_str
	 * (btf_seed_strs), so a name there has its offset from its position:
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
		    btf_seed_strs(r.out, (const char *)in->dw_str.p, in->dw_str.len)) {
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
	st->read = t1 - t0;
	err = pool_pipeline(jobs, nunits, r.nslots, convert_one, consume_one, &r);
	if (!err && o->compat == ENC_MODERN)
		err = modern_emit(&r);
	if (!err)
		err = add_datasec(&r);
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
		mem_trim();
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
		size_t was = mem_keep_freed(KEEP_FOR_DEDUP);

		dwarf_input_done(in);
		mem_keep_freed(was);
		release_kept = !was;
	}
	if ((err = btf_build_index(r.out, jobs))) {
		*d = *btf_error(r.out);
		goto out;
	}
	t2 = clock_now();
	st->convert = t2 - t1;	/* conversion and the overlapping merge */
	st->types_pre_dedup = btf_type_count(r.out) - btf_start_id(r.out);
	if (!st->types_pre_dedup) {
		err = diag_err(d, ENODATA, "%s: no types to encode (no C compile units with DWARF types)",
			       belf_path(in->elf));
		goto out;
	}
	if ((err = btf_resolve_base_strs(r.out, d)))
		goto out;
	if (!o->no_dedup) {
		/* compile-unit order: the serial reference phase is faster here */
		struct btf_dedup_opts dop = { .nr_threads = jobs, .keep_strings = true,
					      .prepared_base = base ? o->dedup_base : NULL,
					      .stats = &st->ded, .serial_refs = true,
					      .ids_checked = true };

		if ((err = btf_dedup(r.out, &dop, d)))
			goto out;
	}
	if (release_kept) {	/* what the index and dedup did not take */
		mem_release_kept();
		release_kept = false;
	}
	/*
	 * The kernel refuses BTF with more types than ids it can address
	 * (--no-dedup output is for tools, e.g. dedup benchmarks, not kernels).
	 */
	if (!o->no_dedup && btf_type_count(r.out) - 1 > BTF_MAX_TYPE - 1) {
		err = diag_err(d, E2BIG,
			       "%s: %u types (base included) exceed the kernel's limit of %u; the kernel would not load this BTF",
			       belf_path(in->elf), btf_type_count(r.out) - 1, BTF_MAX_TYPE - 1);
		goto out;
	}
	/* String offsets depended on which worker interned first: fix the order. */
	if ((err = btf_strings_relayout(r.out, d)))
		goto out;
	st->dedup = clock_now() - t2;
	*out = r.out;
	r.out = NULL;
out:
	if (release_kept)
		mem_release_kept();
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
	mem_free(r.ctx.str_first);
	mem_free(r.si);
	strset_free(&r.generated);
	strset_free(&r.fnames);
	for (i = 0; i < r.nfs; i++)
		mem_free(r.fs[i].recs);
	mem_free(r.fs);
	mem_free(r.fidx);
	syms_free(&syms);
	btf_free(r.out);
	return err;
}

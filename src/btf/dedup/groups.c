// SPDX-License-Identifier: GPL-2.0-only
/*
 * BTF dedup in two levels (docs/parallel-dedup.md; internal.h has the
 * overview): the own types split into groups of whole units; each group
 * is deduplicated alone, on the threads, by dedup_run() (libbpf's
 * algorithm); one more dedup_run() over what the groups kept, in input
 * order, gives the result.  Then a check that the result cannot be one
 * that libbpf's order would have made differently; if it fails, the whole
 * input runs in one level instead.
 *
 * Groups: consecutive own ids [a, b), at least group_types of them, cut
 * where no type refers across the cut, but to an earlier INT or FLOAT
 * (pahole 1.24 indexes every array with the first unit's int), or from a
 * DATASEC or FUNC_PROTO (a DATASEC lists every unit's variables; 1.30's
 * functions come after all units).  A group's copy has its types, ids
 * local, then copies (stubs) of the INTs and FLOATs of earlier groups it
 * refers to, which stand for their originals.  A DATASEC or FUNC_PROTO
 * that refers back across the cut to anything else passes through: in
 * the copy, an empty DATASEC (which dedup never merges) stands for it,
 * and the original goes to the final pass (a struct's walk that met two
 * of them would fail the run: one level then).  Split BTF: every group's
 * copy is split on the same base, references to it unchanged (local ids
 * start at the base's type count), and the runs share one prepared base.
 */
#include "btf/dedup/internal.h"

#include <stdlib.h>

#include "base/clock.h"
#include "base/pool.h"

#define GROUP_TYPES	(1u << 17)	/* default minimum own types per group */

/* Kinds a group may share with an earlier one (copied in as stubs). */
static inline bool sink_kind(enum btf_kind k)
{
	switch (k) {
	case BTF_KIND_INT: case BTF_KIND_FLOAT:
		return true;
	case BTF_KIND_UNKN: case BTF_KIND_PTR: case BTF_KIND_ARRAY: case BTF_KIND_STRUCT:
	case BTF_KIND_UNION: case BTF_KIND_ENUM: case BTF_KIND_FWD: case BTF_KIND_TYPEDEF:
	case BTF_KIND_VOLATILE: case BTF_KIND_CONST: case BTF_KIND_RESTRICT:
	case BTF_KIND_FUNC: case BTF_KIND_FUNC_PROTO: case BTF_KIND_VAR: case BTF_KIND_DATASEC:
	case BTF_KIND_DECL_TAG: case BTF_KIND_TYPE_TAG: case BTF_KIND_ENUM64:
		break;
	}
	return false;
}

/* Kinds whose backward references do not decide the cuts. */
static inline bool cut_blind(enum btf_kind k)
{
	return k == BTF_KIND_DATASEC || k == BTF_KIND_FUNC_PROTO;
}

struct group {
	uint32_t a, b;			/* own ids [a, b) */
	uint32_t nloc;			/* local ids of its own types: id - a + s */
	struct u32vec pass;		/* ids of the types passing through */
	uint32_t *ext;			/* stubs' originals (local ids s + nloc...) */
	size_t ext_cap;
	uint32_t next;
	struct btf *btf;		/* its copy; after the run, the types it kept */
	uint32_t *map;			/* local id - 1 -> kept id | MAP_CANON */
	struct u32vec fwds;		/* own ids of its FWDs and forward enums */
	struct u32vec fwd4;		/* names of the FWDs its phase 4 resolved, sorted */
	uint64_t conflicts, adjusts;
	struct diag diag;
	int err;
	/* assembly */
	uint32_t nkept, nks;		/* kept types; the last nks of them are stubs */
	uint32_t *kext;			/* kept stub -> the original it stands for */
	uint32_t *fin;			/* kept id -> final id (not for stubs) */
	uint32_t nout, first;		/* final-pass types from this group, first's id */
	size_t wout, wfirst;		/* their words, first's offset */
};

struct groups {
	struct btf *btf;
	const struct btf_dedup_opts *opts;
	unsigned nt;
	const struct btf_dedup_base *pb;	/* the runs' shared prepared base */
	struct btf_dedup_base *own_pb;	/* ... when made here (trivial without a base) */
	uint32_t s, n;			/* own ids [s, n) */
	uint8_t *kinds;			/* own id - s -> kind */
	struct group *g;
	uint32_t ng;
	/* partition, per CHUNK */
	uint32_t *chunk_max;		/* the largest id referred to */
	uint32_t *chunk_min;		/* the smallest non-INT/FLOAT, not cut_blind() */
	struct u32vec *cands;		/* cut candidates (before other chunks are known) */
	/* the final pass's input */
	uint32_t *types, *index;
	size_t nwords;
	uint32_t nfinal;
};

static inline const struct btf_type *orig_rec(const struct groups *c, uint32_t id)
{
	return (const struct btf_type *)(c->btf->types + c->btf->index[id - c->s]);
}

/* Word offset of own id in the original (id == n: the end). */
static inline size_t orig_off(const struct groups *c, uint32_t id)
{
	return id < c->n ? c->btf->index[id - c->s] : c->btf->types_len;
}

/* ---- partition ------------------------------------------------------------ */

/*
 * Per CHUNK: kinds, id checks, what the cuts need (chunk_max/min/bmin),
 * and the ids b where no type of the chunk before b refers to b or beyond
 * and none from b on (but cut_blind() kinds) refers before b to other
 * than INT/FLOAT.  Kinds of other chunks are read from their records:
 * those of this one may not be written yet.
 */
static int part_chunk(void *ctx, unsigned worker, size_t item)
{
	struct groups *c = ctx;
	uint32_t s = c->s + (uint32_t)(item * CHUNK), end = MIN(c->n, s + CHUNK), id;
	uint32_t mx = 0, mn = UINT32_MAX, lo[CHUNK], pmax[CHUNK];
	bool check = !c->opts->ids_checked;
	struct u32vec *cv = &c->cands[item];

	(void)worker;
	for (id = s; id < end; id++) {
		uint32_t *w = (uint32_t *)orig_rec(c, id), l = UINT32_MAX;
		enum btf_kind k = BTF_INFO_KIND(w[1]);

		if (!btf_kind_known(k))
			return -EINVAL;		/* the one-level run says which */
		c->kinds[id - c->s] = (uint8_t)k;
		pmax[id - s] = mx;
#define REFS(kk) BTF_FOR_EACH_ID(w, kk, p, {					\
			uint32_t r = *p;					\
			enum btf_kind rk;					\
										\
			if (check && r >= c->n)					\
				return -EINVAL;					\
			mx = MAX(mx, r);					\
			if (r < c->s || r >= id)	/* (void, the base) */	\
				continue;					\
			rk = r >= s ? (enum btf_kind)c->kinds[r - c->s] :	\
				      btf_kind(orig_rec(c, r));			\
			if (!sink_kind(rk))					\
				l = MIN(l, r);					\
		})
		BTF_KIND_DISPATCH(k, REFS, (void)0)
#undef REFS
		lo[id - s] = cut_blind(k) ? UINT32_MAX : l;
	}
	/* candidates, from the back: the smallest reference from b on is b or more */
	for (id = end; id-- > s;) {
		mn = MIN(mn, lo[id - s]);
		if (id > c->s && pmax[id - s] < id && mn >= id && u32vec_push(cv, id))
			return -ENOMEM;
	}
	for (size_t i = 0; i < cv->n / 2; i++) {	/* into id order */
		uint32_t t = cv->v[i];

		cv->v[i] = cv->v[cv->n - 1 - i];
		cv->v[cv->n - 1 - i] = t;
	}
	c->chunk_max[item] = mx;
	c->chunk_min[item] = mn;
	return 0;
}

/* The groups of cuts; 0, or 1 when there would be fewer than two. */
static int part_groups(struct groups *c, const struct u32vec *cuts)
{
	size_t i;

	if (cuts->n == 0)
		return 1;
	if (!(c->g = mem_array(cuts->n + 1, sizeof(*c->g))))
		return -ENOMEM;
	c->ng = (uint32_t)cuts->n + 1;
	for (i = 0; i < c->ng; i++) {
		c->g[i].a = i ? cuts->v[i - 1] : c->s;
		c->g[i].b = i < cuts->n ? cuts->v[i] : c->n;
	}
	return 0;
}

/* Groups of at least per types from the caller's units (btf_dedup_opts.unit_starts). */
static int part_units(struct groups *c, uint32_t per)
{
	const struct btf_dedup_opts *o = c->opts;
	struct u32vec cuts = { 0 };
	uint32_t i, last = c->s;
	int err = 0;

	for (i = 0; i < o->nunits && !err; i++) {
		uint32_t b = o->unit_starts[i];

		if (b <= last || b >= c->n)
			continue;	/* (not ascending: the copies check what matters) */
		if (b - last >= per && c->n - b >= per / 2) {
			err = u32vec_push(&cuts, b);
			last = b;
		}
	}
	if (!err)
		err = part_groups(c, &cuts);
	mem_free(cuts.v);
	return err;
}

/*
 * Cut the own ids into groups of at least per types; 0, or 1 when there
 * would be fewer than two.
 */
static int part_cut(struct groups *c, uint32_t per)
{
	size_t nchunks = (c->n - c->s + CHUNK - 1) / CHUNK, i, j;
	struct u32vec cuts = { 0 };
	uint32_t mx, last = c->s, *after;
	int err = 0;

	/* after[i]: the smallest id referred to from chunks after i */
	if (!(after = mem_alloc(nchunks * sizeof(*after))))
		return -ENOMEM;
	for (i = nchunks, mx = UINT32_MAX; i-- > 0;) {
		after[i] = mx;
		mx = MIN(mx, c->chunk_min[i]);
	}
	for (i = 0, mx = 0; i < nchunks && !err; i++) {
		for (j = 0; j < c->cands[i].n; j++) {
			uint32_t b = c->cands[i].v[j];

			if (b > mx && after[i] >= b && b - last >= per && c->n - b >= per / 2) {
				err = u32vec_push(&cuts, b);
				last = b;
			}
		}
		mx = MAX(mx, c->chunk_max[i]);
	}
	mem_free(after);
	if (!err)
		err = part_groups(c, &cuts);
	mem_free(cuts.v);
	return err;
}

/*
 * Does anything pay for two levels?  The input's first per types must
 * repeat themselves: at least three times as many STRUCTs and UNIONs as
 * distinct shapes among them (a compiler's units: 10 to 1; deduplicated
 * BTFs appended: one to one per copy, and a group of two or three copies
 * would only add work).  Asked before the units are looked for.
 */
static bool part_pays(const struct groups *c, uint32_t per)
{
	struct u32set shapes = { 0 };
	uint32_t id, n = 0;
	bool pays;

	for (id = c->s; id < c->s + per; id++) {
		const struct btf_type *t = orig_rec(c, id);

		if (!btf_kind_known(btf_kind(t)))
			break;
		if (!btf_is_composite_kind(btf_kind(t)))
			continue;
		n++;
		if (u32set_add(&shapes, fold64(hash_struct(t)) | 1)) {
			mem_free(shapes.v);
			return false;
		}
	}
	pays = n >= 64 && n >= 3 * shapes.n;
	mem_free(shapes.v);
	return pays;
}

/* ---- one group: its copy, its run ----------------------------------------- */

#define REF_CROSS	0xfffffffeu	/* group_ref(): refers back to other than INT/FLOAT */
#define REF_BAD		0xfffffffdu	/* ... beyond the group: not a unit boundary */
/* Stubs a group makes at most, so that finding one stays a short search;
 * a type referring to another earlier INT/FLOAT passes through instead. */
#define MAX_STUBS	256

/* Local id of a reference r of one of the group's own types. */
static inline uint32_t group_ref(struct group *g, const struct groups *c, uint32_t r)
{
	uint32_t j;

	if (r >= g->a)
		return r < g->b ? r - g->a + c->s : REF_BAD;
	if (r < c->s)	/* void, or the base's */
		return r;
	if (!sink_kind(btf_kind(orig_rec(c, r))))
		return REF_CROSS;
	for (j = 0; j < g->next; j++)	/* a stub: few per group (a kernel's: 15) */
		if (g->ext[j] == r)
			return c->s + g->nloc + j;
	if (g->next >= MAX_STUBS)	/* a crafted input's: it passes through */
		return REF_CROSS;
	if (VEC_RESERVE(g->ext, g->ext_cap, g->next + 1))
		return UINT32_MAX;
	g->ext[g->next++] = r;
	return c->s + g->nloc + g->next - 1;
}

/*
 * The group's own BTF: its types in one copy, ids local (a type passing
 * through replaced by an empty DATASEC), then the stubs; strings borrowed.
 */
static int group_copy(struct group *g, const struct groups *c)
{
	size_t w0 = orig_off(c, g->a), words = orig_off(c, g->b) - w0, w, sw = 0;
	size_t cap1 = words + 16 * 4 + 1, cap2;
	uint32_t i, nt;
	uint32_t *types, *index;
	struct btf *b;

	g->nloc = g->b - g->a;
	cap2 = g->nloc + 16 + 1;
	/* room for 16 stubs; more are rare (and grown below) */
	types = mem_alloc(cap1 * 4);
	index = mem_alloc(cap2 * sizeof(*index));
	if (!types || !index)
		goto nomem;
	memcpy(types, c->btf->types + w0, words * 4);
	for (i = 0; i < g->nloc; i++)
		index[i] = (uint32_t)(c->btf->index[g->a - c->s + i] - w0);
	for (i = 0; i < g->nloc; i++) {
		uint32_t *tw = types + index[i];
		enum btf_kind k = btf_kind((struct btf_type *)tw);
		bool cross = false;

#define LOCAL(kk) BTF_FOR_EACH_ID(tw, kk, p, {					\
			if ((*p = group_ref(g, c, *p)) == UINT32_MAX)		\
				goto nomem;					\
			if (*p == REF_BAD)					\
				goto bad;					\
			cross |= *p == REF_CROSS;				\
		})
		BTF_KIND_DISPATCH(k, LOCAL, (void)0)
#undef LOCAL
		if (cross) {	/* (the cuts leave this to a DATASEC or FUNC_PROTO) */
			tw[0] = 0;
			tw[1] = BTF_INFO_ENC(BTF_KIND_DATASEC, 0, 0);
			tw[2] = 0;
			if (u32vec_push(&g->pass, g->a + i))
				goto nomem;
		}
		/* the types the check after the final pass looks at */
		if ((k == BTF_KIND_FWD || ((k == BTF_KIND_ENUM || k == BTF_KIND_ENUM64) &&
					   !BTF_INFO_VLEN(tw[1]))) &&
		    u32vec_push(&g->fwds, g->a + i))
			goto nomem;
	}
	/* the stubs: INT and FLOAT records */
	for (i = 0; i < g->next; i++)
		sw += btf_type_size(orig_rec(c, g->ext[i])) / 4;
	if (mem_grow((void **)&types, &cap1, 4, words + sw + 1) ||
	    mem_grow((void **)&index, &cap2, 4, g->nloc + g->next + 1))
		goto nomem;
	w = words;
	nt = g->nloc;
	for (i = 0; i < g->next; i++) {
		const struct btf_type *t = orig_rec(c, g->ext[i]);
		size_t sz = btf_type_size(t) / 4;

		memcpy(types + w, t, sz * 4);
		index[nt++] = (uint32_t)w;
		w += sz;
	}
	if (!(b = btf_new(c->btf->base)))
		goto nomem;
	strset_free(&b->strs);
	strset_borrow(&b->strs, c->btf->strs.data, c->btf->strs.len);
	b->types = types;
	b->types_len = w;
	b->types_cap = cap1;
	b->index = index;
	b->index_cap = cap2;
	b->nr_types = nt;
	b->endian = c->btf->endian;
	b->last_type_kind = nt ? (int)btf_kind((struct btf_type *)(types + index[nt - 1])) : -1;
	g->btf = b;
	return 0;
bad:
	mem_free(types);
	mem_free(index);
	return -EINVAL;		/* the one-level run reports it, if it is an error */
nomem:
	mem_free(types);
	mem_free(index);
	return -ENOMEM;
}

static int cmp_u32(const void *a, const void *b)
{
	uint32_t x = *(const uint32_t *)a, y = *(const uint32_t *)b;

	return x < y ? -1 : x > y;
}

static int group_run(void *ctx, unsigned worker, size_t item)
{
	struct groups *c = ctx;
	struct group *g = &c->g[item];
	struct btf_dedup_opts o = {
		.nr_threads = 1, .keep_strings = true, .compat = c->opts->compat,
		.serial_refs = true, .ids_checked = true, .exact = true,
	};
	struct dedup_ext x = { .pb = c->pb, .fwd_names = &g->fwd4 };
	uint32_t i;

	(void)worker;
	if ((g->err = group_copy(g, c)))
		return 0;
	if (!(g->map = mem_array(g->nloc + g->next + 1, sizeof(*g->map)))) {
		g->err = -ENOMEM;
		return 0;
	}
	x.map_out = g->map;
	g->err = dedup_run(g->btf, &o, &x, &g->diag);
	g->conflicts = x.conflicts;
	g->adjusts = x.adjusts;
	if (g->err)
		return 0;
	if (g->fwd4.n)
		qsort(g->fwd4.v, g->fwd4.n, sizeof(*g->fwd4.v), cmp_u32);
	g->nkept = btf_type_count(g->btf) - c->s;
	for (i = 0; i < g->next; i++)
		g->nks += !!(g->map[g->nloc + i] & MAP_CANON);
	return 0;
}

/* ---- assembly: the final pass's input --------------------------------------- */

/* Final id of own id x (every group numbered). */
static uint32_t final_of(const struct groups *c, uint32_t x)
{
	for (;;) {
		uint32_t lo = 0, hi = c->ng, li, k;
		const struct group *g;

		while (hi - lo > 1) {	/* the group of x */
			uint32_t mid = (lo + hi) / 2;

			if (c->g[mid].a <= x)
				lo = mid;
			else
				hi = mid;
		}
		g = &c->g[lo];
		li = x - g->a + 1;
		k = g->map[li - 1] & ~MAP_CANON;
		if (k < c->s)	/* the base's */
			return k;
		k -= c->s - 1;	/* 1... */
		if (k <= g->nkept - g->nks)
			return g->fin[k];
		x = g->kext[k - (g->nkept - g->nks) - 1];	/* an earlier group's */
	}
}

/* What a group hands on: its kept types but the stubs, and the types passing through. */
static int asm_count(void *ctx, unsigned worker, size_t item)
{
	struct groups *c = ctx;
	struct group *g = &c->g[item];
	uint32_t i, own = g->nkept - g->nks;

	(void)worker;
	g->fin = mem_array(own + 1, sizeof(*g->fin));
	g->kext = mem_array(g->nks + 1, sizeof(*g->kext));
	if (!g->fin || !g->kext)
		return -ENOMEM;
	g->nout = own;	/* the types passing through: kept (DATASECs), their own size */
	for (i = 0; i < own; i++)
		g->wout += btf_type_size(btf_type_by_id(g->btf, c->s + i)) / 4;
	for (i = 0; i < g->pass.n; i++)
		g->wout += btf_type_size(orig_rec(c, g->pass.v[i])) / 4 - 3;
	for (i = 0; i < g->next; i++) {
		uint32_t k = g->map[g->nloc + i];

		if (k & MAP_CANON)
			g->kext[(k & ~MAP_CANON) - c->s - own] = g->ext[i];
	}
	return 0;
}

/* Final ids, in input order: a kept type at its original's place, one passing through at its own. */
static int asm_number(void *ctx, unsigned worker, size_t item)
{
	struct groups *c = ctx;
	struct group *g = &c->g[item];
	uint32_t next = g->first, i;

	(void)worker;
	for (i = 0; i < g->nloc; i++)
		if (g->map[i] & MAP_CANON)
			g->fin[(g->map[i] & ~MAP_CANON) - c->s + 1] = next++;
	return 0;
}

static int asm_copy(void *ctx, unsigned worker, size_t item)
{
	struct groups *c = ctx;
	struct group *g = &c->g[item];
	uint32_t i, nid = g->first - c->s, own = g->nkept - g->nks;
	size_t w = g->wfirst, np = 0;

	(void)worker;
	for (i = 0; i < g->nloc; i++) {
		bool pass = np < g->pass.n && g->pass.v[np] == g->a + i;
		const struct btf_type *t;
		uint32_t *nw;
		size_t sz;

		np += pass;
		if (!(g->map[i] & MAP_CANON))
			continue;
		t = pass ? orig_rec(c, g->a + i) : btf_type_by_id(g->btf, g->map[i] & ~MAP_CANON);
		sz = btf_type_size(t) / 4;
		nw = c->types + w;
		memcpy(nw, t, sz * 4);
		c->index[nid++] = (uint32_t)w;
		w += sz;
#define FINAL(kk) BTF_FOR_EACH_ID(nw, kk, p, {					\
			if (*p < c->s)	/* void, or the base's */		\
				continue;					\
			if (pass)						\
				*p = final_of(c, *p);				\
			else if (*p - c->s < own)				\
				*p = g->fin[*p - c->s + 1];			\
			else							\
				*p = final_of(c, g->kext[*p - c->s - own]);	\
		})
		BTF_KIND_DISPATCH(btf_kind(t), FINAL, (void)0)
#undef FINAL
	}
	return 0;
}

static int assemble(struct groups *c)
{
	uint32_t gi, next = c->s;
	size_t w = 0;
	int err;

	if ((err = pool_for(c->nt, c->ng, asm_count, c)))
		return err;
	for (gi = 0; gi < c->ng; gi++) {
		c->g[gi].first = next;
		c->g[gi].wfirst = w;
		next += c->g[gi].nout;
		w += c->g[gi].wout;
	}
	c->nfinal = next - c->s;
	c->nwords = w;
	c->types = mem_alloc(MAX(w, 1) * 4);
	c->index = mem_alloc(MAX(c->nfinal, 1) * sizeof(*c->index));
	if (!c->types || !c->index)
		return -ENOMEM;
	if ((err = pool_for(c->nt, c->ng, asm_number, c)))
		return err;
	return pool_for(c->nt, c->ng, asm_copy, c);
}

/* ---- the check, and the driver ---------------------------------------------- */

/*
 * Where libbpf's result depends on its order, the two levels may make
 * another choice: a forward declaration (FWD, or an enum without values)
 * whose name has two different definitions, which libbpf resolves to the
 * one its order meets first.  So: every name that a group's FWD or
 * forward enum has must have at most one definition in the result (a
 * STRUCT or UNION; a full enum); and no is_equiv() may have been ended by
 * a conflict (docs/parallel-dedup.md).  Name -> definitions, over the
 * result's types (the few kept, not the input's).
 */
struct ncount {
	uint32_t *key;			/* name_off + 1, 0 empty */
	uint8_t *comp, *full;		/* STRUCT/UNIONs, full enums (saturating at 2) */
	size_t mask;
};

static int ncount_build(struct ncount *m, const struct btf *f)
{
	uint32_t id, n = btf_type_count(f);
	size_t ns = 64;

	while (ns < (size_t)n * 2)
		ns *= 2;
	m->mask = ns - 1;
	m->key = mem_array(ns, sizeof(*m->key));
	m->comp = mem_array(ns, 1);
	m->full = mem_array(ns, 1);
	if (!m->key || !m->comp || !m->full)
		return -ENOMEM;
	for (id = 1; id < n; id++) {	/* the base's definitions count too */
		const struct btf_type *t = btf_type_by_id(f, id);
		enum btf_kind k = btf_kind(t);
		uint8_t *cnt;
		size_t j;

		if (btf_is_composite_kind(k))
			cnt = m->comp;
		else if ((k == BTF_KIND_ENUM || k == BTF_KIND_ENUM64) && btf_vlen(t))
			cnt = m->full;
		else
			continue;
		for (j = hash_mix(t->name_off) & m->mask; m->key[j] && m->key[j] != t->name_off + 1;
		     j = (j + 1) & m->mask)
			;
		m->key[j] = t->name_off + 1;
		if (cnt[j] < 2)
			cnt[j]++;
	}
	return 0;
}

struct check {
	const struct groups *c;
	const struct ncount *m;
	const struct btf *f;		/* the final pass's result */
	const uint32_t *fmap;		/* its input id - 1 -> result id | MAP_CANON */
	uint8_t *bad;			/* per group */
	struct u32vec *amb;		/* per group: (name, kflag, definition or 0) */
	/* the walk (below) */
	const uint32_t *keys;		/* (name, kflag, definition) sorted */
	size_t nkeys;
	struct u32vec *seen;		/* per chunk: (key, side, root name) */
	uint8_t *wbad;			/* per chunk: a walk too long (crafted input) */
	uint8_t *kinds;			/* own id - s -> kind | KIND_KEYED (kinds_chunk()) */
	double par;			/* wall time on the threads (--stats' serial) */
};

/* The result id of own id x: its class's type in the final pass's output (or the base's). */
static uint32_t result_of(const struct check *k, uint32_t x)
{
	uint32_t fid = final_of(k->c, x);

	return fid < k->f->start_id ? fid : k->fmap[fid - k->f->start_id] & ~MAP_CANON;
}

/*
 * A group's FWDs and forward enums whose name ends with two definitions
 * (two STRUCT/UNIONs; two full enums; the base's count).  A forward enum
 * resolved to one is a choice libbpf makes by its order: the group is bad.
 * So is a FWD resolved by its group's unique-name phase (no pairing made
 * it: libbpf's pass need not resolve it), or in split BTF (check_fwds()
 * walks no base).  Any other FWD is noted with what it became, for
 * check_fwds(); one left unresolved is no choice
 * (a struct holding it met every definition-holding struct of its shape in
 * the final pass, the groups' survivors of each class in one hash bucket,
 * and merged with none, and so it does in libbpf's one pass).
 */
static int check_group(void *ctx, unsigned worker, size_t item)
{
	struct check *k = ctx;
	const struct group *g = &k->c->g[item];
	const struct ncount *m = k->m;
	size_t i, j;

	(void)worker;
	for (i = 0; i < g->fwds.n && !k->bad[item]; i++) {
		const struct btf_type *t = orig_rec(k->c, g->fwds.v[i]), *r;
		bool is_enum = btf_kind(t) != BTF_KIND_FWD;
		uint32_t name = t->name_off, rid;

		for (j = hash_mix(name) & m->mask; m->key[j] && m->key[j] != name + 1;
		     j = (j + 1) & m->mask)
			;
		if (!m->key[j] || (is_enum ? m->full[j] : m->comp[j]) < 2)
			continue;
		rid = result_of(k, g->fwds.v[i]);
		r = btf_type_by_id(k->f, rid);
		if (is_enum) {
			k->bad[item] = btf_vlen(r) != 0;
		} else if (btf_kind(r) != BTF_KIND_FWD &&
			   (k->c->btf->base ||
			    (g->fwd4.n && bsearch(&name, g->fwd4.v, g->fwd4.n, sizeof(name), cmp_u32)))) {
			k->bad[item] = 1;
		} else if (u32vec_push(&k->amb[item], name) ||
			   u32vec_push(&k->amb[item], btf_kflag(t)) ||
			   u32vec_push(&k->amb[item], btf_kind(r) == BTF_KIND_FWD ? 0 : rid)) {
			return -ENOMEM;
		}
	}
	return 0;
}

static int cmp3(const void *a, const void *b)
{
	const uint32_t *x = a, *y = b;
	int i;

	for (i = 0; i < 3; i++)
		if (x[i] != y[i])
			return x[i] < y[i] ? -1 : 1;
	return 0;
}

/*
 * Kinds the walk passes through: those without a name of their own, and
 * TYPE_TAG.  (Any choice by kind would do: the two types of a pair that
 * is_equiv() visits have one kind and one name.)
 */
static inline bool walk_through(enum btf_kind k)
{
	switch (k) {
	case BTF_KIND_PTR: case BTF_KIND_CONST: case BTF_KIND_VOLATILE:
	case BTF_KIND_RESTRICT: case BTF_KIND_TYPE_TAG: case BTF_KIND_ARRAY:
	case BTF_KIND_FUNC_PROTO:
		return true;
	case BTF_KIND_UNKN: case BTF_KIND_INT: case BTF_KIND_STRUCT: case BTF_KIND_UNION:
	case BTF_KIND_ENUM: case BTF_KIND_FWD: case BTF_KIND_TYPEDEF: case BTF_KIND_FUNC:
	case BTF_KIND_VAR: case BTF_KIND_DATASEC: case BTF_KIND_FLOAT: case BTF_KIND_DECL_TAG:
	case BTF_KIND_ENUM64:
	default:
		return false;
	}
}

/* Keys of name (at most two: a struct and a union FWD): the first's index, or nkeys. */
static size_t key_first(const struct check *k, uint32_t name)
{
	size_t lo = 0, hi = k->nkeys;

	while (lo < hi) {
		size_t mid = (lo + hi) / 2;

		if (k->keys[3 * mid] < name)
			lo = mid + 1;
		else
			hi = mid;
	}
	return lo;
}

/*
 * Own id x (a FWD, STRUCT or UNION with a key's name: KIND_KEYED) met by a
 * walk from root: note it when it is a key's FWD or rival definition.
 */
static int walk_note(struct check *k, struct u32vec *out, uint32_t x, uint32_t root)
{
	const struct btf_type *t = orig_rec(k->c, x);
	enum btf_kind kind = btf_kind(t);
	size_t i;

	for (i = key_first(k, t->name_off); i < k->nkeys && k->keys[3 * i] == t->name_off; i++) {
		const uint32_t *key = k->keys + 3 * i;
		uint32_t side;

		if (kind == BTF_KIND_FWD)
			side = btf_kflag(t) == key[1] ? 0 : 2;
		else
			side = result_of(k, x) != key[2] ? 1 : 2;
		if (side < 2 && (u32vec_push(out, (uint32_t)i) || u32vec_push(out, side) ||
				 u32vec_push(out, root)))
			return -ENOMEM;
	}
	return 0;
}

#define WALK_STACK 256
#define WALK_STEPS 4096

#define KIND_KEYED 0x80	/* a FWD, STRUCT or UNION with a key's name */

/*
 * Per chunk: own kinds, and which types walk_note() looks at, so that a
 * walk reads the records of few of the types it meets.
 */
static int kinds_chunk(void *ctx, unsigned worker, size_t item)
{
	struct check *k = ctx;
	const struct groups *c = k->c;
	uint32_t s = c->s + (uint32_t)(item * CHUNK), end = MIN(c->n, s + CHUNK), id;

	(void)worker;
	for (id = s; id < end; id++) {
		const struct btf_type *t = orig_rec(c, id);
		enum btf_kind kind = btf_kind(t);
		size_t i;

		k->kinds[id - c->s] = (uint8_t)kind;
		if ((kind == BTF_KIND_FWD || btf_is_composite_kind(kind)) &&
		    (i = key_first(k, t->name_off)) < k->nkeys && k->keys[3 * i] == t->name_off)
			k->kinds[id - c->s] |= KIND_KEYED;
	}
	return 0;
}

/*
 * Per chunk of the input: from every type but those walk_through() passes,
 * down its references through such types to the next other type; where that
 * is a key's FWD or rival definition, note the root's name.
 */
static int walk_chunk(void *ctx, unsigned worker, size_t item)
{
	struct check *k = ctx;
	const struct groups *c = k->c;
	uint32_t s = c->s + (uint32_t)(item * CHUNK), end = MIN(c->n, s + CHUNK), id;
	uint32_t st[WALK_STACK];
	int err;

	(void)worker;
	for (id = s; id < end && !k->wbad[item]; id++) {
		struct btf_type *t = (struct btf_type *)orig_rec(c, id);
		enum btf_kind kind = btf_kind(t);
		unsigned f, nf = btf_id_fields(t), sp, steps;

		if (walk_through(kind))
			continue;
		for (f = 0; f < nf; f++) {
			st[0] = *btf_id_field_k(t, kind, f);
			for (sp = 1, steps = 0; sp; ) {
				uint32_t x = st[--sp], g, gn;
				struct btf_type *u;
				enum btf_kind uk;

				if (x < c->s || x >= c->n)	/* void (ids were checked) */
					continue;
				uk = (enum btf_kind)(k->kinds[x - c->s] & ~KIND_KEYED);
				if (!walk_through(uk)) {
					if ((k->kinds[x - c->s] & KIND_KEYED) &&
					    (err = walk_note(k, &k->seen[item], x, t->name_off)))
						return err;
					continue;
				}
				u = (struct btf_type *)orig_rec(c, x);
				gn = btf_id_fields(u);
				if (++steps > WALK_STEPS || sp + gn > WALK_STACK) {
					k->wbad[item] = 1;
					break;
				}
				for (g = 0; g < gn; g++)
					st[sp++] = *btf_id_field_k(u, uk, g);
			}
		}
	}
	return 0;
}

/* The sorted root names of key i's side (0 its FWDs, 1 its rivals) from seen. */
static int side_names(const struct check *k, size_t nchunks, size_t i, uint32_t side,
		      struct u32vec *out)
{
	size_t ci, j;

	out->n = 0;
	for (ci = 0; ci < nchunks; ci++)
		for (j = 0; j < k->seen[ci].n; j += 3)
			if (k->seen[ci].v[j] == i && k->seen[ci].v[j + 1] == side &&
			    u32vec_push(out, k->seen[ci].v[j + 2]))
				return -ENOMEM;
	if (out->n)
		qsort(out->v, out->n, sizeof(*out->v), cmp_u32);
	return 0;
}

/*
 * The FWDs whose name has two definitions, some resolved (check_group()
 * noted them).  libbpf deduplicates all FWDs of one name and kind into
 * one, which its first successful is_equiv() pairing with a definition
 * resolves, and resolves for good: so every one of them must have become
 * the same definition D, and no pairing with another definition (a rival)
 * may be possible.  A pairing joins the FWD and the rival at the same
 * place of two graphs that is_equiv() walks in step, comparing the names
 * of every pair; above each, the first type that walk_through() does not
 * pass is a pair with one name (anonymous structs: name 0).  So when no
 * name is shared by the types right above the FWDs and right above the
 * rivals (walk_chunk()), no order of libbpf's pass can resolve the FWD to
 * a rival, and the name behaves as if it had one definition
 * (docs/parallel-dedup.md).  A rival of D's size and vlen might be D's
 * class in libbpf (it has D's shape): bad as well.
 */
static int check_fwds(struct check *k, bool *ok)
{
	const struct groups *c = k->c;
	size_t nchunks = (c->n - c->s + CHUNK - 1) / CHUNK, n = 0, i, j, nk = 0;
	struct u32vec all = { 0 }, a = { 0 }, b = { 0 };
	uint32_t gi, id;
	int err = -ENOMEM;

	for (gi = 0; gi < c->ng; gi++)
		for (j = 0; j < k->amb[gi].n; j++)
			if (u32vec_push(&all, k->amb[gi].v[j]))
				goto out;
	n = all.n / 3;
	if (!n)
		return 0;
	qsort(all.v, n, 3 * sizeof(*all.v), cmp3);
	/* one key per (name, kflag) whose FWDs all became one definition */
	for (i = 0; i < n; i = j) {
		for (j = i; j < n && all.v[3 * j] == all.v[3 * i] && all.v[3 * j + 1] == all.v[3 * i + 1]; j++)
			;
		if (all.v[3 * i + 2] == all.v[3 * (j - 1) + 2] && !all.v[3 * i + 2])
			continue;	/* all left unresolved */
		if (all.v[3 * i + 2] != all.v[3 * (j - 1) + 2] || !all.v[3 * i + 2]) {
			*ok = false;	/* some left, or two definitions */
			err = 0;
			goto out;
		}
		memmove(all.v + 3 * nk++, all.v + 3 * i, 3 * sizeof(*all.v));
	}
	if (!nk) {	/* every one left unresolved */
		err = 0;
		goto out;
	}
	k->keys = all.v;
	k->nkeys = nk;
	/* a rival of D's shape */
	for (id = k->f->start_id; id < btf_type_count(k->f); id++) {
		const struct btf_type *t = btf_type_by_id(k->f, id);

		if (!btf_is_composite_kind(btf_kind(t)))
			continue;
		for (i = key_first(k, t->name_off); i < nk && k->keys[3 * i] == t->name_off; i++) {
			const struct btf_type *d = btf_type_by_id(k->f, k->keys[3 * i + 2]);

			if (id != k->keys[3 * i + 2] && t->size == d->size && btf_vlen(t) == btf_vlen(d)) {
				*ok = false;
				err = 0;
				goto out;
			}
		}
	}
	if (!(k->seen = mem_array(nchunks, sizeof(*k->seen))) ||
	    !(k->wbad = mem_array(nchunks, 1)))
		goto out;
	k->par -= clock_now();
	if (!(k->kinds = mem_alloc(c->n - c->s)))
		goto out;
	if (!(err = pool_for(c->nt, nchunks, kinds_chunk, k)))
		err = pool_for(c->nt, nchunks, walk_chunk, k);
	k->par += clock_now();
	if (err)
		goto out;
	for (i = 0; i < nchunks; i++)
		*ok &= !k->wbad[i];
	for (i = 0; i < nk && *ok; i++) {
		size_t x = 0, y = 0;

		if ((err = side_names(k, nchunks, i, 0, &a)) || (err = side_names(k, nchunks, i, 1, &b)))
			goto out;
		while (x < a.n && y < b.n && *ok) {
			if (a.v[x] == b.v[y])
				*ok = false;
			else if (a.v[x] < b.v[y])
				x++;
			else
				y++;
		}
	}
	err = 0;
out:
	for (i = 0; k->seen && i < nchunks; i++)
		mem_free(k->seen[i].v);
	mem_free(k->seen);
	mem_free(k->wbad);
	mem_free(k->kinds);
	mem_free(all.v);
	mem_free(a.v);
	mem_free(b.v);
	return err;
}

/*
 * ok: the result is libbpf's graph; stops: the runs' is_equiv() calls that
 * a conflict ended or that pointed a base FWD at own types; *par: the
 * wall time the check ran on the threads.
 */
static int check_result(struct groups *c, const struct btf *f, const uint32_t *fmap,
			uint64_t stops, bool *ok, double *par)
{
	struct ncount m = { 0 };
	struct check k = { .c = c, .m = &m, .f = f, .fmap = fmap };
	uint32_t gi;
	int err;

	*ok = stops == 0;
	if (!*ok)
		return 0;
	k.bad = mem_array(c->ng, 1);
	k.amb = mem_array(c->ng, sizeof(*k.amb));
	if (!k.bad || !k.amb || (err = ncount_build(&m, f))) {
		err = -ENOMEM;
		goto out;
	}
	k.par -= clock_now();
	err = pool_for(c->nt, c->ng, check_group, &k);
	k.par += clock_now();
	if (err)
		goto out;
	for (gi = 0; gi < c->ng; gi++)
		*ok &= !k.bad[gi];
	if (*ok)
		err = check_fwds(&k, ok);
out:
	*par = k.par;
	for (gi = 0; k.amb && gi < c->ng; gi++)
		mem_free(k.amb[gi].v);
	mem_free(k.amb);
	mem_free(k.bad);
	mem_free(m.key);
	mem_free(m.comp);
	mem_free(m.full);
	return err;
}

static void groups_free(struct groups *c)
{
	uint32_t gi;
	size_t i, nchunks = (c->n - c->s + CHUNK - 1) / CHUNK;

	for (gi = 0; c->g && gi < c->ng; gi++) {
		struct group *g = &c->g[gi];

		mem_free(g->ext);
		mem_free(g->pass.v);
		mem_free(g->map);
		mem_free(g->fin);
		mem_free(g->kext);
		mem_free(g->fwds.v);
		mem_free(g->fwd4.v);
		btf_free(g->btf);
	}
	mem_free(c->g);
	for (i = 0; c->cands && i < nchunks; i++)
		mem_free(c->cands[i].v);
	mem_free(c->cands);
	mem_free(c->chunk_max);
	mem_free(c->chunk_min);
	mem_free(c->kinds);
	mem_free(c->types);
	mem_free(c->index);
	btf_dedup_base_free(c->own_pb);
}

/* Put the final pass's result in place of btf's own types. */
static void install(struct btf *btf, struct btf *f)
{
	if (!btf->types_borrowed)
		mem_free(btf->types);
	btf->types_borrowed = false;
	if (!btf->index_borrowed)
		mem_free(btf->index);
	btf->index_borrowed = false;
	btf->types = f->types;
	btf->types_len = f->types_len;
	btf->types_cap = f->types_cap;
	btf->index = f->index;
	btf->index_cap = f->index_cap;
	btf->nr_types = f->nr_types;
	btf->last_type_kind = f->last_type_kind;
	f->types = NULL;
	f->index = NULL;
	f->nr_types = 0;
}

/* The string phase over the whole input (the groups' runs keep strings as they are). */
static int groups_strings(struct btf *btf, const struct btf_dedup_opts *opts, struct diag *diag)
{
	struct dedup d = { .btf = btf, .opts = opts, .d = diag, .start_id = btf->start_id,
			   .nr_all = btf_type_count(btf) };

	d.nthreads = opts->nr_threads ? opts->nr_threads : 1;
	return dedup_strings(&d);
}

/*
 * One piece (~110 lines): the two levels in order (partition, strings,
 * the groups' runs, assembly, the final pass, the check, install or fall
 * back), sharing the run's state and one cleanup path; each step is a
 * function above.
 */
int dedup_groups(struct btf *btf, const struct btf_dedup_opts *opts, struct diag *diag)
{
	struct groups c = { .btf = btf, .opts = opts, .s = btf->start_id, .n = btf_type_count(btf) };
	unsigned nt = opts->nr_threads ? opts->nr_threads : 1;
	uint32_t per = opts->group_types ? opts->group_types : GROUP_TYPES, gi;
	struct btf_dedup_opts fo = *opts;
	struct btf_dedup_stats fst = { 0 };
	struct dedup_ext x = { 0 };
	struct btf *f = NULL;
	uint32_t *fmap = NULL;		/* the final pass's map_out */
	double t0 = clock_now(), t = t0, ser = 0;	/* ser: wall of one-thread steps */
	double par = 0;		/* the check's on the threads */
	size_t nchunks = (c.n - c.s + CHUNK - 1) / CHUNK;
	uint64_t conflicts = 0, adjusts = 0;
	bool ok;
	int err;

	if (c.n - c.s < 2 * (uint64_t)per || !nchunks || (!opts->group_types && !part_pays(&c, per)))
		return 1;
	c.nt = nt;
	if (opts->unit_starts) {
		err = part_units(&c, per);
	} else {
		c.kinds = mem_alloc(c.n - c.s);
		c.chunk_max = mem_array(nchunks, sizeof(*c.chunk_max));
		c.chunk_min = mem_array(nchunks, sizeof(*c.chunk_min));
		c.cands = mem_array(nchunks, sizeof(*c.cands));
		if (!c.kinds || !c.chunk_max || !c.chunk_min || !c.cands) {
			err = -ENOMEM;
			goto out;
		}
		err = pool_for(nt, nchunks, part_chunk, &c);
		t = clock_now();	/* the cut: one thread */
		if (!err)
			err = part_cut(&c, per);
	}
	if (err == -EINVAL || err == 1) {
		err = 1;	/* one level: it reports what is wrong, if anything */
		goto out;
	}
	if (err)
		goto out;
	ser += clock_now() - (opts->unit_starts ? t0 : t);
	t = clock_now();
	if ((err = groups_strings(btf, opts, diag)))
		goto out;
	if (nt <= 2)	/* (most of the string phase runs on one thread then) */
		ser += clock_now() - t;
	fo.keep_strings = true;	/* from here on, as for the fallback */
	/* one prepared base for every run: the caller's (the runs check it), or made here */
	if (btf->base && opts->prepared_base) {
		c.pb = opts->prepared_base;
	} else {
		if (!(c.own_pb = pb_new(btf->base, opts, false, &err, diag)))
			goto out;
		c.pb = c.own_pb;
	}
	if ((err = pool_for(nt, c.ng, group_run, &c)))
		goto out;
	for (gi = 0; gi < c.ng; gi++) {
		if (c.g[gi].err == -ENOMEM) {
			err = -ENOMEM;
			goto out;
		}
		if (c.g[gi].err == -EINVAL && !c.g[gi].diag.code) {	/* not units after all */
			err = 1;
			goto out;
		}
		if (c.g[gi].err)	/* bad input: the one-level run reports it with its ids */
			goto fallback;
		conflicts += c.g[gi].conflicts;
		adjusts += c.g[gi].adjusts;
	}
	if ((err = assemble(&c)))
		goto out;
	if (!(f = btf_new(btf->base))) {
		err = -ENOMEM;
		goto out;
	}
	strset_free(&f->strs);
	strset_borrow(&f->strs, btf->strs.data, btf->strs.len);
	f->types = c.types;
	f->types_len = f->types_cap = c.nwords;
	f->index = c.index;
	f->index_cap = MAX(c.nfinal, 1);
	f->nr_types = c.nfinal;
	f->endian = btf->endian;
	c.types = c.index = NULL;
	t = clock_now();
	if (opts->stats) {
		opts->stats->groups_secs = t - t0;
		opts->stats->ngroups = c.ng;
		opts->stats->nr_kept = c.nfinal;
	}
	fo.stats = opts->stats ? &fst : NULL;
	fo.ids_checked = true;
	x.pb = c.pb;
	if (!(fmap = mem_array(MAX(c.nfinal, 1), sizeof(*fmap)))) {
		err = -ENOMEM;
		goto out;
	}
	x.map_out = fmap;
	/* bad input a group's run let through: the one-level run names it
	 * with the input's ids (or, where libbpf's run passes, passes) */
	if ((err = dedup_run(f, &fo, &x, diag)) == -ENOMEM)
		goto out;
	if (err) {
		if (diag)
			diag_clear(diag);
		goto fallback;
	}
	conflicts += x.conflicts;
	adjusts += x.adjusts;
	if ((err = check_result(&c, f, fmap, conflicts + adjusts, &ok, &par)))
		goto out;
	if (!ok)
		goto fallback;
	install(btf, f);
	if (opts->stats) {
		struct btf_dedup_stats *st = opts->stats;

		memcpy(st->secs, fst.secs, sizeof(st->secs));
		st->nr_in = c.n - c.s;
		st->nr_out = btf_type_count(btf) - c.s;
		st->conflicts = conflicts;
		/* one thread: the cut, the final pass's serial phases, the check */
		st->serial_secs = ser + fst.serial_secs + (clock_now() - t - par - (fst.secs[BTF_DEDUP_PH_PREP] +
				  fst.secs[BTF_DEDUP_PH_STRS] + fst.secs[BTF_DEDUP_PH_PRIM] +
				  fst.secs[BTF_DEDUP_PH_STRUCT] + fst.secs[BTF_DEDUP_PH_FWD] +
				  fst.secs[BTF_DEDUP_PH_REF] + fst.secs[BTF_DEDUP_PH_COMPACT]));
		if (nt < 2)
			st->serial_secs = clock_now() - t0;
	}
	err = 0;
	goto out;
fallback:
	btf_free(f);
	mem_free(fmap);
	groups_free(&c);
	fo.stats = opts->stats;
	err = dedup_run(btf, &fo, NULL, diag);
	if (opts->stats) {
		opts->stats->fallback = true;
		opts->stats->conflicts += conflicts;
	}
	return err;
out:
	btf_free(f);
	mem_free(fmap);
	groups_free(&c);
	if (err < 0 && diag && !diag->code)
		diag_err(diag, -err, "dedup: %s", strerror(-err));
	return err;
}

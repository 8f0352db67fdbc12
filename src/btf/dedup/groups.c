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
 * of them would fail the run: one level then).
 */
#include "btf/dedup/internal.h"

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
	uint32_t nloc;			/* local ids of its own types: id - a + 1 */
	struct u32vec pass;		/* ids of the types passing through */
	uint32_t *ext;			/* stubs' originals (local ids nloc + 1...) */
	size_t ext_cap;
	uint32_t next;
	struct btf *btf;		/* its copy; after the run, the types it kept */
	uint32_t *map;			/* local id - 1 -> kept id | MAP_CANON */
	struct u32vec fwds;		/* own ids of its FWDs and forward enums */
	uint64_t conflicts;
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
	struct btf_dedup_base *pb;	/* the runs' shared trivial base */
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
			if (!r || r >= id)					\
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
		return r < g->b ? r - g->a + 1 : REF_BAD;
	if (!r)
		return 0;
	if (!sink_kind(btf_kind(orig_rec(c, r))))
		return REF_CROSS;
	for (j = 0; j < g->next; j++)	/* a stub: few per group (a kernel's: 15) */
		if (g->ext[j] == r)
			return g->nloc + 1 + j;
	if (g->next >= MAX_STUBS)	/* a crafted input's: it passes through */
		return REF_CROSS;
	if (VEC_RESERVE(g->ext, g->ext_cap, g->next + 1))
		return UINT32_MAX;
	g->ext[g->next++] = r;
	return g->nloc + g->next;
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
	if (!(b = btf_new(NULL)))
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

static int group_run(void *ctx, unsigned worker, size_t item)
{
	struct groups *c = ctx;
	struct group *g = &c->g[item];
	struct btf_dedup_opts o = {
		.nr_threads = 1, .keep_strings = true, .compat = c->opts->compat,
		.serial_refs = true, .ids_checked = true, .exact = true,
	};
	struct dedup_ext x = { .pb = c->pb };
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
	if (g->err)
		return 0;
	g->nkept = btf_type_count(g->btf) - 1;
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
	for (i = 1; i <= own; i++)
		g->wout += btf_type_size(btf_type_by_id(g->btf, i)) / 4;
	for (i = 0; i < g->pass.n; i++)
		g->wout += btf_type_size(orig_rec(c, g->pass.v[i])) / 4 - 3;
	for (i = 0; i < g->next; i++) {
		uint32_t k = g->map[g->nloc + i];

		if (k & MAP_CANON)
			g->kext[(k & ~MAP_CANON) - own - 1] = g->ext[i];
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
			g->fin[g->map[i] & ~MAP_CANON] = next++;
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
			if (!*p)						\
				continue;					\
			if (pass)						\
				*p = final_of(c, *p);				\
			else if (*p <= own)					\
				*p = g->fin[*p];				\
			else							\
				*p = final_of(c, g->kext[*p - own - 1]);	\
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

	while (ns < (size_t)(n - f->start_id) * 2)
		ns *= 2;
	m->mask = ns - 1;
	m->key = mem_array(ns, sizeof(*m->key));
	m->comp = mem_array(ns, 1);
	m->full = mem_array(ns, 1);
	if (!m->key || !m->comp || !m->full)
		return -ENOMEM;
	for (id = f->start_id; id < n; id++) {
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
};

/*
 * A group's FWDs and forward enums whose name ends with two definitions
 * (two STRUCT/UNIONs; two full enums): one resolved to a definition, by a
 * group's run or the final pass, is a choice libbpf makes by its order,
 * so the group is bad.  One left unresolved is no choice: a struct
 * holding it met every definition-holding struct of its shape in the
 * final pass (the groups' survivors of each class; same hash bucket) and
 * merged with none, and so it does in libbpf's one pass.
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
		uint32_t name = t->name_off, fid;

		for (j = hash_mix(name) & m->mask; m->key[j] && m->key[j] != name + 1;
		     j = (j + 1) & m->mask)
			;
		if (!m->key[j] || (is_enum ? m->full[j] : m->comp[j]) < 2)
			continue;
		fid = final_of(k->c, g->fwds.v[i]);
		r = btf_type_by_id(k->f, k->fmap[fid - k->f->start_id] & ~MAP_CANON);
		if (is_enum ? btf_vlen(r) != 0 : btf_kind(r) != BTF_KIND_FWD)
			k->bad[item] = 1;
	}
	return 0;
}

static int check_result(struct groups *c, const struct btf *f, const uint32_t *fmap,
			uint64_t conflicts, bool *ok)
{
	struct ncount m = { 0 };
	struct check k = { .c = c, .m = &m, .f = f, .fmap = fmap };
	uint32_t gi;
	int err;

	*ok = conflicts == 0;
	if (!*ok)
		return 0;
	k.bad = mem_array(c->ng, 1);
	if (!k.bad || (err = ncount_build(&m, f)) ||
	    (err = pool_for(c->nt, c->ng, check_group, &k))) {
		err = -ENOMEM;
		goto out;
	}
	for (gi = 0; gi < c->ng; gi++)
		*ok &= !k.bad[gi];
out:
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
	btf_dedup_base_free(c->pb);
}

/* Put the final pass's result in place of btf's own types. */
static void install(struct btf *btf, struct btf *f)
{
	if (!btf->types_borrowed)
		mem_free(btf->types);
	btf->types_borrowed = btf->types_inplace = false;
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
	size_t nchunks = (c.n - c.s + CHUNK - 1) / CHUNK;
	uint64_t conflicts = 0;
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
	if (nt <= 2)	/* (the string phase runs on one thread then) */
		ser += clock_now() - t;
	fo.keep_strings = true;	/* from here on, as for the fallback */
	if (!(c.pb = pb_new(NULL, opts, false, &err, diag)))
		goto out;
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
	}
	if ((err = assemble(&c)))
		goto out;
	if (!(f = btf_new(NULL))) {
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
	if ((err = check_result(&c, f, fmap, conflicts, &ok)))
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
		st->serial_secs = ser + fst.serial_secs + (clock_now() - t - (fst.secs[BTF_DEDUP_PH_PREP] +
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

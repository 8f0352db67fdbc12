// SPDX-License-Identifier: GPL-2.0-only
/* BTF dedup, phase 5: reference types, serially and by levels. */
#include "btf/dedup/internal.h"

#include "base/pool.h"

/* ---- phase 5: reference types ------------------------------------------- */

/* Phase 5 kinds with one type-id field, t->type. */
static inline bool one_field_ref_kind(const struct dedup *d, enum btf_kind k)
{
	switch (k) {
	case BTF_KIND_PTR: case BTF_KIND_VOLATILE: case BTF_KIND_CONST: case BTF_KIND_RESTRICT:
	case BTF_KIND_FUNC: case BTF_KIND_DECL_TAG: case BTF_KIND_TYPE_TAG:
		return true;
	case BTF_KIND_TYPEDEF:
		return !d->head;
	case BTF_KIND_UNKN: case BTF_KIND_INT: case BTF_KIND_ARRAY: case BTF_KIND_STRUCT:
	case BTF_KIND_UNION: case BTF_KIND_ENUM: case BTF_KIND_FWD: case BTF_KIND_FUNC_PROTO:
	case BTF_KIND_VAR: case BTF_KIND_DATASEC: case BTF_KIND_FLOAT: case BTF_KIND_ENUM64:
		break;
	}
	return false;
}

/* The kinds phase 5 handles: those ref_fields() below walks. */
static bool ref_phase_kind(const struct dedup *d, enum btf_kind k)
{
	switch (k) {
	case BTF_KIND_PTR: case BTF_KIND_ARRAY: case BTF_KIND_VOLATILE: case BTF_KIND_CONST:
	case BTF_KIND_RESTRICT: case BTF_KIND_FUNC: case BTF_KIND_FUNC_PROTO:
	case BTF_KIND_DECL_TAG: case BTF_KIND_TYPE_TAG:
		return true;
	case BTF_KIND_TYPEDEF:
		return !d->head;
	case BTF_KIND_UNKN: case BTF_KIND_INT: case BTF_KIND_STRUCT: case BTF_KIND_UNION:
	case BTF_KIND_ENUM: case BTF_KIND_FWD: case BTF_KIND_VAR: case BTF_KIND_DATASEC:
	case BTF_KIND_FLOAT: case BTF_KIND_ENUM64:
		break;
	}
	return false;
}

/*
 * Pointers to the type-id fields phase 5 rewrites, in libbpf's order;
 * -EINVAL for a kind that is not ref_phase_kind().  The kind table has
 * these positions too, but read from it (even as constants, under
 * BTF_KIND_DISPATCH) this walk cost a dedup of vmlinux.btf 1.5% more
 * instructions: the three shapes here are one bit test and two compares.
 */
static int ref_fields(const struct dedup *d, struct btf_type *t, uint32_t **f, uint32_t idx)
{
	enum btf_kind k = btf_kind(t);

	if (one_field_ref_kind(d, k)) {
		if (idx >= 1)
			return 0;
		*f = &t->type;
		return 1;
	}
	if (k == BTF_KIND_ARRAY) {
		if (idx >= 2)
			return 0;
		*f = idx == 0 ? &btf_array(t)->type : &btf_array(t)->index_type;
		return 1;
	}
	if (k == BTF_KIND_FUNC_PROTO) {
		if (idx > btf_vlen(t))
			return 0;
		*f = idx == 0 ? &t->type : &btf_params(t)[idx - 1].type;
		return 1;
	}
	return -EINVAL;
}

/* Table hash of a phase 5 type whose targets are final. */
static inline uint64_t ref_hash(const struct btf_type *t)
{
	switch (btf_kind(t)) {
	case BTF_KIND_DECL_TAG:
		return hash_int_tag(t);
	case BTF_KIND_ARRAY:
		return hash_array(t);
	case BTF_KIND_FUNC_PROTO:
		return hash_fnproto(t);
	case BTF_KIND_UNKN: case BTF_KIND_INT: case BTF_KIND_PTR: case BTF_KIND_STRUCT:
	case BTF_KIND_UNION: case BTF_KIND_ENUM: case BTF_KIND_FWD: case BTF_KIND_TYPEDEF:
	case BTF_KIND_VOLATILE: case BTF_KIND_CONST: case BTF_KIND_RESTRICT:
	case BTF_KIND_FUNC: case BTF_KIND_VAR: case BTF_KIND_DATASEC: case BTF_KIND_FLOAT:
	case BTF_KIND_TYPE_TAG: case BTF_KIND_ENUM64:
	default:
		return hash_common(t);
	}
}

/* Phase 5 equality of t (targets final) and a candidate of any kind. */
static inline bool ref_equal(const struct btf_type *t, const struct btf_type *c)
{
	switch (btf_kind(t)) {
	case BTF_KIND_DECL_TAG:
		return equal_int_tag(t, c);
	case BTF_KIND_ARRAY:
		return equal_array(t, c);
	case BTF_KIND_FUNC_PROTO:
		return equal_fnproto(t, c);
	case BTF_KIND_UNKN: case BTF_KIND_INT: case BTF_KIND_PTR: case BTF_KIND_STRUCT:
	case BTF_KIND_UNION: case BTF_KIND_ENUM: case BTF_KIND_FWD: case BTF_KIND_TYPEDEF:
	case BTF_KIND_VOLATILE: case BTF_KIND_CONST: case BTF_KIND_RESTRICT:
	case BTF_KIND_FUNC: case BTF_KIND_VAR: case BTF_KIND_DATASEC: case BTF_KIND_FLOAT:
	case BTF_KIND_TYPE_TAG: case BTF_KIND_ENUM64:
	default:
		return equal_common(t, c);
	}
}

/* Hash, lookup and record one ref type whose targets are final. */
static int ref_finish(struct dedup *d, uint32_t id)
{
	const struct btf_type *t = T(d, id);
	uint64_t h = ref_hash(t);
	uint32_t new_id = id, cid;
	struct dcand it;

	for (dcand_init(&it, &d->tab, h); (cid = dcand_next(&it)) != NIL;)
		if (ref_equal(t, T(d, cid))) {
			new_id = cid;
			break;
		}
	set_map(d, id, new_id);
	if (new_id == id && dtab_add(&d->tab, h, id))
		return -ENOMEM;
	return 0;
}

/*
 * libbpf btf_dedup_ref_type() for one root id, with an explicit stack of
 * (id, next field index) frames.  A field whose target is mapped is
 * rewritten at once; an unmapped target is entered; a target in progress
 * is a reference cycle (ELOOP).
 */
int dedup_ref(struct dedup *d, uint32_t root)
{
	struct u32vec *st = &d->stack;
	struct btf_type *rt;
	enum btf_kind rk;

	if (MAPV(d, root) == IN_PROGRESS)
		return -ELOOP;
	if (is_mapped(d, root))
		return 0;
	/*
	 * The common root: one field, whose target is final (a pointer to a
	 * struct phase 3 mapped, a typedef of an int): what the walk below
	 * does for it, without the stack.
	 */
	rt = T(d, root);
	rk = btf_kind(rt);
	if (one_field_ref_kind(d, rk) && rt->type < d->nr_all && is_mapped(d, rt->type)) {
		rt->type = resolve(d, rt->type);
		return ref_finish(d, root);
	}
	st->n = 0;
	set_map(d, root, IN_PROGRESS);
	if (u32vec_push(st, root) || u32vec_push(st, 0))
		return -ENOMEM;
	while (st->n) {
		uint32_t id = st->v[st->n - 2], idx = st->v[st->n - 1], tgt;
		struct btf_type *t = T(d, id);
		uint32_t *f;
		int r;

		r = ref_fields(d, t, &f, idx);
		if (r < 0)
			return diag_err(d->d, EINVAL, "dedup: type %u: unexpected %s in reference phase",
					id, btf_kind_str(btf_kind(t)));
		if (r == 0) {
			int err = ref_finish(d, id);

			if (err)
				return err;
			st->n -= 2;
			if (st->n) {	/* rewrite the parent's field */
				uint32_t pid = st->v[st->n - 2], pidx = st->v[st->n - 1];

				ref_fields(d, T(d, pid), &f, pidx);
				*f = OMAP(d, id);
				st->v[st->n - 1] = pidx + 1;
			}
			continue;
		}
		tgt = *f;
		if (tgt >= d->nr_all)
			return diag_err(d->d, EINVAL, "dedup: type %u refers to invalid id %u", id, tgt);
		if (MAPV(d, tgt) == IN_PROGRESS)
			return diag_err(d->d, ELOOP, "dedup: reference cycle through type %u (%s)", tgt,
					btf_kind_str(btf_kind(T(d, tgt))));
		if (is_mapped(d, tgt)) {
			*f = resolve(d, tgt);
			st->v[st->n - 1] = idx + 1;
			continue;
		}
		set_map(d, tgt, IN_PROGRESS);
		if (u32vec_push(st, tgt) || u32vec_push(st, 0))
			return -ENOMEM;
	}
	return 0;
}

/*
 * Phase 5 by levels, for a BTF without base (d->levelled_refs).
 *
 * dedup_ref() makes the first member, in DFS finish order, of each class
 * of equal reference types (equal once their targets are resolved) its
 * canonical type: nothing else in a standalone table can equal one, as
 * phases 2-3 only add other kinds.  Members of one class have the same
 * height (0 for a type mapped before phase 5, else 1 + the greatest
 * height of its targets): equal types have equal resolved targets, which
 * are either the same type mapped before phase 5 or, by induction, equal
 * types of this phase.  So the classes can be found level by level, for
 * one window of root ids after the other (the working set stays small):
 *   1. dedup_ref()'s DFS without hashing records the finish order, the
 *      heights and where each window's roots end.  Which types phase 5
 *      meets follows from kinds alone (phases 2-4 map every other kind
 *      and none of these), so this runs on a thread of its own beside
 *      phases 2-4 (ref_order_run), reading nothing they write;
 *   2. per window and level, in parallel: resolve each type's targets
 *      (all on lower levels, in earlier windows or mapped before phase 5)
 *      and hash it;
 *   3. per level, each worker takes the types of its share of hashes in
 *      finish order: the first of a class (in this or an earlier window)
 *      stays, the others map to it.
 * Heights are the whole graph's, not a window's: a target done in an
 * earlier window counts with its height, else a class could straddle two
 * levels of a window and its later member in finish order come first.
 * The map and the rewritten type words are dedup_ref()'s, for any number
 * of threads and any window.  Ids with a base can equal table entries
 * of these kinds, so those runs use dedup_ref().
 */

/*
 * The height of id when every target of it has one already (a type
 * mapped before phase 5, or one the DFS has finished), else 0: then the
 * DFS finishes id at once, the common case, with no stack frame and one
 * pass over its fields.
 */
static inline unsigned ro_leaf(const struct ref_order *r, uint32_t id)
{
	struct dedup *d = r->d;
	uint32_t s = d->start_id, idx, *f;
	unsigned h = 0, th;

	for (idx = 0; ref_fields(d, T(d, id), &f, idx) > 0; idx++) {
		if (*f < s || !ref_phase_kind(d, K(d, *f)))
			continue;
		th = r->hgt[*f - s];
		if (!th || th == RO_BUSY)
			return 0;
		h = MAX(h, th);
	}
	return h + 1;
}

/* The DFS of dedup_ref() over all roots, window by window; r->err. */
void ref_order_run(struct ref_order *r)
{
	struct dedup *d = r->d;
	struct u32vec *st = &r->st;
	uint32_t s = d->start_id, w, end, root, h;

	for (w = s; w < d->nr_all; w = end) {
		end = w + MIN(d->nr_all - w, r->window);
		for (root = w; root < end; root++) {
			if (r->hgt[root - s] || !ref_phase_kind(d, K(d, root)))
				continue;
			if ((h = ro_leaf(r, root))) {
				if (h >= RO_BUSY)
					goto big;
				r->hgt[root - s] = (uint8_t)h;
				if (u32vec_push(&r->order, root))
					goto nomem;
				continue;
			}
			r->hgt[root - s] = RO_BUSY;
			st->n = 0;
			if (u32vec_push(st, root) || u32vec_push(st, 0) || u32vec_push(st, 0))
				goto nomem;
			while (st->n) {
				uint32_t id = st->v[st->n - 3], idx = st->v[st->n - 2], tgt;
				uint32_t *f;

				if (ref_fields(d, T(d, id), &f, idx) <= 0) {	/* done */
					h = st->v[st->n - 1] + 1;
					if (h >= RO_BUSY)
						goto big;
					r->hgt[id - s] = (uint8_t)h;
					if (u32vec_push(&r->order, id))
						goto nomem;
					st->n -= 3;
					if (st->n)	/* the parent's field index is past us */
						st->v[st->n - 1] = MAX(st->v[st->n - 1], h);
					continue;
				}
				tgt = *f;
				st->v[st->n - 2] = idx + 1;
				if (tgt < s || !ref_phase_kind(d, K(d, tgt)))
					continue;	/* mapped before phase 5: height 0 */
				h = r->hgt[tgt - s];
				if (h == RO_BUSY) {
					r->err = -ELOOP;
					r->loop_id = tgt;
					return;
				}
				if (h) {
					st->v[st->n - 1] = MAX(st->v[st->n - 1], h);
					continue;
				}
				if ((h = ro_leaf(r, tgt))) {	/* finished at once */
					if (h >= RO_BUSY)
						goto big;
					r->hgt[tgt - s] = (uint8_t)h;
					if (u32vec_push(&r->order, tgt))
						goto nomem;
					st->v[st->n - 1] = MAX(st->v[st->n - 1], h);
					continue;
				}
				r->hgt[tgt - s] = RO_BUSY;
				if (u32vec_push(st, tgt) || u32vec_push(st, 0) || u32vec_push(st, 0))
					goto nomem;
			}
		}
		if (u32vec_push(&r->wend, (uint32_t)r->order.n))
			goto nomem;
	}
	return;
big:
	r->err = -E2BIG;
	return;
nomem:
	r->err = -ENOMEM;
}

struct rlevels {
	struct dedup *d;
	const uint32_t *lv;		/* the window's types by level, finish order within */
	uint32_t *hv;			/* per lv[] slot: mixed hash */
	size_t lo, hi;			/* the current level: lv[lo, hi) */
	unsigned np;			/* hash shares */
	struct rtab *tabs;		/* one per share */
};

/*
 * ref_hash() and ref_equal() of records whose targets are resolved as
 * they are read: the levelled phase leaves the records as they are (the
 * input may be a read-only mapping; compaction resolves every id it
 * copies), where dedup_ref() rewrites them as libbpf does.  Equal info
 * means equal kind and vlen.
 */
static inline uint64_t ref_hash_res(const struct dedup *d, const struct btf_type *t)
{
	enum btf_kind k = btf_kind(t);
	uint64_t h = hc(hc(0, t->name_off), t->info);
	const struct btf_param *p;
	const struct btf_array *a;
	unsigned i, n;

	if (k == BTF_KIND_ARRAY) {
		a = btf_array(t);
		return hc(hc(hc(hc(h, t->size), resolve(d, a->type)), resolve(d, a->index_type)),
			  a->nelems);
	}
	h = hc(h, resolve(d, t->type));	/* FUNC_PROTO's return type, or the one target */
	if (k == BTF_KIND_FUNC_PROTO)
		for (i = 0, n = btf_vlen(t), p = btf_params(t); i < n; i++)
			h = hc(hc(h, p[i].name_off), resolve(d, p[i].type));
	if (k == BTF_KIND_DECL_TAG)
		h = hc(h, *(const uint32_t *)(t + 1));
	return h;
}

static inline bool ref_equal_res(const struct dedup *d, const struct btf_type *t,
				 const struct btf_type *c)
{
	enum btf_kind k = btf_kind(t);
	const struct btf_param *p, *q;
	const struct btf_array *a, *b;
	unsigned i, n;

	if (t->name_off != c->name_off || t->info != c->info)
		return false;
	if (k == BTF_KIND_ARRAY) {
		a = btf_array(t);
		b = btf_array(c);
		return t->size == c->size && a->nelems == b->nelems &&
		       resolve(d, a->type) == resolve(d, b->type) &&
		       resolve(d, a->index_type) == resolve(d, b->index_type);
	}
	if (resolve(d, t->type) != resolve(d, c->type))
		return false;
	if (k == BTF_KIND_FUNC_PROTO)
		for (i = 0, n = btf_vlen(t), p = btf_params(t), q = btf_params(c); i < n; i++)
			if (p[i].name_off != q[i].name_off ||
			    resolve(d, p[i].type) != resolve(d, q[i].type))
				return false;
	return k != BTF_KIND_DECL_TAG || *(const uint32_t *)(t + 1) == *(const uint32_t *)(c + 1);
}

static int rlevel_hash(void *ctx, unsigned worker, size_t item)
{
	struct rlevels *c = ctx;
	struct dedup *d = c->d;
	size_t i = c->lo + item * CHUNK, end = MIN(c->hi, i + CHUNK);

	(void)worker;
	for (; i < end; i++) {
		if (i + 8 < end)
			__builtin_prefetch(T(d, c->lv[i + 8]));
		c->hv[i] = (uint32_t)hash_mix(ref_hash_res(d, T(d, c->lv[i])));
	}
	return 0;
}

static int rlevel_group(void *ctx, unsigned worker, size_t share)
{
	struct rlevels *c = ctx;
	struct dedup *d = c->d;
	struct rtab *r = &c->tabs[share];
	size_t i;

	(void)worker;
	for (i = c->lo; i < c->hi; i++) {
		uint32_t hv = c->hv[i], id = c->lv[i], cid = id;
		const struct btf_type *t;
		size_t j;

		if (i + 8 < c->hi && (uint64_t)c->hv[i + 8] * c->np >> 32 == share) {
			__builtin_prefetch(&r->slots[c->hv[i + 8] & r->mask]);
			__builtin_prefetch(T(d, c->lv[i + 8]));
		}
		if ((uint64_t)hv * c->np >> 32 != share)
			continue;
		t = T(d, id);
		for (j = hv & r->mask; r->slots[j]; j = (j + 1) & r->mask)
			if ((uint32_t)(r->slots[j] >> 32) == hv &&
			    ref_equal_res(d, t, T(d, (uint32_t)r->slots[j]))) {
				cid = (uint32_t)r->slots[j];
				break;
			}
		set_map(d, id, cid);
		if (cid != id)
			continue;
		r->slots[j] = (uint64_t)hv << 32 | id;
		if (++r->n * 2 > r->mask + 1 && rtab_grow(r))
			return -ENOMEM;
	}
	return 0;
}

/* Steps 2-3 on step 1's result r. */
int dedup_refs_levelled(struct dedup *d, struct ref_order *r)
{
	struct rlevels c = { .d = d, .np = d->nthreads };
	struct u32vec lv = { 0 }, hv = { 0 };
	size_t start[RO_BUSY + 1], i, lo, hi, k, most = 0;
	int err = 0;

	if (r->err == -ELOOP)
		return diag_err(d->d, ELOOP, "dedup: reference cycle through type %u (%s)", r->loop_id,
				btf_kind_str(btf_kind(T(d, r->loop_id))));
	if (r->err)
		return r->err;
	for (k = 0, lo = 0; k < r->wend.n; lo = r->wend.v[k++])	/* the largest window */
		most = MAX(most, r->wend.v[k] - lo);
	c.tabs = mem_array(c.np, sizeof(*c.tabs));
	if (!c.tabs || VEC_RESERVE(lv.v, lv.cap, most) || VEC_RESERVE(hv.v, hv.cap, most)) {
		err = -ENOMEM;
		goto out;
	}
	for (i = 0; i < c.np; i++)
		if ((err = rtab_grow(&c.tabs[i])))
			goto out;
	c.lv = lv.v;
	c.hv = hv.v;
	for (k = 0, lo = 0; k < r->wend.n && !err; k++, lo = hi) {
		const uint32_t *o = r->order.v;
		unsigned maxh = 0, h;

		hi = r->wend.v[k];
		/* counting sort by height, stable: finish order within a level */
		memset(start, 0, sizeof(start));
		for (i = lo; i < hi; i++) {
			h = r->hgt[o[i] - d->start_id];
			start[h]++;
			maxh = MAX(maxh, h);
		}
		for (h = 1, start[0] = lo; h <= maxh; h++)	/* start[h]: where level h begins */
			start[h] += start[h - 1];
		for (h = maxh; h >= 1; h--)
			start[h] = start[h - 1];
		for (i = lo; i < hi; i++)
			lv.v[start[r->hgt[o[i] - d->start_id]]++ - lo] = o[i];
		/* start[h] - lo is now the end of level h in lv[] */
		for (h = 1; h <= maxh && !err; h++) {
			unsigned nt;

			c.lo = (h == 1 ? lo : start[h - 1]) - lo;
			c.hi = start[h] - lo;
			nt = c.hi - c.lo < LEVEL_SERIAL ? 1 : d->nthreads;
			err = pool_for(nt, (c.hi - c.lo + CHUNK - 1) / CHUNK, rlevel_hash, &c);
			if (!err)
				err = pool_for(nt, c.np, rlevel_group, &c);
		}
	}
out:
	for (i = 0; c.tabs && i < c.np; i++)
		mem_free(c.tabs[i].slots);
	mem_free(c.tabs);
	mem_free(lv.v);
	mem_free(hv.v);
	return err;
}

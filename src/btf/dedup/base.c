// SPDX-License-Identifier: GPL-2.0-only
/* BTF dedup: the prepared base, its flat image, the filtered base table of a lone split run. */
#include "btf/dedup/internal.h"

#include "base/pool.h"

/* ---- phase 0: the prepared base ----------------------------------------- */

/*
 * A base that is not itself split is read through its own index; a split
 * base gets a record table.  0 or -ENOMEM.
 */
static int pb_records(struct btf_dedup_base *pb)
{
	uint32_t id;

	if (!pb->base || pb->base->start_id == 1) {
		pb->bwords = pb->base ? pb->base->types : NULL;
		pb->bidx = pb->base ? pb->base->index : NULL;
		return 0;
	}
	pb->tp = mem_alloc((size_t)pb->nr * sizeof(*pb->tp));
	if (!pb->tp)
		return -ENOMEM;
	pb->tp[0] = (struct btf_type *)&void_rec;
	for (id = 1; id < pb->nr; id++)
		pb->tp[id] = (struct btf_type *)btf_type_by_id(pb->base, id);
	return 0;
}

struct pb_prep {
	struct btf_dedup_base *pb;
	struct diag *d;
};

static int pb_chunk(void *ctx, unsigned worker, size_t item)
{
	struct pb_prep *c = ctx;
	struct btf_dedup_base *pb = c->pb;
	struct dedup tmp = { .head = pb->head };
	uint32_t id = (uint32_t)(item * CHUNK), end = MIN(pb->nr, id + CHUNK);

	for (; id < end; id++) {
		const struct btf_type *t;

		if (id == 0) {
			pb->hash[0] = 0;
			continue;
		}
		t = pb_rec(pb, id);
		if (kind_hash(&tmp, t, &pb->hash[id]))
			return diag_err(c->d, EINVAL, "dedup: base type %u has unknown kind %u", id,
					btf_kind(t));
	}
	return 0;
}

/* Name -> unique base STRUCT/UNION, over every base id or (ids) just those. */
static int pb_names_of(struct btf_dedup_base *pb, const uint32_t *ids, size_t nids)
{
	struct nmap *m = &pb->names;
	size_t n = 0, j, i, end = ids ? nids : pb->nr;
	uint32_t id;

	for (i = ids ? 0 : 1; i < end; i++)
		n += btf_is_composite_kind(btf_kind(pb_rec(pb, ids ? ids[i] : (uint32_t)i)));
	m->nslots = 16;
	while (m->nslots < n * 2)
		m->nslots *= 2;
	m->key = mem_array(m->nslots, sizeof(*m->key));
	m->val = mem_array(m->nslots, sizeof(*m->val));
	m->used = mem_array(m->nslots, 1);
	if (!m->key || !m->val || !m->used)
		return -ENOMEM;
	for (i = ids ? 0 : 1; i < end; i++) {
		const struct btf_type *t = pb_rec(pb, id = ids ? ids[i] : (uint32_t)i);

		if (!btf_is_composite_kind(btf_kind(t)))
			continue;
		for (j = hash_mix(t->name_off) & (m->nslots - 1); m->used[j] && m->key[j] != t->name_off;
		     j = (j + 1) & (m->nslots - 1))
			;
		if (m->used[j]) {
			m->val[j] = 0;
		} else {
			m->used[j] = 1;
			m->key[j] = t->name_off;
			m->val[j] = id;
		}
	}
	return 0;
}

static int pb_names(struct btf_dedup_base *pb)
{
	return pb_names_of(pb, NULL, 0);
}

/* Base STRUCT/UNION named name_off: UNPROCESSED none, 0 several, else the id. */
uint32_t pb_name_lookup(const struct btf_dedup_base *pb, uint32_t name_off)
{
	const struct nmap *m = &pb->names;
	size_t j;

	if (!m->nslots)
		return UNPROCESSED;
	for (j = hash_mix(name_off) & (m->nslots - 1); m->used[j]; j = (j + 1) & (m->nslots - 1))
		if (m->key[j] == name_off)
			return m->val[j];
	return UNPROCESSED;
}

static int pb_strs(struct btf_dedup_base *pb, struct diag *d)
{
	const struct btf *b;

	for (b = pb->base; b; b = b->base) {
		if (pb->nb == ARRAY_SIZE(pb->bs))
			return diag_err(d, EINVAL, "dedup: more than %zu base levels", ARRAY_SIZE(pb->bs));
		pb->bs[pb->nb].btf = b;
		if (!b->strs.nslots) {
			pb->bs[pb->nb].own = true;
			strset_borrow(&pb->bs[pb->nb].priv, b->strs.data, b->strs.len);
			if (strset_index(&pb->bs[pb->nb++].priv))
				return -ENOMEM;
			continue;
		}
		pb->nb++;
	}
	pb->strs_ready = true;
	return 0;
}

void btf_dedup_base_free(struct btf_dedup_base *pb)
{
	size_t i;

	if (!pb)
		return;
	mem_free(pb->tp);
	mem_free(pb->hash);
	if (!pb->borrowed) {
		dtab_free(&pb->tab);
		mem_free(pb->names.key);
		mem_free(pb->names.val);
		mem_free(pb->names.used);
	}
	for (i = 0; i < pb->nb; i++)
		if (pb->bs[i].own)
			strset_free(&pb->bs[i].priv);
	mem_free(pb);
}

struct btf_dedup_base *pb_new(const struct btf *base, const struct btf_dedup_opts *o,
			      bool strs, int *errp, struct diag *d)
{
	static const struct btf_dedup_opts defaults;
	struct btf_dedup_base *pb = mem_zalloc(sizeof(*pb));
	struct pb_prep c = { .pb = pb, .d = d };
	unsigned nthreads;
	uint32_t id;
	int err = -ENOMEM;

	if (!o)
		o = &defaults;
	nthreads = o->nr_threads ? o->nr_threads : 1;
	if (!pb)
		goto fail;
	pb->base = base;
	pb->head = o->compat == BTF_DEDUP_LIBBPF_HEAD;
	pb->nr = base ? btf_type_count(base) : 1;
	pb->hash = mem_array(pb->nr, sizeof(*pb->hash));
	if (pb_records(pb) || !pb->hash || dtab_init(&pb->tab, pb->nr, NULL))
		goto fail;
	if ((err = pool_for(nthreads, (pb->nr + CHUNK - 1) / CHUNK, pb_chunk, &c)))
		goto fail;
	/* base types are canonical candidates, in id order */
	for (id = 1; id < pb->nr; id++) {
		const struct btf_type *t = pb_rec(pb, id);
		if (self_canonical_kind(btf_kind(t)))
			continue;
		if ((err = dtab_add(&pb->tab, pb->hash[id], id)))
			goto fail;
	}
	mem_free(pb->hash);	/* only the table needs them */
	pb->hash = NULL;
	if ((err = pb_names(pb)))
		goto fail;
	if (strs && (err = pb_strs(pb, d)))
		goto fail;
	return pb;
fail:
	err = err ? err : -ENOMEM;	/* the allocations above jump here with err 0 */
	diag_err(d, -err, "dedup: preparing the base: %s", strerror(-err));	/* d may be NULL */
	*errp = err;
	btf_dedup_base_free(pb);
	return NULL;
}

struct btf_dedup_base *btf_dedup_base_new(const struct btf *base, const struct btf_dedup_opts *o,
					  struct diag *d)
{
	if (!base) {
		diag_err(d, EINVAL, "dedup: a prepared base needs a base BTF");
		return NULL;
	}
	int err;

	return pb_new(base, o, !o || !o->keep_strings, &err, d);
}

/* ---- the prepared base as a flat image (btf_dedup_base_save/_load) ---- */

#define PB_IMAGE_MAGIC	0x3162706366746231ull	/* "1btfcpb1" */

struct pb_image {
	uint64_t magic;
	uint32_t nr, head, tab_nslots, tab_n, names_nslots, pad;
	uint64_t tab_ngroups, lb_sz, lb_cap;
	uint32_t lb_bits, parity;
	/* then: dslot[tab_nslots]; e_id, e_next, e_prev, e_aux [tab_n];
	 * names key, val [names_nslots]; used [names_nslots] (8-aligned parts) */
};

static size_t al8(size_t n)
{
	return (n + 7) & ~(size_t)7;
}

/* Size of the image, or 0 if pb cannot be saved. */
static size_t pb_image_size(uint64_t tab_nslots, uint64_t tab_n, uint64_t names_nslots)
{
	return sizeof(struct pb_image) + tab_nslots * sizeof(struct dslot) +
	       al8(tab_n * 4) * 4 + al8(names_nslots * 4) * 2 + al8(names_nslots);
}

size_t btf_dedup_base_save(const struct btf_dedup_base *pb, void *dst, size_t cap)
{
	size_t need;
	struct pb_image h = { 0 };
	uint8_t *p = dst;

	/* only what a run of the encoder (kept strings, a one-level base) uses */
	if (!pb || pb->tp || pb->strs_ready || pb->tab.base)
		return 0;
	need = pb_image_size(pb->tab.nslots, pb->tab.n, pb->names.nslots);
	if (!dst || cap < need)
		return need;
	h.magic = PB_IMAGE_MAGIC;
	h.nr = pb->nr;
	h.head = pb->head;
	h.tab_nslots = (uint32_t)pb->tab.nslots;
	h.tab_n = (uint32_t)pb->tab.n;
	h.names_nslots = (uint32_t)pb->names.nslots;
	h.tab_ngroups = pb->tab.ngroups;
	h.lb_sz = pb->tab.lb_sz;
	h.lb_cap = pb->tab.lb_cap;
	h.lb_bits = pb->tab.lb_bits;
	h.parity = pb->tab.parity;
	memset(dst, 0, need);
	memcpy(p, &h, sizeof(h));
	p += sizeof(h);
#define PUT(src, n, sz) do { if (n) memcpy(p, (src), (size_t)(n) * (sz)); p += al8((size_t)(n) * (sz)); } while (0)
	PUT(pb->tab.slots, pb->tab.nslots, sizeof(struct dslot));
	PUT(pb->tab.e_id, pb->tab.n, 4);
	PUT(pb->tab.e_next, pb->tab.n, 4);
	PUT(pb->tab.e_prev, pb->tab.n, 4);
	PUT(pb->tab.e_aux, pb->tab.n, 4);
	PUT(pb->names.key, pb->names.nslots, 4);
	PUT(pb->names.val, pb->names.nslots, 4);
	PUT(pb->names.used, pb->names.nslots, 1);
#undef PUT
	return need;
}

struct btf_dedup_base *btf_dedup_base_load(const struct btf *base, const void *img, size_t len,
					   struct diag *d)
{
	struct btf_dedup_base *pb;
	struct pb_image h;
	const uint8_t *p = img;

	if (len < sizeof(h) || ((uintptr_t)img & 7)) {
		diag_err(d, EINVAL, "dedup: prepared base image: truncated or misaligned");
		return NULL;
	}
	memcpy(&h, p, sizeof(h));
	if (h.magic != PB_IMAGE_MAGIC || !base || base->start_id != 1 ||
	    h.nr != btf_type_count(base) || h.head > 1 ||
	    pb_image_size(h.tab_nslots, h.tab_n, h.names_nslots) != len ||
	    !h.tab_nslots || (h.tab_nslots & (h.tab_nslots - 1)) ||
	    (h.names_nslots & (h.names_nslots - 1))) {
		diag_err(d, EINVAL, "dedup: prepared base image does not match the base");
		return NULL;
	}
	if (!(pb = mem_zalloc(sizeof(*pb)))) {
		diag_err(d, ENOMEM, "dedup: out of memory");
		return NULL;
	}
	pb->base = base;
	pb->head = h.head;
	pb->nr = h.nr;
	pb->borrowed = true;
	if (pb_records(pb)) {	/* a one-level base: no table to allocate */
		btf_dedup_base_free(pb);
		return NULL;
	}
	p += sizeof(h);
#define GET(dst, n, sz) do { (dst) = (void *)p; p += al8((size_t)(n) * (sz)); } while (0)
	GET(pb->tab.slots, h.tab_nslots, sizeof(struct dslot));
	GET(pb->tab.e_id, h.tab_n, 4);
	GET(pb->tab.e_next, h.tab_n, 4);
	GET(pb->tab.e_prev, h.tab_n, 4);
	GET(pb->tab.e_aux, h.tab_n, 4);
	GET(pb->names.key, h.names_nslots, 4);
	GET(pb->names.val, h.names_nslots, 4);
	GET(pb->names.used, h.names_nslots, 1);
#undef GET
	pb->tab.nslots = h.tab_nslots;
	pb->tab.n = pb->tab.cap = h.tab_n;
	pb->tab.ngroups = (size_t)h.tab_ngroups;
	pb->tab.lb_sz = (size_t)h.lb_sz;
	pb->tab.lb_cap = (size_t)h.lb_cap;
	pb->tab.lb_bits = h.lb_bits;
	pb->tab.parity = h.parity;
	pb->names.nslots = h.names_nslots;
	return pb;
}

/*
 * The base table for one split run that has no prepared base (one module
 * per process): only the base types a lookup of this run can accept.  A
 * candidate equals the type looked up, so it has the same name; unnamed
 * structs, unions and primitives have a hash some own type has; unnamed
 * ARRAYs and FUNC_PROTOs the shape of one (shape_sig); unnamed
 * references (PTR, CONST, ARRAY, FUNC_PROTO ...) refer only to base ids
 * own types can resolve to, which the set S below over-approximates: the
 * base ids own types name directly, every included type, and (to a fixed
 * point) every unnamed reference whose ids are all in S.  Leaving out an
 * entry no lookup can accept changes no result, and the table's libbpf
 * growth state still counts every base type (dtab_count), so the order of
 * what is kept is the full table's order.  A few thousand insertions
 * instead of ~100k for vmlinux.
 */
static bool anon_hashed_kind(enum btf_kind k)
{
	switch (k) {
	case BTF_KIND_INT: case BTF_KIND_STRUCT: case BTF_KIND_UNION: case BTF_KIND_ENUM:
	case BTF_KIND_FWD: case BTF_KIND_TYPEDEF: case BTF_KIND_FLOAT: case BTF_KIND_ENUM64:
		return true;
	case BTF_KIND_UNKN: case BTF_KIND_PTR: case BTF_KIND_ARRAY: case BTF_KIND_VOLATILE:
	case BTF_KIND_CONST: case BTF_KIND_RESTRICT: case BTF_KIND_FUNC:
	case BTF_KIND_FUNC_PROTO: case BTF_KIND_VAR: case BTF_KIND_DATASEC:
	case BTF_KIND_DECL_TAG: case BTF_KIND_TYPE_TAG:
		break;
	}
	return false;
}

/*
 * What an unnamed ARRAY or FUNC_PROTO shares with every type it can be
 * equal to, ids aside (those depend on resolution): its info word, and
 * the element count or the parameter names.
 */
static bool shaped_kind(enum btf_kind k)
{
	switch (k) {
	case BTF_KIND_ARRAY: case BTF_KIND_FUNC_PROTO:
		return true;
	case BTF_KIND_UNKN: case BTF_KIND_INT: case BTF_KIND_PTR: case BTF_KIND_STRUCT:
	case BTF_KIND_UNION: case BTF_KIND_ENUM: case BTF_KIND_FWD: case BTF_KIND_TYPEDEF:
	case BTF_KIND_VOLATILE: case BTF_KIND_CONST: case BTF_KIND_RESTRICT:
	case BTF_KIND_FUNC: case BTF_KIND_VAR: case BTF_KIND_DATASEC: case BTF_KIND_FLOAT:
	case BTF_KIND_DECL_TAG: case BTF_KIND_TYPE_TAG: case BTF_KIND_ENUM64:
		break;
	}
	return false;
}

static uint32_t shape_sig(const struct btf_type *t)
{
	uint64_t h = hc(0, t->info);
	unsigned i;

	if (btf_kind(t) == BTF_KIND_ARRAY)
		return fold64(hc(h, btf_array(t)->nelems));
	for (i = 0; i < btf_vlen(t); i++)
		h = hc(h, btf_params(t)[i].name_off);
	return fold64(h);
}

#define PB_CLOSURE_MAX_PASSES 32
#define NAME_FILTER_BITS 65536

/*
 * One piece (180 lines): its steps (own names and shapes, the base ids
 * they admit, the closure over references, the table in id order) share
 * half a dozen sets and bitmaps and one cleanup path; split up, each step
 * would take most of them as arguments.
 */
struct btf_dedup_base *pb_new_for(const struct btf *base, const struct btf *own, bool head,
				  int *errp, struct diag *d)
{
	struct btf_dedup_base *pb = mem_zalloc(sizeof(*pb));
	struct u32set names = { 0 }, anon = { 0 }, shapes = { 0 };
	struct u32vec pending = { 0 }, named = { 0 };
	uint64_t nfilt[NAME_FILTER_BITS / 64] = { 0 };	/* most base names are not own names */
	struct dedup tmp = { .head = head };
	uint32_t id, end = btf_type_count(own), nin = 0, *inset = NULL, *vd = NULL;
	size_t i, n, pass, j, nwords = 0;
	int err = -ENOMEM;
	bool changed;

	if (!pb)
		goto fail;
	pb->base = base;
	pb->head = head;
	pb->nr = btf_type_count(base);
	nwords = (pb->nr + 31) / 32;
	inset = mem_array(nwords, sizeof(*inset));	/* S */
	vd = mem_array(nwords, sizeof(*vd));		/* VAR and DATASEC ids */
	if (pb_records(pb) || !inset || !vd)
		goto fail;
#define IN_S(x) (inset[(x) / 32] >> ((x) % 32) & 1)
#define ADD_S(x) (inset[(x) / 32] |= 1u << ((x) % 32))
	ADD_S(0);
	for (id = btf_start_id(own); id < end; id++) {
		struct btf_type *t = (struct btf_type *)btf_type_by_id(own, id);	/* read only */
		struct btf_field_iter it;
		uint32_t *f;
		uint64_t h;

		if (!t)
			goto fail;
		if (t->name_off) {
			uint32_t k = hash_mix(t->name_off) % NAME_FILTER_BITS;

			nfilt[k / 64] |= 1ull << (k % 64);
			if (u32set_add(&names, t->name_off))
				goto fail;
		} else if (anon_hashed_kind(btf_kind(t)) && !kind_hash(&tmp, t, &h) &&
			   u32set_add(&anon, fold64(h))) {
			goto fail;
		}
		if (shaped_kind(btf_kind(t)) && u32set_add(&shapes, shape_sig(t)))
			goto fail;
		if (btf_field_iter_init(&it, t, BTF_FIELD_IDS))
			continue;	/* prep() reports it */
		while ((f = btf_field_iter_next(&it)))
			if (*f < pb->nr)
				ADD_S(*f);
	}
	for (id = 1; id < pb->nr; id++) {
		const struct btf_type *t = pb_rec(pb, id);
		enum btf_kind k = btf_kind(t);
		uint64_t h;

		if (self_canonical_kind(k)) {
			vd[id / 32] |= 1u << (id % 32);
			continue;
		}
		if (t->name_off) {
			uint32_t f = hash_mix(t->name_off) % NAME_FILTER_BITS;

			if ((nfilt[f / 64] >> (f % 64) & 1) && u32set_has(&names, t->name_off)) {
				ADD_S(id);
				if (btf_is_composite_kind(k) && u32vec_push(&named, id))
					goto fail;
			}
		} else if (anon_hashed_kind(k)) {
			if (kind_hash(&tmp, t, &h)) {
				err = diag_err(d, EINVAL, "dedup: base type %u has unknown kind %u", id, k);
				goto fail;
			}
			if (u32set_has(&anon, fold64(h)))
				ADD_S(id);
		} else if (shaped_kind(k) && !IN_S(id) && !u32set_has(&shapes, shape_sig(t))) {
			continue;	/* no own type has its shape: never a candidate */
		} else if (!IN_S(id) && (u32vec_push(&pending, id) || u32vec_push(&pending, 0))) {
			goto fail;
		}
	}
	/* pending: pairs (id, an id it refers to that is not in S yet, 0 none
	 * known); an entry is looked at again only once that one is in S. */
	for (pass = 0, changed = true; changed && pending.n; pass++) {
		changed = false;
		for (i = j = 0, n = pending.n; i < n; i += 2) {
			uint32_t x = pending.v[i], blocker = pending.v[i + 1];
			struct btf_field_iter it;
			uint32_t *f;
			bool all = pass >= PB_CLOSURE_MAX_PASSES;	/* then keep them all */

			if (!all && blocker && (blocker == UINT32_MAX || !IN_S(blocker))) {
				pending.v[j++] = x;
				pending.v[j++] = blocker;
				continue;
			}
			if (!all) {
				all = !btf_field_iter_init(&it, pb_rec(pb, x), BTF_FIELD_IDS);
				blocker = UINT32_MAX;	/* a reference out of range: never */
				while (all && (f = btf_field_iter_next(&it)))
					if (!(all = *f < pb->nr && IN_S(*f)) && *f < pb->nr)
						blocker = *f;
			}
			if (all) {
				ADD_S(x);
				changed = true;
			} else {
				pending.v[j++] = x;
				pending.v[j++] = blocker;
			}
		}
		pending.n = j;
	}
	/* ids 1 .. nr - 1 only; VAR and DATASEC are never in the table */
	inset[0] &= ~1u;
	if (pb->nr % 32)
		inset[nwords - 1] &= (1u << (pb->nr % 32)) - 1;
	for (i = 0; i < nwords; i++)
		nin += (uint32_t)__builtin_popcount(inset[i] & ~vd[i]);
	if (dtab_init(&pb->tab, nin, NULL))
		goto fail;
	/* In id order: the included ones added, a count for each run of others. */
	for (i = 0, n = 0; i < nwords; i++) {
		uint32_t in = inset[i] & ~vd[i], out = ~inset[i] & ~vd[i], done = 0;

		if (i == 0)
			out &= ~1u;
		if (i == nwords - 1 && pb->nr % 32)
			out &= (1u << (pb->nr % 32)) - 1;
		for (; in; in &= in - 1) {
			unsigned b = (unsigned)__builtin_ctz(in);
			uint32_t below = (1u << b) - 1;
			const struct btf_type *t;
			uint64_t h;

			n += (size_t)__builtin_popcount(out & below & ~done);
			done = below | 1u << b;
			dtab_count_n(&pb->tab, n);
			n = 0;
			id = (uint32_t)(i * 32 + b);
			t = pb_rec(pb, id);
			if (kind_hash(&tmp, t, &h)) {
				err = diag_err(d, EINVAL, "dedup: base type %u has unknown kind %u", id,
					       btf_kind(t));
				goto fail;
			}
			if ((err = dtab_add(&pb->tab, h, id)))
				goto fail;
		}
		n += (size_t)__builtin_popcount(out & ~done);
	}
	dtab_count_n(&pb->tab, n);
#undef IN_S
#undef ADD_S
	/* phase 4 asks for the names of own FWDs only; a name's structs are all kept or all not */
	if ((err = pb_names_of(pb, named.v, named.n)))
		goto fail;
	goto cleanup;
fail:
	err = err ? err : -ENOMEM;
	if (err == -ENOMEM)
		diag_err(d, ENOMEM, "dedup: preparing the base: %s", strerror(ENOMEM));
	*errp = err;
	btf_dedup_base_free(pb);
	pb = NULL;
cleanup:
	mem_free(inset);
	mem_free(vd);
	mem_free(named.v);
	mem_free(names.v);
	mem_free(anon.v);
	mem_free(shapes.v);
	mem_free(pending.v);
	return pb;
}

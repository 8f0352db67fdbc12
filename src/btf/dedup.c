// SPDX-License-Identifier: GPL-2.0-only
/*
 * BTF deduplication (doc section 4), reproducing libbpf 1.1.2's btf__dedup()
 * byte for byte.  Phases, all over own ids in ascending order:
 *
 *   0 prep      map[] init; base types become canonical table entries
 *   1 strings   unique strings in first-reference order (unless kept)
 *   2 prims     INT, ENUM/ENUM64 (forward enums), FWD, FLOAT
 *   3 structs   STRUCT/UNION graph equivalence with a hypothetical map
 *   4 fwds      leftover FWDs resolved by unique struct/union name
 *   5 refs      PTR/CONST/.../TYPEDEF/FUNC/ARRAY/FUNC_PROTO/DECL_TAG
 *   6 compact   keep canonical types, renumber, rewrite type ids
 *
 * Everything that libbpf does recursively is done here with explicit
 * stacks.  Data layout: one pointer per type id (base and own), u32 map
 * arrays, precomputed 64-bit hashes, and one open-addressing table of hash
 * groups whose entries live in flat arrays -- no per-type allocation.
 *
 * Candidate order.  libbpf keeps candidates in a chained hash map that
 * pushes new entries at the head of their bucket and reverses every chain
 * when it grows.  Only the relative order of entries with the same key is
 * observable (lookups filter on the key), and that order depends only on
 * the number of growths, which depends only on the number of insertions.
 * So each group is a doubly linked list plus one global parity bit: an
 * insertion goes to the physical front when the parity is even and to the
 * back when odd, a growth flips the parity, and a lookup walks front to
 * back (even) or back to front (odd).  This gives libbpf's order exactly,
 * so ties (several acceptable canonical candidates) are broken as libbpf
 * breaks them.
 *
 * Parallelism (opts->nr_threads): type pointers, reference checks and the
 * hashes of every type whose hash does not depend on earlier decisions
 * (base types and own INT/ENUM/FWD/FLOAT/STRUCT/UNION) are computed in
 * parallel over fixed-size chunks; the string phase (counting, first
 * reference per old offset, rewriting) and compaction with id remapping
 * run in parallel over chunks too.  Phases 2-5 are sequential: every
 * decision there may depend on all earlier ones (the candidate order, the
 * FWD and struct mappings merged from each hypothetical map).  Chunk
 * boundaries never depend on the thread count and every result lands in
 * a slot indexed by type id or string offset, so the output is identical
 * for any nr_threads.
 */
#include "btf/dedup.h"

#include "base/hash.h"
#include "base/mem.h"
#include "base/pool.h"

#include <time.h>

#define MAX_ID		0x7fffffffu	/* libbpf BTF_MAX_NR_TYPES */
#define UNPROCESSED	0xffffffffu
#define IN_PROGRESS	0xfffffffeu
#define NIL		0xffffffffu
#define CHUNK		8192		/* types per parallel work item */

/* ---- the candidate table ------------------------------------------------ */

struct dtab {
	/* groups: open addressing on the key */
	uint64_t *keys;
	uint32_t *head, *tail;		/* entry indices; head == NIL: empty slot */
	size_t nslots, ngroups;
	/* entries */
	uint32_t *e_id, *e_next, *e_prev;
	size_t n, cap;
	/* emulation of libbpf's hashmap growth */
	size_t lb_sz, lb_cap;
	unsigned lb_bits, parity;
};

static size_t dtab_slot(const struct dtab *t, uint64_t key)
{
	return hash_mix(key) & (t->nslots - 1);
}

static int dtab_rehash(struct dtab *t, size_t nslots)
{
	uint64_t *keys = mem_alloc(nslots * sizeof(*keys));
	uint32_t *head = mem_alloc(nslots * sizeof(*head));
	uint32_t *tail = mem_alloc(nslots * sizeof(*tail));
	size_t i;

	if (!keys || !head || !tail) {
		mem_free(keys);
		mem_free(head);
		mem_free(tail);
		return -ENOMEM;
	}
	memset(head, 0xff, nslots * sizeof(*head));
	for (i = 0; i < t->nslots; i++) {
		size_t j;

		if (t->head[i] == NIL)
			continue;
		for (j = hash_mix(t->keys[i]) & (nslots - 1); head[j] != NIL; j = (j + 1) & (nslots - 1))
			;
		keys[j] = t->keys[i];
		head[j] = t->head[i];
		tail[j] = t->tail[i];
	}
	mem_free(t->keys);
	mem_free(t->head);
	mem_free(t->tail);
	t->keys = keys;
	t->head = head;
	t->tail = tail;
	t->nslots = nslots;
	return 0;
}

static int dtab_init(struct dtab *t, size_t expect)
{
	size_t n = 1024;

	memset(t, 0, sizeof(*t));
	while (n < expect * 2)
		n *= 2;
	return dtab_rehash(t, n);
}

static void dtab_free(struct dtab *t)
{
	mem_free(t->keys);
	mem_free(t->head);
	mem_free(t->tail);
	mem_free(t->e_id);
	mem_free(t->e_next);
	mem_free(t->e_prev);
	memset(t, 0, sizeof(*t));
}

/* Slot of key, or NIL. */
static inline size_t dtab_find(const struct dtab *t, uint64_t key)
{
	size_t j;

	for (j = dtab_slot(t, key); t->head[j] != NIL; j = (j + 1) & (t->nslots - 1))
		if (t->keys[j] == key)
			return j;
	return (size_t)-1;
}

static int dtab_add(struct dtab *t, uint64_t key, uint32_t id)
{
	uint32_t e;
	size_t j;

	/* libbpf: grow (and reverse every chain) when empty or > 75% full */
	if (t->lb_cap == 0 || (t->lb_sz + 1) * 4 / 3 > t->lb_cap) {
		t->lb_bits = t->lb_bits + 1 < 2 ? 2 : t->lb_bits + 1;
		t->lb_cap = (size_t)1 << t->lb_bits;
		t->parity ^= 1;
	}
	t->lb_sz++;
	if (t->n == t->cap) {
		size_t c1 = t->cap, c2 = t->cap, c3 = t->cap;

		if (mem_grow((void **)&t->e_id, &c1, 4, t->n + 1) ||
		    mem_grow((void **)&t->e_next, &c2, 4, t->n + 1) ||
		    mem_grow((void **)&t->e_prev, &c3, 4, t->n + 1))
			return -ENOMEM;
		t->cap = MIN(c1, MIN(c2, c3));
	}
	e = (uint32_t)t->n++;
	t->e_id[e] = id;
	for (j = dtab_slot(t, key); t->head[j] != NIL; j = (j + 1) & (t->nslots - 1))
		if (t->keys[j] == key)
			break;
	if (t->head[j] == NIL) {
		t->keys[j] = key;
		t->head[j] = t->tail[j] = e;
		t->e_next[e] = t->e_prev[e] = NIL;
		if (++t->ngroups * 2 > t->nslots)
			return dtab_rehash(t, t->nslots * 2);
		return 0;
	}
	if (!t->parity) {		/* physical front */
		t->e_next[e] = t->head[j];
		t->e_prev[e] = NIL;
		t->e_prev[t->head[j]] = e;
		t->head[j] = e;
	} else {			/* physical back */
		t->e_prev[e] = t->tail[j];
		t->e_next[e] = NIL;
		t->e_next[t->tail[j]] = e;
		t->tail[j] = e;
	}
	return 0;
}

/* Iteration over the candidates of one key, in libbpf's order. */
struct dcand {
	const struct dtab *t;
	uint32_t e;
	bool back;
};

static inline void dcand_init(struct dcand *c, const struct dtab *t, uint64_t key)
{
	size_t j = dtab_find(t, key);

	c->t = t;
	c->back = t->parity;
	if (j == (size_t)-1)
		c->e = NIL;
	else
		c->e = c->back ? t->tail[j] : t->head[j];
}

/* Next candidate id, or NIL. */
static inline uint32_t dcand_next(struct dcand *c)
{
	uint32_t e = c->e;

	if (e == NIL)
		return NIL;
	c->e = c->back ? c->t->e_prev[e] : c->t->e_next[e];
	return c->t->e_id[e];
}

/* ---- state -------------------------------------------------------------- */

struct u32vec {
	uint32_t *v;
	size_t n, cap;
};

static inline int u32vec_push(struct u32vec *v, uint32_t x)
{
	if (v->n == v->cap && VEC_RESERVE(v->v, v->cap, v->n + 1))
		return -ENOMEM;
	v->v[v->n++] = x;
	return 0;
}

struct dedup {
	struct btf *btf;
	const struct btf_dedup_opts *opts;
	struct diag *d;
	unsigned nthreads;
	bool head;			/* libbpf HEAD semantics */
	uint32_t start_id, nr_all;	/* nr_all = type count incl. void and base */
	struct btf_type **tp;		/* id -> record (base records are const) */
	uint32_t *map;
	uint32_t *hypot;
	uint64_t *hash;			/* precomputed hashes (phase 0-3), by id */
	struct u32vec hypot_list;
	bool adjust_canon;
	struct dtab tab;
	struct u32vec stack;		/* explicit DFS stacks */
	struct u32vec stack2;
};

static const struct btf_type void_rec;

static inline struct btf_type *T(const struct dedup *d, uint32_t id)
{
	return d->tp[id];
}

static inline bool is_mapped(const struct dedup *d, uint32_t id)
{
	return d->map[id] <= MAX_ID;
}

static inline uint32_t resolve(const struct dedup *d, uint32_t id)
{
	while (is_mapped(d, id) && d->map[id] != id)
		id = d->map[id];
	return id;
}

static inline uint32_t resolve_fwd(const struct dedup *d, uint32_t id)
{
	uint32_t orig = id;

	if (btf_kind(T(d, id)) != BTF_KIND_FWD)
		return id;
	id = resolve(d, id);
	if (btf_kind(T(d, id)) != BTF_KIND_FWD)
		return id;
	return orig;
}

/* ---- hashes and equality (doc 4.3; libbpf's `long` h * 31 + v) --------- */

static inline uint64_t hc(uint64_t h, uint32_t v)
{
	return h * 31 + v;
}

static inline uint64_t hash_common(const struct btf_type *t)
{
	return hc(hc(hc(0, t->name_off), t->info), t->size);
}

static inline uint64_t hash_int_tag(const struct btf_type *t)
{
	return hc(hash_common(t), *(const uint32_t *)(t + 1));
}

static inline uint64_t hash_enum(const struct btf_type *t)
{
	return hc(0, t->name_off);
}

static uint64_t hash_struct(const struct btf_type *t)
{
	const struct btf_member *m = btf_members(t);
	uint64_t h = hash_common(t);
	unsigned i, n = btf_vlen(t);

	for (i = 0; i < n; i++)
		h = hc(hc(h, m[i].name_off), m[i].offset);
	return h;
}

static inline uint64_t hash_array(const struct btf_type *t)
{
	const struct btf_array *a = btf_array(t);

	return hc(hc(hc(hash_common(t), a->type), a->index_type), a->nelems);
}

static uint64_t hash_fnproto(const struct btf_type *t)
{
	const struct btf_param *p = btf_params(t);
	uint64_t h = hash_common(t);
	unsigned i, n = btf_vlen(t);

	for (i = 0; i < n; i++)
		h = hc(hc(h, p[i].name_off), p[i].type);
	return h;
}

static inline uint64_t hash_typedef(const struct btf_type *t)
{
	return hc(hc(0, t->name_off), t->info);
}

static inline bool equal_common(const struct btf_type *a, const struct btf_type *b)
{
	return a->name_off == b->name_off && a->info == b->info && a->size == b->size;
}

static inline bool equal_int_tag(const struct btf_type *a, const struct btf_type *b)
{
	return equal_common(a, b) && *(const uint32_t *)(a + 1) == *(const uint32_t *)(b + 1);
}

static bool equal_enum(const struct btf_type *a, const struct btf_type *b)
{
	size_t esz = btf_kind(a) == BTF_KIND_ENUM ? 8 : 12;

	if (!equal_common(a, b))
		return false;
	return !memcmp(a + 1, b + 1, esz * btf_vlen(a));
}

static inline bool is_any_enum(const struct btf_type *t)
{
	return btf_kind(t) == BTF_KIND_ENUM || btf_kind(t) == BTF_KIND_ENUM64;
}

static inline bool is_enum_fwd(const struct btf_type *t)
{
	return is_any_enum(t) && btf_vlen(t) == 0;
}

static bool compat_enum(const struct btf_type *a, const struct btf_type *b)
{
	if (!is_enum_fwd(a) && !is_enum_fwd(b))
		return equal_enum(a, b);
	return a->name_off == b->name_off && is_any_enum(a) && is_any_enum(b);
}

static bool shallow_equal_struct(const struct btf_type *a, const struct btf_type *b)
{
	const struct btf_member *m1 = btf_members(a), *m2 = btf_members(b);
	unsigned i, n;

	if (!equal_common(a, b))
		return false;
	for (i = 0, n = btf_vlen(a); i < n; i++)
		if (m1[i].name_off != m2[i].name_off || m1[i].offset != m2[i].offset)
			return false;
	return true;
}

static inline bool equal_array(const struct btf_type *a, const struct btf_type *b)
{
	const struct btf_array *x = btf_array(a), *y = btf_array(b);

	return equal_common(a, b) && x->type == y->type && x->index_type == y->index_type &&
	       x->nelems == y->nelems;
}

static inline bool compat_array(const struct btf_type *a, const struct btf_type *b)
{
	return equal_common(a, b) && btf_array(a)->nelems == btf_array(b)->nelems;
}

static bool equal_fnproto(const struct btf_type *a, const struct btf_type *b)
{
	if (!equal_common(a, b))
		return false;
	return !memcmp(a + 1, b + 1, sizeof(struct btf_param) * btf_vlen(a));
}

static bool compat_fnproto(const struct btf_type *a, const struct btf_type *b)
{
	const struct btf_param *p1 = btf_params(a), *p2 = btf_params(b);
	unsigned i, n;

	if (a->name_off != b->name_off || a->info != b->info)
		return false;
	for (i = 0, n = btf_vlen(a); i < n; i++)
		if (p1[i].name_off != p2[i].name_off)
			return false;
	return true;
}

static inline bool is_ref_kind(unsigned k, bool typedef_is_ref)
{
	switch (k) {
	case BTF_KIND_CONST: case BTF_KIND_VOLATILE: case BTF_KIND_RESTRICT:
	case BTF_KIND_PTR: case BTF_KIND_FUNC: case BTF_KIND_TYPE_TAG:
		return true;
	case BTF_KIND_TYPEDEF:
		return typedef_is_ref;
	default:
		return false;
	}
}

/* Table hash of a type for prep (base) and phases 2/3 (own). */
static int kind_hash(const struct dedup *d, const struct btf_type *t, uint64_t *h)
{
	switch (btf_kind(t)) {
	case BTF_KIND_CONST: case BTF_KIND_VOLATILE: case BTF_KIND_RESTRICT:
	case BTF_KIND_PTR: case BTF_KIND_FWD: case BTF_KIND_FUNC:
	case BTF_KIND_FLOAT: case BTF_KIND_TYPE_TAG:
		*h = hash_common(t);
		return 0;
	case BTF_KIND_TYPEDEF:
		*h = d->head ? hash_typedef(t) : hash_common(t);
		return 0;
	case BTF_KIND_INT: case BTF_KIND_DECL_TAG:
		*h = hash_int_tag(t);
		return 0;
	case BTF_KIND_ENUM: case BTF_KIND_ENUM64:
		*h = hash_enum(t);
		return 0;
	case BTF_KIND_STRUCT: case BTF_KIND_UNION:
		*h = hash_struct(t);
		return 0;
	case BTF_KIND_ARRAY:
		*h = hash_array(t);
		return 0;
	case BTF_KIND_FUNC_PROTO:
		*h = hash_fnproto(t);
		return 0;
	case BTF_KIND_VAR: case BTF_KIND_DATASEC:
		*h = 0;
		return 0;
	default:
		return -EINVAL;
	}
}

/* ---- phase 0: type pointers, hashes, map -------------------------------- */

static int prep_chunk(void *ctx, unsigned worker, size_t item)
{
	struct dedup *d = ctx;
	uint32_t id = (uint32_t)(item * CHUNK), end = MIN(d->nr_all, id + CHUNK);

	for (; id < end; id++) {
		struct btf_type *t;
		unsigned k;

		if (id == 0) {
			d->tp[0] = (struct btf_type *)&void_rec;
			d->map[0] = 0;
			d->hypot[0] = UNPROCESSED;
			continue;
		}
		if (id < d->start_id)
			t = (struct btf_type *)btf_type_by_id(d->btf, id);
		else
			t = btf_type_mut(d->btf, id);
		d->tp[id] = t;
		d->hypot[id] = UNPROCESSED;
		k = btf_kind(t);
		if (id >= d->start_id) {	/* every own reference must resolve */
			struct btf_field_iter it;
			uint32_t *p;

			if (btf_field_iter_init(&it, t, BTF_FIELD_IDS))
				return diag_err(d->d, EINVAL, "dedup: type %u has unknown kind %u", id, k);
			while ((p = btf_field_iter_next(&it)))
				if (*p >= d->nr_all)
					return diag_err(d->d, EINVAL, "dedup: type %u refers to invalid id %u",
							id, *p);
		}
		if (id < d->start_id)
			d->map[id] = id;
		else if (k == BTF_KIND_VAR || k == BTF_KIND_DATASEC)
			d->map[id] = id;
		else
			d->map[id] = UNPROCESSED;
		/* own ref types are hashed after their targets are rewritten */
		if (id >= d->start_id && (is_ref_kind(k, !d->head) || k == BTF_KIND_ARRAY ||
					  k == BTF_KIND_FUNC_PROTO || k == BTF_KIND_DECL_TAG)) {
			d->hash[id] = 0;
			continue;
		}
		if (kind_hash(d, t, &d->hash[id]))
			return diag_err(d->d, EINVAL, "dedup: type %u has unknown kind %u", id, k);
	}
	return 0;
}

static int prep(struct dedup *d)
{
	uint32_t id;
	int err;

	err = pool_for(d->nthreads, (d->nr_all + CHUNK - 1) / CHUNK, prep_chunk, d);
	if (err)
		return err;
	/* base types are canonical candidates, in id order */
	for (id = 1; id < d->start_id; id++) {
		unsigned k = btf_kind(T(d, id));

		if (k == BTF_KIND_VAR || k == BTF_KIND_DATASEC)
			continue;
		if (dtab_add(&d->tab, d->hash[id], id))
			return -ENOMEM;
	}
	return 0;
}

/* ---- phase 1: strings --------------------------------------------------- */

/*
 * Lookup of base strings: the base's own index when it has one, else a
 * private index built here (a parse without string index).
 */
struct base_strs {
	const struct btf *btf;		/* the level */
	struct strset priv;		/* private index if the level has none */
	bool own;
};

static int64_t base_find(struct base_strs *b, size_t nb, const char *s)
{
	size_t len = strlen(s), i;

	for (i = 0; i < nb; i++) {
		const struct strset *ss = b[i].own ? &b[i].priv : &b[i].btf->strs;
		int64_t off = strset_find(ss, s, len);

		if (off >= 0)
			return b[i].btf->start_str_off + off;
	}
	return -ENOENT;
}

/*
 * Where the string offsets of a record are: word 0, then word `first` of
 * each of `count` elements of `stride` words (doc 1.7 order).
 */
static inline int str_layout(const struct btf_type *t, unsigned *stride, unsigned *count)
{
	switch (btf_kind(t)) {
	case BTF_KIND_ENUM: case BTF_KIND_FUNC_PROTO:
		*stride = 2;
		*count = btf_vlen(t);
		return 0;
	case BTF_KIND_ENUM64: case BTF_KIND_STRUCT: case BTF_KIND_UNION:
		*stride = 3;
		*count = btf_vlen(t);
		return 0;
	case BTF_KIND_INT: case BTF_KIND_PTR: case BTF_KIND_ARRAY: case BTF_KIND_FWD:
	case BTF_KIND_TYPEDEF: case BTF_KIND_VOLATILE: case BTF_KIND_CONST:
	case BTF_KIND_RESTRICT: case BTF_KIND_FUNC: case BTF_KIND_VAR:
	case BTF_KIND_DATASEC: case BTF_KIND_FLOAT: case BTF_KIND_DECL_TAG:
	case BTF_KIND_TYPE_TAG:
		*stride = 0;
		*count = 0;
		return 0;
	default:
		return -EINVAL;
	}
}

/*
 * The string phase in parallel.  libbpf visits every string reference in
 * type order and adds the string to a new set: the new section holds each
 * referenced content once, in the order of its first reference.  Here:
 *   1. (parallel) count the own-string references of each chunk of types;
 *   2. (parallel) first[off] = lowest reference number seen for that old
 *      offset (atomic min);
 *   3. the referenced old offsets, sorted by first reference, are added to
 *      the new set one by one (base lookup first), so contents shared by
 *      several old offsets land where their first reference puts them;
 *   4. (parallel) every reference is rewritten from first[], which now
 *      holds new offset + 1.
 * The serial step does one string-set insertion per distinct old offset
 * instead of one per reference.
 */
struct strs {
	struct dedup *d;
	uint32_t nchunks;
	uint64_t *chunk_refs;		/* refs per chunk, then first ref number */
	uint32_t *first;		/* per own string byte (see above) */
};

#define FOR_EACH_OWN_STR(d, id, end, p, body)						\
	for (; id < end; id++) {							\
		struct btf_type *t_ = btf_type_mut((d)->btf, id);			\
		unsigned stride_, count_, i_;						\
		uint32_t *w_ = (uint32_t *)t_;						\
											\
		if (str_layout(t_, &stride_, &count_))					\
			return diag_err((d)->d, EINVAL, "dedup: type %u has unknown kind %u",	\
					id, btf_kind(t_));					\
		for (i_ = 0; i_ <= count_; i_++) {					\
			uint32_t *p = i_ ? w_ + 3 + (i_ - 1) * stride_ : w_;		\
											\
			if (*p == 0 || *p < start)					\
				continue;						\
			if (*p - start >= len)						\
				return diag_err((d)->d, EINVAL,				\
						"dedup: type %u: invalid string offset %u", id, *p); \
			body								\
		}									\
	}

static int strs_count(void *ctx, unsigned worker, size_t item)
{
	struct strs *c = ctx;
	struct dedup *d = c->d;
	uint32_t start = d->btf->start_str_off, len = (uint32_t)d->btf->strs.len;
	uint32_t id = d->start_id + (uint32_t)(item * CHUNK), end = MIN(d->nr_all, id + CHUNK);
	uint64_t n = 0;

	FOR_EACH_OWN_STR(d, id, end, p, { n++; })
	c->chunk_refs[item] = n;
	return 0;
}

static int strs_first(void *ctx, unsigned worker, size_t item)
{
	struct strs *c = ctx;
	struct dedup *d = c->d;
	uint32_t start = d->btf->start_str_off, len = (uint32_t)d->btf->strs.len;
	uint32_t id = d->start_id + (uint32_t)(item * CHUNK), end = MIN(d->nr_all, id + CHUNK);
	uint32_t seq = (uint32_t)c->chunk_refs[item] + 1;

	FOR_EACH_OWN_STR(d, id, end, p, {
		uint32_t *slot = &c->first[*p - start];
		uint32_t cur = __atomic_load_n(slot, __ATOMIC_RELAXED);

		while ((cur == 0 || seq < cur) &&
		       !__atomic_compare_exchange_n(slot, &cur, seq, true, __ATOMIC_RELAXED,
						    __ATOMIC_RELAXED))
			;
		seq++;
	})
	return 0;
}

static int strs_rewrite(void *ctx, unsigned worker, size_t item)
{
	struct strs *c = ctx;
	struct dedup *d = c->d;
	uint32_t start = d->btf->start_str_off, len = (uint32_t)d->btf->strs.len;
	uint32_t id = d->start_id + (uint32_t)(item * CHUNK), end = MIN(d->nr_all, id + CHUNK);

	FOR_EACH_OWN_STR(d, id, end, p, { *p = c->first[*p - start] - 1; })
	return 0;
}

/* LSD radix sort of n keys on bits [0, bits); tmp has n slots. */
static void radix_sort64(uint64_t *v, uint64_t *tmp, size_t n, unsigned lo, unsigned bits)
{
	size_t cnt[2048];
	unsigned shift;
	size_t i;

	for (shift = lo; shift < lo + bits; shift += 11) {
		size_t sum = 0;

		memset(cnt, 0, sizeof(cnt));
		for (i = 0; i < n; i++)
			cnt[(v[i] >> shift) & 2047]++;
		for (i = 0; i < 2048; i++) {
			size_t c = cnt[i];

			cnt[i] = sum;
			sum += c;
		}
		for (i = 0; i < n; i++)
			tmp[cnt[(v[i] >> shift) & 2047]++] = v[i];
		memcpy(v, tmp, n * sizeof(*v));
	}
}

static int dedup_strings(struct dedup *d)
{
	struct btf *btf = d->btf;
	uint32_t start = btf->start_str_off, len = (uint32_t)btf->strs.len, off;
	struct strs c = { .d = d };
	struct base_strs bs[8];
	uint64_t *keys = NULL, *tmp = NULL, total = 0;
	size_t nb = 0, nkeys = 0, i;
	struct strset ns = { 0 };
	bool ns_ok = false;
	const struct btf *b;
	int err = 0;

	if (d->opts->keep_strings || d->nr_all == d->start_id)
		return 0;
	memset(bs, 0, sizeof(bs));
	c.nchunks = (d->nr_all - d->start_id + CHUNK - 1) / CHUNK;
	c.chunk_refs = mem_array(c.nchunks, sizeof(*c.chunk_refs));
	c.first = mem_array((size_t)len + 1, sizeof(*c.first));
	if (!c.chunk_refs || !c.first) {
		err = -ENOMEM;
		goto out;
	}
	if ((err = pool_for(d->nthreads, c.nchunks, strs_count, &c)))
		goto out;
	for (i = 0; i < c.nchunks; i++) {
		uint64_t n = c.chunk_refs[i];

		c.chunk_refs[i] = total;
		total += n;
	}
	if (total >= 0xffffffffull) {
		err = diag_err(d->d, E2BIG, "dedup: %llu string references", (unsigned long long)total);
		goto out;
	}
	if ((err = pool_for(d->nthreads, c.nchunks, strs_first, &c)))
		goto out;
	for (off = 0; off < len; off++)
		nkeys += c.first[off] != 0;
	keys = mem_alloc(MAX(nkeys, 1) * sizeof(*keys));
	tmp = mem_alloc(MAX(nkeys, 1) * sizeof(*tmp));
	if (!keys || !tmp) {
		err = -ENOMEM;
		goto out;
	}
	for (off = 0, i = 0; off < len; off++)
		if (c.first[off])
			keys[i++] = (uint64_t)c.first[off] << 32 | off;
	radix_sort64(keys, tmp, nkeys, 32, 33);

	for (b = btf->base; b; b = b->base) {
		if (nb == ARRAY_SIZE(bs)) {
			err = diag_err(d->d, EINVAL, "dedup: more than %zu base levels", ARRAY_SIZE(bs));
			goto out;
		}
		bs[nb].btf = b;
		if (!b->strs.nslots) {
			if (strset_init_from(&bs[nb].priv, b->strs.data, b->strs.len)) {
				err = -ENOMEM;
				goto out;
			}
			bs[nb].own = true;
		}
		nb++;
	}
	if (strset_init(&ns, btf->base == NULL)) {
		err = -ENOMEM;
		goto out;
	}
	ns_ok = true;
	for (i = 0; i < nkeys; i++) {
		uint32_t o = (uint32_t)keys[i];
		const char *s = btf->strs.data + o;
		int64_t n = -ENOENT;

		if (nb)
			n = base_find(bs, nb, s);
		if (n < 0) {
			n = strset_add(&ns, s, strnlen(s, len - o));
			if (n < 0) {
				err = diag_err(d->d, (int)-n, "dedup: cannot add string");
				goto out;
			}
			n += start;
		}
		c.first[o] = (uint32_t)n + 1;
	}
	if ((err = pool_for(d->nthreads, c.nchunks, strs_rewrite, &c)))
		goto out;
	strset_free(&btf->strs);
	btf->strs = ns;
	ns_ok = false;
out:
	if (ns_ok)
		strset_free(&ns);
	mem_free(keys);
	mem_free(tmp);
	mem_free(c.chunk_refs);
	mem_free(c.first);
	for (i = 0; i < nb; i++)
		if (bs[i].own)
			strset_free(&bs[i].priv);
	return err;
}

/* ---- phase 2: primitive types ------------------------------------------- */

static int dedup_prim(struct dedup *d, uint32_t id)
{
	struct btf_type *t = T(d, id), *c;
	uint32_t new_id = id, cid;
	uint64_t h = d->hash[id];
	struct dcand it;

	switch (btf_kind(t)) {
	case BTF_KIND_INT:
		for (dcand_init(&it, &d->tab, h); (cid = dcand_next(&it)) != NIL;) {
			if (equal_int_tag(t, T(d, cid))) {
				new_id = cid;
				break;
			}
		}
		break;
	case BTF_KIND_ENUM:
	case BTF_KIND_ENUM64:
		for (dcand_init(&it, &d->tab, h); (cid = dcand_next(&it)) != NIL;) {
			c = T(d, cid);
			if (equal_enum(t, c)) {
				new_id = cid;
				break;
			}
			if (compat_enum(t, c)) {
				if (is_enum_fwd(t)) {
					new_id = cid;
					break;
				}
				/* the canonical forward enum now points at t */
				d->map[cid] = id;
			}
		}
		break;
	case BTF_KIND_FWD:
	case BTF_KIND_FLOAT:
		for (dcand_init(&it, &d->tab, h); (cid = dcand_next(&it)) != NIL;) {
			if (equal_common(t, T(d, cid))) {
				new_id = cid;
				break;
			}
		}
		break;
	default:
		return 0;
	}
	d->map[id] = new_id;
	if (new_id == id && dtab_add(&d->tab, h, id))
		return -ENOMEM;
	return 0;
}

/* ---- phase 3: struct/union graph equivalence ---------------------------- */

static inline int hypot_add(struct dedup *d, uint32_t from, uint32_t to)
{
	if (u32vec_push(&d->hypot_list, from))
		return -ENOMEM;
	d->hypot[from] = to;
	return 0;
}

static void hypot_clear(struct dedup *d)
{
	size_t i;

	for (i = 0; i < d->hypot_list.n; i++)
		d->hypot[d->hypot_list.v[i]] = UNPROCESSED;
	d->hypot_list.n = 0;
	d->adjust_canon = false;
}

static bool identical_arrays(const struct dedup *d, uint32_t a, uint32_t b)
{
	const struct btf_type *x = T(d, a), *y = T(d, b);

	if (btf_kind(x) != BTF_KIND_ARRAY || btf_kind(y) != BTF_KIND_ARRAY)
		return false;
	return equal_array(x, y);
}

/*
 * libbpf 1.1: identical STRUCT/UNION definitions, members compared by id,
 * else as identical arrays, else as identical structs (recursively).  An
 * AND over the whole tree, so an explicit stack in any order gives the
 * same answer.  Depth is bounded (libbpf would recurse forever on a
 * struct embedding itself; we answer "not identical").
 */
#define IDENT_MAX_PAIRS	(1u << 20)

static bool identical_structs(struct dedup *d, uint32_t a, uint32_t b)
{
	struct u32vec *st = &d->stack2;
	size_t visited = 0;

	st->n = 0;
	if (u32vec_push(st, a) || u32vec_push(st, b))
		return false;
	while (st->n) {
		uint32_t y = st->v[--st->n], x = st->v[--st->n];
		const struct btf_type *t1 = T(d, x), *t2 = T(d, y);
		const struct btf_member *m1, *m2;
		unsigned i, n;

		if (!btf_is_composite_kind(btf_kind(t1)) || btf_kind(t1) != btf_kind(t2))
			return false;
		if (!shallow_equal_struct(t1, t2))
			return false;
		if (++visited > IDENT_MAX_PAIRS)
			return false;
		m1 = btf_members(t1);
		m2 = btf_members(t2);
		for (i = 0, n = btf_vlen(t1); i < n; i++) {
			if (m1[i].type == m2[i].type || identical_arrays(d, m1[i].type, m2[i].type))
				continue;
			if (u32vec_push(st, m1[i].type) || u32vec_push(st, m2[i].type))
				return false;
		}
	}
	return true;
}

/*
 * libbpf HEAD's generic check (depth 16), with arrays compared on both
 * sides (HEAD compares the first array with itself, doc 4.7.2).
 */
static bool identical_types(const struct dedup *d, uint32_t a, uint32_t b, int depth)
{
	const struct btf_type *t1, *t2;
	unsigned i, n;

again:
	if (depth <= 0)
		return false;
	t1 = T(d, a);
	t2 = T(d, b);
	if (btf_kind(t1) != btf_kind(t2))
		return false;
	switch (btf_kind(t1)) {
	case BTF_KIND_UNKN:
		return true;
	case BTF_KIND_INT:
		return equal_int_tag(t1, t2);
	case BTF_KIND_ENUM: case BTF_KIND_ENUM64:
		return compat_enum(t1, t2);
	case BTF_KIND_FWD: case BTF_KIND_FLOAT:
		return equal_common(t1, t2);
	case BTF_KIND_CONST: case BTF_KIND_VOLATILE: case BTF_KIND_RESTRICT:
	case BTF_KIND_PTR: case BTF_KIND_TYPEDEF: case BTF_KIND_FUNC: case BTF_KIND_TYPE_TAG:
		if (t1->info != t2->info || t1->name_off != t2->name_off)
			return false;
		a = t1->type;
		b = t2->type;
		if (a == b)
			return true;
		goto again;
	case BTF_KIND_ARRAY: {
		const struct btf_array *x = btf_array(t1), *y = btf_array(t2);

		if (!compat_array(t1, t2))
			return false;
		if (x->index_type != y->index_type &&
		    !identical_types(d, x->index_type, y->index_type, depth - 1))
			return false;
		return x->type == y->type || identical_types(d, x->type, y->type, depth - 1);
	}
	case BTF_KIND_STRUCT: case BTF_KIND_UNION: {
		const struct btf_member *m1 = btf_members(t1), *m2 = btf_members(t2);

		if (!shallow_equal_struct(t1, t2))
			return false;
		for (i = 0, n = btf_vlen(t1); i < n; i++)
			if (m1[i].type != m2[i].type &&
			    !identical_types(d, m1[i].type, m2[i].type, depth - 1))
				return false;
		return true;
	}
	case BTF_KIND_FUNC_PROTO: {
		const struct btf_param *p1 = btf_params(t1), *p2 = btf_params(t2);

		if (!compat_fnproto(t1, t2))
			return false;
		if (t1->type != t2->type && !identical_types(d, t1->type, t2->type, depth - 1))
			return false;
		for (i = 0, n = btf_vlen(t1); i < n; i++)
			if (p1[i].type != p2[i].type &&
			    !identical_types(d, p1[i].type, p2[i].type, depth - 1))
				return false;
		return true;
	}
	default:
		return false;
	}
}

/*
 * libbpf btf_dedup_is_equiv(cand, canon): a depth-first walk over both
 * graphs side by side.  Every recursive call in libbpf returns at once on
 * a result other than 1, and nothing happens after the last child, so a
 * stack of pending (cand, canon) pairs pushed in reverse child order
 * visits the pairs in exactly libbpf's order with the same side effects.
 * Returns 1, 0 or -errno.
 */
static int is_equiv(struct dedup *d, uint32_t cand0, uint32_t canon0)
{
	struct u32vec *st = &d->stack;

	st->n = 0;
	if (u32vec_push(st, cand0) || u32vec_push(st, canon0))
		return -ENOMEM;
	while (st->n) {
		uint32_t canon = st->v[--st->n], cand = st->v[--st->n], h;
		const struct btf_type *ct, *nt;
		unsigned ck, nk, i, n;

		if (resolve(d, cand) == resolve(d, canon))
			continue;
		canon = resolve_fwd(d, canon);
		h = d->hypot[canon];
		if (h <= MAX_ID) {
			if (h == cand)
				continue;
			if (d->head) {
				if (identical_types(d, h, cand, 16))
					continue;
			} else {
				if (identical_arrays(d, h, cand) || identical_structs(d, h, cand))
					continue;
			}
			return 0;
		}
		if (hypot_add(d, canon, cand))
			return -ENOMEM;
		ct = T(d, cand);
		nt = T(d, canon);
		ck = btf_kind(ct);
		nk = btf_kind(nt);
		if (ct->name_off != nt->name_off)
			return 0;
		if ((ck == BTF_KIND_FWD || nk == BTF_KIND_FWD) && ck != nk) {
			unsigned real, fwd;

			if (ck == BTF_KIND_FWD) {
				real = nk;
				fwd = btf_kflag(ct) ? BTF_KIND_UNION : BTF_KIND_STRUCT;
			} else {
				real = ck;
				fwd = btf_kflag(nt) ? BTF_KIND_UNION : BTF_KIND_STRUCT;
				if (fwd == real && canon < d->start_id)
					d->adjust_canon = true;
			}
			if (fwd != real)
				return 0;
			continue;
		}
		if (ck != nk)
			return 0;
		switch (ck) {
		case BTF_KIND_INT:
			if (!equal_int_tag(ct, nt))
				return 0;
			break;
		case BTF_KIND_ENUM:
		case BTF_KIND_ENUM64:
			if (!compat_enum(ct, nt))
				return 0;
			break;
		case BTF_KIND_FWD:
		case BTF_KIND_FLOAT:
			if (!equal_common(ct, nt))
				return 0;
			break;
		case BTF_KIND_CONST: case BTF_KIND_VOLATILE: case BTF_KIND_RESTRICT:
		case BTF_KIND_PTR: case BTF_KIND_TYPEDEF: case BTF_KIND_FUNC:
		case BTF_KIND_TYPE_TAG:
			if (ct->info != nt->info)
				return 0;
			if (u32vec_push(st, ct->type) || u32vec_push(st, nt->type))
				return -ENOMEM;
			break;
		case BTF_KIND_ARRAY: {
			const struct btf_array *x = btf_array(ct), *y = btf_array(nt);

			if (!compat_array(ct, nt))
				return 0;
			/* index types first, then element types */
			if (u32vec_push(st, x->type) || u32vec_push(st, y->type) ||
			    u32vec_push(st, x->index_type) || u32vec_push(st, y->index_type))
				return -ENOMEM;
			break;
		}
		case BTF_KIND_STRUCT:
		case BTF_KIND_UNION: {
			const struct btf_member *m1 = btf_members(ct), *m2 = btf_members(nt);

			if (!shallow_equal_struct(ct, nt))
				return 0;
			n = btf_vlen(ct);
			if (st->n + 2 * n > st->cap && VEC_RESERVE(st->v, st->cap, st->n + 2 * n))
				return -ENOMEM;
			for (i = n; i-- > 0;) {
				st->v[st->n++] = m1[i].type;
				st->v[st->n++] = m2[i].type;
			}
			break;
		}
		case BTF_KIND_FUNC_PROTO: {
			const struct btf_param *p1 = btf_params(ct), *p2 = btf_params(nt);

			if (!compat_fnproto(ct, nt))
				return 0;
			n = btf_vlen(ct);
			if (st->n + 2 * n + 2 > st->cap &&
			    VEC_RESERVE(st->v, st->cap, st->n + 2 * n + 2))
				return -ENOMEM;
			for (i = n; i-- > 0;) {
				st->v[st->n++] = p1[i].type;
				st->v[st->n++] = p2[i].type;
			}
			st->v[st->n++] = ct->type;
			st->v[st->n++] = nt->type;
			break;
		}
		default:
			return -EINVAL;
		}
	}
	return 1;
}

static void merge_hypot(struct dedup *d)
{
	size_t i;

	for (i = 0; i < d->hypot_list.n; i++) {
		uint32_t canon = d->hypot_list.v[i], targ = d->hypot[canon];
		uint32_t t_id = resolve(d, targ), c_id = resolve(d, canon);
		unsigned tk = btf_kind(T(d, t_id)), ck = btf_kind(T(d, c_id));

		if (tk != BTF_KIND_FWD && ck == BTF_KIND_FWD)
			d->map[c_id] = t_id;
		if (d->adjust_canon)
			continue;
		if (tk == BTF_KIND_FWD && ck != BTF_KIND_FWD)
			d->map[t_id] = c_id;
		if ((tk == BTF_KIND_STRUCT || tk == BTF_KIND_UNION) && ck != BTF_KIND_FWD &&
		    is_mapped(d, c_id) && !is_mapped(d, t_id))
			d->map[t_id] = c_id;
	}
}

static int dedup_struct(struct dedup *d, uint32_t id)
{
	struct btf_type *t = T(d, id);
	uint32_t new_id = id, cid;
	unsigned k = btf_kind(t);
	struct dcand it;
	uint64_t h;

	if (is_mapped(d, id))
		return 0;
	if (k != BTF_KIND_STRUCT && k != BTF_KIND_UNION && !(d->head && k == BTF_KIND_TYPEDEF))
		return 0;
	h = d->hash[id];
	for (dcand_init(&it, &d->tab, h); (cid = dcand_next(&it)) != NIL;) {
		const struct btf_type *c = T(d, cid);
		int eq;

		if (k == BTF_KIND_TYPEDEF) {
			if (c->name_off != t->name_off || c->info != t->info)
				continue;
		} else if (!shallow_equal_struct(t, c)) {
			continue;
		}
		hypot_clear(d);
		eq = is_equiv(d, id, cid);
		if (eq < 0)
			return eq;
		if (!eq)
			continue;
		merge_hypot(d);
		if (d->adjust_canon)
			continue;
		new_id = cid;
		break;
	}
	d->map[id] = new_id;
	if (new_id == id && dtab_add(&d->tab, h, id))
		return -ENOMEM;
	return 0;
}

/* ---- phase 4: leftover FWDs by unique name ------------------------------ */

struct nmap {
	uint32_t *key, *val;	/* key name_off; val: 0 = empty slot marker via used[] */
	uint8_t *used;
	size_t nslots;
};

static int dedup_fwds(struct dedup *d)
{
	struct nmap m = { 0 };
	size_t nfwd = 0, j;
	uint32_t id;
	int err = 0;

	for (id = d->start_id; id < d->nr_all; id++)
		if (btf_kind(T(d, id)) == BTF_KIND_FWD && d->map[id] == id)
			nfwd++;
	if (!nfwd)
		return 0;
	m.nslots = 16;
	while (m.nslots < nfwd * 2)
		m.nslots *= 2;
	m.key = mem_array(m.nslots, sizeof(*m.key));
	m.val = mem_array(m.nslots, sizeof(*m.val));
	m.used = mem_array(m.nslots, 1);
	if (!m.key || !m.val || !m.used) {
		err = -ENOMEM;
		goto out;
	}
	/* names of the FWDs to resolve; val UNPROCESSED = no struct seen yet */
	for (id = d->start_id; id < d->nr_all; id++) {
		const struct btf_type *t = T(d, id);

		if (btf_kind(t) != BTF_KIND_FWD || d->map[id] != id)
			continue;
		for (j = hash_mix(t->name_off) & (m.nslots - 1); m.used[j] && m.key[j] != t->name_off;
		     j = (j + 1) & (m.nslots - 1))
			;
		m.used[j] = 1;
		m.key[j] = t->name_off;
		m.val[j] = UNPROCESSED;
	}
	/* canonical structs/unions, base and own: unique name -> id, else 0 */
	for (id = 1; id < d->nr_all; id++) {
		const struct btf_type *t = T(d, id);
		unsigned k = btf_kind(t);

		if ((k != BTF_KIND_STRUCT && k != BTF_KIND_UNION) || d->map[id] != id)
			continue;
		for (j = hash_mix(t->name_off) & (m.nslots - 1); m.used[j];
		     j = (j + 1) & (m.nslots - 1)) {
			if (m.key[j] == t->name_off) {
				m.val[j] = m.val[j] == UNPROCESSED ? id : 0;
				break;
			}
		}
	}
	for (id = d->start_id; id < d->nr_all; id++) {
		const struct btf_type *t = T(d, id), *c;
		uint32_t cid;

		if (btf_kind(t) != BTF_KIND_FWD || d->map[id] != id)
			continue;
		for (j = hash_mix(t->name_off) & (m.nslots - 1); m.key[j] != t->name_off;
		     j = (j + 1) & (m.nslots - 1))
			;
		cid = m.val[j];
		if (cid == UNPROCESSED || cid == 0)
			continue;
		c = T(d, cid);
		if ((btf_kind(c) == BTF_KIND_STRUCT) != !btf_kflag(t))
			continue;
		d->map[id] = cid;
	}
out:
	mem_free(m.key);
	mem_free(m.val);
	mem_free(m.used);
	return err;
}

/* ---- phase 5: reference types ------------------------------------------- */

/* Pointers to the type-id fields phase 5 rewrites, in libbpf's order. */
static int ref_fields(const struct dedup *d, struct btf_type *t, uint32_t **f, uint32_t idx)
{
	unsigned k = btf_kind(t);

	if (is_ref_kind(k, !d->head) || k == BTF_KIND_DECL_TAG) {
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

/* Hash, lookup and record one ref type whose targets are final. */
static int ref_finish(struct dedup *d, uint32_t id)
{
	struct btf_type *t = T(d, id);
	unsigned k = btf_kind(t);
	uint32_t new_id = id, cid;
	struct dcand it;
	uint64_t h;

	if (k == BTF_KIND_DECL_TAG) {
		h = hash_int_tag(t);
		for (dcand_init(&it, &d->tab, h); (cid = dcand_next(&it)) != NIL;)
			if (equal_int_tag(t, T(d, cid))) {
				new_id = cid;
				break;
			}
	} else if (k == BTF_KIND_ARRAY) {
		h = hash_array(t);
		for (dcand_init(&it, &d->tab, h); (cid = dcand_next(&it)) != NIL;)
			if (equal_array(t, T(d, cid))) {
				new_id = cid;
				break;
			}
	} else if (k == BTF_KIND_FUNC_PROTO) {
		h = hash_fnproto(t);
		for (dcand_init(&it, &d->tab, h); (cid = dcand_next(&it)) != NIL;)
			if (equal_fnproto(t, T(d, cid))) {
				new_id = cid;
				break;
			}
	} else {
		h = hash_common(t);
		for (dcand_init(&it, &d->tab, h); (cid = dcand_next(&it)) != NIL;)
			if (equal_common(t, T(d, cid))) {
				new_id = cid;
				break;
			}
	}
	d->map[id] = new_id;
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
static int dedup_ref(struct dedup *d, uint32_t root)
{
	struct u32vec *st = &d->stack;

	if (d->map[root] == IN_PROGRESS)
		return -ELOOP;
	if (is_mapped(d, root))
		return 0;
	st->n = 0;
	d->map[root] = IN_PROGRESS;
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
				*f = d->map[id];
				st->v[st->n - 1] = pidx + 1;
			}
			continue;
		}
		tgt = *f;
		if (tgt >= d->nr_all)
			return diag_err(d->d, EINVAL, "dedup: type %u refers to invalid id %u", id, tgt);
		if (d->map[tgt] == IN_PROGRESS)
			return diag_err(d->d, ELOOP, "dedup: reference cycle through type %u (%s)", tgt,
					btf_kind_str(btf_kind(T(d, tgt))));
		if (is_mapped(d, tgt)) {
			*f = resolve(d, tgt);
			st->v[st->n - 1] = idx + 1;
			continue;
		}
		d->map[tgt] = IN_PROGRESS;
		if (u32vec_push(st, tgt) || u32vec_push(st, 0))
			return -ENOMEM;
	}
	return 0;
}

/* ---- phase 6: compaction and remapping ---------------------------------- */

struct compact {
	struct dedup *d;
	uint32_t nchunks;
	uint32_t *chunk_types;		/* kept types per chunk, then prefix sums */
	size_t *chunk_words;		/* kept words per chunk, then prefix sums */
	uint32_t *types;		/* new type words */
	uint32_t *index;		/* new index */
	struct diag *err;
};

static int compact_count(void *ctx, unsigned worker, size_t item)
{
	struct compact *c = ctx;
	struct dedup *d = c->d;
	uint32_t id = d->start_id + (uint32_t)(item * CHUNK), end = MIN(d->nr_all, id + CHUNK);
	uint32_t nt = 0;
	size_t nw = 0;

	for (; id < end; id++) {
		if (d->map[id] != id)
			continue;
		nt++;
		nw += btf_type_size(T(d, id)) / 4;
	}
	c->chunk_types[item] = nt;
	c->chunk_words[item] = nw;
	return 0;
}

static int compact_number(void *ctx, unsigned worker, size_t item)
{
	struct compact *c = ctx;
	struct dedup *d = c->d;
	uint32_t id = d->start_id + (uint32_t)(item * CHUNK), end = MIN(d->nr_all, id + CHUNK);
	uint32_t next = d->start_id + c->chunk_types[item];

	for (; id < end; id++)
		d->hypot[id] = d->map[id] == id ? next++ : UNPROCESSED;
	return 0;
}

static int compact_copy(void *ctx, unsigned worker, size_t item)
{
	struct compact *c = ctx;
	struct dedup *d = c->d;
	uint32_t id = d->start_id + (uint32_t)(item * CHUNK), end = MIN(d->nr_all, id + CHUNK);
	uint32_t nid = c->chunk_types[item];
	size_t w = c->chunk_words[item];

	for (; id < end; id++) {
		struct btf_field_iter it;
		struct btf_type *t;
		size_t nw;
		uint32_t *p;

		if (d->map[id] != id)
			continue;
		nw = btf_type_size(T(d, id)) / 4;
		t = (struct btf_type *)(c->types + w);
		memcpy(t, T(d, id), nw * 4);
		c->index[nid++] = (uint32_t)w;
		w += nw;
		btf_field_iter_init(&it, t, BTF_FIELD_IDS);
		while ((p = btf_field_iter_next(&it))) {
			uint32_t r, n;

			if (*p >= d->nr_all)
				return diag_err(c->err, EINVAL, "dedup: type %u refers to invalid id %u",
						id, *p);
			r = resolve(d, *p);
			n = r < d->start_id ? r : d->hypot[r];
			if (n > MAX_ID)
				return diag_err(c->err, EINVAL, "dedup: type %u: id %u has no canonical type",
						id, *p);
			*p = n;
		}
	}
	return 0;
}

static int compact(struct dedup *d)
{
	struct btf *btf = d->btf;
	struct compact c = { .d = d, .err = d->d };
	uint32_t i, nt = 0;
	size_t nw = 0;
	int err;

	c.nchunks = (d->nr_all - d->start_id + CHUNK - 1) / CHUNK;
	c.chunk_types = mem_array(c.nchunks + 1, sizeof(*c.chunk_types));
	c.chunk_words = mem_array(c.nchunks + 1, sizeof(*c.chunk_words));
	if (!c.chunk_types || !c.chunk_words) {
		err = -ENOMEM;
		goto out;
	}
	if ((err = pool_for(d->nthreads, c.nchunks, compact_count, &c)))
		goto out;
	for (i = 0; i < c.nchunks; i++) {
		uint32_t t = c.chunk_types[i];
		size_t w = c.chunk_words[i];

		c.chunk_types[i] = nt;
		c.chunk_words[i] = nw;
		nt += t;
		nw += w;
	}
	if ((err = pool_for(d->nthreads, c.nchunks, compact_number, &c)))
		goto out;
	c.types = mem_alloc(MAX(nw, 1) * 4);
	c.index = mem_alloc(MAX(nt, 1) * 4);
	if (!c.types || !c.index) {
		err = -ENOMEM;
		goto out;
	}
	if ((err = pool_for(d->nthreads, c.nchunks, compact_copy, &c)))
		goto out;
	mem_free(btf->types);
	mem_free(btf->index);
	btf->types = c.types;
	btf->types_len = btf->types_cap = nw;
	btf->index = c.index;
	btf->index_cap = nt;
	btf->nr_types = nt;
	btf->last_type_kind = nt ? (int)btf_kind((struct btf_type *)(c.types + c.index[nt - 1])) : -1;
	c.types = NULL;
	c.index = NULL;
out:
	mem_free(c.types);
	mem_free(c.index);
	mem_free(c.chunk_types);
	mem_free(c.chunk_words);
	return err;
}

/* ---- driver ------------------------------------------------------------- */

const char *const btf_dedup_phase_names[BTF_DEDUP_NR_PH] = {
	"prep", "strings", "prims", "structs", "fwds", "refs", "compact",
};

static double now(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (double)ts.tv_sec + (double)ts.tv_nsec / 1e9;
}

static void lap(struct dedup *d, int ph, double *t)
{
	double n;

	if (!d->opts->stats)
		return;
	n = now();
	d->opts->stats->secs[ph] = n - *t;
	*t = n;
}

static int fail(struct dedup *d, int err, const char *phase)
{
	if (!d->d || d->d->code)
		return err;
	return diag_err(d->d, -err, "dedup: %s phase failed: %s", phase, strerror(-err));
}

int btf_dedup(struct btf *btf, const struct btf_dedup_opts *opts, struct diag *diag)
{
	static const struct btf_dedup_opts defaults;
	struct dedup d = { 0 };
	double t = now();
	uint32_t id;
	int err;

	if (!opts)
		opts = &defaults;
	d.btf = btf;
	d.opts = opts;
	d.d = diag;
	d.nthreads = opts->nr_threads ? opts->nr_threads : 1;
	d.head = opts->compat == BTF_DEDUP_LIBBPF_HEAD;
	d.start_id = btf->start_id;
	d.nr_all = btf_type_count(btf);
	/*
	 * Strings first: the hashes computed by prep() use the final string
	 * offsets (libbpf hashes after its string phase too), and the string
	 * phase's temporary memory is gone before the big arrays exist.
	 */
	if ((err = dedup_strings(&d))) {
		err = fail(&d, err, "string");
		goto out;
	}
	lap(&d, BTF_DEDUP_PH_STRS, &t);
	d.tp = mem_array(d.nr_all, sizeof(*d.tp));
	d.map = mem_array(d.nr_all, sizeof(*d.map));
	d.hypot = mem_array(d.nr_all, sizeof(*d.hypot));
	d.hash = mem_array(d.nr_all, sizeof(*d.hash));
	if (!d.tp || !d.map || !d.hypot || !d.hash || dtab_init(&d.tab, 0)) {
		err = diag_err(diag, ENOMEM, "dedup: out of memory for %u types", d.nr_all);
		goto out;
	}
	if ((err = prep(&d))) {
		err = fail(&d, err, "prep");
		goto out;
	}
	lap(&d, BTF_DEDUP_PH_PREP, &t);
	for (id = d.start_id; id < d.nr_all; id++)
		if ((err = dedup_prim(&d, id))) {
			err = fail(&d, err, "primitive");
			goto out;
		}
	lap(&d, BTF_DEDUP_PH_PRIM, &t);
	for (id = d.start_id; id < d.nr_all; id++)
		if ((err = dedup_struct(&d, id))) {
			err = fail(&d, err, "struct");
			goto out;
		}
	mem_free(d.hash);
	d.hash = NULL;
	lap(&d, BTF_DEDUP_PH_STRUCT, &t);
	if ((err = dedup_fwds(&d))) {
		err = fail(&d, err, "forward");
		goto out;
	}
	lap(&d, BTF_DEDUP_PH_FWD, &t);
	for (id = d.start_id; id < d.nr_all; id++)
		if ((err = dedup_ref(&d, id))) {
			err = fail(&d, err, "reference");
			goto out;
		}
	dtab_free(&d.tab);
	lap(&d, BTF_DEDUP_PH_REF, &t);
	if ((err = compact(&d))) {
		err = fail(&d, err, "compaction");
		goto out;
	}
	lap(&d, BTF_DEDUP_PH_COMPACT, &t);
	if (opts->stats) {
		opts->stats->nr_in = d.nr_all - d.start_id;
		opts->stats->nr_out = btf_type_count(btf) - d.start_id;
	}
out:
	mem_free(d.tp);
	mem_free(d.map);
	mem_free(d.hypot);
	mem_free(d.hash);
	mem_free(d.hypot_list.v);
	mem_free(d.stack.v);
	mem_free(d.stack2.v);
	dtab_free(&d.tab);
	return err;
}

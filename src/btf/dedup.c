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
 * Split dedup and the prepared base.  Everything libbpf does for the base
 * ids (record pointers, hashes, the candidate table in id order, the
 * unique-name index of phase 4) lives in a struct btf_dedup_base, built
 * once and read-only afterwards, so concurrent split runs on one base
 * share it.  A run's candidate table is an overlay on the base's: a group
 * whose key the base also has holds a marker standing for the base's
 * group, which reproduces libbpf's order of base and split candidates
 * exactly.  Without opts->prepared_base a run builds a private one (a
 * trivial one for base BTF), so there is one code path.
 *
 * Parallelism (opts->nr_threads): the base's record pointers and hashes
 * (prepared base) and the own types' reference checks and map init are
 * computed in parallel over fixed-size chunks (own hashes are computed
 * where phases 2-3 need them: no 8-byte-per-type array at the peak); the
 * string phase (counting, first reference per old offset, rewriting) and
 * compaction with id remapping run in parallel over chunks too.  Phases
 * 2-5 are sequential: every
 * decision there may depend on all earlier ones (the candidate order, the
 * FWD and struct mappings merged from each hypothetical map).  Chunk
 * boundaries never depend on the thread count and every result lands in
 * a slot indexed by type id or string offset, so the output is identical
 * for any nr_threads.
 */
#include "btf/dedup.h"

#include "base/clock.h"
#include "base/hash.h"
#include "base/mem.h"
#include "base/pool.h"

#include <pthread.h>

#define MAX_ID		0x7fffffffu	/* libbpf BTF_MAX_NR_TYPES */
#define UNPROCESSED	0xffffffffu
#define IN_PROGRESS	0xfffffffeu
#define NIL		0xffffffffu
#define CHUNK		8192		/* types per parallel work item */

/* ---- the candidate table ------------------------------------------------ */

struct dtab {
	/* groups: open addressing on the key, one cache line per probe */
	struct dslot {
		uint64_t key;
		uint32_t head, tail;	/* entry indices; head == NIL: empty slot */
	} *slots;
	size_t nslots, ngroups;
	/* entries */
	uint32_t *e_id, *e_next, *e_prev;
	uint32_t *e_aux;		/* per entry: a struct's member signature, or 0 */
	size_t n, cap;
	/* emulation of libbpf's hashmap growth */
	size_t lb_sz, lb_cap;
	unsigned lb_bits, parity;
	/*
	 * Read-only table this one continues (a prepared base): its entries
	 * were inserted first.  A group of ours whose key the base also has
	 * holds one BASE_MARK entry standing for the base's whole group, so
	 * front/back insertions land on the right side of it.
	 */
	const struct dtab *base;
};

#define BASE_MARK	0xfffffffdu

static size_t dtab_slot(const struct dtab *t, uint64_t key)
{
	return hash_mix(key) & (t->nslots - 1);
}

static int dtab_rehash(struct dtab *t, size_t nslots)
{
	struct dslot *slots = mem_alloc(nslots * sizeof(*slots));
	size_t i;

	if (!slots)
		return -ENOMEM;
	for (i = 0; i < nslots; i++)
		slots[i].head = NIL;
	for (i = 0; i < t->nslots; i++) {
		size_t j;

		if (t->slots[i].head == NIL)
			continue;
		for (j = hash_mix(t->slots[i].key) & (nslots - 1); slots[j].head != NIL;
		     j = (j + 1) & (nslots - 1))
			;
		slots[j] = t->slots[i];
	}
	mem_free(t->slots);
	t->slots = slots;
	t->nslots = nslots;
	return 0;
}

static int dtab_init(struct dtab *t, size_t expect, const struct dtab *base)
{
	size_t n = 64;

	memset(t, 0, sizeof(*t));
	while (n < expect * 2)
		n *= 2;
	if (base) {	/* continue the base's libbpf growth state */
		t->base = base->n ? base : NULL;
		t->lb_sz = base->lb_sz;
		t->lb_cap = base->lb_cap;
		t->lb_bits = base->lb_bits;
		t->parity = base->parity;
	}
	return dtab_rehash(t, n);
}

static void dtab_free(struct dtab *t)
{
	mem_free(t->slots);
	mem_free(t->e_id);
	mem_free(t->e_aux);
	mem_free(t->e_next);
	mem_free(t->e_prev);
	memset(t, 0, sizeof(*t));
}

/* Slot of key, or NIL. */
static inline size_t dtab_find(const struct dtab *t, uint64_t key)
{
	size_t j;

	for (j = dtab_slot(t, key); t->slots[j].head != NIL; j = (j + 1) & (t->nslots - 1))
		if (t->slots[j].key == key)
			return j;
	return (size_t)-1;
}

static int dtab_entry(struct dtab *t, uint32_t id, uint32_t *e)
{
	if (t->n == t->cap) {
		size_t c1 = t->cap, c2 = t->cap, c3 = t->cap, c4 = t->cap;

		if (mem_grow((void **)&t->e_id, &c1, 4, t->n + 1) ||
		    mem_grow((void **)&t->e_next, &c2, 4, t->n + 1) ||
		    mem_grow((void **)&t->e_prev, &c3, 4, t->n + 1) ||
		    mem_grow((void **)&t->e_aux, &c4, 4, t->n + 1))
			return -ENOMEM;
		t->cap = MIN(MIN(c1, c2), MIN(c3, c4));
	}
	*e = (uint32_t)t->n++;
	t->e_id[*e] = id;
	t->e_aux[*e] = 0;
	return 0;
}

/*
 * libbpf's hashmap state for one more insertion: grow (and reverse every
 * chain) when empty or > 75% full.  Alone, it stands for an insertion of
 * an entry no lookup can want (a filtered base table, pb_new_for).
 */
static void dtab_count(struct dtab *t)
{
	if (t->lb_cap == 0 || (t->lb_sz + 1) * 4 / 3 > t->lb_cap) {
		t->lb_bits = t->lb_bits + 1 < 2 ? 2 : t->lb_bits + 1;
		t->lb_cap = (size_t)1 << t->lb_bits;
		t->parity ^= 1;
	}
	t->lb_sz++;
}

/* n dtab_count()s: up to the next growth in one step. */
static void dtab_count_n(struct dtab *t, size_t n)
{
	while (n) {
		size_t free;

		if (t->lb_cap == 0 || (t->lb_sz + 1) * 4 / 3 > t->lb_cap) {
			dtab_count(t);
			n--;
			continue;
		}
		/* (sz + 1) * 4 / 3 <= cap holds for sz + 1 <= (3 * cap + 2) / 4 */
		free = (3 * t->lb_cap + 2) / 4 - t->lb_sz;
		free = MIN(free, n);
		t->lb_sz += free;
		n -= free;
	}
}

/* Add id under key, with aux for dcand.aux (0: none). */
static int dtab_add_aux(struct dtab *t, uint64_t key, uint32_t id, uint32_t aux)
{
	struct dslot *sl;
	uint32_t e;
	size_t j;

	dtab_count(t);
	if (dtab_entry(t, id, &e))
		return -ENOMEM;
	t->e_aux[e] = aux;
	for (j = dtab_slot(t, key); t->slots[j].head != NIL; j = (j + 1) & (t->nslots - 1))
		if (t->slots[j].key == key)
			break;
	sl = &t->slots[j];
	if (sl->head == NIL) {
		uint32_t m;

		if (!t->base || dtab_find(t->base, key) == (size_t)-1) {
			sl->key = key;
			sl->head = sl->tail = e;
			t->e_next[e] = t->e_prev[e] = NIL;
			if (++t->ngroups * 2 > t->nslots)
				return dtab_rehash(t, t->nslots * 2);
			return 0;
		}
		/* the base has this key: start the group with its marker */
		if (dtab_entry(t, BASE_MARK, &m))
			return -ENOMEM;
		sl->key = key;
		sl->head = sl->tail = m;
		t->e_next[m] = t->e_prev[m] = NIL;
		++t->ngroups;
	}
	if (!t->parity) {		/* physical front */
		t->e_next[e] = sl->head;
		t->e_prev[e] = NIL;
		t->e_prev[sl->head] = e;
		sl->head = e;
	} else {			/* physical back */
		t->e_prev[e] = sl->tail;
		t->e_next[e] = NIL;
		t->e_next[sl->tail] = e;
		sl->tail = e;
	}
	if (t->ngroups * 2 > t->nslots)
		return dtab_rehash(t, t->nslots * 2);
	return 0;
}

static int dtab_add(struct dtab *t, uint64_t key, uint32_t id)
{
	return dtab_add_aux(t, key, id, 0);
}

/*
 * Iteration over the candidates of one key, in libbpf's order: the logical
 * list is our group with the base's group spliced in at its marker (or the
 * base's group alone), read in the direction of our current parity.
 */
struct dcand {
	const struct dtab *t;
	uint32_t e, be;		/* next entry of ours / of the base's group */
	bool back, in_base;
	uint64_t key;
	uint32_t aux;		/* e_aux of the entry dcand_next() returned last */
};

static inline void dcand_base(struct dcand *c)
{
	const struct dtab *b = c->t->base;
	size_t j = b ? dtab_find(b, c->key) : (size_t)-1;

	c->be = j == (size_t)-1 ? NIL : c->back ? b->slots[j].tail : b->slots[j].head;
	c->in_base = true;
}

static inline void dcand_init(struct dcand *c, const struct dtab *t, uint64_t key)
{
	size_t j = dtab_find(t, key);

	c->t = t;
	c->key = key;
	c->back = t->parity;
	c->in_base = false;
	if (j == (size_t)-1) {
		c->e = NIL;
		dcand_base(c);
	} else {
		c->e = c->back ? t->slots[j].tail : t->slots[j].head;
	}
}

/* Next candidate id, or NIL. */
static inline uint32_t dcand_next(struct dcand *c)
{
	uint32_t e, id;

	for (;;) {
		if (c->in_base) {
			const struct dtab *b = c->t->base;

			if (c->be != NIL) {
				e = c->be;
				c->be = c->back ? b->e_prev[e] : b->e_next[e];
				c->aux = b->e_aux[e];
				return b->e_id[e];
			}
			c->in_base = false;
		}
		e = c->e;
		if (e == NIL)
			return NIL;
		c->e = c->back ? c->t->e_prev[e] : c->t->e_next[e];
		id = c->t->e_id[e];
		if (id != BASE_MARK) {
			c->aux = c->t->e_aux[e];
			return id;
		}
		dcand_base(c);
	}
}

/* ---- state -------------------------------------------------------------- */

/* A set of u32 (string offsets), open addressing; small. */
struct u32set {
	uint32_t *v;		/* value + 1, 0 = empty */
	size_t n, nslots;
};

static bool u32set_has(const struct u32set *s, uint32_t x)
{
	size_t j;

	if (!s->nslots)
		return false;
	for (j = hash_mix(x) & (s->nslots - 1); s->v[j]; j = (j + 1) & (s->nslots - 1))
		if (s->v[j] == x + 1)
			return true;
	return false;
}

/* 0, or -ENOMEM (the value is then not recorded). */
static int u32set_add(struct u32set *s, uint32_t x)
{
	size_t j;

	if (u32set_has(s, x))
		return 0;
	if ((s->n + 1) * 2 > s->nslots) {
		size_t ns = s->nslots ? s->nslots * 2 : 64, i;
		uint32_t *v = mem_array(ns, sizeof(*v));

		if (!v)
			return -ENOMEM;
		for (i = 0; i < s->nslots; i++) {
			if (!s->v[i])
				continue;
			for (j = hash_mix(s->v[i] - 1) & (ns - 1); v[j]; j = (j + 1) & (ns - 1))
				;
			v[j] = s->v[i];
		}
		mem_free(s->v);
		s->v = v;
		s->nslots = ns;
	}
	for (j = hash_mix(x) & (s->nslots - 1); s->v[j]; j = (j + 1) & (s->nslots - 1))
		;
	s->v[j] = x + 1;
	s->n++;
	return 0;
}

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

/* Name -> unique struct/union id (0: ambiguous), for phase 4. */
struct nmap {
	uint32_t *key, *val;
	uint8_t *used;
	size_t nslots;
};

struct base_strs {
	const struct btf *btf;		/* the level */
	struct strset priv;		/* private index if the level has none */
	bool own;
};

/*
 * The prepared base (doc 4.4 phase 0 for the base ids): immutable after
 * btf_dedup_base_new(), shared by any number of concurrent runs.
 *   tp      base id -> record (void included), only for a base that is
 *           itself split (else records come from the base's own index,
 *           bwords + bidx: no 8 bytes per base type to fill per run)
 *   tab     every base type but VAR/DATASEC, inserted in id order; a run
 *           continues it through an overlay (struct dtab.base)
 *   names   name_off -> unique base STRUCT/UNION id or 0 (phase 4)
 *   bs      string lookup per base level (string phase)
 * A run's map[] and hypot[] still cover the base ids (4 bytes each per
 * base type, initialised by a copy): libbpf's split dedup redirects base
 * FWDs and base forward enums to split types during a run (doc 4.6,
 * 4.7.3), and that must only change the run's own copy.
 */

struct btf_dedup_base {
	const struct btf *base;
	bool head;
	uint32_t nr;			/* = btf_type_count(base): first split id */
	struct btf_type **tp;
	const uint32_t *bwords, *bidx;	/* base->types, base->index (tp == NULL) */
	uint64_t *hash;
	struct dtab tab;
	struct nmap names;
	struct base_strs bs[8];		/* string lookup per base level */
	size_t nb;
	bool strs_ready;
	bool borrowed;			/* tab and names point into an image (btf_dedup_base_load) */
};

struct dedup {
	struct btf *btf;
	const struct btf_dedup_opts *opts;
	struct diag *d;
	unsigned nthreads;
	bool head;			/* libbpf HEAD semantics */
	uint32_t start_id, nr_all;	/* this run's first own id; type count */
	uint32_t nr_own;
	const struct btf_dedup_base *pb;
	struct btf_type *const *btp;	/* ids below start_id -> record, or NULL: */
	const uint32_t *bwords, *bidx;	/* ... id - 1 indexes the base's own index */
	uint32_t *owords;		/* btf->types: own records ... */
	const uint32_t *oidx;		/* ... own id - start_id -> word offset (btf->index) */
	uint8_t *kinds;			/* own id - start_id -> kind (prep): the phases' */
					/* passes over all ids skip the others' records */
	uint32_t *map;			/* any id (doc 4.2); base part is this run's copy */
	uint32_t *hypot;		/* any id (canonical side) */
	/* no base: canonical enums by content, names of canonical forward enums */
	struct dtab enum_idx;
	struct u32set fwd_enum_names;
	struct u32vec hypot_list;
	struct u32vec hypot_merge;	/* the entries merge_hypot() may act on */
	bool adjust_canon;
	bool levelled_refs;		/* phase 5 by dedup_refs_levelled() */
	struct dtab tab;
	struct u32vec stack;		/* explicit DFS stacks */
	struct u32vec stack2;
};

static const struct btf_type void_rec;

static inline struct btf_type *T(const struct dedup *d, uint32_t id)
{
	if (id >= d->start_id)
		return (struct btf_type *)(d->owords + d->oidx[id - d->start_id]);
	if (d->btp)
		return d->btp[id];
	return id ? (struct btf_type *)(d->bwords + d->bidx[id - 1]) : (struct btf_type *)&void_rec;
}

/* Kind of own id (prep's copy: no record read). */
static inline unsigned K(const struct dedup *d, uint32_t id)
{
	return d->kinds[id - d->start_id];
}

/*
 * Kind of any id: own ids from prep's copy (4 MB for vmlinux, against
 * 170 MB of records: the struct phase's kind checks were its costliest
 * cache misses), base ids from their records.
 */
static inline unsigned KI(const struct dedup *d, uint32_t id)
{
	return id >= d->start_id ? K(d, id) : btf_kind(T(d, id));
}

/* Record of base id of a prepared base. */
static inline struct btf_type *pb_rec(const struct btf_dedup_base *pb, uint32_t id)
{
	if (pb->tp)
		return pb->tp[id];
	return id ? (struct btf_type *)(pb->bwords + pb->bidx[id - 1]) : (struct btf_type *)&void_rec;
}

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

/*
 * map[id].  Base ids map to themselves at the start of a run; libbpf may
 * redirect base FWDs and forward enums during a split run (doc 4.6,
 * 4.7.3), which only changes this run's copy.
 *
 * Stored so that zeroed memory is the starting state: map[] holds the
 * value XOR the id (0 = maps to itself), hypot[] the value + 1 (0 =
 * UNPROCESSED).  The base part then needs no initialisation, and a split
 * run touches only the pages of the base ids it meets (a module's run
 * wrote 860 KB for vmlinux's 107k base ids before).
 */
#define MAPV(d, id)	((d)->map[id] ^ (uint32_t)(id))
#define OMAP(d, id)	MAPV(d, id)

static inline void set_map(struct dedup *d, uint32_t id, uint32_t v)
{
	d->map[id] = v ^ id;
}

static inline uint32_t hyp(const struct dedup *d, uint32_t id)
{
	return d->hypot[id] - 1;
}

static inline void set_hyp(struct dedup *d, uint32_t id, uint32_t v)
{
	d->hypot[id] = v + 1;
}

static inline bool is_mapped(const struct dedup *d, uint32_t id)
{
	return MAPV(d, id) <= MAX_ID;
}

static inline uint32_t resolve(const struct dedup *d, uint32_t id)
{
	uint32_t m;

	while ((m = MAPV(d, id)) <= MAX_ID && m != id)
		id = m;
	return id;
}

static inline uint32_t resolve_fwd(const struct dedup *d, uint32_t id)
{
	uint32_t orig = id;

	if (KI(d, id) != BTF_KIND_FWD)
		return id;
	id = resolve(d, id);
	if (KI(d, id) != BTF_KIND_FWD)
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

/* ---- phase 0: the prepared base, then own type pointers, hashes, map ---- */

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
static uint32_t pb_name_lookup(const struct btf_dedup_base *pb, uint32_t name_off)
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

static struct btf_dedup_base *pb_new(const struct btf *base, const struct btf_dedup_opts *o,
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
		unsigned k = btf_kind(t);

		if (k == BTF_KIND_VAR || k == BTF_KIND_DATASEC)
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
static bool anon_hashed_kind(unsigned k)
{
	return k == BTF_KIND_INT || k == BTF_KIND_FLOAT || k == BTF_KIND_ENUM ||
	       k == BTF_KIND_ENUM64 || k == BTF_KIND_FWD || btf_is_composite_kind(k) ||
	       k == BTF_KIND_TYPEDEF;
}

static uint32_t fold64(uint64_t h)
{
	return (uint32_t)(h ^ h >> 32);
}

/*
 * What an unnamed ARRAY or FUNC_PROTO shares with every type it can be
 * equal to, ids aside (those depend on resolution): its info word, and
 * the element count or the parameter names.
 */
static bool shaped_kind(unsigned k)
{
	return k == BTF_KIND_ARRAY || k == BTF_KIND_FUNC_PROTO;
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

static struct btf_dedup_base *pb_new_for(const struct btf *base, const struct btf *own, bool head,
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
		struct btf_type *t = btf_type_mut((struct btf *)own, id);
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
		unsigned k = btf_kind(t);
		uint64_t h;

		if (k == BTF_KIND_VAR || k == BTF_KIND_DATASEC) {
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
	mem_free(inset);
	mem_free(vd);
	mem_free(named.v);
	mem_free(names.v);
	mem_free(anon.v);
	mem_free(shapes.v);
	mem_free(pending.v);
	return pb;
fail:
	err = err ? err : -ENOMEM;
	if (err == -ENOMEM)
		diag_err(d, ENOMEM, "dedup: preparing the base: %s", strerror(ENOMEM));
	*errp = err;
	mem_free(inset);
	mem_free(vd);
	mem_free(named.v);
	mem_free(names.v);
	mem_free(anon.v);
	mem_free(shapes.v);
	mem_free(pending.v);
	btf_dedup_base_free(pb);
	return NULL;
}

static int prep_chunk(void *ctx, unsigned worker, size_t item)
{
	struct dedup *d = ctx;
	uint32_t id = d->start_id + (uint32_t)(item * CHUNK), end = MIN(d->nr_all, id + CHUNK);

	for (; id < end; id++) {
		struct btf_type *t = btf_type_mut(d->btf, id);
		struct btf_field_iter it;
		unsigned k;
		uint32_t *p;

		k = btf_kind(t);
		d->kinds[id - d->start_id] = (uint8_t)k;
		/* every own reference must resolve (unless the caller built them) */
		if (!d->opts->ids_checked) {
			if (btf_field_iter_init(&it, t, BTF_FIELD_IDS))
				return diag_err(d->d, EINVAL, "dedup: type %u has unknown kind %u",
						id, k);
			while ((p = btf_field_iter_next(&it)))
				if (*p >= d->nr_all)
					return diag_err(d->d, EINVAL,
							"dedup: type %u refers to invalid id %u", id, *p);
		}
		set_map(d, id, k == BTF_KIND_VAR || k == BTF_KIND_DATASEC ? id : UNPROCESSED);
	}
	return 0;
}

static int prep(struct dedup *d)
{
	if (!(d->kinds = mem_alloc(MAX(d->nr_own, 1))))
		return -ENOMEM;
	return pool_for(d->nthreads, (d->nr_own + CHUNK - 1) / CHUNK, prep_chunk, d);
}

/* ---- phase 1: strings --------------------------------------------------- */

/*
 * Lookup of base strings: the base's own index when it has one, else a
 * private index (a parse without string index), built by the prepared
 * base.
 */

static int64_t base_find(const struct base_strs *b, size_t nb, const char *s)
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

/* An own record, writable (btf_dedup() made the types so at its start). */
static inline struct btf_type *own_rec(struct btf *btf, uint32_t id)
{
	return (struct btf_type *)(btf->types + btf->index[id - btf->start_id]);
}

#define FOR_EACH_OWN_STR(d, id, end, p, body)						\
	for (; id < end; id++) {							\
		struct btf_type *t_ = own_rec((d)->btf, id);				\
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

/*
 * strs_first() for every chunk, in order, on one thread: the first store
 * to a string's slot is its first reference, no compare-and-swap needed,
 * and no count pass to number the chunks' references first.
 * With two threads the shared slots cost more in cache-line traffic than
 * the split gains (vmlinux x8: 0.021 s alone, 0.029-0.035 s on two).
 */
static int strs_first_serial(struct strs *c)
{
	struct dedup *d = c->d;
	uint32_t start = d->btf->start_str_off, len = (uint32_t)d->btf->strs.len;
	uint32_t id = d->start_id, end = d->nr_all, seq = 1;

	FOR_EACH_OWN_STR(d, id, end, p, {
		uint32_t *slot = &c->first[*p - start];

		if (seq == 0xffffffffu)
			return diag_err(d->d, E2BIG, "dedup: more than %u string references", seq - 1);
		if (!*slot)
			*slot = seq;
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
	struct base_strs lbs[8];
	const struct base_strs *bs = lbs;
	uint64_t *keys = NULL, *tmp = NULL, total = 0;
	size_t nb = 0, nkeys = 0, i;
	struct strset ns = { 0 };
	bool ns_ok = false;
	const struct btf *b;
	int err = 0;

	if (d->opts->keep_strings || d->nr_all == d->start_id)
		return 0;
	memset(lbs, 0, sizeof(lbs));
	c.nchunks = (d->nr_all - d->start_id + CHUNK - 1) / CHUNK;
	c.chunk_refs = mem_array(c.nchunks, sizeof(*c.chunk_refs));
	c.first = mem_array((size_t)len + 1, sizeof(*c.first));
	if (!c.chunk_refs || !c.first) {
		err = -ENOMEM;
		goto out;
	}
	if (d->nthreads <= 2) {
		if ((err = strs_first_serial(&c)))
			goto out;
	} else {
		if ((err = pool_for(d->nthreads, c.nchunks, strs_count, &c)))
			goto out;
		for (i = 0; i < c.nchunks; i++) {
			uint64_t n = c.chunk_refs[i];

			c.chunk_refs[i] = total;
			total += n;
		}
		if (total >= 0xffffffffull) {
			err = diag_err(d->d, E2BIG, "dedup: %llu string references",
				       (unsigned long long)total);
			goto out;
		}
		if ((err = pool_for(d->nthreads, c.nchunks, strs_first, &c)))
			goto out;
	}
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

	if (d->pb && d->pb->strs_ready) {	/* the prepared base's lookups */
		bs = d->pb->bs;
		nb = d->pb->nb;
	} else {
		for (b = btf->base; b; b = b->base) {
			if (nb == ARRAY_SIZE(lbs)) {
				err = diag_err(d->d, EINVAL, "dedup: more than %zu base levels",
					       ARRAY_SIZE(lbs));
				goto out;
			}
			lbs[nb].btf = b;
			if (!b->strs.nslots) {
				lbs[nb].own = true;
				strset_borrow(&lbs[nb].priv, b->strs.data, b->strs.len);
				if (strset_index(&lbs[nb].priv)) {
					nb++;
					err = -ENOMEM;
					goto out;
				}
			}
			nb++;
		}
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
				err = diag_err(d->d, (int)-n, "dedup: cannot add string: %s", strerror((int)-n));
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
	for (i = 0; bs == lbs && i < nb; i++)
		if (lbs[i].own)
			strset_free(&lbs[i].priv);
	return err;
}

/* ---- phase 2: primitive types ------------------------------------------- */

/*
 * The kinds phases 2 and 3 act on; their passes over all own ids skip the
 * others by prep's kind bytes.
 */
static inline bool prim_kind(unsigned k)
{
	return k == BTF_KIND_INT || k == BTF_KIND_ENUM || k == BTF_KIND_ENUM64 ||
	       k == BTF_KIND_FWD || k == BTF_KIND_FLOAT;
}

static inline bool struct_phase_kind(const struct dedup *d, unsigned k)
{
	return k == BTF_KIND_STRUCT || k == BTF_KIND_UNION || (d->head && k == BTF_KIND_TYPEDEF);
}

/* An enum's whole content, for the no-base lookup of dedup_prim(). */
static uint64_t enum_key(const struct btf_type *t)
{
	const uint32_t *w = (const uint32_t *)(t + 1);
	size_t i, n = btf_vlen(t) * (btf_kind(t) == BTF_KIND_ENUM ? 2u : 3u);
	uint64_t h = hc(hc(hc(0, t->name_off), t->info), t->size);

	for (i = 0; i < n; i++)
		h = hc(h, w[i]);
	return h;
}

static bool enum_fast(const struct dedup *d, const struct btf_type *t)
{
	return !d->btf->base && !is_enum_fwd(t) &&
	       !u32set_has(&d->fwd_enum_names, t->name_off);
}

static int dedup_prim(struct dedup *d, uint32_t id)
{
	struct btf_type *t = T(d, id), *c;
	uint32_t new_id = id, cid;
	unsigned k = btf_kind(t);
	struct dcand it;
	uint64_t h;

	/* hashed here rather than in prep: 8 bytes per type less at the peak */
	if (!prim_kind(k))
		return 0;
	kind_hash(d, t, &h);
	switch (k) {
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
		/*
		 * Without a base, and with no forward enum of t's name in the
		 * table, the scan below can only find t's one equal enum
		 * (canonical enums are pairwise unequal): look it up by content
		 * rather than walk every enum of the name (all anonymous enums
		 * share one bucket, thousands in the kernel).
		 */
		if (enum_fast(d, t)) {
			if (!d->enum_idx.nslots)
				break;
			for (dcand_init(&it, &d->enum_idx, enum_key(t)); (cid = dcand_next(&it)) != NIL;)
				if (equal_enum(t, T(d, cid))) {
					new_id = cid;
					break;
				}
			break;
		}
		for (dcand_init(&it, &d->tab, h); (cid = dcand_next(&it)) != NIL;) {
			c = T(d, cid);
			if (equal_enum(t, c)) {
				new_id = cid;
				break;
			}
			/* compat_enum(t, c), knowing they are not equal */
			if ((is_enum_fwd(t) || is_enum_fwd(c)) && t->name_off == c->name_off &&
			    is_any_enum(c)) {
				if (is_enum_fwd(t)) {
					new_id = cid;
					break;
				}
				/* the canonical forward enum now points at t */
				set_map(d, cid, id);
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
	set_map(d, id, new_id);
	if (new_id == id && dtab_add(&d->tab, h, id))
		return -ENOMEM;
	if (new_id == id && is_any_enum(t) && !d->btf->base &&
	    ((d->enum_idx.nslots == 0 && dtab_init(&d->enum_idx, 0, NULL)) ||
	     dtab_add(&d->enum_idx, enum_key(t), id) ||
	     (is_enum_fwd(t) && u32set_add(&d->fwd_enum_names, t->name_off))))
		return -ENOMEM;
	return 0;
}

/* ---- phase 3: struct/union graph equivalence ---------------------------- */

/*
 * Up to the end of phase 3 an id resolves to a FWD, STRUCT or UNION only
 * if it is one (phase 2 maps INT, ENUM, FLOAT and FWD ids to ids of their
 * kind, phase 3 FWD and STRUCT/UNION ids to these kinds and, with
 * --compat head, TYPEDEF ids to TYPEDEFs).  So a hypothetical pair with
 * none of these kinds on either side is one merge_hypot() leaves alone:
 * two thirds of vmlinux's pairs (pointers, prototypes, typedefs, arrays).
 */
static inline bool sfu_kind(unsigned k)
{
	return k == BTF_KIND_STRUCT || k == BTF_KIND_UNION || k == BTF_KIND_FWD;
}

static inline int hypot_note(struct dedup *d, uint32_t canon, unsigned cand_kind,
			     unsigned canon_kind)
{
	if (!sfu_kind(cand_kind) && !sfu_kind(canon_kind))
		return 0;
	return u32vec_push(&d->hypot_merge, canon) ? -ENOMEM : 0;
}

static inline int hypot_add(struct dedup *d, uint32_t from, uint32_t to)
{
	if (u32vec_push(&d->hypot_list, from))
		return -ENOMEM;
	set_hyp(d, from, to);
	return 0;
}

static void hypot_clear(struct dedup *d)
{
	size_t i;

	for (i = 0; i < d->hypot_list.n; i++) {
		uint32_t c = d->hypot_list.v[i];

		set_hyp(d, c, UNPROCESSED);
	}
	d->hypot_list.n = 0;
	d->hypot_merge.n = 0;
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

		/*
		 * cand mapped straight to canon (an earlier walk merged them;
		 * vmlinux: 3.0M of the 29.4M pairs): both resolve to one id,
		 * so libbpf goes on too, and neither canon's hypothetical nor
		 * its map entry, both far away, need be read.
		 */
		if (MAPV(d, cand) == canon)
			continue;
		/*
		 * A pair this walk already accepted (41% of the pairs on
		 * vmlinux): libbpf gets there after two resolves and a look
		 * at canon's kind, and the answer is the same, since an id
		 * with a hypothetical partner is its own resolve_fwd().
		 */
		if (hyp(d, canon) == cand)
			continue;
		if (resolve(d, cand) == resolve(d, canon))
			continue;
		canon = resolve_fwd(d, canon);
		h = hyp(d, canon);
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
		if (hypot_note(d, canon, ck, nk))
			return -ENOMEM;
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

	for (i = 0; i < d->hypot_merge.n; i++) {
		uint32_t canon = d->hypot_merge.v[i], targ = hyp(d, canon);
		uint32_t t_id = resolve(d, targ), c_id = resolve(d, canon);
		unsigned tk = KI(d, t_id), ck = KI(d, c_id);

		if (tk != BTF_KIND_FWD && ck == BTF_KIND_FWD)
			set_map(d, c_id, t_id);
		if (d->adjust_canon)
			continue;
		if (tk == BTF_KIND_FWD && ck != BTF_KIND_FWD)
			set_map(d, t_id, c_id);
		if ((tk == BTF_KIND_STRUCT || tk == BTF_KIND_UNION) && ck != BTF_KIND_FWD &&
		    is_mapped(d, c_id) && !is_mapped(d, t_id))
			set_map(d, t_id, c_id);
	}
}

static inline bool ptr_like(unsigned k)
{
	return k == BTF_KIND_PTR || k == BTF_KIND_CONST || k == BTF_KIND_VOLATILE ||
	       k == BTF_KIND_RESTRICT;
}

/*
 * A struct's member signature: per member, the PTR/CONST/VOLATILE/
 * RESTRICT kinds in front of its type and the name it ends at (at most 8
 * steps).  Equal signatures are necessary for is_equiv() between two
 * shallow-equal structs: it visits every member pair before it succeeds,
 * and every pair it accepts agrees in kind step by step and has equal
 * names at the end (resolved-equal types, FWD/struct pairs, hypot partners
 * and identical types all do); chains that meet at one id agree from
 * there.  Anonymous structs of one shape share a hash bucket by the
 * hundred in the kernel (vmlinux x8: 2.8M is_equiv calls, 98% on
 * anonymous structs, 2% successful); most are turned away by this,
 * without touching the hypot map.  Never 0.
 */
static uint32_t member_sig(const struct dedup *d, const struct btf_type *t)
{
	const struct btf_member *m = btf_members(t);
	unsigned i, n = btf_vlen(t), steps;
	uint64_t h = 0;

	for (i = 0; i < n; i++) {
		uint32_t x = m[i].type;

		for (steps = 0; steps < 8; steps++) {
			const struct btf_type *tx = T(d, x);
			unsigned k = btf_kind(tx);

			if (!ptr_like(k)) {
				h = hc(h, tx->name_off);
				break;
			}
			h = hc(h, 0x80000000u | k);
			x = tx->type;
		}
		h = hc(h, steps);
	}
	return fold64(h) | 1;
}

static int dedup_struct(struct dedup *d, uint32_t id)
{
	uint32_t new_id = id, cid, sig = 0;
	unsigned k;
	struct btf_type *t;
	struct dcand it;
	uint64_t h;

	/*
	 * Most ids are mapped by an earlier walk (vmlinux: 1.08M of 1.14M):
	 * their records are not read.
	 */
	if (is_mapped(d, id))
		return 0;
	t = T(d, id);
	k = btf_kind(t);
	if (!struct_phase_kind(d, k))
		return 0;
	kind_hash(d, t, &h);
	if (k != BTF_KIND_TYPEDEF)
		sig = member_sig(d, t);
	for (dcand_init(&it, &d->tab, h); (cid = dcand_next(&it)) != NIL;) {
		const struct btf_type *c;
		int eq;

		if (sig && it.aux && it.aux != sig)
			continue;	/* a canonical own struct: its signature is kept */
		c = T(d, cid);
		if (k == BTF_KIND_TYPEDEF) {
			if (c->name_off != t->name_off || c->info != t->info)
				continue;
		} else if (!shallow_equal_struct(t, c) || (sig && !it.aux && member_sig(d, c) != sig)) {
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
	set_map(d, id, new_id);
	if (new_id == id && dtab_add_aux(&d->tab, h, id, sig))
		return -ENOMEM;
	return 0;
}

/* ---- phase 4: leftover FWDs by unique name ------------------------------ */

static int dedup_fwds(struct dedup *d)
{
	struct u32vec fwds = { 0 }, comps = { 0 };	/* canonical FWDs, structs/unions */
	struct nmap m = { 0 };
	size_t i, j;
	uint32_t id;
	int err = 0;

	/* one pass over every type; the rest works on these two lists, in id order */
	for (id = d->start_id; id < d->nr_all; id++) {
		unsigned k = K(d, id);

		if ((k != BTF_KIND_FWD && !btf_is_composite_kind(k)) || OMAP(d, id) != id)
			continue;
		if (u32vec_push(k == BTF_KIND_FWD ? &fwds : &comps, id)) {
			err = -ENOMEM;
			goto out;
		}
	}
	if (!fwds.n)
		goto out;
	m.nslots = 16;
	while (m.nslots < fwds.n * 2)
		m.nslots *= 2;
	m.key = mem_array(m.nslots, sizeof(*m.key));
	m.val = mem_array(m.nslots, sizeof(*m.val));
	m.used = mem_array(m.nslots, 1);
	if (!m.key || !m.val || !m.used) {
		err = -ENOMEM;
		goto out;
	}
	/* names of the FWDs to resolve; val UNPROCESSED = no struct seen yet */
	for (i = 0; i < fwds.n; i++) {
		const struct btf_type *t = T(d, fwds.v[i]);

		for (j = hash_mix(t->name_off) & (m.nslots - 1); m.used[j] && m.key[j] != t->name_off;
		     j = (j + 1) & (m.nslots - 1))
			;
		if (m.used[j])
			continue;
		m.used[j] = 1;
		m.key[j] = t->name_off;
		/* base structs/unions (always canonical) from the prepared base */
		m.val[j] = pb_name_lookup(d->pb, t->name_off);
	}
	/* canonical own structs/unions: unique name -> id, else 0 */
	for (i = 0; i < comps.n; i++) {
		const struct btf_type *t = T(d, id = comps.v[i]);

		for (j = hash_mix(t->name_off) & (m.nslots - 1); m.used[j];
		     j = (j + 1) & (m.nslots - 1)) {
			if (m.key[j] == t->name_off) {
				m.val[j] = m.val[j] == UNPROCESSED ? id : 0;
				break;
			}
		}
	}
	for (i = 0; i < fwds.n; i++) {
		const struct btf_type *t = T(d, id = fwds.v[i]), *c;
		uint32_t cid;

		for (j = hash_mix(t->name_off) & (m.nslots - 1); m.key[j] != t->name_off;
		     j = (j + 1) & (m.nslots - 1))
			;
		cid = m.val[j];
		if (cid == UNPROCESSED || cid == 0)
			continue;
		c = T(d, cid);
		if ((btf_kind(c) == BTF_KIND_STRUCT) != !btf_kflag(t))
			continue;
		set_map(d, id, cid);
	}
out:
	mem_free(fwds.v);
	mem_free(comps.v);
	mem_free(m.key);
	mem_free(m.val);
	mem_free(m.used);
	return err;
}

/* ---- phase 5: reference types ------------------------------------------- */

/* Phase 5 kinds with one type-id field, t->type. */
static inline bool one_field_ref_kind(const struct dedup *d, unsigned k)
{
	return is_ref_kind(k, !d->head) || k == BTF_KIND_DECL_TAG;
}

/* The kinds phase 5 handles: those ref_fields() below walks. */
static bool ref_phase_kind(const struct dedup *d, unsigned k)
{
	return one_field_ref_kind(d, k) || k == BTF_KIND_ARRAY || k == BTF_KIND_FUNC_PROTO;
}

/*
 * Pointers to the type-id fields phase 5 rewrites, in libbpf's order;
 * -EINVAL for a kind that is not ref_phase_kind().
 */
static int ref_fields(const struct dedup *d, struct btf_type *t, uint32_t **f, uint32_t idx)
{
	unsigned k = btf_kind(t);

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
static int dedup_ref(struct dedup *d, uint32_t root)
{
	struct u32vec *st = &d->stack;
	struct btf_type *rt;
	unsigned rk;

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

#define LEVEL_WINDOW	(1u << 18)	/* root ids per window */
#define LEVEL_SERIAL	4096		/* smaller levels: no threads */
#define RO_BUSY		0xff		/* ref_order.hgt: on the DFS stack */

/* Step 1's state and result. */
struct ref_order {
	struct dedup *d;
	uint32_t window;
	uint8_t *hgt;			/* own id - start_id: 0 not reached, RO_BUSY, height */
	struct u32vec order;		/* finish order */
	struct u32vec wend;		/* per window: end of its part of order */
	struct u32vec st;		/* DFS stack: (id, field, height) */
	int err;			/* -ELOOP at loop_id, -E2BIG (a height > 254), -ENOMEM */
	uint32_t loop_id;
};

/* The DFS of dedup_ref() over all roots, window by window; r->err. */
static void ref_order_run(struct ref_order *r)
{
	struct dedup *d = r->d;
	struct u32vec *st = &r->st;
	uint32_t s = d->start_id, w, end, root;

	for (w = s; w < d->nr_all; w = end) {
		end = w + MIN(d->nr_all - w, r->window);
		for (root = w; root < end; root++) {
			if (r->hgt[root - s] || !ref_phase_kind(d, btf_kind(T(d, root))))
				continue;
			r->hgt[root - s] = RO_BUSY;
			st->n = 0;
			if (u32vec_push(st, root) || u32vec_push(st, 0) || u32vec_push(st, 0))
				goto nomem;
			while (st->n) {
				uint32_t id = st->v[st->n - 3], idx = st->v[st->n - 2], tgt, h;
				uint32_t *f;

				if (ref_fields(d, T(d, id), &f, idx) <= 0) {	/* done */
					h = st->v[st->n - 1] + 1;
					if (h >= RO_BUSY) {
						r->err = -E2BIG;
						return;
					}
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
				if (tgt < s || !ref_phase_kind(d, btf_kind(T(d, tgt))))
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
				r->hgt[tgt - s] = RO_BUSY;
				if (u32vec_push(st, tgt) || u32vec_push(st, 0) || u32vec_push(st, 0))
					goto nomem;
			}
		}
		if (u32vec_push(&r->wend, (uint32_t)r->order.n))
			goto nomem;
	}
	return;
nomem:
	r->err = -ENOMEM;
}

static void *ref_order_thread(void *p)
{
	ref_order_run(p);
	return NULL;
}

/* One worker's share of a level's classes: (hash << 32 | id), 0 = empty. */
struct rtab {
	uint64_t *slots;
	size_t mask, n;
};

struct rlevels {
	struct dedup *d;
	const uint32_t *lv;		/* the window's types by level, finish order within */
	uint32_t *hv;			/* per lv[] slot: mixed hash */
	size_t lo, hi;			/* the current level: lv[lo, hi) */
	unsigned np;			/* hash shares */
	struct rtab *tabs;		/* one per share */
};

static int rlevel_hash(void *ctx, unsigned worker, size_t item)
{
	struct rlevels *c = ctx;
	struct dedup *d = c->d;
	size_t i = c->lo + item * CHUNK, end = MIN(c->hi, i + CHUNK);

	(void)worker;
	for (; i < end; i++) {
		struct btf_type *t = T(d, c->lv[i]);
		uint32_t *f, idx;

		if (i + 8 < end)
			__builtin_prefetch(T(d, c->lv[i + 8]));
		for (idx = 0; ref_fields(d, t, &f, idx) > 0; idx++)
			*f = resolve(d, *f);
		c->hv[i] = (uint32_t)hash_mix(ref_hash(t));
	}
	return 0;
}

static int rtab_grow(struct rtab *r)
{
	size_t nslots = r->slots ? (r->mask + 1) * 2 : 1024, i;
	uint64_t *s = mem_array(nslots, sizeof(*s));

	if (!s)
		return -ENOMEM;
	for (i = 0; r->slots && i <= r->mask; i++) {
		size_t j;

		if (!r->slots[i])
			continue;
		for (j = (uint32_t)(r->slots[i] >> 32) & (nslots - 1); s[j]; j = (j + 1) & (nslots - 1))
			;
		s[j] = r->slots[i];
	}
	mem_free(r->slots);
	r->slots = s;
	r->mask = nslots - 1;
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
			    ref_equal(t, T(d, (uint32_t)r->slots[j]))) {
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
static int dedup_refs_levelled(struct dedup *d, struct ref_order *r)
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
		if (OMAP(d, id) != id)
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
		set_hyp(d, id, OMAP(d, id) == id ? next++ : UNPROCESSED);
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

		if (OMAP(d, id) != id)
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
			n = r < d->start_id ? r : hyp(d, r);
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
	if (!d->hypot && !(d->hypot = mem_array(MAX(d->nr_all, 1), sizeof(*d->hypot)))) {
		err = -ENOMEM;
		goto out;
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
	if (!btf->types_borrowed)
		mem_free(btf->types);
	btf->types_borrowed = btf->types_inplace = false;
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

static void lap(struct dedup *d, int ph, double *t)
{
	double n;

	if (!d->opts->stats)
		return;
	n = clock_now();
	d->opts->stats->secs[ph] = n - *t;
	*t = n;
}

static int fail(struct dedup *d, int err, const char *phase)
{
	if (!d->d || d->d->code)
		return err;
	return diag_err(d->d, -err, "dedup: %s phase failed: %s", phase, strerror(-err));
}

/*
 * Phase 5's pass calls dedup_ref() for every kind the earlier phases do
 * not map (VAR and DATASEC map to themselves in prep); dedup_ref() itself
 * reports a kind it cannot handle.
 */
static inline bool ref_pass_kind(unsigned k)
{
	return !prim_kind(k) && k != BTF_KIND_STRUCT && k != BTF_KIND_UNION &&
	       k != BTF_KIND_VAR && k != BTF_KIND_DATASEC;
}

/* Phases 2-5 over the own ids of a prepared run. */
static int dedup_phases(struct dedup *d, double *t)
{
	struct ref_order ro = { .d = d };
	bool th_ok = false;
	uint32_t id;
	pthread_t th;
	int err = 0;

	if (d->levelled_refs) {
		ro.window = d->opts->level_window ? d->opts->level_window : LEVEL_WINDOW;
		if (!(ro.hgt = mem_array(MAX(d->nr_own, 1), 1)))
			return fail(d, -ENOMEM, "reference");
		/* step 1 of the levelled phase 5 beside phases 2-4 */
		th_ok = d->nthreads > 1 && !pthread_create(&th, NULL, ref_order_thread, &ro);
	}
	for (id = d->start_id; id < d->nr_all && !err; id++)
		if (prim_kind(K(d, id)) && (err = dedup_prim(d, id)))
			err = fail(d, err, "primitive");
	if (!err)
		lap(d, BTF_DEDUP_PH_PRIM, t);
	for (id = d->start_id; id < d->nr_all && !err; id++)
		if (struct_phase_kind(d, K(d, id)) && (err = dedup_struct(d, id)))
			err = fail(d, err, "struct");
	if (!err)
		lap(d, BTF_DEDUP_PH_STRUCT, t);
	if (!err && (err = dedup_fwds(d)))
		err = fail(d, err, "forward");
	if (!err)
		lap(d, BTF_DEDUP_PH_FWD, t);
	/*
	 * Nothing reads the hypothetical map until compaction numbers the
	 * survivors into a fresh one: phase 5 is the peak of a big run
	 * (vmlinux: its 17 MB were a third of dedup's own memory there).
	 */
	mem_free(d->hypot);
	d->hypot = NULL;
	if (th_ok)
		pthread_join(th, NULL);
	if (!err) {
		if (d->levelled_refs && !th_ok)
			ref_order_run(&ro);
		if (d->levelled_refs && ro.err != -E2BIG) {
			err = dedup_refs_levelled(d, &ro);
		} else {	/* (a chain of over 254 reference types: serially) */
			for (id = d->start_id; id < d->nr_all && !err; id++)
				if (ref_pass_kind(K(d, id)))
					err = dedup_ref(d, id);
		}
		if (err)
			err = fail(d, err, "reference");
		else
			lap(d, BTF_DEDUP_PH_REF, t);
	}
	mem_free(ro.hgt);
	mem_free(ro.order.v);
	mem_free(ro.wend.v);
	mem_free(ro.st.v);
	return err;
}

static void dedup_free(struct dedup *d)
{
	mem_free(d->kinds);
	mem_free(d->map);
	mem_free(d->hypot);
	mem_free(d->hypot_list.v);
	mem_free(d->hypot_merge.v);
	mem_free(d->stack.v);
	mem_free(d->stack2.v);
	dtab_free(&d->tab);
	dtab_free(&d->enum_idx);
	mem_free(d->fwd_enum_names.v);
}

int btf_dedup(struct btf *btf, const struct btf_dedup_opts *opts, struct diag *diag)
{
	static const struct btf_dedup_opts defaults;
	struct btf_dedup_base *own_pb = NULL;
	const struct btf_dedup_base *pb;
	struct dedup d = { 0 };
	double t = clock_now();
	int err;

	if (!opts)
		opts = &defaults;
	if (btf_writable(btf))
		return diag_err(diag, ENOMEM, "dedup: out of memory");
	d.btf = btf;
	d.opts = opts;
	d.d = diag;
	d.nthreads = opts->nr_threads ? opts->nr_threads : 1;
	d.head = opts->compat == BTF_DEDUP_LIBBPF_HEAD;
	d.start_id = btf->start_id;
	d.nr_all = btf_type_count(btf);
	d.nr_own = d.nr_all - d.start_id;
	d.levelled_refs = !btf->base && !opts->serial_refs;
	pb = opts->prepared_base;
	if (pb) {
		if (pb->base != btf->base || !btf->base)
			return diag_err(diag, EINVAL, "dedup: prepared base is not this BTF's base");
		if (pb->head != d.head)
			return diag_err(diag, EINVAL, "dedup: prepared base made for another --compat");
	} else if (!btf->base) {
		/* this run's own prepared base (trivial for base BTF) */
		if (!(own_pb = pb_new(NULL, opts, false, &err, diag)))
			return err;
		pb = own_pb;
	}
	d.pb = pb;	/* NULL: a split run's own base table, made after the strings */
	if (pb) {
		d.btp = pb->tp;
		d.bwords = pb->bwords;
		d.bidx = pb->bidx;
	}
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
	if (!pb) {
		if (!(own_pb = pb_new_for(btf->base, btf, d.head, &err, diag)))
			goto out;
		d.pb = pb = own_pb;
		d.btp = pb->tp;
		d.bwords = pb->bwords;
		d.bidx = pb->bidx;
	}
	d.owords = btf->types;
	d.oidx = btf->index;
	/* zeroed is the starting state (see MAPV); touched all over */
	d.map = mem_array(MAX(d.nr_all, 1), sizeof(*d.map));
	d.hypot = mem_array(MAX(d.nr_all, 1), sizeof(*d.hypot));
	if (!d.map || !d.hypot ||
	    dtab_init(&d.tab, 0, &pb->tab)) {
		err = diag_err(diag, ENOMEM, "dedup: out of memory for %u types", d.nr_all);
		goto out;
	}
	if ((err = prep(&d))) {
		err = fail(&d, err, "prep");
		goto out;
	}
	lap(&d, BTF_DEDUP_PH_PREP, &t);
	if ((err = dedup_phases(&d, &t)))
		goto out;
	dtab_free(&d.tab);
	mem_free(d.kinds);	/* read up to phase 5 */
	d.kinds = NULL;
	if ((err = compact(&d))) {
		err = fail(&d, err, "compaction");
		goto out;
	}
	lap(&d, BTF_DEDUP_PH_COMPACT, &t);
	if (opts->stats) {
		opts->stats->nr_in = d.nr_own;
		opts->stats->nr_out = btf_type_count(btf) - d.start_id;
	}
out:
	dedup_free(&d);
	btf_dedup_base_free(own_pb);
	return err;
}

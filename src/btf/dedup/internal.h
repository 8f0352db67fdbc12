/* SPDX-License-Identifier: GPL-2.0-only */
/*
 * BTF deduplication (docs/btf.md 4).  One run, dedup_run(), reproduces
 * libbpf 1.1.2's btf__dedup() byte for byte.  Phases, all over own ids in
 * ascending order:
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
 * 2-4 of a run are sequential: every
 * decision there may depend on all earlier ones (the candidate order, the
 * FWD and struct mappings merged from each hypothetical map); the two
 * levels below run many of them at once.  Beside them, a second thread
 * orders phase 5's types (refs.c), and in a standalone run first checks
 * whether the strings are canonical already, the string phase being put
 * off until then (dedup_phases()).  Chunk
 * boundaries never depend on the thread count and every result lands in
 * a slot indexed by type id or string offset, so the output is identical
 * for any nr_threads.
 *
 * The input's records are read, not written, but by dedup_ref() (the
 * serial phase 5 of split runs, which rewrites them as libbpf does, in a
 * copy if they are borrowed): the string phase rewrites a borrowed
 * section into a copy, the levelled phase 5 resolves targets as it reads
 * them, and compaction writes a new section.  So `btfc dedup` maps its
 * input read-only: reading vmlinux.btf x8 (24 MB) into fresh memory took
 * 4-50 ms, with the VM's page state, against 2 ms for the mapping.
 *
 * Two levels (groups.c, docs/parallel-dedup.md): btf_dedup() of a BTF
 * made of many units that repeat one another (the encoder's; split BTF
 * too, each group split on the same base) cuts it into groups of whole
 * units (>= 128k types, where no reference crosses but to an earlier
 * INT/FLOAT or the base, or from a DATASEC or FUNC_PROTO), runs
 * dedup_run() on a copy of each group on the threads,
 * and dedup_run() once more over what the groups kept, in input order:
 * on vmlinux 268k of 4.35M types, a 0.045 s final pass where one run's
 * serial phases took 0.45 s.  The result is libbpf's type graph (not its
 * bytes) where libbpf's own choices do not depend on its order: every
 * forward enum name has at most one definition, every FWD resolved among
 * two definitions could only meet the one it became, no walk met a
 * hypot-map conflict, and no split run pointed a base FWD at own types.
 * All are checked on the result; if one fails, the input runs in one
 * level.  Within that, a group merges only
 * types libbpf's equivalence merges, which is then an equivalence
 * compatible with the graph, so the groups' classes are pieces of
 * libbpf's and the final pass joins them (each class's first type stays
 * canonical).  The bytes depend on the input only: cuts from the
 * references, serial runs, assembly by position.
 *
 * Files (all include this header):
 *   dedup.c     the driver: btf_dedup(), dedup_run(), phase 0 for the own types, stats
 *   groups.c    the two levels: cuts, the groups' runs, assembly, the check
 *   table.c     the candidate table (libbpf's hashmap order) and u32 sets
 *   base.c      the prepared base, its flat image, the filtered base table
 *   strings.c   phase 1
 *   prim.c      phase 2
 *   struct.c    phases 3 (is_equiv and friends) and 4
 *   refs.c      phase 5, serial and by levels
 *   compact.c   phase 6
 */
#ifndef BTFC_BTF_DEDUP_INTERNAL_H
#define BTFC_BTF_DEDUP_INTERNAL_H

#include "btf/dedup.h"

#include "base/hash.h"
#include "base/mem.h"
#include "btf/btf_internal.h"

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

static inline size_t dtab_slot(const struct dtab *t, uint64_t key)
{
	return hash_mix(key) & (t->nslots - 1);
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
	c->be = NIL;	/* read only once dcand_base() set it; for gcc without LTO */
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

/* table.c */
int dtab_init(struct dtab *t, size_t expect, const struct dtab *base);
void dtab_free(struct dtab *t);
void dtab_count(struct dtab *t);
void dtab_count_n(struct dtab *t, size_t n);
int dtab_add_aux(struct dtab *t, uint64_t key, uint32_t id, uint32_t aux);
int dtab_add(struct dtab *t, uint64_t key, uint32_t id);

/* Open addressing of (hash << 32 | value), 0 = empty: a phase's own small table. */
struct rtab {
	uint64_t *slots;
	size_t mask, n;
};

int rtab_grow(struct rtab *r);
/* An empty r: slots for n entries at most half full (r keeps growing past them). */
int rtab_reserve(struct rtab *r, size_t n);

/* ---- state -------------------------------------------------------------- */

/* A set of u32 (string offsets), open addressing; small. */
struct u32set {
	uint32_t *v;		/* value + 1, 0 = empty */
	size_t n, nslots;
};

bool u32set_has(const struct u32set *s, uint32_t x);
/* 0, or -ENOMEM (the value is then not recorded). */
int u32set_add(struct u32set *s, uint32_t x);

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
 * The prepared base (docs/btf.md 4.4 phase 0 for the base ids): immutable after
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
 * FWDs and base forward enums to split types during a run (docs/btf.md 4.6,
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

/*
 * What a run inside the two-level dedup (groups.c) needs beyond
 * btf_dedup(): a prepared base to share, and results the public call
 * does not return.
 */
struct dedup_ext {
	const struct btf_dedup_base *pb;	/* prepared base shared by the runs (trivial: no base) */
	uint32_t *map_out;		/* own id - start_id -> id after compaction, */
					/* | MAP_CANON for the types kept */
	uint64_t conflicts;		/* out: hypothetical-map conflicts no tolerance accepted */
	struct u32vec *fwd_names;	/* out, if set: names of the FWDs phase 4 resolved */
	uint64_t adjusts;		/* out: is_equiv() calls that pointed a base FWD at own types */
};

#define MAP_CANON	0x80000000u

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
	uint32_t *map;			/* any id (docs/btf.md 4.2); base part is this run's copy */
	uint32_t *hypot;		/* any id (canonical side) */
	/* no base: canonical enums by content, names of canonical forward enums */
	struct dtab enum_idx;
	struct u32set fwd_enum_names;
	struct u32vec hypot_list;
	struct u32vec hypot_merge;	/* the entries merge_hypot() may act on */
	bool adjust_canon;
	bool levelled_refs;		/* phase 5 by dedup_refs_levelled() */
	bool strs_checked;		/* strs_canonical() said no: the string phase need not ask */
	bool strs_spec;			/* the string phase waits for strs_canonical() (dedup_phases()) */
	double serial;			/* phases 2-4's time with work for one thread only */
	struct dtab tab;
	struct u32vec stack;		/* explicit DFS stacks */
	struct u32vec stack2;
	uint32_t *map_out;		/* struct dedup_ext */
	struct u32vec *fwd_names;	/* struct dedup_ext */
	uint64_t conflicts;		/* is_equiv() calls that a conflict ended */
	uint64_t adjusts;		/* ... that pointed a base FWD at own types */
};

extern const struct btf_type void_rec;

static inline struct btf_type *T(const struct dedup *d, uint32_t id)
{
	if (id >= d->start_id)
		return (struct btf_type *)(d->owords + d->oidx[id - d->start_id]);
	if (d->btp)
		return d->btp[id];
	return id ? (struct btf_type *)(d->bwords + d->bidx[id - 1]) : (struct btf_type *)&void_rec;
}

/* Kind of own id (prep's copy: no record read). */
static inline enum btf_kind K(const struct dedup *d, uint32_t id)
{
	return d->kinds[id - d->start_id];
}

/*
 * Kind of any id: own ids from prep's copy (4 MB for vmlinux, against
 * 170 MB of records: the struct phase's kind checks were its costliest
 * cache misses), base ids from their records.
 */
static inline enum btf_kind KI(const struct dedup *d, uint32_t id)
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
 * map[id].  Base ids map to themselves at the start of a run; libbpf may
 * redirect base FWDs and forward enums during a split run (docs/btf.md 4.6,
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

/* ---- hashes and equality (docs/btf.md 4.3; libbpf's `long` h * 31 + v) --------- */

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

static inline uint64_t hash_struct(const struct btf_type *t)
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

static inline uint64_t hash_fnproto(const struct btf_type *t)
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

static inline bool equal_enum(const struct btf_type *a, const struct btf_type *b)
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

static inline bool compat_enum(const struct btf_type *a, const struct btf_type *b)
{
	if (!is_enum_fwd(a) && !is_enum_fwd(b))
		return equal_enum(a, b);
	return a->name_off == b->name_off && is_any_enum(a) && is_any_enum(b);
}

static inline bool shallow_equal_struct(const struct btf_type *a, const struct btf_type *b)
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

static inline bool equal_fnproto(const struct btf_type *a, const struct btf_type *b)
{
	if (!equal_common(a, b))
		return false;
	return !memcmp(a + 1, b + 1, sizeof(struct btf_param) * btf_vlen(a));
}

static inline bool compat_fnproto(const struct btf_type *a, const struct btf_type *b)
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

/* VAR and DATASEC: never deduplicated, each its own canonical type (libbpf). */
static inline bool self_canonical_kind(enum btf_kind k)
{
	switch (k) {
	case BTF_KIND_VAR: case BTF_KIND_DATASEC:
		return true;
	case BTF_KIND_UNKN: case BTF_KIND_INT: case BTF_KIND_PTR: case BTF_KIND_ARRAY:
	case BTF_KIND_STRUCT: case BTF_KIND_UNION: case BTF_KIND_ENUM: case BTF_KIND_FWD:
	case BTF_KIND_TYPEDEF: case BTF_KIND_VOLATILE: case BTF_KIND_CONST:
	case BTF_KIND_RESTRICT: case BTF_KIND_FUNC: case BTF_KIND_FUNC_PROTO:
	case BTF_KIND_FLOAT: case BTF_KIND_DECL_TAG: case BTF_KIND_TYPE_TAG:
	case BTF_KIND_ENUM64:
		break;
	}
	return false;
}

static inline bool is_ref_kind(enum btf_kind k, bool typedef_is_ref)
{
	switch (k) {
	case BTF_KIND_CONST: case BTF_KIND_VOLATILE: case BTF_KIND_RESTRICT:
	case BTF_KIND_PTR: case BTF_KIND_FUNC: case BTF_KIND_TYPE_TAG:
		return true;
	case BTF_KIND_TYPEDEF:
		return typedef_is_ref;
	case BTF_KIND_UNKN: case BTF_KIND_INT: case BTF_KIND_ARRAY: case BTF_KIND_STRUCT:
	case BTF_KIND_UNION: case BTF_KIND_ENUM: case BTF_KIND_FWD: case BTF_KIND_FUNC_PROTO:
	case BTF_KIND_VAR: case BTF_KIND_DATASEC: case BTF_KIND_FLOAT: case BTF_KIND_DECL_TAG:
	case BTF_KIND_ENUM64:
	default:
		return false;
	}
}

/* Table hash of a type for prep (base) and phases 2/3 (own). */
static inline int kind_hash(const struct dedup *d, const struct btf_type *t, uint64_t *h)
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
	case BTF_KIND_UNKN:
	default:
		return -EINVAL;
	}
}

/*
 * The kinds phases 2 and 3 act on; their passes over all own ids skip the
 * others by prep's kind bytes.
 */
static inline bool prim_kind(enum btf_kind k)
{
	switch (k) {
	case BTF_KIND_INT: case BTF_KIND_ENUM: case BTF_KIND_FWD: case BTF_KIND_FLOAT:
	case BTF_KIND_ENUM64:
		return true;
	case BTF_KIND_UNKN: case BTF_KIND_PTR: case BTF_KIND_ARRAY: case BTF_KIND_STRUCT:
	case BTF_KIND_UNION: case BTF_KIND_TYPEDEF: case BTF_KIND_VOLATILE:
	case BTF_KIND_CONST: case BTF_KIND_RESTRICT: case BTF_KIND_FUNC:
	case BTF_KIND_FUNC_PROTO: case BTF_KIND_VAR: case BTF_KIND_DATASEC:
	case BTF_KIND_DECL_TAG: case BTF_KIND_TYPE_TAG:
		break;
	}
	return false;
}

static inline bool struct_phase_kind(const struct dedup *d, enum btf_kind k)
{
	switch (k) {
	case BTF_KIND_STRUCT: case BTF_KIND_UNION:
		return true;
	case BTF_KIND_TYPEDEF:
		return d->head;
	case BTF_KIND_UNKN: case BTF_KIND_INT: case BTF_KIND_PTR: case BTF_KIND_ARRAY:
	case BTF_KIND_ENUM: case BTF_KIND_FWD: case BTF_KIND_VOLATILE: case BTF_KIND_CONST:
	case BTF_KIND_RESTRICT: case BTF_KIND_FUNC: case BTF_KIND_FUNC_PROTO:
	case BTF_KIND_VAR: case BTF_KIND_DATASEC: case BTF_KIND_FLOAT: case BTF_KIND_DECL_TAG:
	case BTF_KIND_TYPE_TAG: case BTF_KIND_ENUM64:
		break;
	}
	return false;
}

static inline uint32_t fold64(uint64_t h)
{
	return (uint32_t)(h ^ h >> 32);
}

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

/* ---- the parts ---------------------------------------------------------- */

/* base.c */
uint32_t pb_name_lookup(const struct btf_dedup_base *pb, uint32_t name_off);
struct btf_dedup_base *pb_new(const struct btf *base, const struct btf_dedup_opts *o,
			      bool strs, int *errp, struct diag *d);
struct btf_dedup_base *pb_new_for(const struct btf *base, const struct btf *own, bool head,
				  int *errp, struct diag *d);
/* strings.c */
int dedup_strings(struct dedup *d);
int strs_canonical(struct dedup *d, uint32_t end);
/* prim.c */
int dedup_prim(struct dedup *d, uint32_t id);
/* struct.c */
int dedup_struct(struct dedup *d, uint32_t id);
int dedup_fwds(struct dedup *d);
/* refs.c */
int dedup_ref(struct dedup *d, uint32_t root);
void ref_order_run(struct ref_order *r);
int dedup_refs_levelled(struct dedup *d, struct ref_order *r);
/* compact.c */
int compact(struct dedup *d);
/* dedup.c: one run of the phases (btf_dedup() without the two levels) */
int dedup_run(struct btf *btf, const struct btf_dedup_opts *opts, struct dedup_ext *x,
	      struct diag *diag);
/* groups.c: 1 when the two levels do not apply (then dedup_run() alone) */
int dedup_groups(struct btf *btf, const struct btf_dedup_opts *opts, struct diag *diag);

#endif

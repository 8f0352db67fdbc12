// SPDX-License-Identifier: GPL-2.0-only
/* BTF dedup, phase 1: strings. */
#include "btf/dedup/internal.h"

#include "base/pool.h"

/* ---- phase 1: strings --------------------------------------------------- */

/*
 * Lookup of base strings: the base's own index when it has one, else a
 * private index (a parse without string index), built by the prepared
 * base.
 */

static int64_t base_find_hashed(const struct base_strs *b, size_t nb, const char *s, size_t len,
				uint32_t h)
{
	size_t i;

	for (i = 0; i < nb; i++) {
		const struct strset *ss = b[i].own ? &b[i].priv : &b[i].btf->strs;
		int64_t off = strset_find_hashed(ss, s, len, h);

		if (off >= 0)
			return b[i].btf->start_str_off + off;
	}
	return -ENOENT;
}

static int64_t base_find(const struct base_strs *b, size_t nb, const char *s)
{
	size_t len = strlen(s);

	return base_find_hashed(b, nb, s, len, strset_hash(s, len));
}

/*
 * Where the string offsets of a record are: word 0, then word `first` of
 * each of `count` entries of `stride` words (docs/btf.md 1.7 order), from the
 * kind table (per kind, with constants: every record of the input).
 */
#define STR_LAYOUT(k)								\
	do {									\
		const struct btf_kind_info *ki_ = &btf_kinds[k];		\
										\
		*first = *stride = *count = 0;					\
		if (ki_->entry_str != BTF_NO_FIELD) {				\
			*first = 3 + ki_->fixed / 4 + (unsigned)ki_->entry_str;	\
			*stride = ki_->entry / 4;				\
			*count = btf_vlen(t);					\
		}								\
	} while (0)

static inline __attribute__((always_inline)) int
str_layout(const struct btf_type *t, unsigned *first, unsigned *stride, unsigned *count)
{
	BTF_KIND_DISPATCH(btf_kind(t), STR_LAYOUT, return -EINVAL)
	return 0;
}
#undef STR_LAYOUT

/*
 * The string phase in parallel.  libbpf visits every string reference in
 * type order and adds the string to a new set: the new section holds each
 * referenced content once, in the order of its first reference.  Here the
 * referenced old offsets are bits of seen[], and each has a slot in val[]
 * by its rank among them (rank_of(): a count per 64 bits and a popcount),
 * so the bookkeeping is 2 bits per string byte and a word per referenced
 * offset, not a word per string byte (vmlinux plus all modules: 2.2 MB
 * against 19 MB of fresh memory).
 *   1. the referenced offsets in first-reference order (order): on one or
 *      two threads, one pass that lists an offset when its bit is first
 *      set (strs_first_serial()); on more, the bits and the references per
 *      chunk of types, then val[] = the lowest reference number per offset
 *      (atomic min), then a sort of the offsets by it;
 *   2. the offsets in that order are added to the new set (base lookup
 *      first), so contents shared by several old offsets land where their
 *      first reference puts them; val[] gets new offset + 1 (on threads
 *      for many: strs_insert_par());
 *   3. (parallel) every reference is rewritten from val[].
 */
struct strs {
	struct dedup *d;
	uint32_t nchunks;
	uint64_t *chunk_refs;		/* refs per chunk, then first ref number */
	/* per 64 own string bytes: which are referenced, and how many before them */
	struct sword {
		uint64_t bits;
		uint32_t rank, pad;	/* (one load for both) */
	} *seen;
	uint32_t *val;			/* per referenced offset, by rank (see above) */
	struct u32vec order;		/* the referenced offsets in first-reference order */
	uint32_t *copy;			/* step 3 writes here: the types were borrowed */
};

static inline uint32_t rank_of(const struct strs *c, uint32_t off)
{
	const struct sword *w = &c->seen[off / 64];

	return w->rank + (uint32_t)__builtin_popcountll(w->bits & ((1ull << (off % 64)) - 1));
}

/* An own record in the section at words (btf->types, or the rewrite's copy). */
static inline struct btf_type *own_rec(uint32_t *words, const struct btf *btf, uint32_t id)
{
	return (struct btf_type *)(words + btf->index[id - btf->start_id]);
}

#define FOR_EACH_OWN_STR(d, words, id, end, p, body)					\
	for (; id < end; id++) {							\
		struct btf_type *t_ = own_rec(words, (d)->btf, id);			\
		unsigned first_, stride_, count_, i_;					\
		uint32_t *w_ = (uint32_t *)t_;						\
											\
		if (str_layout(t_, &first_, &stride_, &count_))				\
			return diag_err((d)->d, EINVAL, "dedup: type %u has unknown kind %u",	\
					id, btf_kind(t_));					\
		for (i_ = 0; i_ <= count_; i_++) {					\
			uint32_t *p = i_ ? w_ + first_ + (i_ - 1) * stride_ : w_;	\
											\
			if (*p == 0 || *p < start)					\
				continue;						\
			if (*p - start >= len)						\
				return diag_err((d)->d, EINVAL,				\
						"dedup: type %u: invalid string offset %u", id, *p); \
			body								\
		}									\
	}

/* Step 1 on more than two threads: the bits and the references of a chunk. */
static int strs_mark(void *ctx, unsigned worker, size_t item)
{
	struct strs *c = ctx;
	struct dedup *d = c->d;
	uint32_t start = d->btf->start_str_off, len = (uint32_t)d->btf->strs.len;
	uint32_t id = d->start_id + (uint32_t)(item * CHUNK), end = MIN(d->nr_all, id + CHUNK);
	uint64_t n = 0;

	(void)worker;
	FOR_EACH_OWN_STR(d, d->btf->types, id, end, p, {
		uint32_t off = *p - start;
		uint64_t bit = 1ull << (off % 64);

		if (!(__atomic_load_n(&c->seen[off / 64].bits, __ATOMIC_RELAXED) & bit))
			__atomic_fetch_or(&c->seen[off / 64].bits, bit, __ATOMIC_RELAXED);
		n++;
	})
	c->chunk_refs[item] = n;
	return 0;
}

/* ... then the lowest reference number per offset. */
static int strs_first(void *ctx, unsigned worker, size_t item)
{
	struct strs *c = ctx;
	struct dedup *d = c->d;
	uint32_t start = d->btf->start_str_off, len = (uint32_t)d->btf->strs.len;
	uint32_t id = d->start_id + (uint32_t)(item * CHUNK), end = MIN(d->nr_all, id + CHUNK);
	uint32_t seq = (uint32_t)c->chunk_refs[item] + 1;

	(void)worker;
	FOR_EACH_OWN_STR(d, d->btf->types, id, end, p, {
		uint32_t *slot = &c->val[rank_of(c, *p - start)];
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
 * Step 1 on one thread: the first time an offset's bit is set is its
 * first reference, so the offsets are listed in that order as they are
 * met, with no reference numbers and no sort.  With two threads the
 * shared words cost more in cache-line traffic than the split gains
 * (vmlinux x8: 0.021 s alone, 0.029-0.035 s on two, with a word per byte).
 */
static int strs_first_serial(struct strs *c)
{
	struct dedup *d = c->d;
	uint32_t start = d->btf->start_str_off, len = (uint32_t)d->btf->strs.len;
	uint32_t id = d->start_id, end = d->nr_all, seq = 1;

	FOR_EACH_OWN_STR(d, d->btf->types, id, end, p, {
		uint32_t off = *p - start;
		uint64_t bit = 1ull << (off % 64);

		if (seq++ == 0xffffffffu)
			return diag_err(d->d, E2BIG, "dedup: more than %u string references", seq - 2);
		if (!(c->seen[off / 64].bits & bit)) {
			c->seen[off / 64].bits |= bit;
			if (u32vec_push(&c->order, off))
				return -ENOMEM;
		}
	})
	return 0;
}

/* The ranks in seen[] (len / 64 + 1 words); the number of referenced offsets. */
static size_t strs_rank(struct strs *c, uint32_t len)
{
	size_t w, nw = (size_t)len / 64 + 1, r = 0;

	for (w = 0; w < nw; w++) {
		c->seen[w].rank = (uint32_t)r;
		r += (size_t)__builtin_popcountll(c->seen[w].bits);
	}
	return r;
}

static int strs_rewrite(void *ctx, unsigned worker, size_t item)
{
	struct strs *c = ctx;
	struct dedup *d = c->d;
	uint32_t start = d->btf->start_str_off, len = (uint32_t)d->btf->strs.len;
	uint32_t id = d->start_id + (uint32_t)(item * CHUNK), end = MIN(d->nr_all, id + CHUNK);
	uint32_t *words = c->copy ? c->copy : d->btf->types;

	(void)worker;
	if (c->copy) {	/* the chunk's words, then rewritten there */
		const struct btf *btf = d->btf;
		size_t a = item ? btf->index[id - btf->start_id] : 0;
		size_t b = end < d->nr_all ? btf->index[end - btf->start_id] : btf->types_len;

		memcpy(words + a, btf->types + a, (b - a) * 4);
	}
	FOR_EACH_OWN_STR(d, words, id, end, p, { *p = c->val[rank_of(c, *p - start)] - 1; })
	return 0;
}

/* Step 3; a borrowed section (a read-only mapping, say) is rewritten into a copy. */
static int strs_rewrite_all(struct strs *c)
{
	struct btf *btf = c->d->btf;
	int err;

	if (btf->types_borrowed &&
	    !(c->copy = mem_alloc(MAX(btf->types_len, (size_t)1) * 4)))
		return -ENOMEM;
	if ((err = pool_for(c->d->nthreads, c->nchunks, strs_rewrite, c))) {
		mem_free(c->copy);
		c->copy = NULL;
		return err;
	}
	if (c->copy) {
		btf->types = c->copy;
		btf->types_cap = MAX(btf->types_len, (size_t)1);
		btf->types_borrowed = false;
	}
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

/*
 * Is the section already what the phase would make (BTF without base)?
 * It is when, in type order, every reference is either to the string
 * right after the last new one or to the start of one met before, no two
 * referenced strings are equal, and nothing follows the last one: each
 * string then keeps its offset.  A BTF written by libbpf's or btfc's
 * dedup, or appended from such (btf_append() adds in first-reference
 * order), usually is: one walk and one hash per string instead of
 * re-laying out the section.
 */
struct canon {
	const char *data;
	uint32_t len, next;
	uint64_t *seen;			/* string starts met */
	uint32_t *slot, *hash;		/* offset + 1 by content */
	size_t nslots, nused;
};

/* One reference r: 1 canonical so far, 0 not, -ENOMEM. */
static int canon_ref(struct canon *c, uint32_t r)
{
	const char *str;
	size_t n, j;
	uint32_t h;

	if (r < c->next)	/* a string met before, not inside one */
		return (int)(c->seen[r / 64] >> (r % 64) & 1);
	if (r > c->next || r >= c->len)
		return 0;	/* skips a string (or invalid: the full phase says so) */
	str = c->data + r;
	n = strnlen(str, c->len - r);
	if (n == c->len - r)
		return 0;
	h = strset_hash(str, n);
	for (j = h & (c->nslots - 1); c->slot[j]; j = (j + 1) & (c->nslots - 1))
		if (c->hash[j] == h && !strcmp(c->data + c->slot[j] - 1, str))
			return 0;	/* a copy of one met before */
	c->slot[j] = r + 1;
	c->hash[j] = h;
	if (++c->nused * 2 > c->nslots) {	/* rare: the first estimate is generous */
		size_t ns = c->nslots * 2, i;
		uint32_t *s2 = mem_array(ns, sizeof(*s2));
		uint32_t *h2 = mem_alloc(ns * sizeof(*h2));

		if (!s2 || !h2) {
			mem_free(s2);
			mem_free(h2);
			return -ENOMEM;
		}
		for (i = 0; i < c->nslots; i++) {
			if (!c->slot[i])
				continue;
			for (j = c->hash[i] & (ns - 1); s2[j]; j = (j + 1) & (ns - 1))
				;
			s2[j] = c->slot[i];
			h2[j] = c->hash[i];
		}
		mem_free(c->slot);
		mem_free(c->hash);
		c->slot = s2;
		c->hash = h2;
		c->nslots = ns;
	}
	c->seen[r / 64] |= 1ull << (r % 64);
	c->next = r + (uint32_t)n + 1;
	return 1;
}

/*
 * 1 yes, 0 no (invalid input included: the full phase reports it),
 * -ENOMEM; for end below the type count, of the references of the ids
 * before end only (1: none shows yet that the section is not canonical).
 */
int strs_canonical(struct dedup *d, uint32_t end)
{
	const struct btf *btf = d->btf;
	struct canon c = { .data = btf->strs.data, .len = (uint32_t)btf->strs.len, .next = 1,
			   .nslots = 1024 };
	uint32_t id;
	int ret = -ENOMEM;

	if (btf->base || !c.len || c.data[0])
		return 0;
	while (c.nslots < (size_t)c.len / 8)	/* some 10 bytes a string */
		c.nslots *= 2;
	c.seen = mem_array((c.len + 63) / 64, sizeof(*c.seen));
	c.slot = mem_array(c.nslots, sizeof(*c.slot));
	c.hash = mem_alloc(c.nslots * sizeof(*c.hash));
	if (!c.seen || !c.slot || !c.hash)
		goto out;
	for (id = d->start_id, ret = 1; id < end && ret == 1; id++) {
		const uint32_t *w = (const uint32_t *)own_rec(d->btf->types, d->btf, id);
		unsigned first, stride, count, i;

		if (str_layout((const struct btf_type *)w, &first, &stride, &count))
			ret = 0;
		for (i = 0; i <= count && ret == 1; i++) {
			uint32_t r = i ? w[first + (i - 1) * stride] : w[0];

			if (r)
				ret = canon_ref(&c, r);
		}
	}
	if (ret == 1 && end >= d->nr_all)
		ret = c.next == c.len;
out:
	mem_free(c.seen);
	mem_free(c.slot);
	mem_free(c.hash);
	return ret;
}

/*
 * Step 3 on the threads, for many strings: the bytes the serial loop in
 * dedup_strings() makes.  Per referenced string, in first-reference order
 * (key i):
 *   a. (chunks) its length, hash and base offset, if the base has it;
 *   b. (one share of hashes per thread) the first key of its content:
 *      each share takes its keys in order, so the first is the one the
 *      serial loop adds;
 *   c. (serially: one addition per key) the new offsets, in key order;
 *   d. (chunks) the contents copied, val[] set.
 * The new section has no index; its first add builds one (strset_adopt).
 * vmlinux plus all modules (249k keys): 14.5 ms serially, 8-11 ms on two.
 */
#define STRS_PAR_MIN	65536	/* keys below this: the serial loop */
#define REP_DONE	0xffffffffu	/* rep[]: a base string, or "" of a standalone set */

struct sins {
	struct strs *c;
	const struct base_strs *bs;
	size_t nb, nkeys;
	uint32_t *slen, *hash, *rep, *res;	/* per key; res: final offset + 1 */
	unsigned np;
	bool standalone;		/* no base: the new set starts with "" */
	char *out;
	uint32_t out_base;		/* offset of out[0] in the string space */
};

static int sins_hash(void *ctx, unsigned worker, size_t item)
{
	struct sins *x = ctx;
	const struct btf *btf = x->c->d->btf;
	size_t i = item * CHUNK, end = MIN(x->nkeys, i + CHUNK);

	(void)worker;
	for (; i < end; i++) {
		uint32_t o = x->c->order.v[i];
		const char *s = btf->strs.data + o;
		size_t n = strnlen(s, btf->strs.len - o);
		int64_t b = -ENOENT;

		x->slen[i] = (uint32_t)n;
		x->hash[i] = strset_hash(s, n);
		x->rep[i] = 0;
		if (x->standalone && !n)
			b = 0;	/* the new set's "" */
		else if (x->nb)
			b = base_find_hashed(x->bs, x->nb, s, n, x->hash[i]);
		if (b >= 0) {
			x->rep[i] = REP_DONE;
			x->res[i] = (uint32_t)b + 1;
		}
	}
	return 0;
}

static int sins_share(void *ctx, unsigned worker, size_t share)
{
	struct sins *x = ctx;
	const char *data = x->c->d->btf->strs.data;
	const uint32_t *order = x->c->order.v;
	struct rtab t = { 0 };		/* (hash << 32 | key + 1) */
	size_t i;
	int err = 0;

	(void)worker;
	/* room for an even share of the keys, all distinct */
	err = rtab_reserve(&t, x->nkeys / x->np + 1);
	for (i = 0; i < x->nkeys && !err; i++) {
		uint32_t h = x->hash[i];
		size_t j;

		if ((uint64_t)h * x->np >> 32 != share || x->rep[i] == REP_DONE)
			continue;	/* (another share's rep[] is being written) */
		if ((t.n + 1) * 2 > t.mask + 1 && (err = rtab_grow(&t)))
			break;
		x->rep[i] = (uint32_t)i;
		for (j = h & t.mask; t.slots[j]; j = (j + 1) & t.mask) {
			uint32_t k = (uint32_t)t.slots[j] - 1;

			if ((uint32_t)(t.slots[j] >> 32) == h && x->slen[k] == x->slen[i] &&
			    !memcmp(data + order[k], data + order[i], x->slen[i])) {
				x->rep[i] = k;
				break;
			}
		}
		if (x->rep[i] == i) {
			t.slots[j] = (uint64_t)h << 32 | (i + 1);
			t.n++;
		}
	}
	mem_free(t.slots);
	return err;
}

static int sins_copy(void *ctx, unsigned worker, size_t item)
{
	struct sins *x = ctx;
	const struct btf *btf = x->c->d->btf;
	size_t i = item * CHUNK, end = MIN(x->nkeys, i + CHUNK);

	(void)worker;
	for (; i < end; i++) {
		uint32_t o = x->c->order.v[i];

		if (x->rep[i] == i) {
			char *q = x->out + (x->res[i] - 1 - x->out_base);

			memcpy(q, btf->strs.data + o, x->slen[i]);
			q[x->slen[i]] = 0;
		}
		x->c->val[rank_of(x->c, o)] = x->res[i];
	}
	return 0;
}

/* Step 3 by sins_*(): the new section into *ns; 0 or -errno. */
static int strs_insert_par(struct strs *c, const struct base_strs *bs, size_t nb,
			   struct strset *ns)
{
	struct dedup *d = c->d;
	size_t n = c->order.n, i, nch = (n + CHUNK - 1) / CHUNK;
	struct sins x = { .c = c, .bs = bs, .nb = nb, .nkeys = n, .np = d->nthreads,
			  .standalone = !d->btf->base };
	uint64_t pos = x.standalone;	/* "" */
	int err;

	x.out_base = d->btf->start_str_off;
	x.slen = mem_alloc(n * sizeof(*x.slen));
	x.hash = mem_alloc(n * sizeof(*x.hash));
	x.rep = mem_alloc(n * sizeof(*x.rep));
	x.res = mem_alloc(n * sizeof(*x.res));
	err = !x.slen || !x.hash || !x.rep || !x.res ? -ENOMEM : 0;
	if (!err)
		err = pool_for(d->nthreads, nch, sins_hash, &x);
	if (!err)
		err = pool_for(d->nthreads, x.np, sins_share, &x);
	for (i = 0; i < n && !err; i++) {
		if (x.rep[i] == REP_DONE)
			continue;
		if (x.rep[i] != i) {
			x.res[i] = x.res[x.rep[i]];
			continue;
		}
		x.res[i] = (uint32_t)(x.out_base + pos + 1);
		pos += x.slen[i] + 1;
		if (x.out_base + pos > 0x7fffffffu)
			err = diag_err(d->d, E2BIG, "dedup: string section exceeds 2 GiB");
	}
	if (!err && !(x.out = mem_alloc(pos)))
		err = -ENOMEM;
	if (!err) {
		if (x.standalone)
			x.out[0] = 0;
		err = pool_for(d->nthreads, nch, sins_copy, &x);
	}
	if (!err) {
		strset_adopt(ns, x.out, pos);
		x.out = NULL;
	}
	mem_free(x.out);
	mem_free(x.slen);
	mem_free(x.hash);
	mem_free(x.rep);
	mem_free(x.res);
	return err;
}

int dedup_strings(struct dedup *d)
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
	if (!d->strs_checked && (err = strs_canonical(d, d->nr_all)) == 1)
		return 0;
	memset(lbs, 0, sizeof(lbs));
	err = 0;
	c.nchunks = (d->nr_all - d->start_id + CHUNK - 1) / CHUNK;
	c.chunk_refs = mem_array(c.nchunks, sizeof(*c.chunk_refs));
	c.seen = mem_array((size_t)len / 64 + 1, sizeof(*c.seen));
	if (!c.chunk_refs || !c.seen) {
		err = -ENOMEM;
		goto out;
	}
	if (d->nthreads <= 2) {
		if ((err = strs_first_serial(&c)))
			goto out;
		strs_rank(&c, len);
	} else {
		if ((err = pool_for(d->nthreads, c.nchunks, strs_mark, &c)))
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
		nkeys = strs_rank(&c, len);
		if (!(c.val = mem_array(MAX(nkeys, 1), sizeof(*c.val))))
			err = -ENOMEM;
		if (err || (err = pool_for(d->nthreads, c.nchunks, strs_first, &c)))
			goto out;
		/* the referenced offsets (in rank order), sorted by first reference */
		keys = mem_alloc(MAX(nkeys, 1) * sizeof(*keys));
		tmp = mem_alloc(MAX(nkeys, 1) * sizeof(*tmp));
		if (!keys || !tmp || VEC_RESERVE(c.order.v, c.order.cap, nkeys)) {
			err = -ENOMEM;
			goto out;
		}
		for (off = 0, i = 0; off / 64 <= len / 64; off = (off | 63) + 1) {
			uint64_t w = c.seen[off / 64].bits;

			for (; w; w &= w - 1, i++)
				keys[i] = (uint64_t)c.val[i] << 32 | (off + (uint32_t)__builtin_ctzll(w));
		}
		radix_sort64(keys, tmp, nkeys, 32, 33);
		for (i = 0; i < nkeys; i++)
			c.order.v[i] = (uint32_t)keys[i];
		c.order.n = nkeys;
	}
	nkeys = c.order.n;

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
	if (!c.val && !(c.val = mem_alloc(MAX(nkeys, 1) * sizeof(*c.val)))) {
		err = -ENOMEM;
		goto out;
	}
	if (d->nthreads > 1 &&
	    nkeys >= (d->opts->strs_par_min ? d->opts->strs_par_min : STRS_PAR_MIN)) {
		if ((err = strs_insert_par(&c, bs, nb, &ns)))
			goto out;
		nkeys = 0;	/* done */
	} else if (strset_init(&ns, btf->base == NULL)) {
		err = -ENOMEM;
		goto out;
	}
	ns_ok = true;
	for (i = 0; i < nkeys; i++) {
		uint32_t o = c.order.v[i];
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
		c.val[rank_of(&c, o)] = (uint32_t)n + 1;
	}
	if ((err = strs_rewrite_all(&c)))
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
	mem_free(c.seen);
	mem_free(c.val);
	mem_free(c.order.v);
	for (i = 0; bs == lbs && i < nb; i++)
		if (lbs[i].own)
			strset_free(&lbs[i].priv);
	return err;
}

// SPDX-License-Identifier: GPL-2.0-only
/*
 * BTF graph comparison (see diff.h for the notion of equality).
 *
 * Per side: a flat reference table (btfcanon's reference order: members,
 * element then index type, return then parameter types, section entries,
 * or the one type field), a round-0 colour from the type's own attributes,
 * then rounds colour' = H(round, colour, colours of references).  Void and
 * references outside the own types (base ids for split BTF) are constant
 * colours, as btfcanon's "void" and "missing:ID".  Distinct colours are
 * counted with an open-addressing set each round; the multisets are
 * compared by sorting (colour, id) pairs.
 *
 * Naming the differing types: differing types are paired across the sides
 * by kind + name (+ own attributes when possible), then along references
 * from paired types (which pairs anonymous types), then by own attributes.
 * A pair is CHANGED when its own attributes differ, RETARGETED when a
 * reference differs that the pairing does not explain, else PROPAGATED.
 */
#include "btf/diff.h"

#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>

#include "base/hash.h"
#include "base/mem.h"
#include "btf/btf_internal.h"

#define MAX_ROUNDS	64
#define SEED_LOCAL	0x6c6f63616c5f5f30ULL
#define SEED_ROUND	0x726f756e645f5f31ULL
#define COLOR_VOID	0x766f69645f5f5f32ULL
#define SEED_MISSING	0x6d697373696e6733ULL

struct side {
	const struct btf *btf;
	uint32_t start, n;	/* own ids start .. start + n - 1 */
	uint32_t *roff;		/* n + 1: refs of own index i are refs[roff[i] .. roff[i+1]) */
	uint32_t *refs;		/* index into colour arrays: < n own, >= n a constant */
	uint32_t nconst;
	uint64_t *local;	/* round-0 colours */
	uint64_t *buf[2];	/* n + nconst each: alternating rounds */
	uint64_t *cur, *prev;	/* colours of the last and the one before */
	unsigned rounds;
	bool *counted;		/* not an ignored kind */
	bool *flag;		/* differs (aligned comparison) */
	uint32_t *pair;		/* own index + 1 of the counterpart, 0 = none */
	uint32_t *via;		/* A id this pair was found through (A side only) */
};

/* ---- colours ------------------------------------------------------------ */

static uint64_t hname(uint64_t h, const struct btf *btf, uint32_t off)
{
	const char *s = btf_name_shown(btf, off);

	return hash_combine(h, hash_bytes(s, strlen(s)));
}

/* bpftool prints encodings 0/1/2/4 by name and everything else as "UNKN". */
static unsigned int_enc_class(unsigned enc)
{
	return enc == 0 || enc == 1 || enc == 2 || enc == 4 ? enc : 15;
}

static unsigned linkage_class(uint32_t l)
{
	return l <= 2 ? l : 3;
}

static uint64_t local_color(const struct btf *btf, const struct btf_type *t)
{
	enum btf_kind kind = btf_kind(t);
	unsigned vlen = btf_vlen(t), i;
	uint64_t h = hash_combine(SEED_LOCAL, kind);

	switch (kind) {
	case BTF_KIND_INT: {
		uint32_t v = btf_int_word(t);

		h = hname(h, btf, t->name_off);
		h = hash_combine(h, t->size);
		h = hash_combine(h, BTF_INT_OFFSET(v));
		h = hash_combine(h, BTF_INT_BITS(v));
		return hash_combine(h, int_enc_class(BTF_INT_ENCODING(v)));
	}
	case BTF_KIND_PTR:
	case BTF_KIND_CONST:
	case BTF_KIND_VOLATILE:
	case BTF_KIND_RESTRICT:
	case BTF_KIND_TYPEDEF:
	case BTF_KIND_TYPE_TAG:
		return hname(h, btf, t->name_off);
	case BTF_KIND_ARRAY:
		return hash_combine(h, btf_array(t)->nelems);
	case BTF_KIND_STRUCT:
	case BTF_KIND_UNION: {
		const struct btf_member *m = btf_members(t);

		h = hname(h, btf, t->name_off);
		h = hash_combine(h, t->size);
		h = hash_combine(h, vlen);
		for (i = 0; i < vlen; i++, m++) {
			h = hname(h, btf, m->name_off);
			h = hash_combine(h, btf_member_bit_offset(t, m));
			h = hash_combine(h, btf_member_bitfield_size(t, m));
		}
		return h;
	}
	case BTF_KIND_ENUM: {
		const struct btf_enum *e = btf_enums(t);

		h = hname(h, btf, t->name_off);
		h = hash_combine(h, t->size);
		h = hash_combine(h, btf_kflag(t));
		h = hash_combine(h, vlen);
		for (i = 0; i < vlen; i++, e++) {
			h = hname(h, btf, e->name_off);
			h = hash_combine(h, (uint32_t)e->val);
		}
		return h;
	}
	case BTF_KIND_ENUM64: {
		const struct btf_enum64 *e = btf_enum64s(t);

		h = hname(h, btf, t->name_off);
		h = hash_combine(h, t->size);
		h = hash_combine(h, btf_kflag(t));
		h = hash_combine(h, vlen);
		for (i = 0; i < vlen; i++, e++) {
			h = hname(h, btf, e->name_off);
			h = hash_combine(h, btf_enum64_value(e));
		}
		return h;
	}
	case BTF_KIND_FWD:
		return hash_combine(hname(h, btf, t->name_off), btf_kflag(t));
	case BTF_KIND_FUNC:
		return hash_combine(hname(h, btf, t->name_off), linkage_class(vlen));
	case BTF_KIND_FUNC_PROTO: {
		const struct btf_param *p = btf_params(t);

		h = hash_combine(h, vlen);
		for (i = 0; i < vlen; i++, p++)
			h = hname(h, btf, p->name_off);
		return h;
	}
	case BTF_KIND_VAR:
		return hash_combine(hname(h, btf, t->name_off), linkage_class(btf_var(t)->linkage));
	case BTF_KIND_DATASEC: {
		const struct btf_var_secinfo *v = btf_secinfos(t);

		h = hname(h, btf, t->name_off);
		h = hash_combine(h, t->size);
		h = hash_combine(h, vlen);
		for (i = 0; i < vlen; i++, v++) {
			h = hash_combine(h, v->offset);
			h = hash_combine(h, v->size);
		}
		return h;
	}
	case BTF_KIND_FLOAT:
		return hash_combine(hname(h, btf, t->name_off), t->size);
	case BTF_KIND_DECL_TAG:
		return hash_combine(hname(h, btf, t->name_off),
				    (uint32_t)btf_decl_tag(t)->component_idx);
	case BTF_KIND_UNKN:
	default: {
		/* Kinds the parser let through via a layout table: all words. */
		size_t words = btf_type_size(t) / 4;

		h = hname(h, btf, t->name_off);
		return hash_combine(h, hash_bytes(&t->info, (words - 1) * 4));
	}
	}
}

/*
 * Number of references of t and (when out != NULL) the ids, btfcanon's
 * order: the kind table's type ids in field order, but none for a FWD
 * (its type word, 0 in valid BTF, is no reference to btfcanon).
 */
static unsigned type_refs(const struct btf_type *t, uint32_t *out)
{
	unsigned n = btf_kind(t) == BTF_KIND_FWD ? 0 : btf_id_fields(t), i;

	if (out)
		for (i = 0; i < n; i++)
			out[i] = *btf_id_field((struct btf_type *)t, i);
	return n;
}

static void side_free(struct side *s)
{
	mem_free(s->roff);
	mem_free(s->refs);
	mem_free(s->local);
	mem_free(s->buf[0]);
	mem_free(s->buf[1]);
	mem_free(s->counted);
	mem_free(s->flag);
	mem_free(s->pair);
	mem_free(s->via);
}

static int side_build(struct side *s, const struct btf *btf, uint32_t ignore, struct diag *d)
{
	uint32_t i, total = 0, k;
	uint32_t count = btf_type_count(btf);

	s->btf = btf;
	s->start = btf_start_id(btf);
	s->n = count - s->start;
	s->roff = mem_array((size_t)s->n + 1, sizeof(*s->roff));
	s->local = mem_array((size_t)s->n + 1, sizeof(*s->local));
	s->counted = mem_array((size_t)s->n + 1, sizeof(*s->counted));
	s->flag = mem_array((size_t)s->n + 1, sizeof(*s->flag));
	s->pair = mem_array((size_t)s->n + 1, sizeof(*s->pair));
	s->via = mem_array((size_t)s->n + 1, sizeof(*s->via));
	if (!s->roff || !s->local || !s->counted || !s->flag || !s->pair || !s->via)
		return diag_err(d, ENOMEM, "diff: out of memory");
	for (i = 0; i < s->n; i++) {
		const struct btf_type *t = btf_type_by_id(btf, s->start + i);

		s->roff[i] = total;
		total += type_refs(t, NULL);
		s->local[i] = local_color(btf, t);
		s->counted[i] = !(btf_kind(t) < 32 && (ignore >> btf_kind(t) & 1));
	}
	s->roff[s->n] = total;
	s->refs = mem_array((size_t)total + 1, sizeof(*s->refs));
	if (!s->refs)
		return diag_err(d, ENOMEM, "diff: out of memory");
	for (i = 0; i < s->n; i++)
		type_refs(btf_type_by_id(btf, s->start + i), s->refs + s->roff[i]);
	/* Count references that are constants (void, base or dangling ids). */
	for (k = 0; k < total; k++)
		if (s->refs[k] < s->start || s->refs[k] >= count)
			s->nconst++;
	s->buf[0] = mem_array((size_t)s->n + s->nconst + 1, sizeof(uint64_t));
	s->buf[1] = mem_array((size_t)s->n + s->nconst + 1, sizeof(uint64_t));
	if (!s->buf[0] || !s->buf[1])
		return diag_err(d, ENOMEM, "diff: out of memory");
	memcpy(s->buf[0], s->local, (size_t)s->n * sizeof(uint64_t));
	for (k = 0, i = s->n; k < total; k++) {
		uint32_t id = s->refs[k];

		if (id >= s->start && id < count) {
			s->refs[k] = id - s->start;
			continue;
		}
		s->buf[0][i] = s->buf[1][i] = id ? hash_combine(SEED_MISSING, id) : COLOR_VOID;
		s->refs[k] = i++;
	}
	s->cur = s->buf[0];
	s->prev = s->buf[1];
	return 0;
}

/* Distinct values among v[0..n), with a scratch table of tsize (power of 2) slots. */
static uint32_t count_distinct(const uint64_t *v, uint32_t n, uint64_t *tab, size_t tsize)
{
	uint32_t i, distinct = 0;
	bool zero = false;

	memset(tab, 0, tsize * sizeof(*tab));
	for (i = 0; i < n; i++) {
		uint64_t x = v[i];
		size_t j;

		if (!x) {
			zero = true;
			continue;
		}
		for (j = x & (tsize - 1); tab[j]; j = (j + 1) & (tsize - 1))
			if (tab[j] == x)
				goto next;
		tab[j] = x;
		distinct++;
next:;
	}
	return distinct + zero;
}

static void round_step(struct side *s)
{
	uint64_t *nxt = s->prev, *cur = s->cur, seed;
	uint32_t i, k;

	s->rounds++;
	seed = hash_mix(SEED_ROUND + s->rounds);
	for (i = 0; i < s->n; i++) {
		uint64_t h = hash_combine(seed, cur[i]);

		for (k = s->roff[i]; k < s->roff[i + 1]; k++)
			h = hash_combine(h, cur[s->refs[k]]);
		nxt[i] = h;
	}
	s->prev = cur;
	s->cur = nxt;
}

/* btfcanon's loop: stop when a round leaves the number of classes unchanged. */
static int refine(struct side *s, struct diag *d)
{
	size_t tsize = 16;
	uint64_t *tab;
	uint32_t nclass;
	int it;

	while (tsize < 2 * (size_t)s->n + 2)
		tsize *= 2;
	tab = mem_array(tsize, sizeof(*tab));
	if (!tab)
		return diag_err(d, ENOMEM, "diff: out of memory");
	nclass = count_distinct(s->cur, s->n, tab, tsize) + 1;
	for (it = 0; it < MAX_ROUNDS; it++) {
		uint32_t n2;

		round_step(s);
		n2 = count_distinct(s->cur, s->n, tab, tsize) + 1;
		if (n2 == nclass)
			break;
		nclass = n2;
	}
	mem_free(tab);
	return 0;
}

/* ---- multiset comparison -------------------------------------------------- */

struct cid {
	uint64_t c;
	uint32_t i;
};

static int cid_cmp(const void *x, const void *y)
{
	const struct cid *a = x, *b = y;

	if (a->c != b->c)
		return a->c < b->c ? -1 : 1;
	return a->i < b->i ? -1 : a->i > b->i;
}

static struct cid *sorted_colors(const struct side *s, uint32_t *n)
{
	struct cid *v = mem_array((size_t)s->n + 1, sizeof(*v));
	uint32_t i, m = 0;

	if (!v)
		return NULL;
	for (i = 0; i < s->n; i++)
		if (s->counted[i]) {
			v[m].c = s->cur[i];
			v[m++].i = i;
		}
	qsort(v, m, sizeof(*v), cid_cmp);
	*n = m;
	return v;
}

/* Flag the surplus of each colour (first ids first, as btfcanon picks them). */
static int compare_multisets(struct side *a, struct side *b, uint32_t *only_a, uint32_t *only_b,
			     struct diag *d)
{
	uint32_t na, nb, i = 0, j = 0;
	struct cid *va = sorted_colors(a, &na), *vb = sorted_colors(b, &nb);

	if (!va || !vb) {
		mem_free(va);
		mem_free(vb);
		return diag_err(d, ENOMEM, "diff: out of memory");
	}
	*only_a = *only_b = 0;
	while (i < na || j < nb) {
		uint64_t c;
		uint32_t ea = i, eb = j;

		if (j >= nb || (i < na && va[i].c < vb[j].c))
			c = va[i].c;
		else
			c = vb[j].c;
		while (ea < na && va[ea].c == c)
			ea++;
		while (eb < nb && vb[eb].c == c)
			eb++;
		for (; ea - i > eb - j; i++, (*only_a)++)
			a->flag[va[i].i] = true;
		for (; eb - j > ea - i; j++, (*only_b)++)
			b->flag[vb[j].i] = true;
		i = ea;
		j = eb;
	}
	mem_free(va);
	mem_free(vb);
	return 0;
}

/* ---- pairing ---------------------------------------------------------------- */

struct keyed {
	uint64_t key;
	uint32_t i;
};

static int keyed_cmp(const void *x, const void *y)
{
	const struct keyed *a = x, *b = y;

	if (a->key != b->key)
		return a->key < b->key ? -1 : 1;
	return a->i < b->i ? -1 : a->i > b->i;
}

enum pair_key { KEY_NAME_LOCAL, KEY_NAME, KEY_LOCAL };

/* Key of own index i for a pairing pass; false when the type takes no part. */
static bool pair_key(const struct side *s, uint32_t i, enum pair_key how, uint64_t *key)
{
	const struct btf_type *t = btf_type_by_id(s->btf, s->start + i);
	uint64_t h;

	if (how == KEY_LOCAL) {
		*key = s->local[i];
		return true;
	}
	if (!t->name_off)
		return false;
	h = hname(hash_combine(SEED_LOCAL, btf_kind(t)), s->btf, t->name_off);
	*key = how == KEY_NAME_LOCAL ? hash_combine(h, s->local[i]) : h;
	return true;
}

static void set_pair(struct side *a, struct side *b, uint32_t ia, uint32_t ib, uint32_t via)
{
	a->pair[ia] = ib + 1;
	b->pair[ib] = ia + 1;
	a->via[ia] = via;
}

static int pair_pass(struct side *a, struct side *b, enum pair_key how, struct diag *d)
{
	struct keyed *v = mem_array((size_t)b->n + 1, sizeof(*v));
	uint32_t *cursor = mem_array((size_t)b->n + 1, sizeof(*cursor));
	uint32_t i, m = 0;

	if (!v || !cursor) {
		mem_free(v);
		mem_free(cursor);
		return diag_err(d, ENOMEM, "diff: out of memory");
	}
	for (i = 0; i < b->n; i++)
		if (b->flag[i] && !b->pair[i] && pair_key(b, i, how, &v[m].key))
			v[m++].i = i;
	qsort(v, m, sizeof(*v), keyed_cmp);
	for (i = 0; i < m; i++)
		cursor[i] = i;
	for (i = 0; i < a->n; i++) {
		uint64_t key;
		uint32_t lo = 0, hi = m, g;

		if (!a->flag[i] || a->pair[i] || !pair_key(a, i, how, &key))
			continue;
		while (lo < hi) {
			uint32_t mid = lo + (hi - lo) / 2;

			if (v[mid].key < key)
				lo = mid + 1;
			else
				hi = mid;
		}
		g = lo;
		if (g >= m || v[g].key != key || cursor[g] >= m || v[cursor[g]].key != key)
			continue;
		set_pair(a, b, i, v[cursor[g]].i, 0);
		cursor[g]++;
	}
	mem_free(v);
	mem_free(cursor);
	return 0;
}

/* Pair differing types reached from paired types through the same reference slot. */
static int propagate(struct side *a, struct side *b, struct diag *d)
{
	uint32_t *queue = mem_array((size_t)a->n + 1, sizeof(*queue));
	uint32_t head = 0, tail = 0, i;

	if (!queue)
		return diag_err(d, ENOMEM, "diff: out of memory");
	for (i = 0; i < a->n; i++)
		if (a->pair[i])
			queue[tail++] = i;
	while (head < tail) {
		uint32_t ia = queue[head++], ib = a->pair[ia] - 1;
		uint32_t na = a->roff[ia + 1] - a->roff[ia], nb = b->roff[ib + 1] - b->roff[ib];
		uint32_t k, m = MIN(na, nb);

		for (k = 0; k < m; k++) {
			uint32_t ra = a->refs[a->roff[ia] + k], rb = b->refs[b->roff[ib] + k];

			if (ra >= a->n || rb >= b->n || !a->flag[ra] || !b->flag[rb] ||
			    a->pair[ra] || b->pair[rb])
				continue;
			set_pair(a, b, ra, rb, a->start + ia);
			queue[tail++] = ra;
		}
	}
	mem_free(queue);
	return 0;
}

/* Classify pair (ia, ib); *slot gets the first relevant reference slot. */
static enum btf_diff_how classify(const struct side *a, const struct side *b, uint32_t ia,
				  uint32_t ib, uint32_t *slot)
{
	uint32_t na = a->roff[ia + 1] - a->roff[ia], nb = b->roff[ib + 1] - b->roff[ib];
	uint32_t k, first = UINT32_MAX;

	*slot = 0;
	if (a->local[ia] != b->local[ib] || na != nb)
		return BTF_DIFF_CHANGED;
	for (k = 0; k < na; k++) {
		uint32_t ra = a->refs[a->roff[ia] + k], rb = b->refs[b->roff[ib] + k];

		if (a->prev[ra] == b->prev[rb])
			continue;
		if (first == UINT32_MAX)
			first = k;
		if (ra >= a->n || rb >= b->n || a->pair[ra] != rb + 1) {
			*slot = k;
			return BTF_DIFF_RETARGETED;
		}
	}
	if (first == UINT32_MAX)
		return BTF_DIFF_CHANGED;	/* not explained by one round (cannot happen) */
	*slot = first;
	return BTF_DIFF_PROPAGATED;
}

static int collect(struct side *a, struct side *b, struct btf_diff *out, struct diag *d)
{
	size_t cap = 0, n = 0;
	struct btf_diff_entry *v = NULL;
	uint32_t i, slot;
	int pass;

	for (i = 0; i < a->n; i++)
		cap += a->flag[i];
	for (i = 0; i < b->n; i++)
		cap += b->flag[i] && !b->pair[i];
	v = mem_array(cap + 1, sizeof(*v));
	if (!v)
		return diag_err(d, ENOMEM, "diff: out of memory");
	/* Pass 0: causes; 1: propagated; 2: only in A; 3: only in B. */
	for (pass = 0; pass < 4; pass++) {
		const struct side *s = pass == 3 ? b : a;

		for (i = 0; i < s->n; i++) {
			struct btf_diff_entry e = { 0 };

			if (!s->flag[i])
				continue;
			if (pass == 3) {
				if (s->pair[i])
					continue;
				e.b_id = s->start + i;
				e.how = BTF_DIFF_ONLY_B;
			} else if (!s->pair[i]) {
				if (pass != 2)
					continue;
				e.a_id = s->start + i;
				e.how = BTF_DIFF_ONLY_A;
			} else {
				enum btf_diff_how how = classify(a, b, i, a->pair[i] - 1, &slot);

				if ((pass == 0) != (how != BTF_DIFF_PROPAGATED) || pass == 2)
					continue;
				e.a_id = a->start + i;
				e.b_id = b->start + a->pair[i] - 1;
				e.via_a = a->via[i];
				e.slot = slot;
				e.how = (uint8_t)how;
			}
			v[n++] = e;
		}
	}
	out->entries = v;
	out->nentries = n;
	return 0;
}

int btf_diff(const struct btf *ba, const struct btf *bb, const struct btf_diff_opts *opts,
	     struct btf_diff *out, struct diag *d)
{
	struct side a = { 0 }, b = { 0 };
	uint32_t ignore = opts ? opts->ignore_kinds : 0, i;
	int err;

	memset(out, 0, sizeof(*out));
	if ((err = side_build(&a, ba, ignore, d)) || (err = side_build(&b, bb, ignore, d)))
		goto out;
	for (i = 0; i < a.n; i++)
		if (a.counted[i]) {
			out->count_a++;
			out->kinds_a[MIN(btf_kind(btf_type_by_id(ba, a.start + i)), BTF_KIND_MAX)]++;
		}
	for (i = 0; i < b.n; i++)
		if (b.counted[i]) {
			out->count_b++;
			out->kinds_b[MIN(btf_kind(btf_type_by_id(bb, b.start + i)), BTF_KIND_MAX)]++;
		}
	if ((err = refine(&a, d)) || (err = refine(&b, d)))
		goto out;
	out->rounds_a = a.rounds;
	out->rounds_b = b.rounds;
	/* Bring both sides to the same depth; a stable side's partition stays. */
	while (a.rounds < b.rounds)
		round_step(&a);
	while (b.rounds < a.rounds)
		round_step(&b);
	if ((err = compare_multisets(&a, &b, &out->aligned_only_a, &out->aligned_only_b, d)))
		goto out;
	if (out->rounds_a == out->rounds_b) {
		out->only_a = out->aligned_only_a;
		out->only_b = out->aligned_only_b;
	} else {
		/* btfcanon's colours of different depths never match. */
		out->only_a = out->count_a;
		out->only_b = out->count_b;
	}
	if (!out->aligned_only_a && !out->aligned_only_b)
		goto out;
	if ((err = pair_pass(&a, &b, KEY_NAME_LOCAL, d)) || (err = pair_pass(&a, &b, KEY_NAME, d)) ||
	    (err = propagate(&a, &b, d)) || (err = pair_pass(&a, &b, KEY_LOCAL, d)) ||
	    (err = propagate(&a, &b, d)))
		goto out;
	err = collect(&a, &b, out, d);
out:
	side_free(&a);
	side_free(&b);
	if (err)
		btf_diff_free(out);
	return err;
}

void btf_diff_free(struct btf_diff *r)
{
	mem_free(r->entries);
	r->entries = NULL;
	r->nentries = 0;
}

/* ---- descriptions -------------------------------------------------------- */

struct sbuf {
	char *p;
	size_t size, len;
};

static void PRINTF_LIKE(2, 3) sb_printf(struct sbuf *sb, const char *fmt, ...)
{
	va_list ap;
	int n;

	if (sb->len + 1 >= sb->size)
		return;
	va_start(ap, fmt);
	n = vsnprintf(sb->p + sb->len, sb->size - sb->len, fmt, ap);
	va_end(ap);
	if (n > 0)
		sb->len = MIN(sb->len + (size_t)n, sb->size - 1);
}

static void type_str(struct sbuf *sb, const struct btf *btf, uint32_t id, int depth)
{
	const struct btf_type *t = btf_type_by_id(btf, id);
	enum btf_kind kind;

	if (!id) {
		sb_printf(sb, "void");
		return;
	}
	if (!t) {
		sb_printf(sb, "[%u]?", id);
		return;
	}
	kind = btf_kind(t);
	if (t->name_off) {
		sb_printf(sb, "%s '%s'", btf_kind_str(kind), btf_name_shown(btf, t->name_off));
		return;
	}
	sb_printf(sb, "%s", btf_kind_str(kind));
	if (depth >= 4)
		return;
	switch (kind) {
	case BTF_KIND_PTR: case BTF_KIND_CONST: case BTF_KIND_VOLATILE: case BTF_KIND_RESTRICT:
		sb_printf(sb, " to ");
		type_str(sb, btf, t->type, depth + 1);
		break;
	case BTF_KIND_ARRAY:
		sb_printf(sb, "[%u] of ", btf_array(t)->nelems);
		type_str(sb, btf, btf_array(t)->type, depth + 1);
		break;
	case BTF_KIND_UNKN: case BTF_KIND_INT: case BTF_KIND_STRUCT: case BTF_KIND_UNION:
	case BTF_KIND_ENUM: case BTF_KIND_FWD: case BTF_KIND_TYPEDEF: case BTF_KIND_FUNC:
	case BTF_KIND_FUNC_PROTO: case BTF_KIND_VAR: case BTF_KIND_DATASEC: case BTF_KIND_FLOAT:
	case BTF_KIND_DECL_TAG: case BTF_KIND_TYPE_TAG: case BTF_KIND_ENUM64:
	default:
		sb_printf(sb, " (anon)");
		break;
	}
}

const char *btf_diff_type_str(const struct btf *btf, uint32_t id, char *buf, size_t size)
{
	struct sbuf sb = { buf, size, 0 };

	if (size)
		buf[0] = 0;
	type_str(&sb, btf, id, 0);
	return buf;
}

/* Role of reference slot k of t: "member 'x'", "param #2 'len'", ... */
static void slot_str(struct sbuf *sb, const struct btf *btf, const struct btf_type *t, uint32_t k)
{
	switch (btf_kind(t)) {
	case BTF_KIND_STRUCT:
	case BTF_KIND_UNION:
		if (k < btf_vlen(t) && btf_members(t)[k].name_off)
			sb_printf(sb, "member '%s' type", btf_name_shown(btf, btf_members(t)[k].name_off));
		else
			sb_printf(sb, "member #%u type", k);
		break;
	case BTF_KIND_ARRAY:
		sb_printf(sb, k ? "index type" : "element type");
		break;
	case BTF_KIND_FUNC_PROTO:
		if (!k)
			sb_printf(sb, "return type");
		else if (k <= btf_vlen(t) && btf_params(t)[k - 1].name_off)
			sb_printf(sb, "param #%u '%s' type", k, btf_name_shown(btf, btf_params(t)[k - 1].name_off));
		else
			sb_printf(sb, "param #%u type", k);
		break;
	case BTF_KIND_DATASEC:
		sb_printf(sb, "entry #%u", k);
		break;
	case BTF_KIND_FUNC:
		sb_printf(sb, "prototype");
		break;
	case BTF_KIND_PTR:
		sb_printf(sb, "target");
		break;
	case BTF_KIND_UNKN: case BTF_KIND_INT: case BTF_KIND_ENUM: case BTF_KIND_FWD:
	case BTF_KIND_TYPEDEF: case BTF_KIND_VOLATILE: case BTF_KIND_CONST:
	case BTF_KIND_RESTRICT: case BTF_KIND_VAR: case BTF_KIND_FLOAT: case BTF_KIND_DECL_TAG:
	case BTF_KIND_TYPE_TAG: case BTF_KIND_ENUM64:
	default:
		sb_printf(sb, "type");
		break;
	}
}

#define MAX_NOTES 3

struct notes {
	struct sbuf *sb;
	int n;
};

static void PRINTF_LIKE(2, 3) note(struct notes *ns, const char *fmt, ...)
{
	char tmp[256];
	va_list ap;

	if (ns->n >= MAX_NOTES) {
		if (ns->n++ == MAX_NOTES)
			sb_printf(ns->sb, "; ...");
		return;
	}
	va_start(ap, fmt);
	vsnprintf(tmp, sizeof(tmp), fmt, ap);
	va_end(ap);
	sb_printf(ns->sb, "%s%s", ns->n++ ? "; " : "", tmp);
}

#define CMP_U(label, x, y)                                                       \
	do {                                                                     \
		unsigned long long x_ = (x), y_ = (y);                           \
		if (x_ != y_)                                                    \
			note(ns, "%s %llu -> %llu", label, x_, y_);              \
	} while (0)

static bool same_name(const struct btf *a, uint32_t oa, const struct btf *b, uint32_t ob)
{
	return !strcmp(btf_name_shown(a, oa), btf_name_shown(b, ob));
}

/* Differences of the own attributes of ta (in a) and tb (in b). */
static void local_notes(struct notes *ns, const struct btf *a, const struct btf_type *ta,
			const struct btf *b, const struct btf_type *tb)
{
	enum btf_kind kind = btf_kind(ta);
	unsigned va = btf_vlen(ta), vb = btf_vlen(tb), i;

	if (kind != btf_kind(tb)) {
		note(ns, "kind %s -> %s", btf_kind_str(kind), btf_kind_str(btf_kind(tb)));
		return;
	}
	if (kind != BTF_KIND_ARRAY && kind != BTF_KIND_FUNC_PROTO &&
	    !same_name(a, ta->name_off, b, tb->name_off))
		note(ns, "name '%s' -> '%s'", btf_name_shown(a, ta->name_off), btf_name_shown(b, tb->name_off));
	switch (kind) {
	case BTF_KIND_INT: {
		uint32_t x = btf_int_word(ta), y = btf_int_word(tb);

		CMP_U("size", ta->size, tb->size);
		CMP_U("bits_offset", BTF_INT_OFFSET(x), BTF_INT_OFFSET(y));
		CMP_U("nr_bits", BTF_INT_BITS(x), BTF_INT_BITS(y));
		CMP_U("encoding", int_enc_class(BTF_INT_ENCODING(x)),
		      int_enc_class(BTF_INT_ENCODING(y)));
		break;
	}
	case BTF_KIND_ARRAY:
		CMP_U("nr_elems", btf_array(ta)->nelems, btf_array(tb)->nelems);
		break;
	case BTF_KIND_STRUCT:
	case BTF_KIND_UNION:
		CMP_U("size", ta->size, tb->size);
		CMP_U("members", va, vb);
		for (i = 0; i < MIN(va, vb); i++) {
			const struct btf_member *ma = btf_members(ta) + i, *mb = btf_members(tb) + i;
			const char *n = btf_name_shown(a, ma->name_off);

			if (!same_name(a, ma->name_off, b, mb->name_off))
				note(ns, "member #%u name '%s' -> '%s'", i, n, btf_name_shown(b, mb->name_off));
			if (btf_member_bit_offset(ta, ma) != btf_member_bit_offset(tb, mb))
				note(ns, "member '%s' bit offset %u -> %u", n,
				     btf_member_bit_offset(ta, ma), btf_member_bit_offset(tb, mb));
			if (btf_member_bitfield_size(ta, ma) != btf_member_bitfield_size(tb, mb))
				note(ns, "member '%s' bitfield size %u -> %u", n,
				     btf_member_bitfield_size(ta, ma), btf_member_bitfield_size(tb, mb));
		}
		break;
	case BTF_KIND_ENUM:
	case BTF_KIND_ENUM64:
		CMP_U("size", ta->size, tb->size);
		if (btf_kflag(ta) != btf_kflag(tb))
			note(ns, "encoding %s -> %s", btf_kflag(ta) ? "SIGNED" : "UNSIGNED",
			     btf_kflag(tb) ? "SIGNED" : "UNSIGNED");
		CMP_U("enumerators", va, vb);
		for (i = 0; i < MIN(va, vb); i++) {
			uint32_t na, nb;
			uint64_t xa, xb;

			if (kind == BTF_KIND_ENUM) {
				na = btf_enums(ta)[i].name_off;
				nb = btf_enums(tb)[i].name_off;
				xa = (uint32_t)btf_enums(ta)[i].val;
				xb = (uint32_t)btf_enums(tb)[i].val;
			} else {
				na = btf_enum64s(ta)[i].name_off;
				nb = btf_enum64s(tb)[i].name_off;
				xa = btf_enum64_value(btf_enum64s(ta) + i);
				xb = btf_enum64_value(btf_enum64s(tb) + i);
			}
			if (!same_name(a, na, b, nb))
				note(ns, "enumerator #%u name '%s' -> '%s'", i, btf_name_shown(a, na), btf_name_shown(b, nb));
			else if (xa != xb)
				note(ns, "enumerator '%s' value %llu -> %llu", btf_name_shown(a, na),
				     (unsigned long long)xa, (unsigned long long)xb);
		}
		break;
	case BTF_KIND_FWD:
		if (btf_kflag(ta) != btf_kflag(tb))
			note(ns, "fwd kind %s -> %s", btf_kflag(ta) ? "union" : "struct",
			     btf_kflag(tb) ? "union" : "struct");
		break;
	case BTF_KIND_FUNC:
		CMP_U("linkage", linkage_class(va), linkage_class(vb));
		break;
	case BTF_KIND_VAR:
		CMP_U("linkage", linkage_class(btf_var(ta)->linkage), linkage_class(btf_var(tb)->linkage));
		break;
	case BTF_KIND_FUNC_PROTO:
		CMP_U("params", va, vb);
		for (i = 0; i < MIN(va, vb); i++)
			if (!same_name(a, btf_params(ta)[i].name_off, b, btf_params(tb)[i].name_off))
				note(ns, "param #%u name '%s' -> '%s'", i + 1,
				     btf_name_shown(a, btf_params(ta)[i].name_off),
				     btf_name_shown(b, btf_params(tb)[i].name_off));
		break;
	case BTF_KIND_DATASEC:
		CMP_U("size", ta->size, tb->size);
		CMP_U("entries", va, vb);
		for (i = 0; i < MIN(va, vb); i++) {
			const struct btf_var_secinfo *x = btf_secinfos(ta) + i, *y = btf_secinfos(tb) + i;

			if (x->offset != y->offset || x->size != y->size)
				note(ns, "entry #%u offset/size %u/%u -> %u/%u", i, x->offset, x->size,
				     y->offset, y->size);
		}
		break;
	case BTF_KIND_FLOAT:
		CMP_U("size", ta->size, tb->size);
		break;
	case BTF_KIND_DECL_TAG:
		if (btf_decl_tag(ta)->component_idx != btf_decl_tag(tb)->component_idx)
			note(ns, "component_idx %d -> %d", btf_decl_tag(ta)->component_idx,
			     btf_decl_tag(tb)->component_idx);
		break;
	case BTF_KIND_UNKN: case BTF_KIND_PTR: case BTF_KIND_TYPEDEF: case BTF_KIND_VOLATILE:
	case BTF_KIND_CONST: case BTF_KIND_RESTRICT: case BTF_KIND_TYPE_TAG:
	default:
		break;
	}
}

/* Reference slot k of t (btfcanon's order), as type_refs() lists them. */
static uint32_t ref_at(const struct btf_type *t, unsigned k)
{
	return *btf_id_field((struct btf_type *)t, k);
}

static bool own_anon(const struct btf *btf, uint32_t id)
{
	const struct btf_type *t = btf_type_by_id(btf, id);

	return t && id >= btf_start_id(btf) && !t->name_off;
}

/*
 * Describe pair (ida, idb): own attribute differences, else the reference
 * slot hint (or, without a hint, the first slot whose target reads
 * differently), descending into anonymous targets up to depth 3.
 */
static void describe_pair(struct sbuf *sb, const struct btf *a, uint32_t ida, const struct btf *b,
			  uint32_t idb, int64_t hint, int depth)
{
	const struct btf_type *ta = btf_type_by_id(a, ida), *tb = btf_type_by_id(b, idb);
	struct notes ns = { sb, 0 };
	unsigned n, k;
	char sa[160], sbb[160], sub[400];

	if (!ta || !tb)
		return;
	local_notes(&ns, a, ta, b, tb);
	if (ns.n)
		return;
	n = type_refs(ta, NULL);
	if (type_refs(tb, NULL) != n)
		return;
	for (k = hint >= 0 ? (unsigned)hint : 0; k < n; k++) {
		uint32_t ra = ref_at(ta, k), rb = ref_at(tb, k);
		struct sbuf nested = { sub, sizeof(sub), 0 };

		btf_diff_type_str(a, ra, sa, sizeof(sa));
		btf_diff_type_str(b, rb, sbb, sizeof(sbb));
		if (strcmp(sa, sbb)) {
			slot_str(sb, a, ta, k);
			sb_printf(sb, ": %s -> %s", sa, sbb);
			return;
		}
		sub[0] = 0;
		if (depth < 3 && own_anon(a, ra) && own_anon(b, rb))
			describe_pair(&nested, a, ra, b, rb, -1, depth + 1);
		if (sub[0]) {
			slot_str(sb, a, ta, k);
			sb_printf(sb, " (%s): %s", sa, sub);
			return;
		}
		if (hint >= 0) {
			slot_str(sb, a, ta, k);
			sb_printf(sb, ": %s differs", sa);
			return;
		}
	}
}

const char *btf_diff_describe(const struct btf *a, const struct btf *b,
			      const struct btf_diff_entry *e, char *buf, size_t size)
{
	struct sbuf sb = { buf, size, 0 };

	if (size)
		buf[0] = 0;
	if (!size || e->how == BTF_DIFF_ONLY_A || e->how == BTF_DIFF_ONLY_B)
		return buf;
	describe_pair(&sb, a, e->a_id, b, e->b_id,
		      e->how == BTF_DIFF_CHANGED ? -1 : (int64_t)e->slot, 0);
	return buf;
}

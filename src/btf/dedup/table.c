// SPDX-License-Identifier: GPL-2.0-only
/* BTF dedup: the candidate table and u32 sets (see internal.h). */
#include "btf/dedup/internal.h"

/* ---- the candidate table ------------------------------------------------ */

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

int dtab_init(struct dtab *t, size_t expect, const struct dtab *base)
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

void dtab_free(struct dtab *t)
{
	mem_free(t->slots);
	mem_free(t->e_id);
	mem_free(t->e_aux);
	mem_free(t->e_next);
	mem_free(t->e_prev);
	memset(t, 0, sizeof(*t));
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
void dtab_count(struct dtab *t)
{
	if (t->lb_cap == 0 || (t->lb_sz + 1) * 4 / 3 > t->lb_cap) {
		t->lb_bits = t->lb_bits + 1 < 2 ? 2 : t->lb_bits + 1;
		t->lb_cap = (size_t)1 << t->lb_bits;
		t->parity ^= 1;
	}
	t->lb_sz++;
}

/* n dtab_count()s: up to the next growth in one step. */
void dtab_count_n(struct dtab *t, size_t n)
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
int dtab_add_aux(struct dtab *t, uint64_t key, uint32_t id, uint32_t aux)
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

int dtab_add(struct dtab *t, uint64_t key, uint32_t id)
{
	return dtab_add_aux(t, key, id, 0);
}

/* ---- u32 sets ----------------------------------------------------------- */

bool u32set_has(const struct u32set *s, uint32_t x)
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
int u32set_add(struct u32set *s, uint32_t x)
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

/* Double r's slots (at least 1024), keeping its entries; an empty r gets room for n. */
static int rtab_resize(struct rtab *r, size_t n)
{
	size_t nslots = r->slots ? (r->mask + 1) * 2 : 1024, i;
	uint64_t *s;

	while (!r->slots && nslots < 2 * n)
		nslots *= 2;
	if (!(s = mem_array(nslots, sizeof(*s))))
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

int rtab_grow(struct rtab *r)
{
	return rtab_resize(r, 0);
}

int rtab_reserve(struct rtab *r, size_t n)
{
	return r->slots ? 0 : rtab_resize(r, n);
}

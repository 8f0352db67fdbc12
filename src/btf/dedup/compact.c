// SPDX-License-Identifier: GPL-2.0-only
/* BTF dedup, phase 6: compaction and remapping. */
#include "btf/dedup/internal.h"

#include "base/pool.h"

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

		if (d->map_out) {	/* a group's run: where each own type went */
			uint32_t r = resolve(d, id);

			d->map_out[id - d->start_id] = (r < d->start_id ? r : hyp(d, r)) |
						       (r == id ? MAP_CANON : 0);
		}
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

int compact(struct dedup *d)
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
	btf->types_borrowed = false;
	if (!btf->index_borrowed)
		mem_free(btf->index);
	btf->index_borrowed = false;
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

// SPDX-License-Identifier: GPL-2.0-only
/* The encoder's append-only BTF under construction (builder.h). */
#include <stdio.h>
#include <string.h>

#include "base/mem.h"
#include "encode/builder.h"

int encb_init(struct enc_builder *b, const struct btf *base)
{
	memset(b, 0, sizeof(*b));
	b->base = base;
	b->start_id = base ? btf_type_count(base) : 1;
	b->start_str_off = base ? btf_strs_end(base) : 0;
	/* an unindexed base is matched once at the end, not per string */
	b->p.base_strs_unmatched = base && !btf_strs_indexed(base);
	return strset_init(&b->p.strs, base == NULL) ? -ENOMEM : 0;
}

void encb_free(struct enc_builder *b)
{
	mem_free(b->p.types);
	mem_free(b->p.index);
	strset_free(&b->p.strs);
	memset(b, 0, sizeof(*b));
}

int encb_seed_strs(struct enc_builder *b, const char *data, size_t len)
{
	struct strset ns;

	if (b->base || b->p.nr || b->p.strs.len != 1)
		return -EINVAL;
	while (len && data[len - 1])
		len--;
	if (len >= SEED_STRS_MAX)
		return -E2BIG;
	if (strset_init_after_empty(&ns, data, len))
		return -ENOMEM;
	strset_free(&b->p.strs);
	b->p.strs = ns;
	return 0;
}

int64_t encb_add_str_hashed(struct enc_builder *b, const char *str, size_t len, uint32_t h)
{
	int64_t off;

	if (b->base && !b->p.base_strs_unmatched) {
		off = btf_find_str_hashed(b->base, str, len, h);
		if (off >= 0)
			return off;
	}
	if (strset_index(&b->p.strs))
		return diag_err(&b->err, ENOMEM, "out of memory indexing strings");
	off = strset_add_hashed(&b->p.strs, str, len, h);
	if (off < 0)
		return diag_err(&b->err, (int)-off, "cannot add string \"%.64s\": %s", str,
				strerror((int)-off));
	if ((uint64_t)off + b->start_str_off > 0x7fffffff)
		return diag_err(&b->err, E2BIG, "string section exceeds 2 GiB");
	return b->start_str_off + off;
}

int64_t encb_add_str(struct enc_builder *b, const char *str)
{
	size_t len = strlen(str);

	return encb_add_str_hashed(b, str, len, strset_hash(str, len));
}

int64_t encb_add_str_at(struct enc_builder *b, uint32_t at, const char *str, size_t len,
			uint32_t h)
{
	int64_t off;

	if (b->base)
		return encb_add_str_hashed(b, str, len, h);
	off = strset_add_at(&b->p.strs, at, str, len, h);
	if (off < 0)
		return diag_err(&b->err, (int)-off, "cannot add string \"%.64s\": %s", str,
				strerror((int)-off));
	return off;
}

/* Room for nrecs more records, nwords in all; their word offset or -errno. */
static int64_t reserve(struct enc_builder *b, size_t nwords, size_t nrecs)
{
	struct btf_parts *p = &b->p;
	size_t off = p->nwords;

	if ((uint64_t)encb_count(b) + nrecs > 0x7fffffff)
		return diag_err(&b->err, E2BIG, "too many types (%u)", encb_count(b));
	if (VEC_RESERVE_TAG(p->types, p->cap, off + nwords, "merged types") ||
	    VEC_RESERVE_TAG(p->index, p->index_cap, p->nr + nrecs, "type index"))
		return diag_err(&b->err, ENOMEM, "out of memory adding type %u", encb_count(b));
	return (int64_t)off;
}

int encb_add_raw_n(struct enc_builder *b, const uint32_t *words, size_t nwords,
		   const uint32_t *offs, size_t n, uint32_t **at)
{
	uint32_t first = encb_count(b);
	int64_t off;
	size_t k;

	if (!n || nwords < 3 * n || offs[n - 1] - offs[0] + 3 > nwords)
		return diag_err(&b->err, EINVAL, "raw records: %zu in %zu words", n, nwords);
	if ((off = reserve(b, nwords, n)) < 0)
		return (int)off;
	memcpy(b->p.types + off, words, nwords * 4);
	for (k = 0; k < n; k++)
		b->p.index[b->p.nr + k] = (uint32_t)((size_t)off + offs[k] - offs[0]);
	b->p.nr += (uint32_t)n;
	b->p.nwords = (size_t)off + nwords;
	*at = b->p.types + off;
	return (int)first;
}

int encb_add_raw(struct enc_builder *b, const struct btf_type *t, size_t bytes)
{
	uint32_t off0 = 0, *at;

	if (bytes < sizeof(*t) || bytes % 4 || btf_type_size(t) != bytes)
		return diag_err(&b->err, EINVAL, "raw record of %zu bytes", bytes);
	return encb_add_raw_n(b, (const uint32_t *)t, bytes / 4, &off0, 1, &at);
}

int encb_add_hdr(struct enc_builder *b, const char *name, uint32_t info, uint32_t size_type)
{
	struct btf_type t = { 0, info, { size_type } };
	int64_t off = name ? encb_add_str(b, name) : 0;

	if (off < 0)
		return (int)off;
	t.name_off = (uint32_t)off;
	return encb_add_raw(b, &t, sizeof(t));
}

int encb_add_decl_tag(struct enc_builder *b, const char *value, uint32_t type, int component)
{
	struct { struct btf_type t; int32_t comp; } r = { { 0, BTF_INFO_ENC(BTF_KIND_DECL_TAG, 0, 0),
							    { type } }, component };
	int64_t off = encb_add_str(b, value);

	if (off < 0)
		return (int)off;
	r.t.name_off = (uint32_t)off;
	return encb_add_raw(b, &r.t, sizeof(r));
}

int encb_add_datasec(struct enc_builder *b, const char *name, uint32_t size,
		     const struct btf_var_secinfo *si, size_t n)
{
	struct btf_type *t;
	int64_t off;
	int id;

	if (n > 0xffff)
		return diag_err(&b->err, E2BIG, "DATASEC %s: %zu variables, more than BTF's 65535",
				name, n);
	if ((off = encb_add_str(b, name)) < 0)
		return (int)off;
	if (!(t = mem_alloc(sizeof(*t) + n * sizeof(*si))))
		return diag_err(&b->err, ENOMEM, "out of memory");
	t->name_off = (uint32_t)off;
	t->info = BTF_INFO_ENC(BTF_KIND_DATASEC, 0, n);
	t->size = size;
	if (n)
		memcpy(t + 1, si, n * sizeof(*si));
	id = encb_add_raw(b, t, sizeof(*t) + n * sizeof(*si));
	mem_free(t);
	return id;
}

const struct btf_type *encb_type_by_id(const struct enc_builder *b, uint32_t id)
{
	static const struct btf_type void_type;

	if (id < b->start_id)
		return b->base ? btf_type_by_id(b->base, id) : id ? NULL : &void_type;
	id -= b->start_id;
	if (id >= b->p.nr)
		return NULL;
	return (const struct btf_type *)(b->p.types + b->p.index[id]);
}

const char *encb_name(const struct enc_builder *b, uint32_t off)
{
	if (off < b->start_str_off)
		return btf_name(b->base, off);
	return strset_get(&b->p.strs, off - b->start_str_off);
}

int encb_finish(struct enc_builder *b, enum btf_endian e, struct btf **out, struct diag *d)
{
	int err;

	if (b->err.code) {
		*d = b->err;
		return -b->err.code;
	}
	err = btf_from_parts(b->base, &b->p, e, out, d);
	encb_free(b);
	return err;
}

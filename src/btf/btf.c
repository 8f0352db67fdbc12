// SPDX-License-Identifier: GPL-2.0-only
/* The BTF model: storage, lookups, the builder API, field iteration, append. */
#include "btf/btf.h"

#include <stdarg.h>
#include <stdio.h>

#include "base/hash.h"
#include "base/mem.h"
#include "base/pool.h"
#include "btf/btf_internal.h"

int btf_type_data_size(const struct btf_type *t, const struct btf_layout *layout,
		       size_t nlayout)
{
	unsigned kind = btf_kind(t), vlen = btf_vlen(t);
	int fixed, entry;

	/*
	 * Every type of every parse and index build: per kind constants,
	 * which the compiler turns into lookup arrays of its own (a load
	 * from btf_kinds[] costs 2 more instructions per record: its
	 * 16-byte rows need the index scaled apart).
	 */
#define SIZES(k) (fixed = btf_kinds[k].fixed, entry = btf_kinds[k].entry)
	BTF_KIND_DISPATCH(kind, SIZES, goto other)
#undef SIZES
	return fixed + (int)vlen * entry;
other:
	if (layout && kind < nlayout && kind != 0 &&
	    !(layout[kind].info_sz % 4) && !(layout[kind].elem_sz % 4))
		return layout[kind].info_sz + vlen * layout[kind].elem_sz;
	return -EINVAL;
}

void btf_set_release(struct btf *btf, void (*release)(void *), void *ctx)
{
	btf->release = release;
	btf->release_ctx = ctx;
}

uint32_t btf_type_count(const struct btf *btf) { return btf->start_id + btf->nr_types; }
uint32_t btf_start_id(const struct btf *btf) { return btf->start_id; }
const struct btf *btf_base(const struct btf *btf) { return btf->base; }
uint32_t btf_strs_end(const struct btf *btf) { return btf->start_str_off + (uint32_t)btf->strs.len; }
const char *btf_strs_data(const struct btf *btf) { return btf->strs.data; }
size_t btf_strs_len(const struct btf *btf) { return btf->strs.len; }
const struct diag *btf_error(const struct btf *btf) { return btf->err.code ? &btf->err : NULL; }
void btf_set_endian(struct btf *btf, enum btf_endian e) { btf->endian = e; }

bool btf_strs_indexed(const struct btf *btf)
{
	for (; btf; btf = btf->base)
		if (!btf->strs.nslots)
			return false;
	return true;
}

struct btf *btf_new(const struct btf *base)
{
	struct btf *btf = mem_zalloc(sizeof(*btf));

	if (!btf)
		return NULL;
	btf->base = base;
	if (base) {
		btf->start_id = btf_type_count(base);
		btf->start_str_off = btf_strs_end(base);
		btf->endian = base->endian;
	} else {
		btf->start_id = 1;
		btf->endian = btf_host_endian();
	}
	btf->hdr_len = BTF_HDR_LEN;
	btf->last_type_kind = -1;
	if (strset_init(&btf->strs, base == NULL)) {
		mem_free(btf);
		return NULL;
	}
	return btf;
}

void btf_free(struct btf *btf)
{
	if (!btf)
		return;
	if (!btf->types_borrowed)
		mem_free(btf->types);
	if (!btf->index_borrowed)
		mem_free(btf->index);
	mem_free(btf->layout);
	strset_free(&btf->strs);
	if (btf->release)
		btf->release(btf->release_ctx);
	mem_free(btf);
}

int btf_own(struct btf *btf)
{
	uint32_t *t;

	if (btf->index_borrowed) {
		uint32_t *ix = mem_alloc(MAX(btf->nr_types, 1u) * 4);

		if (!ix)
			return diag_err(&btf->err, ENOMEM, "out of memory copying the index");
		memcpy(ix, btf->index, (size_t)btf->nr_types * 4);
		btf->index = ix;
		btf->index_cap = MAX(btf->nr_types, 1u);
		btf->index_borrowed = false;
	}
	if (!btf->types_borrowed)
		return 0;
	t = mem_alloc(MAX(btf->types_len, (size_t)1) * 4);
	if (!t)
		return diag_err(&btf->err, ENOMEM, "out of memory copying types");
	memcpy(t, btf->types, btf->types_len * 4);
	btf->types = t;
	btf->types_cap = MAX(btf->types_len, (size_t)1);
	btf->types_borrowed = false;
	return 0;
}

int btf_writable(struct btf *btf)
{
	return btf->types_borrowed ? btf_own(btf) : 0;
}

int btf_strs_init_raw(struct strset *s, const char *data, size_t len)
{
	memset(s, 0, sizeof(*s));
	s->cap = len ? len : 1;
	s->data = mem_alloc(s->cap);
	if (!s->data)
		return -ENOMEM;
	if (len)
		memcpy(s->data, data, len);
	s->len = len;
	return 0;
}

int btf_strs_index(struct strset *s)
{
	return strset_index(s);
}

int btf_index_strings(struct btf *btf)
{
	return btf_strs_index(&btf->strs);
}

/* Offset of str in an unindexed section: a scan over NUL-separated strings. */
static int64_t scan_str(const struct strset *s, const char *str, size_t len)
{
	const char *p = s->data, *end = s->data + s->len;

	while (p < end) {
		const char *z = memchr(p, 0, (size_t)(end - p));

		if (!z)
			break;
		if ((size_t)(z - p) == len && !memcmp(p, str, len))
			return p - s->data;
		p = z + 1;
	}
	return -ENOENT;
}

static const struct btf_type void_type;

const struct btf_type *btf_type_by_id(const struct btf *btf, uint32_t id)
{
	while (id < btf->start_id) {
		if (id == 0)
			return &void_type;
		btf = btf->base;
	}
	id -= btf->start_id;
	if (id >= btf->nr_types)
		return NULL;
	return (const struct btf_type *)(btf->types + btf->index[id]);
}

struct btf_type *btf_type_mut(struct btf *btf, uint32_t id)
{
	if (id < btf->start_id || id - btf->start_id >= btf->nr_types)
		return NULL;
	if (btf_writable(btf))
		return NULL;
	return (struct btf_type *)(btf->types + btf->index[id - btf->start_id]);
}

const char *btf_name(const struct btf *btf, uint32_t off)
{
	while (off < btf->start_str_off)
		btf = btf->base;
	return strset_get(&btf->strs, off - btf->start_str_off);
}

static int64_t find_str(const struct btf *btf, const char *str, size_t len, uint32_t h)
{
	for (; btf; btf = btf->base) {
		int64_t off = btf->strs.nslots ? strset_find_hashed(&btf->strs, str, len, h)
					       : scan_str(&btf->strs, str, len);

		if (off >= 0)
			return btf->start_str_off + off;
	}
	return -ENOENT;
}

int64_t btf_find_str(const struct btf *btf, const char *str)
{
	size_t len = strlen(str);

	return find_str(btf, str, len, strset_hash(str, len));
}

int64_t btf_find_str_hashed(const struct btf *btf, const char *str, size_t len, uint32_t h)
{
	return find_str(btf, str, len, h);
}

static int64_t add_str_hashed(struct btf *btf, const char *str, size_t len, uint32_t h)
{
	int64_t off;

	if (btf->base) {
		off = find_str(btf->base, str, len, h);
		if (off >= 0)
			return off;
	}
	if (btf_strs_index(&btf->strs))
		return diag_err(&btf->err, ENOMEM, "out of memory indexing strings");
	off = strset_add_hashed(&btf->strs, str, len, h);
	if (off < 0)
		return diag_err(&btf->err, (int)-off, "cannot add string \"%.64s\": %s", str,
				strerror((int)-off));
	if ((uint64_t)off + btf->start_str_off > 0x7fffffff)
		return diag_err(&btf->err, E2BIG, "string section exceeds 2 GiB");
	return btf->start_str_off + off;
}

/*
 * A cheap key of a string for a presence filter: its length and first 8
 * bytes.  avail: bytes readable at p (a whole word is loaded when it can
 * be, then masked to the string).
 */
static inline uint32_t str_sig(const char *p, size_t len, size_t avail)
{
	uint64_t w = 0;

#if __BYTE_ORDER__ == __ORDER_LITTLE_ENDIAN__
	if (avail >= 8) {	/* the string's bytes are the low ones */
		w = load64(p);
		if (len < 8)
			w &= (1ull << (8 * len)) - 1;
	} else
#endif
	{
		(void)avail;
		memcpy(&w, p, len < 8 ? len : 8);
	}
	return (uint32_t)(((w ^ len) * 0x9e3779b97f4a7c15ull) >> 48);
}

/* Own strings found in an indexed base level b: one lookup per own string. */
static void match_indexed(const struct btf *btf, const struct btf *b, uint32_t *remap, size_t *left)
{
	const struct strset *s = &btf->strs;
	size_t j;

	for (j = 0; j < s->nslots && *left; j++) {
		uint32_t o = s->slots[j].off1 - 1;
		int64_t bo;

		/*
		 * The base's index is large (vmlinux: 2 MB of strings): fetch
		 * the slot of a string 16 ahead, then the text its first
		 * candidate points at 8 ahead, so the lookups' misses overlap
		 * (a batch of modules spends 5% of its time here).
		 */
		if (j + 16 < s->nslots && s->slots[j + 16].off1)
			__builtin_prefetch(&b->strs.slots[s->slots[j + 16].hash & (b->strs.nslots - 1)]);
		if (j + 8 < s->nslots && s->slots[j + 8].off1) {
			const struct strset_slot *bs =
				&b->strs.slots[s->slots[j + 8].hash & (b->strs.nslots - 1)];

			if (bs->off1 && bs->hash == s->slots[j + 8].hash)
				__builtin_prefetch(b->strs.data + bs->off1 - 1);
		}
		if (!s->slots[j].off1 || remap[o])
			continue;
		bo = strset_find_hashed(&b->strs, s->data + o, strlen(s->data + o), s->slots[j].hash);
		if (bo >= 0) {
			remap[o] = b->start_str_off + (uint32_t)bo + 1;
			--*left;
		}
	}
}

/*
 * Own strings found in base level b without an index: one pass over its
 * strings.  Most are not ours: a 64 Kbit filter of the own strings spares
 * hashing them.
 */
static void match_scanned(const struct btf *btf, const struct btf *b, uint32_t *remap,
			  const uint64_t *filter, size_t *left)
{
	const char *p, *e, *z;

	for (p = b->strs.data, e = p + b->strs.len; p < e && *left &&
	     (z = memchr(p, 0, (size_t)(e - p))); p = z + 1) {
		size_t len = (size_t)(z - p);
		uint32_t k = str_sig(p, len, (size_t)(e - p));
		int64_t o;

		if (!(filter[k / 64] >> (k % 64) & 1))
			continue;
		o = strset_find_hashed(&btf->strs, p, len, strset_hash(p, len));
		if (o >= 0 && !remap[o]) {
			remap[o] = b->start_str_off + (uint32_t)(p - b->strs.data) + 1;
			--*left;
		}
	}
}

/*
 * Own strings added without the base (btf_parts.base_strs_unmatched):
 * every one the base also has takes the base's offset.
 */
static int resolve_base_strs(struct btf *btf, struct diag *d)
{
	uint32_t *remap, id, end = btf_type_count(btf);
	size_t own_len = btf->strs.len, left;
	uint64_t *filter = NULL;
	const struct btf *b;
	const char *p, *e, *z;

	if (!btf->strs.count)
		return 0;
	remap = mem_array(own_len ? own_len : 1, sizeof(*remap));	/* base offset + 1 */
	if (!remap)
		return diag_err(d, ENOMEM, "out of memory resolving strings against the base");
	left = btf->strs.count;
	for (b = btf->base; b && left; b = b->base) {
		if (b->strs.nslots) {
			match_indexed(btf, b, remap, &left);
			continue;
		}
		if (!filter) {
			if (!(filter = mem_array(65536 / 64, sizeof(*filter)))) {
				mem_free(remap);
				return diag_err(d, ENOMEM, "out of memory resolving strings against the base");
			}
			for (p = btf->strs.data, e = p + own_len; p < e && (z = memchr(p, 0, (size_t)(e - p)));
			     p = z + 1) {
				uint32_t k = str_sig(p, (size_t)(z - p), (size_t)(e - p));

				filter[k / 64] |= 1ull << (k % 64);
			}
		}
		match_scanned(btf, b, remap, filter, &left);
	}
	mem_free(filter);
	if (left != btf->strs.count)
		for (id = btf->start_id; id < end; id++) {
			struct btf_type *t = btf_type_mut(btf, id);
			struct btf_field_iter it;
			uint32_t *f;

			if (!t) {
				mem_free(remap);
				return diag_err(d, ENOMEM, "out of memory resolving strings against the base");
			}
			if (btf_field_iter_init(&it, t, BTF_FIELD_STRS))
				continue;
			while ((f = btf_field_iter_next(&it)))
				if (*f >= btf->start_str_off && *f - btf->start_str_off < own_len &&
				    remap[*f - btf->start_str_off])
					*f = remap[*f - btf->start_str_off] - 1;
		}
	mem_free(remap);
	return 0;
}

int64_t btf_add_str(struct btf *btf, const char *str)
{
	size_t len = strlen(str);

	return add_str_hashed(btf, str, len, strset_hash(str, len));
}

int btf_find_by_name_kind(const struct btf *btf, const char *name, unsigned kind)
{
	uint32_t i, n;
	int id;

	if (btf->base) {
		id = btf_find_by_name_kind(btf->base, name, kind);
		if (id >= 0)
			return id;
	}
	if (kind == BTF_KIND_UNKN && !strcmp(name, "void"))
		return 0;
	n = btf->nr_types;
	for (i = 0; i < n; i++) {
		const struct btf_type *t = (const void *)(btf->types + btf->index[i]);
		const char *s;

		if (btf_kind(t) != kind)
			continue;
		s = btf_name(btf, t->name_off);
		if (s && !strcmp(s, name))
			return (int)(btf->start_id + i);
	}
	return -ENOENT;
}

/* ---- builder ---------------------------------------------------------- */

/* Room for nrecs more records, nwords in all; returns their word offset or -errno. */
static int64_t reserve_types(struct btf *btf, size_t nwords, size_t nrecs)
{
	size_t off = btf->types_len;

	if ((uint64_t)btf_type_count(btf) + nrecs > 0x7fffffff)
		return diag_err(&btf->err, E2BIG, "too many types (%u)", btf_type_count(btf));
	if (btf_own(btf))
		return -ENOMEM;
	if (VEC_RESERVE(btf->types, btf->types_cap, off + nwords) ||
	    VEC_RESERVE(btf->index, btf->index_cap, btf->nr_types + nrecs))
		return diag_err(&btf->err, ENOMEM, "out of memory adding type %u",
				btf_type_count(btf));
	return (int64_t)off;
}

static int64_t reserve_type(struct btf *btf, size_t nwords)
{
	return reserve_types(btf, nwords, 1);
}

static int commit_type(struct btf *btf, size_t off, size_t nwords, unsigned kind)
{
	btf->types_len = off + nwords;
	btf->index[btf->nr_types] = (uint32_t)off;
	btf->last_type_kind = (int)kind;
	return (int)(btf->start_id + btf->nr_types++);
}

int btf_add_raw(struct btf *btf, const struct btf_type *t, size_t bytes)
{
	size_t nwords = bytes / 4;
	int64_t off;

	if (bytes < sizeof(*t) || bytes % 4)
		return diag_err(&btf->err, EINVAL, "raw record of %zu bytes", bytes);
	off = reserve_type(btf, nwords);
	if (off < 0)
		return (int)off;
	memcpy(btf->types + off, t, bytes);
	return commit_type(btf, (size_t)off, nwords, btf_kind(t));
}


static int name_off(struct btf *btf, const char *name, int64_t *off)
{
	if (!name || !*name) {
		*off = 0;
		return 0;
	}
	*off = btf_add_str(btf, name);
	return *off < 0 ? (int)*off : 0;
}

/* Common header-only (plus ntrail words of zeroes) record. */
static int add_common(struct btf *btf, unsigned kind, const char *name, bool kflag,
		      unsigned vlen, uint32_t size_type, size_t ntrail, uint32_t **trail)
{
	int64_t noff, off;
	struct btf_type *t;
	int err;

	if ((err = name_off(btf, name, &noff)))
		return err;
	off = reserve_type(btf, 3 + ntrail);
	if (off < 0)
		return (int)off;
	t = (struct btf_type *)(btf->types + off);
	t->name_off = (uint32_t)noff;
	t->info = BTF_INFO_ENC(kind, kflag, vlen);
	t->size = size_type;
	if (ntrail)
		memset(t + 1, 0, ntrail * 4);
	if (trail)
		*trail = (uint32_t *)(t + 1);
	return commit_type(btf, (size_t)off, 3 + ntrail, kind);
}

static bool empty(const char *s) { return !s || !*s; }

static int bad(struct btf *btf, const char *what, const char *fmt, ...) PRINTF_LIKE(3, 4);
static int bad(struct btf *btf, const char *what, const char *fmt, ...)
{
	char buf[128];
	va_list ap;

	va_start(ap, fmt);
	vsnprintf(buf, sizeof(buf), fmt, ap);
	va_end(ap);
	return diag_err(&btf->err, EINVAL, "btf_add_%s at id %u: %s", what,
			btf_type_count(btf), buf);
}

static bool valid_ref(const struct btf *btf, uint32_t id)
{
	return id <= 0x7fffffff;
}

int btf_add_int(struct btf *btf, const char *name, uint32_t byte_sz, unsigned encoding)
{
	uint32_t *w = NULL;
	int id;

	if (empty(name))
		return bad(btf, "int", "empty name");
	if (!byte_sz || byte_sz > 16 || (byte_sz & (byte_sz - 1)))
		return bad(btf, "int", "invalid size %llu", (unsigned long long)(byte_sz));
	if (encoding & ~(unsigned)(BTF_INT_SIGNED | BTF_INT_CHAR | BTF_INT_BOOL))
		return bad(btf, "int", "invalid encoding %#x", encoding);
	id = add_common(btf, BTF_KIND_INT, name, false, 0, byte_sz, 1, &w);
	if (id > 0)
		*w = encoding << 24 | byte_sz * 8;
	return id;
}

int btf_add_float(struct btf *btf, const char *name, uint32_t byte_sz)
{
	if (empty(name))
		return bad(btf, "float", "empty name");
	if (byte_sz != 2 && byte_sz != 4 && byte_sz != 8 && byte_sz != 12 && byte_sz != 16)
		return bad(btf, "float", "invalid size %llu", (unsigned long long)(byte_sz));
	return add_common(btf, BTF_KIND_FLOAT, name, false, 0, byte_sz, 0, NULL);
}

static int add_ref(struct btf *btf, unsigned kind, const char *name, uint32_t ref)
{
	if (!valid_ref(btf, ref))
		return bad(btf, btf_kind_str(kind), "invalid type id %llu", (unsigned long long)(ref));
	return add_common(btf, kind, name, false, 0, ref, 0, NULL);
}

int btf_add_ptr(struct btf *btf, uint32_t ref) { return add_ref(btf, BTF_KIND_PTR, NULL, ref); }
int btf_add_volatile(struct btf *btf, uint32_t ref) { return add_ref(btf, BTF_KIND_VOLATILE, NULL, ref); }
int btf_add_const(struct btf *btf, uint32_t ref) { return add_ref(btf, BTF_KIND_CONST, NULL, ref); }
int btf_add_restrict(struct btf *btf, uint32_t ref) { return add_ref(btf, BTF_KIND_RESTRICT, NULL, ref); }

int btf_add_typedef(struct btf *btf, const char *name, uint32_t ref)
{
	if (empty(name))
		return bad(btf, "typedef", "empty name");
	return add_ref(btf, BTF_KIND_TYPEDEF, name, ref);
}

int btf_add_type_tag(struct btf *btf, const char *value, uint32_t ref)
{
	if (empty(value))
		return bad(btf, "type_tag", "empty value");
	return add_ref(btf, BTF_KIND_TYPE_TAG, value, ref);
}

int btf_add_array(struct btf *btf, uint32_t index_type, uint32_t elem_type, uint32_t nelems)
{
	uint32_t *w = NULL;
	int id;

	if (!valid_ref(btf, index_type) || !valid_ref(btf, elem_type))
		return bad(btf, "array", "invalid type id %llu", (unsigned long long)(MAX(index_type, elem_type)));
	id = add_common(btf, BTF_KIND_ARRAY, NULL, false, 0, 0, 3, &w);
	if (id > 0) {
		w[0] = elem_type;
		w[1] = index_type;
		w[2] = nelems;
	}
	return id;
}

int btf_add_struct(struct btf *btf, const char *name, uint32_t byte_sz)
{
	return add_common(btf, BTF_KIND_STRUCT, name, false, 0, byte_sz, 0, NULL);
}

int btf_add_union(struct btf *btf, const char *name, uint32_t byte_sz)
{
	return add_common(btf, BTF_KIND_UNION, name, false, 0, byte_sz, 0, NULL);
}

/*
 * The last record: by id, or, while the index is deferred (only adds
 * since btf_new()), where the last add put it.
 */
static struct btf_type *last_type(struct btf *btf)
{
	return btf_type_mut(btf, btf_type_count(btf) - 1);
}

struct btf_type *btf_last_type_mut(struct btf *btf)
{
	return btf->nr_types ? last_type(btf) : NULL;
}

int btf_from_parts(const struct btf *base, struct btf_parts *parts, enum btf_endian e,
		   struct btf **out, struct diag *d)
{
	struct btf *btf;
	int err = 0;

	*out = NULL;
	if (!(btf = btf_new(base)))
		return diag_err(d, ENOMEM, "out of memory");
	strset_free(&btf->strs);
	btf->strs = parts->strs;
	btf->types = parts->types;
	btf->types_len = parts->nwords;
	btf->types_cap = parts->cap;
	btf->nr_types = parts->nr;
	btf->endian = e;
	btf->index = parts->index;
	btf->index_cap = parts->index_cap;
	if (!btf->index && btf->nr_types)
		err = diag_err(d, EINVAL, "%u types without their index", btf->nr_types);
	if (!err && btf->nr_types)
		btf->last_type_kind = (int)btf_kind(btf_type_by_id(btf, btf_type_count(btf) - 1));
	if (!err && parts->base_strs_unmatched)
		err = resolve_base_strs(btf, d);
	memset(parts, 0, sizeof(*parts));
	if (err) {
		btf_free(btf);
		return err;
	}
	*out = btf;
	return 0;
}

/* Append nwords words to the last type (of one of the given kinds); bump vlen. */
static int64_t grow_last(struct btf *btf, const char *what, unsigned k1, unsigned k2,
			 size_t nwords)
{
	struct btf_type *t;

	if (!btf->nr_types || (btf->last_type_kind != (int)k1 && btf->last_type_kind != (int)k2))
		return diag_err(&btf->err, EINVAL, "btf_add_%s: last type is not a %s", what,
				btf_kind_str(k1));
	if (btf_own(btf))
		return -ENOMEM;
	t = last_type(btf);
	if (btf_vlen(t) >= BTF_MAX_VLEN)
		return diag_err(&btf->err, E2BIG, "btf_add_%s: type %u has %u elements", what,
				btf_type_count(btf) - 1, btf_vlen(t));
	if (VEC_RESERVE(btf->types, btf->types_cap, btf->types_len + nwords))
		return diag_err(&btf->err, ENOMEM, "out of memory");
	t = last_type(btf);
	t->info++;
	btf->types_len += nwords;
	return (int64_t)(btf->types_len - nwords);
}

int btf_add_member(struct btf *btf, const char *name, uint32_t type, uint32_t bit_offset,
		   uint32_t bitfield_size)
{
	struct btf_type *t;
	int64_t noff, off;
	uint32_t *w = NULL;
	int err;

	if (!btf->nr_types || !btf_is_composite_kind(btf_kind(last_type(btf))) ||
	    btf->last_type_kind < 0)
		return diag_err(&btf->err, EINVAL, "btf_add_member: last type is not a struct/union");
	t = last_type(btf);
	if (!valid_ref(btf, type))
		return bad(btf, "member", "invalid type id %llu", (unsigned long long)(type));
	if (bitfield_size > 255)
		return bad(btf, "member", "bitfield size %llu > 255", (unsigned long long)(bitfield_size));
	if (bitfield_size && bit_offset > 0xffffff)
		return bad(btf, "member", "bitfield offset %llu > 0xffffff", (unsigned long long)(bit_offset));
	if (btf_kind(t) == BTF_KIND_UNION && bit_offset)
		return bad(btf, "member", "union member at bit %llu", (unsigned long long)(bit_offset));
	/* Switching to kflag mode needs every earlier offset to fit in 24 bits. */
	if (bitfield_size && !btf_kflag(t)) {
		struct btf_member *m = btf_members(t);
		unsigned i;

		for (i = 0; i < btf_vlen(t); i++)
			if (m[i].offset > 0xffffff)
				return bad(btf, "member", "earlier member offset %u prevents kflag mode",
					   m[i].offset);
	}
	if (btf_kflag(t) && bit_offset > 0xffffff)
		return bad(btf, "member", "offset %llu does not fit a kflag struct", (unsigned long long)(bit_offset));
	if ((err = name_off(btf, name, &noff)))
		return err;
	off = grow_last(btf, "member", BTF_KIND_STRUCT, BTF_KIND_UNION, 3);
	if (off < 0)
		return (int)off;
	t = last_type(btf);
	if (bitfield_size)
		t->info |= 1u << 31;
	w = btf->types + off;
	w[0] = (uint32_t)noff;
	w[1] = type;
	w[2] = btf_kflag(t) ? bitfield_size << 24 | bit_offset : bit_offset;
	return 0;
}

int btf_add_enum(struct btf *btf, const char *name, uint32_t byte_sz)
{
	if (!byte_sz || byte_sz > 8 || (byte_sz & (byte_sz - 1)))
		return bad(btf, "enum", "invalid size %llu", (unsigned long long)(byte_sz));
	return add_common(btf, BTF_KIND_ENUM, name, false, 0, byte_sz, 0, NULL);
}

int btf_add_enum_value(struct btf *btf, const char *name, int64_t value)
{
	int64_t noff, off;
	uint32_t *w = NULL;
	int err;

	if (btf->last_type_kind != BTF_KIND_ENUM)
		return diag_err(&btf->err, EINVAL, "btf_add_enum_value: last type is not an ENUM");
	if (empty(name))
		return bad(btf, "enum_value", "empty name");
	if (value < INT32_MIN || value > UINT32_MAX)
		return bad(btf, "enum_value", "value %lld does not fit 32 bits", (long long)value);
	if ((err = name_off(btf, name, &noff)))
		return err;
	off = grow_last(btf, "enum_value", BTF_KIND_ENUM, BTF_KIND_ENUM, 2);
	if (off < 0)
		return (int)off;
	w = btf->types + off;
	w[0] = (uint32_t)noff;
	w[1] = (uint32_t)value;
	if (value < 0)
		last_type(btf)->info |= 1u << 31;
	return 0;
}

int btf_add_enum64(struct btf *btf, const char *name, uint32_t byte_sz, bool is_signed)
{
	if (!byte_sz || byte_sz > 8 || (byte_sz & (byte_sz - 1)))
		return bad(btf, "enum64", "invalid size %llu", (unsigned long long)(byte_sz));
	return add_common(btf, BTF_KIND_ENUM64, name, is_signed, 0, byte_sz, 0, NULL);
}

int btf_add_enum64_value(struct btf *btf, const char *name, uint64_t value)
{
	int64_t noff, off;
	uint32_t *w = NULL;
	int err;

	if (btf->last_type_kind != BTF_KIND_ENUM64)
		return diag_err(&btf->err, EINVAL, "btf_add_enum64_value: last type is not an ENUM64");
	if (empty(name))
		return bad(btf, "enum64_value", "empty name");
	if ((err = name_off(btf, name, &noff)))
		return err;
	off = grow_last(btf, "enum64_value", BTF_KIND_ENUM64, BTF_KIND_ENUM64, 3);
	if (off < 0)
		return (int)off;
	w = btf->types + off;
	w[0] = (uint32_t)noff;
	w[1] = (uint32_t)value;
	w[2] = (uint32_t)(value >> 32);
	return 0;
}

int btf_add_fwd(struct btf *btf, const char *name, unsigned fwd_kind)
{
	if (empty(name))
		return bad(btf, "fwd", "empty name");
	switch ((enum btf_kind)fwd_kind) {
	case BTF_KIND_STRUCT:
	case BTF_KIND_UNION:
		return add_common(btf, BTF_KIND_FWD, name, fwd_kind == BTF_KIND_UNION, 0, 0, 0, NULL);
	case BTF_KIND_ENUM:
		return btf_add_enum(btf, name, 4);
	case BTF_KIND_UNKN: case BTF_KIND_INT: case BTF_KIND_PTR: case BTF_KIND_ARRAY:
	case BTF_KIND_FWD: case BTF_KIND_TYPEDEF: case BTF_KIND_VOLATILE: case BTF_KIND_CONST:
	case BTF_KIND_RESTRICT: case BTF_KIND_FUNC: case BTF_KIND_FUNC_PROTO: case BTF_KIND_VAR:
	case BTF_KIND_DATASEC: case BTF_KIND_FLOAT: case BTF_KIND_DECL_TAG: case BTF_KIND_TYPE_TAG:
	case BTF_KIND_ENUM64:
	default:
		break;
	}
	return bad(btf, "fwd", "invalid forward kind %llu", (unsigned long long)(fwd_kind));
}

int btf_add_func(struct btf *btf, const char *name, unsigned linkage, uint32_t proto)
{
	if (empty(name))
		return bad(btf, "func", "empty name");
	if (linkage > BTF_FUNC_EXTERN)
		return bad(btf, "func", "invalid linkage %llu", (unsigned long long)(linkage));
	if (!valid_ref(btf, proto))
		return bad(btf, "func", "invalid type id %llu", (unsigned long long)(proto));
	return add_common(btf, BTF_KIND_FUNC, name, false, linkage, proto, 0, NULL);
}

int btf_add_func_proto(struct btf *btf, uint32_t ret_type)
{
	return add_ref(btf, BTF_KIND_FUNC_PROTO, NULL, ret_type);
}

int btf_add_param(struct btf *btf, const char *name, uint32_t type)
{
	int64_t noff, off;
	uint32_t *w = NULL;
	int err;

	if (btf->last_type_kind != BTF_KIND_FUNC_PROTO)
		return diag_err(&btf->err, EINVAL, "btf_add_param: last type is not a FUNC_PROTO");
	if (!valid_ref(btf, type))
		return bad(btf, "param", "invalid type id %llu", (unsigned long long)(type));
	if ((err = name_off(btf, name, &noff)))
		return err;
	off = grow_last(btf, "param", BTF_KIND_FUNC_PROTO, BTF_KIND_FUNC_PROTO, 2);
	if (off < 0)
		return (int)off;
	w = btf->types + off;
	w[0] = (uint32_t)noff;
	w[1] = type;
	return 0;
}

int btf_add_var(struct btf *btf, const char *name, unsigned linkage, uint32_t type)
{
	uint32_t *w = NULL;
	int id;

	if (empty(name))
		return bad(btf, "var", "empty name");
	if (linkage > BTF_VAR_GLOBAL_EXTERN)
		return bad(btf, "var", "invalid linkage %llu", (unsigned long long)(linkage));
	if (!valid_ref(btf, type))
		return bad(btf, "var", "invalid type id %llu", (unsigned long long)(type));
	id = add_common(btf, BTF_KIND_VAR, name, false, 0, type, 1, &w);
	if (id > 0)
		*w = linkage;
	return id;
}

int btf_add_datasec(struct btf *btf, const char *name, uint32_t byte_sz)
{
	if (empty(name))
		return bad(btf, "datasec", "empty name");
	return add_common(btf, BTF_KIND_DATASEC, name, false, 0, byte_sz, 0, NULL);
}

int btf_add_secinfo(struct btf *btf, uint32_t var, uint32_t offset, uint32_t byte_sz)
{
	int64_t off;
	uint32_t *w = NULL;

	if (btf->last_type_kind != BTF_KIND_DATASEC)
		return diag_err(&btf->err, EINVAL, "btf_add_secinfo: last type is not a DATASEC");
	if (!valid_ref(btf, var))
		return bad(btf, "secinfo", "invalid type id %llu", (unsigned long long)(var));
	off = grow_last(btf, "secinfo", BTF_KIND_DATASEC, BTF_KIND_DATASEC, 3);
	if (off < 0)
		return (int)off;
	w = btf->types + off;
	w[0] = var;
	w[1] = offset;
	w[2] = byte_sz;
	return 0;
}

int btf_add_decl_tag(struct btf *btf, const char *value, uint32_t ref, int component_idx)
{
	uint32_t *w = NULL;
	int id;

	if (empty(value))
		return bad(btf, "decl_tag", "empty value");
	if (component_idx < -1)
		return bad(btf, "decl_tag", "component_idx %d < -1", component_idx);
	if (!valid_ref(btf, ref))
		return bad(btf, "decl_tag", "invalid type id %llu", (unsigned long long)(ref));
	id = add_common(btf, BTF_KIND_DECL_TAG, value, false, 0, ref, 1, &w);
	if (id > 0)
		*w = (uint32_t)component_idx;
	return id;
}

/* ---- field iteration -------------------------------------------------- */

/*
 * The iterator's set-up for a record of kind k (a constant under
 * BTF_KIND_DISPATCH: each kind's set-up is a few constant stores, as
 * dedup's passes over every record want).
 */
#define ITER_ENTRIES(k, field)							\
	do {									\
		if (btf_kinds[k].field != BTF_NO_FIELD) {			\
			it->first = 3 + btf_kinds[k].fixed / 4;			\
			it->elem_words = btf_kinds[k].entry / 4;		\
			it->elem_field = (uint32_t)btf_kinds[k].field;		\
			it->vlen = btf_vlen(t);					\
		}								\
	} while (0)
#define ITER_STRS(k)								\
	do {									\
		it->fixed[it->nfixed++] = 0;	/* name_off */			\
		ITER_ENTRIES(k, entry_str);					\
	} while (0)
#define ITER_IDS(k)								\
	do {									\
		for (; it->nfixed < btf_kinds[k].nids; it->nfixed++)		\
			it->fixed[it->nfixed] = btf_kinds[k].ids[it->nfixed];	\
		ITER_ENTRIES(k, entry_id);					\
	} while (0)

int btf_field_iter_init(struct btf_field_iter *it, struct btf_type *t, enum btf_field_kind which)
{
	memset(it, 0, sizeof(*it));	/* a kind the table lacks: no fields */
	it->words = (uint32_t *)t;
	if (which == BTF_FIELD_STRS) {
		BTF_KIND_DISPATCH(btf_kind(t), ITER_STRS, return -EINVAL)
	} else {
		BTF_KIND_DISPATCH(btf_kind(t), ITER_IDS, return -EINVAL)
	}
	return 0;
}
#undef ITER_ENTRIES
#undef ITER_STRS
#undef ITER_IDS

uint32_t *btf_field_iter_next(struct btf_field_iter *it)
{
	if (it->fidx < it->nfixed)
		return it->words + it->fixed[it->fidx++];
	if (it->vidx < it->vlen)
		return it->words + it->first + it->vidx++ * it->elem_words + it->elem_field;
	return NULL;
}

/* ---- append ----------------------------------------------------------- */

int btf_append(struct btf *dst, const struct btf *src)
{
	uint32_t shift_from = src->start_id, first = btf_type_count(dst);
	size_t old_len = dst->types_len, old_n = dst->nr_types;
	int64_t delta = (int64_t)first - src->start_id;
	uint32_t i;

	if (src->base != dst->base && src->start_id != 1)
		return diag_err(&dst->err, EINVAL, "btf_append: source is split on another base");
	if (btf_own(dst))
		return -ENOMEM;
	if (VEC_RESERVE(dst->types, dst->types_cap, dst->types_len + src->types_len) ||
	    VEC_RESERVE(dst->index, dst->index_cap, dst->nr_types + src->nr_types))
		return diag_err(&dst->err, ENOMEM, "btf_append: out of memory");
	memcpy(dst->types + dst->types_len, src->types, src->types_len * 4);
	for (i = 0; i < src->nr_types; i++)
		dst->index[dst->nr_types + i] = (uint32_t)(src->index[i] + dst->types_len);
	dst->types_len += src->types_len;
	dst->nr_types += src->nr_types;
	for (i = 0; i < src->nr_types; i++) {
		struct btf_type *t = btf_type_mut(dst, first + i);
		struct btf_field_iter it;
		uint32_t *p;

		if (btf_field_iter_init(&it, t, BTF_FIELD_STRS))
			goto bad_kind;
		while ((p = btf_field_iter_next(&it))) {
			const char *s;
			int64_t off;

			if (!*p)
				continue;
			s = btf_name(src, *p);
			if (!s) {
				diag_err(&dst->err, EINVAL, "btf_append: type %u: invalid string offset %u",
					 src->start_id + i, *p);
				goto fail;
			}
			off = btf_add_str(dst, s);
			if (off < 0)
				goto fail;
			t = btf_type_mut(dst, first + i);	/* strset growth does not move types */
			*p = (uint32_t)off;
		}
		btf_field_iter_init(&it, t, BTF_FIELD_IDS);
		while ((p = btf_field_iter_next(&it)))
			if (*p >= shift_from)
				*p = (uint32_t)(*p + delta);
	}
	if (dst->nr_types)
		dst->last_type_kind = (int)btf_kind(btf_type_by_id(dst, btf_type_count(dst) - 1));
	return (int)first;
bad_kind:
	diag_err(&dst->err, EINVAL, "btf_append: type %u has unknown kind", src->start_id + i);
fail:
	dst->types_len = old_len;
	dst->nr_types = old_n;
	return -dst->err.code;
}

/* btf_strings_first_refs(): append own offset f (new: its bit was clear). */
static __attribute__((noinline)) int first_ref_new(uint32_t f, uint32_t o, uint64_t *seen,
						   uint32_t **v, size_t *cnt, size_t *cap)
{
	seen[o / 64] |= 1ull << (o % 64);
	if (*cnt == *cap && VEC_RESERVE(*v, *cap, *cnt + 1))
		return -ENOMEM;
	(*v)[(*cnt)++] = f;
	return 0;
}

/* Names per element of a record, by kind: 3 struct/union/enum64, 2 enum/proto, else 0. */
static const uint8_t name_stride[32] = {
	[BTF_KIND_STRUCT] = 3, [BTF_KIND_UNION] = 3, [BTF_KIND_ENUM64] = 3,
	[BTF_KIND_ENUM] = 2, [BTF_KIND_FUNC_PROTO] = 2,
};

/* One span of btf_strings_first_refs(): its own first references, in order. */
struct first_span {
	const struct btf *btf;
	uint32_t lo, hi;		/* ids [lo, hi) */
	uint32_t *v;
	size_t cnt, cap;
	int err;
};

static int first_refs_span(void *ctx, unsigned worker, size_t item)
{
	struct first_span *sp = (struct first_span *)ctx + item;
	const struct btf *btf = sp->btf;
	uint32_t id, start = btf->start_str_off, len = (uint32_t)btf->strs.len;
	uint64_t *seen = mem_array((size_t)len / 64 + 1, sizeof(uint64_t));

	(void)worker;
	if (!seen) {
		sp->err = -ENOMEM;
		return 0;
	}
	if (!btf->base)
		seen[0] = 1;	/* offset 0, "": no string */
	/*
	 * Every reference of the span's records (vmlinux before dedup: 4.35 M
	 * types, 14.5 M references): the name, then the names of members,
	 * enumerators or parameters, a bit per byte of the section (570 KB for
	 * vmlinux's seeded section: in the cache); a reference below start
	 * (the base's) wraps past len.
	 */
#define FIRST_REF(f) do {								\
		uint32_t f_ = (f), o_ = f_ - start;					\
		if (o_ < len && !(seen[o_ / 64] & 1ull << (o_ % 64)) &&		\
		    (sp->err = first_ref_new(f_, o_, seen, &sp->v, &sp->cnt, &sp->cap)))	\
			goto out;							\
	} while (0)
	for (id = sp->lo; id < sp->hi; id++) {	/* (the index is built) */
		const uint32_t *w = btf->types + btf->index[id], *p, *e;
		unsigned stride = name_stride[w[1] >> 24 & 0x1f];

		FIRST_REF(w[0]);
		for (p = w + 3, e = p + stride * (w[1] & 0xffff); p < e; p += stride)
			FIRST_REF(*p);
	}
#undef FIRST_REF
out:
	mem_free(seen);
	return 0;
}

/*
 * The spans run on the pool, each with a bitmap of its own; their lists,
 * in span order, less what an earlier span met, are the whole's.
 */
int btf_strings_first_refs(const struct btf *btf, unsigned jobs, uint32_t **out, size_t *n,
			   struct diag *d)
{
	uint32_t start = btf->start_str_off, len = (uint32_t)btf->strs.len;
	size_t nsp = jobs > 1 && btf->nr_types >= 1u << 16 ? jobs : 1, i, j, cnt = 0;
	struct first_span *sp = mem_array(nsp, sizeof(*sp));
	uint64_t *seen = NULL;
	uint32_t *v = NULL;
	int err = -ENOMEM;

	*out = NULL;
	*n = 0;
	if (!sp)
		goto out;
	for (i = 0; i < nsp; i++) {
		sp[i].btf = btf;
		sp[i].lo = (uint32_t)((uint64_t)btf->nr_types * i / nsp);
		sp[i].hi = (uint32_t)((uint64_t)btf->nr_types * (i + 1) / nsp);
	}
	if (pool_for(jobs, nsp, first_refs_span, sp))
		goto out;
	for (i = 0; i < nsp; i++)
		if (sp[i].err)
			goto out;
	if (nsp == 1) {
		v = sp[0].v;
		cnt = sp[0].cnt;
		sp[0].v = NULL;
	} else {
		if (!(seen = mem_array((size_t)len / 64 + 1, sizeof(uint64_t))))
			goto out;
		for (i = 0; i < nsp; i++)
			cnt += sp[i].cnt;
		if (!(v = mem_array(MAX(cnt, 1), sizeof(*v))))
			goto out;
		for (i = 0, cnt = 0; i < nsp; i++)
			for (j = 0; j < sp[i].cnt; j++) {
				uint32_t o = sp[i].v[j] - start;

				if (!(seen[o / 64] & 1ull << (o % 64))) {
					seen[o / 64] |= 1ull << (o % 64);
					v[cnt++] = sp[i].v[j];
				}
			}
	}
	*out = v;
	*n = cnt;
	v = NULL;
	err = 0;
out:
	for (i = 0; sp && i < nsp; i++)
		mem_free(sp[i].v);
	mem_free(sp);
	mem_free(seen);
	mem_free(v);
	return err ? diag_err(d, ENOMEM, "out of memory ordering strings") : 0;
}

/* Old own offset -> new, open addressing (key + 1; 0 = empty). */
struct strmap {
	uint32_t *key, *val;
	size_t mask;
};

static uint32_t *strmap_slot(struct strmap *m, uint32_t off)
{
	size_t j;

	for (j = hash_mix(off) & m->mask; m->key[j] && m->key[j] != off + 1; j = (j + 1) & m->mask)
		;
	return &m->key[j];
}

/* The new offset of own string off: mapped, or added to ns and mapped; < 0 on error. */
static int64_t strmap_get(struct btf *btf, struct strmap *m, struct strset *ns, uint32_t off)
{
	uint32_t *slot = strmap_slot(m, off);
	const char *s;
	int64_t n;

	if (*slot)
		return m->val[slot - m->key];
	if (!(s = btf_name(btf, off)))
		return -EINVAL;
	if ((n = strset_add(ns, s, strlen(s))) < 0)
		return -ENOMEM;
	*slot = off + 1;
	m->val[slot - m->key] = btf->start_str_off + (uint32_t)n;
	return m->val[slot - m->key];
}

int btf_strings_relayout_order(struct btf *btf, const uint32_t *order, size_t n, struct diag *d)
{
	struct strset ns = { 0 };
	struct strmap m = { 0 };
	uint32_t id, end = btf_type_count(btf);
	size_t i, slots = 16;
	int64_t v;
	int err = 0;

	while (slots < 2 * n + 16)
		slots *= 2;
	m.mask = slots - 1;
	m.key = mem_array(slots, sizeof(uint32_t));
	m.val = mem_array(slots, sizeof(uint32_t));
	if (btf_writable(btf) || !m.key || !m.val || strset_init(&ns, btf->start_id == 1 && !btf->base) ||
	    strset_reserve(&ns, n + 16, btf->strs.len)) {
		err = diag_err(d, ENOMEM, "out of memory re-laying out strings");
		goto out;
	}
	for (i = 0; i < n; i++)
		if ((v = strmap_get(btf, &m, &ns, order[i])) < 0) {
			err = diag_err(d, (int)-v, "string offset %u: %s re-laying out strings", order[i],
				       strerror((int)-v));
			goto out;
		}
	for (id = btf->start_id; id < end; id++) {
		struct btf_type *t = btf_type_mut(btf, id);
		struct btf_field_iter it;
		uint32_t *f;

		if (!t || btf_field_iter_init(&it, t, BTF_FIELD_STRS)) {
			err = diag_err(d, EINVAL, "type [%u]: unknown kind re-laying out strings", id);
			goto out;
		}
		while ((f = btf_field_iter_next(&it))) {
			if (*f < btf->start_str_off || (*f == 0 && !btf->base))
				continue;
			if ((v = strmap_get(btf, &m, &ns, *f)) < 0) {
				err = diag_err(d, (int)-v, "type [%u]: string offset %u: %s", id, *f,
					       strerror((int)-v));
				goto out;
			}
			*f = (uint32_t)v;
		}
	}
	strset_free(&btf->strs);
	btf->strs = ns;
	ns = (struct strset){ 0 };
out:
	strset_free(&ns);
	mem_free(m.key);
	mem_free(m.val);
	return err;
}

int btf_strings_relayout(struct btf *btf, struct diag *d)
{
	struct strset ns = { 0 };
	uint32_t id, end = btf_type_count(btf);

	/*
	 * About as many strings as types (vmlinux: 108 k, 107 k), their text
	 * at most the old section's: one table, text that never moves.
	 */
	if (btf_writable(btf) || strset_init(&ns, btf->start_id == 1 && !btf->base) ||
	    strset_reserve(&ns, end - btf->start_id, btf->strs.len)) {
		strset_free(&ns);
		return diag_err(d, ENOMEM, "out of memory re-laying out strings");
	}
	for (id = btf->start_id; id < end; id++) {
		struct btf_type *t = btf_type_mut(btf, id);
		struct btf_field_iter it;
		uint32_t *f;

		btf_field_iter_init(&it, t, BTF_FIELD_STRS);
		while ((f = btf_field_iter_next(&it))) {
			const char *s;
			int64_t off;

			if (*f < btf->start_str_off || (*f == 0 && !btf->base))
				continue;
			s = btf_name(btf, *f);
			if (!s) {
				strset_free(&ns);
				return diag_err(d, EINVAL, "type [%u]: string offset %u out of range", id, *f);
			}
			off = strset_add(&ns, s, strlen(s));
			if (off < 0) {
				strset_free(&ns);
				return diag_err(d, ENOMEM, "out of memory re-laying out strings");
			}
			*f = btf->start_str_off + (uint32_t)off;
		}
	}
	strset_free(&btf->strs);
	btf->strs = ns;
	return 0;
}

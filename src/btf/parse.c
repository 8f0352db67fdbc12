// SPDX-License-Identifier: GPL-2.0-only
/*
 * Raw blob -> struct btf (docs/btf.md 1.10).  Every record field is a u32,
 * so a foreign-order type section is swapped word by word before the walk.
 */
#include "btf/btf.h"

#include "base/mem.h"
#include "btf/btf_internal.h"

int btf_parse_header(const void *data, size_t len, struct btf_header *h, bool *swapped,
		     struct diag *d)
{
	const uint8_t *p = data;
	uint32_t w[7] = { 0 };
	uint16_t magic;
	size_t i, known;
	bool sw;

	memset(h, 0, sizeof(*h));
	if (len < BTF_HDR_LEN)
		return diag_err(d, EINVAL, "blob of %zu bytes is shorter than the %d-byte BTF header",
				len, BTF_HDR_LEN);
	magic = load16(p);
	if (magic == BTF_MAGIC)
		sw = false;
	else if (magic == bswap16(BTF_MAGIC))
		sw = true;
	else
		return diag_err(d, EINVAL, "offset 0: bad BTF magic 0x%04x (want 0xeb9f in either byte order)",
				magic);
	h->magic = BTF_MAGIC;
	h->version = p[2];
	h->flags = p[3];
	h->hdr_len = load32(p + 4);
	if (sw)
		h->hdr_len = bswap32(h->hdr_len);
	if (h->hdr_len < BTF_HDR_LEN)
		return diag_err(d, EINVAL, "offset 4: hdr_len %u is shorter than %d", h->hdr_len,
				BTF_HDR_LEN);
	if (h->hdr_len > len)
		return diag_err(d, EINVAL, "offset 4: hdr_len %u exceeds the blob size %zu", h->hdr_len,
				len);
	if (h->version != BTF_VERSION)
		return diag_err(d, EOPNOTSUPP, "offset 2: unsupported BTF version %u", h->version);
	if (h->flags)
		return diag_err(d, EOPNOTSUPP, "offset 3: unsupported BTF flags 0x%x", h->flags);
	known = MIN(h->hdr_len, (uint32_t)BTF_HDR_LEN_LAYOUT);
	for (i = 0; 8 + 4 * i + 4 <= known; i++) {
		w[i] = load32(p + 8 + 4 * i);
		if (sw)
			w[i] = bswap32(w[i]);
	}
	for (i = known; i < h->hdr_len; i++)
		if (p[i])
			return diag_err(d, E2BIG, "offset %zu: unknown non-zero byte 0x%02x in the %u-byte header",
					i, p[i], h->hdr_len);
	h->type_off = w[0];
	h->type_len = w[1];
	h->str_off = w[2];
	h->str_len = w[3];
	h->layout_off = w[4];
	h->layout_len = w[5];
	if (swapped)
		*swapped = sw;
	return 0;
}

static int check_sections(const struct btf_header *h, size_t len, bool split, struct diag *d)
{
	uint64_t data_len = len - h->hdr_len;

	if ((uint64_t)h->str_off + h->str_len > data_len)
		return diag_err(d, EINVAL, "string section [%u, +%u) beyond the blob's %llu data bytes",
				h->str_off, h->str_len, (unsigned long long)data_len);
	if ((uint64_t)h->type_off + h->type_len > h->str_off && h->type_len)
		return diag_err(d, EINVAL, "type section [%u, +%u) does not end before the string section at %u",
				h->type_off, h->type_len, h->str_off);
	if (h->type_off % 4)
		return diag_err(d, EINVAL, "type_off %u is not aligned to 4 bytes", h->type_off);
	if (h->type_len % 4)
		return diag_err(d, EINVAL, "type_len %u is not a multiple of 4", h->type_len);
	if (h->layout_len) {
		if (h->layout_off % 4 || h->layout_len % 4)
			return diag_err(d, EINVAL, "layout section [%u, +%u) is not 4-byte aligned",
					h->layout_off, h->layout_len);
		if ((uint64_t)h->type_off + h->type_len > h->layout_off ||
		    (uint64_t)h->layout_off + h->layout_len > h->str_off)
			return diag_err(d, EINVAL, "layout section [%u, +%u) not between types and strings",
					h->layout_off, h->layout_len);
	}
	if (h->str_len > 0x7fffffff)
		return diag_err(d, E2BIG, "string section of %u bytes is too large", h->str_len);
	return 0;
}

static int check_strings(const char *s, uint32_t n, uint32_t off, bool split, struct diag *d)
{
	if (!n) {
		if (split)
			return 0;
		return diag_err(d, EINVAL, "offset %u: empty string section in base BTF", off);
	}
	if (s[n - 1])
		return diag_err(d, EINVAL, "offset %u: string section is not NUL-terminated",
				off + n - 1);
	if (!split && s[0])
		return diag_err(d, EINVAL,
				"offset %u: string section does not start with NUL (split BTF parsed without its base?)",
				off);
	return 0;
}

static int bad_str(const struct btf *btf, uint32_t i, uint32_t types_at, uint32_t off,
		   uint32_t send, struct diag *d)
{
	const struct btf_type *t = (const struct btf_type *)(btf->types + btf->index[i]);

	return diag_err(d, EINVAL,
			"type [%u] %s at offset %u: string offset %u beyond the string section (%u)",
			btf->start_id + i, btf_kind_str(btf_kind(t)), types_at + btf->index[i] * 4,
			off, send);
}

static int bad_id(const struct btf *btf, uint32_t i, uint32_t types_at, uint32_t ref, uint32_t n,
		  struct diag *d)
{
	const struct btf_type *t = (const struct btf_type *)(btf->types + btf->index[i]);

	return diag_err(d, EINVAL,
			"type [%u] %s at offset %u: reference to type id %u beyond the last id %u",
			btf->start_id + i, btf_kind_str(btf_kind(t)), types_at + btf->index[i] * 4,
			ref, n - 1);
}

/*
 * The generic field walk (btf_field_iter) for one record: strings first,
 * then ids, each in field order.  Used for kinds only a layout describes.
 */
static int sanity_generic(const struct btf *btf, uint32_t i, uint32_t types_at, uint32_t send,
			  uint32_t n, struct diag *d)
{
	struct btf_type *t = (struct btf_type *)(btf->types + btf->index[i]);
	struct btf_field_iter it;
	uint32_t *p;

	if (btf_field_iter_init(&it, t, BTF_FIELD_STRS))
		return 0;	/* unknown kind described by the layout */
	while ((p = btf_field_iter_next(&it)))
		if (*p >= send)
			return bad_str(btf, i, types_at, *p, send, d);
	btf_field_iter_init(&it, t, BTF_FIELD_IDS);
	while ((p = btf_field_iter_next(&it)))
		if (*p >= n)
			return bad_id(btf, i, types_at, *p, n, d);
	return 0;
}

/*
 * The string offsets and type ids of a record of kind k (a constant: see
 * BTF_KIND_DISPATCH) after its name (word 0), in the order btf_field_iter
 * visits them: STRS(at, stride, count) / IDS(at, stride, count) are count
 * fields from word at, stride words apart.  One list for sanity() and
 * quick_sane(), from the kind table; the dispatch makes each kind's code
 * straight-line with constants (a table walked at run time measured 10%
 * slower on a parse of vmlinux).
 */
#define KIND_FIELDS(k, STRS, IDS)						\
	do {									\
		const struct btf_kind_info *ki_ = &btf_kinds[k];		\
		unsigned e_ = 3 + ki_->fixed / 4, f_;				\
										\
		if (ki_->entry_str != BTF_NO_FIELD)				\
			STRS(e_ + ki_->entry_str, ki_->entry / 4, vlen);	\
		for (f_ = 0; f_ < ki_->nids; f_++)				\
			IDS(ki_->ids[f_], 1, 1);				\
		if (ki_->entry_id != BTF_NO_FIELD)				\
			IDS(e_ + ki_->entry_id, ki_->entry / 4, vlen);		\
	} while (0)

/*
 * libbpf-level sanity: strings and ids resolve, FUNC -> FUNC_PROTO, with
 * the exact message for the first field that does not; the same fields
 * in the same order as btf_field_iter visits them, without its per-record
 * set-up.
 */
static int sanity(const struct btf *btf, uint32_t types_at, struct diag *d)
{
	uint32_t i, j, n = btf_type_count(btf), send = btf_strs_end(btf);
	int err;

#define STRS(at, stride, count)							\
	for (j = 0; j < (count); j++)						\
		if (w[(at) + (stride) * j] >= send)				\
			return bad_str(btf, i, types_at, w[(at) + (stride) * j], send, d)
#define IDS(at, stride, count)							\
	for (j = 0; j < (count); j++)						\
		if (w[(at) + (stride) * j] >= n)				\
			return bad_id(btf, i, types_at, w[(at) + (stride) * j], n, d)

	for (i = 0; i < btf->nr_types; i++) {
		const uint32_t *w = btf->types + btf->index[i];
		const struct btf_type *t = (const struct btf_type *)w;
		unsigned vlen = btf_vlen(t);

		if (btf_kind_known(btf_kind(t)) && w[0] >= send)
			return bad_str(btf, i, types_at, w[0], send, d);
#define FIELDS(k) KIND_FIELDS(k, STRS, IDS)
		BTF_KIND_DISPATCH(btf_kind(t), FIELDS,
				  if ((err = sanity_generic(btf, i, types_at, send, n, d))) return err)
#undef FIELDS
		if (btf_kind(t) == BTF_KIND_FUNC) {
			const struct btf_type *pt = btf_type_by_id(btf, t->type);

			if (!pt || btf_kind(pt) != BTF_KIND_FUNC_PROTO)
				return diag_err(d, EINVAL,
						"type [%u] FUNC at offset %u: type %u is not a FUNC_PROTO",
						btf->start_id + i, types_at + btf->index[i] * 4, t->type);
		}
	}
#undef STRS
#undef IDS
	return 0;
}

/*
 * sanity() for one record of a kind this file knows, done while indexing
 * (the record is in cache then): false when sanity() must run over the
 * whole BTF, for its exact message or for what only it checks (kinds a
 * layout describes, a FUNC whose prototype comes later).  Ids are checked
 * against the count at the end, through *maxref.
 */
static bool quick_sane(const struct btf *btf, const uint32_t *w, uint32_t id, uint32_t send,
		       uint32_t *maxref)
{
	const struct btf_type *t = (const struct btf_type *)w;
	unsigned vlen = btf_vlen(t), j;
	uint32_t m = *maxref;
	bool ok = w[0] < send;

#define STRS(at, stride, count) for (j = 0; j < (count); j++) ok &= w[(at) + (stride) * j] < send
#define IDS(at, stride, count) for (j = 0; j < (count); j++) m = MAX(m, w[(at) + (stride) * j])
#define FIELDS(k) KIND_FIELDS(k, STRS, IDS)
	BTF_KIND_DISPATCH(btf_kind(t), FIELDS, return false)
#undef FIELDS
#undef STRS
#undef IDS
	if (btf_kind(t) == BTF_KIND_FUNC) {
		const struct btf_type *pt = t->type < id ? btf_type_by_id(btf, t->type) : NULL;

		ok &= pt && btf_kind(pt) == BTF_KIND_FUNC_PROTO;
	}
	*maxref = m;
	return ok;
}

int btf_parse_flags(const void *data, size_t len, const struct btf *base, unsigned flags,
		    struct btf **out, struct diag *d)
{
	const uint8_t *p = data, *src;
	const struct btf_layout *layout;
	const char *strs;
	struct btf_header h;
	size_t nlayout, i, nwords, off;
	uint32_t send, maxref = 0;
	struct btf *btf;
	bool sw = false, sane = true;
	int err;

	*out = NULL;
	if ((err = btf_parse_header(data, len, &h, &sw, d)))
		return err;
	if ((err = check_sections(&h, len, base != NULL, d)))
		return err;
	if ((err = check_strings((const char *)p + h.hdr_len + h.str_off, h.str_len,
				 h.hdr_len + h.str_off, base != NULL, d)))
		return err;
	btf = mem_zalloc(sizeof(*btf));
	if (!btf)
		return diag_err(d, ENOMEM, "out of memory");
	btf->base = base;
	btf->start_id = base ? btf_type_count(base) : 1;
	btf->start_str_off = base ? btf_strs_end(base) : 0;
	btf->endian = sw ? !btf_host_endian() : btf_host_endian();
	btf->hdr_len = h.hdr_len;
	btf->last_type_kind = -1;
	strs = (const char *)p + h.hdr_len + h.str_off;
	if (flags & BTF_PARSE_BORROW) {
		strset_borrow(&btf->strs, strs, h.str_len);
		err = flags & BTF_PARSE_NO_STR_INDEX ? 0 : strset_index(&btf->strs);
	} else {
		err = (flags & BTF_PARSE_NO_STR_INDEX ? btf_strs_init_raw : strset_init_from)(
			&btf->strs, strs, h.str_len);
	}
	if (err) {
		btf_free(btf);
		return diag_err(d, ENOMEM, "out of memory");
	}
	if ((uint64_t)btf->start_str_off + h.str_len > 0x7fffffff) {
		err = diag_err(d, E2BIG, "string space of %llu bytes is too large",
			       (unsigned long long)btf->start_str_off + h.str_len);
		goto fail;
	}

	/* Layout section. */
	if (h.hdr_len >= BTF_HDR_LEN_LAYOUT && h.layout_len) {
		btf->nlayout = h.layout_len / 4;
		btf->layout = mem_alloc(h.layout_len);
		if (!btf->layout) {
			err = diag_err(d, ENOMEM, "out of memory");
			goto fail;
		}
		memcpy(btf->layout, p + h.hdr_len + h.layout_off, h.layout_len);
		if (sw)
			for (i = 0; i < btf->nlayout; i++)
				btf->layout[i].flags = bswap16(btf->layout[i].flags);
	}
	layout = btf->layout;
	nlayout = btf->nlayout;
	for (const struct btf *b = base; !layout && b; b = b->base) {
		layout = b->layout;
		nlayout = b->nlayout;
	}

	/* Types: borrow, or copy (and swap) as words; then index. */
	nwords = h.type_len / 4;
	src = p + h.hdr_len + h.type_off;
	if ((flags & BTF_PARSE_BORROW) && !sw && !((uintptr_t)src % 4)) {
		btf->types = (uint32_t *)src;
		btf->types_borrowed = true;
	} else {
		btf->types_cap = nwords ? nwords : 1;
		btf->types = mem_alloc(btf->types_cap * 4);
		if (!btf->types) {
			err = diag_err(d, ENOMEM, "out of memory");
			goto fail;
		}
		memcpy(btf->types, src, h.type_len);
		if (sw)
			for (i = 0; i < nwords; i++)
				btf->types[i] = bswap32(btf->types[i]);
	}
	btf->types_len = nwords;
	send = btf_strs_end(btf);
	/* Records are at least 3 words: one allocation, of which a big one
	 * (mapped, not touched) costs only the pages the index fills. */
	if (!btf->index && nwords / 3 + 1 <= SIZE_MAX / 4 &&
	    (btf->index = mem_array(nwords / 3 + 1, 4)))
		btf->index_cap = nwords / 3 + 1;
	if (VEC_RESERVE(btf->index, btf->index_cap, nwords / 3 + 1)) {
		err = diag_err(d, ENOMEM, "out of memory");
		goto fail;
	}
	for (off = 0; off < nwords;) {
		uint32_t id = btf->start_id + btf->nr_types;
		const struct btf_type *t = (const void *)(btf->types + off);
		size_t at = h.hdr_len + h.type_off + off * 4;
		int n;

		if (nwords - off < 3) {
			err = diag_err(d, EINVAL, "type [%u] at offset %zu: truncated header (%zu bytes left)",
				       id, at, (nwords - off) * 4);
			goto fail;
		}
		n = btf_type_data_size(t, layout, nlayout);
		if (n < 0) {
			err = diag_err(d, EINVAL, "type [%u] at offset %zu: unknown kind %u (info 0x%08x)",
				       id, at, btf_kind(t), t->info);
			goto fail;
		}
		if ((size_t)n / 4 > nwords - off - 3) {
			err = diag_err(d, EINVAL,
				       "type [%u] %s at offset %zu: record of %d bytes exceeds the type section",
				       id, btf_kind_str(btf_kind(t)), at, 12 + n);
			goto fail;
		}
		if (id > 0x7ffffffe) {
			err = diag_err(d, E2BIG, "too many types");
			goto fail;
		}
		if (btf->nr_types == btf->index_cap &&
		    VEC_RESERVE(btf->index, btf->index_cap, btf->nr_types + 1)) {
			err = diag_err(d, ENOMEM, "out of memory");
			goto fail;
		}
		btf->index[btf->nr_types++] = (uint32_t)off;
		if (sane)
			sane = quick_sane(btf, btf->types + off, id, send, &maxref);
		off += 3 + (size_t)n / 4;
	}
	if (btf->nr_types)
		btf->last_type_kind = (int)btf_kind(btf_type_by_id(btf, btf_type_count(btf) - 1));
	if (!(flags & BTF_PARSE_LENIENT) && (!sane || maxref >= btf_type_count(btf)) &&
	    (err = sanity(btf, h.hdr_len + h.type_off, d)))
		goto fail;
	*out = btf;
	return 0;
fail:
	btf_free(btf);
	return err;
}

int btf_known_of(const struct btf *btf, struct btf_known *k)
{
	memset(k, 0, sizeof(*k));
	if (btf->base || btf->endian != btf_host_endian() || btf->layout)
		return -EINVAL;
	k->index = btf->index;
	k->nr_types = btf->nr_types;
	if (btf->strs.nslots) {
		k->str_slots = btf->strs.slots;
		k->str_nslots = btf->strs.nslots;
		k->str_count = btf->strs.count;
	}
	return 0;
}

int btf_parse_known(const void *data, size_t len, const struct btf_known *k, struct btf **out,
		    struct diag *d)
{
	const uint8_t *p = data, *src;
	struct btf_header h;
	struct btf *btf;
	size_t nwords;
	uint32_t i;
	bool sw;
	int err;

	*out = NULL;
	if ((err = btf_parse_header(data, len, &h, &sw, d)) ||
	    (err = check_sections(&h, len, false, d)))
		return err;
	nwords = h.type_len / 4;
	src = p + h.hdr_len + h.type_off;
	if (sw || ((uintptr_t)src % 4) || h.hdr_len != BTF_HDR_LEN || !k->index)
		return diag_err(d, EINVAL, "known parse: not a native-order base BTF");
	/* an index for other bytes must not send a reader out of the section */
	for (i = 0; i < k->nr_types; i++)
		if (k->index[i] + 3 > nwords || (i && k->index[i] <= k->index[i - 1]))
			return diag_err(d, EINVAL, "known parse: the index does not fit the types");
	if (!(btf = mem_zalloc(sizeof(*btf))))
		return diag_err(d, ENOMEM, "out of memory");
	btf->start_id = 1;
	btf->endian = btf_host_endian();
	btf->hdr_len = h.hdr_len;
	btf->types = (uint32_t *)src;
	btf->types_borrowed = true;
	btf->types_len = nwords;
	btf->index = (uint32_t *)k->index;
	btf->index_borrowed = true;
	btf->nr_types = btf->index_cap = k->nr_types;
	btf->last_type_kind = -1;
	if (btf->nr_types)
		btf->last_type_kind = (int)btf_kind(btf_type_by_id(btf, btf->nr_types));
	strset_borrow_indexed(&btf->strs, (const char *)p + h.hdr_len + h.str_off, h.str_len,
			      k->str_slots, k->str_nslots, k->str_count);
	*out = btf;
	return 0;
}

int btf_parse(const void *data, size_t len, const struct btf *base, struct btf **out,
	      struct diag *d)
{
	return btf_parse_flags(data, len, base, 0, out, d);
}

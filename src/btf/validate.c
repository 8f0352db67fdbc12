// SPDX-License-Identifier: GPL-2.0-only
/*
 * The kernel's BTF checks (docs/btf.md 3, kernel/bpf/btf.c), on a raw blob.
 *
 * Kernel mode = what the kernel runs on vmlinux and module BTF: header and
 * section tiling (3.1), string section (3.2), per-type meta checks (3.3),
 * modifier chains / type-tag order (3.6).  Strict mode adds the user-BTF
 * resolve pass and FUNC_PROTO checks (3.4, 3.5) and the 16 MiB size limit.
 * Rule texts are the kernel's log messages, so a finding can be grepped
 * against a verifier log.  The header is read in the blob's own byte order
 * (as a kernel of that byte order would).
 *
 * Meta findings are collected for every record; the resolve pass stops at
 * its first finding, like the kernel (its state is not meaningful after).
 */
#include "btf/btf.h"

#include <stdarg.h>
#include <stdio.h>

#include "base/mem.h"
#include "btf/btf_internal.h"

#define KSYM_NAME_LEN		512
#define MAX_RESOLVE_DEPTH	32
#define BTF_MAX_SIZE		(16 * 1024 * 1024)
#define PTR_SIZE		8	/* a pointer's size when no "long" says otherwise */

enum { NOT_VISITED, VISITED, RESOLVED };
enum { RESOLVE_TBD, RESOLVE_PTR, RESOLVE_STRUCT_OR_ARRAY };

struct vertex {
	uint32_t id;
	uint32_t next_member;
};

struct vctx {
	struct btf_report *rep;
	struct diag *d;
	int first_err;			/* negative errno of the first finding */
	size_t nfind;
	struct btf *btf;		/* the blob as a model (own types only) */
	uint32_t str_len;		/* own string section length */
	/* resolve state, indexed by absolute id */
	uint8_t *state;
	uint32_t *rid, *rsize;
	uint32_t checked_from;		/* ids below are treated as resolved */
	bool quiet;			/* resolving the base: no findings */
	int mode;
	uint32_t ptr_size;		/* of the blob's target (guess_ptr_size()) */
	struct vertex stack[MAX_RESOLVE_DEPTH];
	int top;
};

static int finding(struct vctx *v, uint32_t id, int err, const char *fmt, ...) PRINTF_LIKE(4, 5);
static int finding(struct vctx *v, uint32_t id, int err, const char *fmt, ...)
{
	struct btf_finding *f;
	char msg[sizeof(f->msg)];
	const struct btf_type *t;
	va_list ap;
	int n = 0;

	if (v->quiet)
		return -err;
	if (id) {
		t = v->btf ? btf_type_by_id(v->btf, id) : NULL;
		n = snprintf(msg, sizeof(msg), "[%u] %s ", id, t ? btf_kind_str(btf_kind(t)) : "?");
	}
	va_start(ap, fmt);
	vsnprintf(msg + n, sizeof(msg) - n, fmt, ap);
	va_end(ap);
	if (!v->first_err) {
		v->first_err = -err;
		diag_err(v->d, err, "%s", msg);
	}
	v->nfind++;
	if (v->rep) {
		if (v->rep->max && v->rep->n >= v->rep->max) {
			v->rep->dropped++;
		} else if (!VEC_RESERVE(v->rep->items, v->rep->cap, v->rep->n + 1)) {
			f = &v->rep->items[v->rep->n++];
			f->id = id;
			f->err = err;
			memcpy(f->msg, msg, sizeof(msg));
		}
	}
	return -err;
}

void btf_report_free(struct btf_report *rep)
{
	mem_free(rep->items);
	rep->items = NULL;
	rep->n = rep->cap = rep->dropped = 0;
}

/* ---- header (3.1) ----------------------------------------------------- */

struct sec { uint32_t off, len; };

static int check_header(struct vctx *v, const uint8_t *p, size_t len, bool split,
			unsigned flags, struct btf_header *h, bool *sw)
{
	uint32_t w[5] = { 0 };
	uint64_t expected, total = 0;
	struct sec secs[2], tmp;
	size_t i, known;
	uint16_t magic;

	if ((flags & BTF_VALIDATE_STRICT) && len > BTF_MAX_SIZE)
		return finding(v, 0, E2BIG, "BTF size %zu exceeds %d", len, BTF_MAX_SIZE);
	if (len < 8)
		return finding(v, 0, EINVAL, "hdr_len not found (blob of %zu bytes)", len);
	magic = load16(p);
	*sw = magic == bswap16(BTF_MAGIC);
	h->hdr_len = load32(p + 4);
	if (*sw)
		h->hdr_len = bswap32(h->hdr_len);
	if (h->hdr_len > len)
		return finding(v, 0, EINVAL, "btf_header not found (hdr_len %u > blob size %zu)",
			       h->hdr_len, len);
	for (i = BTF_HDR_LEN; i < h->hdr_len; i++)
		if (p[i])
			return finding(v, 0, E2BIG, "Unsupported btf_header: non-zero byte at offset %zu", i);
	if (magic != BTF_MAGIC && !*sw)
		return finding(v, 0, EINVAL, "Invalid magic: 0x%04x", magic);
	if (p[2] != BTF_VERSION)
		return finding(v, 0, BTF_ENOTSUPP, "Unsupported version: %u", p[2]);
	if (p[3])
		return finding(v, 0, BTF_ENOTSUPP, "Unsupported flags: 0x%x", p[3]);
	if (!split && len == h->hdr_len)
		return finding(v, 0, EINVAL, "No data");
	known = MIN(h->hdr_len, (uint32_t)BTF_HDR_LEN);
	for (i = 0; 8 + 4 * i + 4 <= known; i++)
		w[i] = *sw ? bswap32(load32(p + 8 + 4 * i)) : load32(p + 8 + 4 * i);
	h->type_off = w[0];
	h->type_len = w[1];
	h->str_off = w[2];
	h->str_len = w[3];

	/* Sections must tile the bytes after the header exactly. */
	secs[0] = (struct sec){ h->type_off, h->type_len };
	secs[1] = (struct sec){ h->str_off, h->str_len };
	if (secs[1].off < secs[0].off || (secs[1].off == secs[0].off && secs[1].len < secs[0].len)) {
		tmp = secs[0];
		secs[0] = secs[1];
		secs[1] = tmp;
	}
	expected = len - h->hdr_len;
	for (i = 0; i < 2; i++) {
		if (secs[i].off > expected)
			return finding(v, 0, EINVAL, "Invalid section offset: %u", secs[i].off);
		if (secs[i].off > total)
			return finding(v, 0, EINVAL, "Unsupported section found: gap at offset %llu",
				       (unsigned long long)total);
		if (secs[i].off < total)
			return finding(v, 0, EINVAL, "Section overlap found at offset %u", secs[i].off);
		if (secs[i].len > expected - total)
			return finding(v, 0, EINVAL, "Total section length too long: %u", secs[i].len);
		total += secs[i].len;
	}
	if (total != expected)
		return finding(v, 0, EINVAL, "Unsupported section found: %llu trailing bytes",
			       (unsigned long long)(expected - total));
	if ((uint64_t)h->str_off + h->str_len != expected)
		return finding(v, 0, EINVAL, "String section is not at the end");
	return 0;
}

/* ---- names (3.2) ------------------------------------------------------ */

static bool name_off_valid(const struct vctx *v, uint32_t off)
{
	const struct btf *b = v->btf;

	if (off > BTF_MAX_NAME_OFFSET)
		return false;
	if (off >= b->start_str_off)
		return off - b->start_str_off < v->str_len;
	b = b->base;
	while (off < b->start_str_off)
		b = b->base;
	return off - b->start_str_off < b->strs.len;
}

static const char *str_at(const struct vctx *v, uint32_t off)
{
	const char *s = btf_name(v->btf, off);

	return s ? s : "";
}

static bool c_alpha(int c) { return (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z'); }
static bool c_alnum(int c) { return c_alpha(c) || (c >= '0' && c <= '9'); }

static bool valid_identifier(const struct vctx *v, uint32_t off)
{
	const unsigned char *s = (const unsigned char *)str_at(v, off);
	size_t i;

	if (!c_alpha(s[0]) && s[0] != '_' && s[0] != '.')
		return false;
	for (i = 1; s[i] && i < KSYM_NAME_LEN; i++)
		if (!c_alnum(s[i]) && s[i] != '_' && s[i] != '.')
			return false;
	return !s[i];
}

static bool valid_section_name(const struct vctx *v, uint32_t off)
{
	const unsigned char *s = (const unsigned char *)str_at(v, off);
	size_t i;

	if (!s[0])
		return false;
	for (i = 0; s[i] && i < KSYM_NAME_LEN; i++)
		if (!((s[i] >= 0x20 && s[i] < 0x7f) || s[i] >= 0xa0))	/* kernel isprint() */
			return false;
	return !s[i];
}

/* ---- per-type meta checks (3.3) --------------------------------------- */

#define ID_VALID(x) ((x) <= BTF_MAX_TYPE)
#define ROUNDUP_BYTES(bits) (((uint64_t)(bits) + 7) / 8)

static int meta_left(struct vctx *v, uint32_t id, size_t left, size_t need)
{
	return finding(v, id, EINVAL, "meta_left:%zu meta_needed:%zu", left, need);
}

static bool is_pow2(uint32_t x) { return x && !(x & (x - 1)); }

/*
 * Checks of one record whose header and trailing data fit.  One piece
 * (230 lines): a table, one case per kind, each a chain of the kernel's
 * btf_*_check_meta checks in the kernel's order with its message; the
 * cases share only v, id and t, and side by side they read against the
 * kernel's.
 */
static void check_meta(struct vctx *v, uint32_t id, const struct btf_type *t)
{
	enum btf_kind kind = btf_kind(t);
	unsigned vlen = btf_vlen(t), i;
	bool kflag = btf_kflag(t);

	switch (kind) {
	case BTF_KIND_INT: {
		uint32_t w = btf_int_word(t), bits = BTF_INT_BITS(w) + BTF_INT_OFFSET(w);
		unsigned enc = BTF_INT_ENCODING(w);

		if (vlen)
			finding(v, id, EINVAL, "vlen != 0: %u", vlen);
		else if (kflag)
			finding(v, id, EINVAL, "Invalid btf_info kind_flag");
		else if (w & ~0x0fffffffu)
			finding(v, id, EINVAL, "Invalid int_data:%x", w);
		else if (bits > 128)
			finding(v, id, EINVAL, "nr_bits exceeds 128: %u", bits);
		else if (ROUNDUP_BYTES(bits) > t->size)
			finding(v, id, EINVAL, "nr_bits exceeds type_size: %u bits in %u bytes", bits,
				t->size);
		else if (enc && enc != BTF_INT_SIGNED && enc != BTF_INT_CHAR && enc != BTF_INT_BOOL)
			finding(v, id, BTF_ENOTSUPP, "Unsupported encoding: 0x%x", enc);
		break;
	}
	case BTF_KIND_PTR:
	case BTF_KIND_TYPEDEF:
	case BTF_KIND_VOLATILE:
	case BTF_KIND_CONST:
	case BTF_KIND_RESTRICT:
	case BTF_KIND_TYPE_TAG:
		if (vlen)
			finding(v, id, EINVAL, "vlen != 0: %u", vlen);
		else if (kflag && kind != BTF_KIND_TYPE_TAG)
			finding(v, id, EINVAL, "Invalid btf_info kind_flag");
		else if (!ID_VALID(t->type))
			finding(v, id, EINVAL, "Invalid type_id: %u", t->type);
		else if (kind == BTF_KIND_TYPEDEF && (!t->name_off || !valid_identifier(v, t->name_off)))
			finding(v, id, EINVAL, "Invalid name: '%.64s'", str_at(v, t->name_off));
		else if (kind == BTF_KIND_TYPE_TAG && !str_at(v, t->name_off)[0])
			finding(v, id, EINVAL, "Invalid name: empty type tag");
		else if (kind != BTF_KIND_TYPEDEF && kind != BTF_KIND_TYPE_TAG && t->name_off)
			finding(v, id, EINVAL, "Invalid name: '%.64s' (must be anonymous)",
				str_at(v, t->name_off));
		break;
	case BTF_KIND_FWD:
		if (vlen)
			finding(v, id, EINVAL, "vlen != 0: %u", vlen);
		else if (t->type)
			finding(v, id, EINVAL, "type != 0: %u", t->type);
		else if (!t->name_off || !valid_identifier(v, t->name_off))
			finding(v, id, EINVAL, "Invalid name: '%.64s'", str_at(v, t->name_off));
		break;
	case BTF_KIND_ARRAY: {
		const struct btf_array *a = btf_array(t);

		if (t->name_off)
			finding(v, id, EINVAL, "Invalid name: '%.64s' (must be anonymous)",
				str_at(v, t->name_off));
		else if (vlen)
			finding(v, id, EINVAL, "vlen != 0: %u", vlen);
		else if (kflag)
			finding(v, id, EINVAL, "Invalid btf_info kind_flag");
		else if (t->size)
			finding(v, id, EINVAL, "size != 0: %u", t->size);
		else if (!a->type || !ID_VALID(a->type))
			finding(v, id, EINVAL, "Invalid elem: %u", a->type);
		else if (!a->index_type || !ID_VALID(a->index_type))
			finding(v, id, EINVAL, "Invalid index: %u", a->index_type);
		break;
	}
	case BTF_KIND_STRUCT:
	case BTF_KIND_UNION: {
		const struct btf_member *m = btf_members(t);
		uint32_t last = 0;

		if (t->name_off && !valid_identifier(v, t->name_off)) {
			finding(v, id, EINVAL, "Invalid name: '%.64s'", str_at(v, t->name_off));
			break;
		}
		for (i = 0; i < vlen; i++, m++) {
			uint32_t off = btf_member_bit_offset(t, m);

			if (!name_off_valid(v, m->name_off)) {
				finding(v, id, EINVAL, "member #%u: Invalid member name_offset:%u", i,
					m->name_off);
				break;
			}
			if (m->name_off && !valid_identifier(v, m->name_off)) {
				finding(v, id, EINVAL, "member #%u: Invalid member name: '%.64s'", i,
					str_at(v, m->name_off));
				break;
			}
			if (!m->type || !ID_VALID(m->type)) {
				finding(v, id, EINVAL, "member '%.64s': Invalid type_id: %u",
					str_at(v, m->name_off), m->type);
				break;
			}
			if (kind == BTF_KIND_UNION && off) {
				finding(v, id, EINVAL, "member '%.64s': Invalid member bits_offset: %u (union)",
					str_at(v, m->name_off), off);
				break;
			}
			if (last > off) {
				finding(v, id, EINVAL, "member '%.64s': Invalid member bits_offset: %u < %u",
					str_at(v, m->name_off), off, last);
				break;
			}
			if (ROUNDUP_BYTES(off) > t->size) {
				finding(v, id, EINVAL,
					"member '%.64s': Member bits_offset exceeds its struct size: %u > %u bytes",
					str_at(v, m->name_off), off, t->size);
				break;
			}
			last = off;
		}
		break;
	}
	case BTF_KIND_ENUM:
	case BTF_KIND_ENUM64: {
		bool e64 = kind == BTF_KIND_ENUM64;

		if (t->size > 8 || !is_pow2(t->size)) {
			finding(v, id, EINVAL, "Unexpected size: %u", t->size);
			break;
		}
		if (t->name_off && !valid_identifier(v, t->name_off)) {
			finding(v, id, EINVAL, "Invalid name: '%.64s'", str_at(v, t->name_off));
			break;
		}
		for (i = 0; i < vlen; i++) {
			uint32_t noff = e64 ? btf_enum64s(t)[i].name_off : btf_enums(t)[i].name_off;

			if (!name_off_valid(v, noff)) {
				finding(v, id, EINVAL, "value #%u: Invalid name_offset:%u", i, noff);
				break;
			}
			if (!noff || !valid_identifier(v, noff)) {
				finding(v, id, EINVAL, "value #%u: Invalid name: '%.64s'", i, str_at(v, noff));
				break;
			}
		}
		break;
	}
	case BTF_KIND_FUNC_PROTO:
		if (t->name_off)
			finding(v, id, EINVAL, "Invalid name: '%.64s' (must be anonymous)",
				str_at(v, t->name_off));
		else if (kflag)
			finding(v, id, EINVAL, "Invalid btf_info kind_flag");
		break;
	case BTF_KIND_FUNC:
		if (!t->name_off || !valid_identifier(v, t->name_off))
			finding(v, id, EINVAL, "Invalid name: '%.64s'", str_at(v, t->name_off));
		else if (vlen > BTF_FUNC_GLOBAL)
			finding(v, id, EINVAL, "Invalid func linkage: %u", vlen);
		else if (kflag)
			finding(v, id, EINVAL, "Invalid btf_info kind_flag");
		break;
	case BTF_KIND_VAR:
		if (vlen)
			finding(v, id, EINVAL, "vlen != 0: %u", vlen);
		else if (kflag)
			finding(v, id, EINVAL, "Invalid btf_info kind_flag");
		else if (!t->name_off || !valid_identifier(v, t->name_off))
			finding(v, id, EINVAL, "Invalid name: '%.64s'", str_at(v, t->name_off));
		else if (!t->type || !ID_VALID(t->type))
			finding(v, id, EINVAL, "Invalid type_id: %u", t->type);
		else if (btf_var(t)->linkage > BTF_VAR_GLOBAL_ALLOCATED)
			finding(v, id, EINVAL, "Linkage not supported: %u", btf_var(t)->linkage);
		break;
	case BTF_KIND_DATASEC: {
		const struct btf_var_secinfo *s = btf_secinfos(t);
		uint64_t last_end = 0, sum = 0;

		if (!t->size) {
			finding(v, id, EINVAL, "size == 0");
			break;
		}
		if (kflag) {
			finding(v, id, EINVAL, "Invalid btf_info kind_flag");
			break;
		}
		if (!t->name_off || !valid_section_name(v, t->name_off)) {
			finding(v, id, EINVAL, "Invalid name: '%.64s'", str_at(v, t->name_off));
			break;
		}
		for (i = 0; i < vlen; i++, s++) {
			if (!s->type || !ID_VALID(s->type)) {
				finding(v, id, EINVAL, "entry #%u: Invalid type_id: %u", i, s->type);
				break;
			}
			if (s->offset < last_end || s->offset >= t->size) {
				finding(v, id, EINVAL, "entry #%u: Invalid offset: %u", i, s->offset);
				break;
			}
			if (!s->size || s->size > t->size) {
				finding(v, id, EINVAL, "entry #%u: Invalid size: %u", i, s->size);
				break;
			}
			last_end = (uint64_t)s->offset + s->size;
			if (last_end > t->size) {
				finding(v, id, EINVAL, "entry #%u: Invalid offset+size: %llu > %u", i,
					(unsigned long long)last_end, t->size);
				break;
			}
			sum += s->size;
		}
		if (i == vlen && sum > t->size)
			finding(v, id, EINVAL, "Invalid btf_info size: %u < %llu", t->size,
				(unsigned long long)sum);
		break;
	}
	case BTF_KIND_FLOAT:
		if (vlen)
			finding(v, id, EINVAL, "vlen != 0: %u", vlen);
		else if (kflag)
			finding(v, id, EINVAL, "Invalid btf_info kind_flag");
		else if (t->size != 2 && t->size != 4 && t->size != 8 && t->size != 12 && t->size != 16)
			finding(v, id, EINVAL, "Invalid type_size: %u", t->size);
		break;
	case BTF_KIND_DECL_TAG:
		if (!str_at(v, t->name_off)[0])
			finding(v, id, EINVAL, "Invalid value: empty decl tag");
		else if (vlen)
			finding(v, id, EINVAL, "vlen != 0: %u", vlen);
		else if (btf_decl_tag(t)->component_idx < -1)
			finding(v, id, EINVAL, "Invalid component_idx: %d", btf_decl_tag(t)->component_idx);
		break;
	case BTF_KIND_UNKN:
		break;
	}
}

/* Walk the records like btf_check_all_metas(); build the id index. */
static int check_all_metas(struct vctx *v)
{
	struct btf *btf = v->btf;
	size_t off = 0, n = btf->types_len;

	while (off < n) {
		uint32_t id = btf->start_id + btf->nr_types;
		const struct btf_type *t = (const void *)(btf->types + off);
		size_t left = (n - off) * 4;
		int data;

		if (left < sizeof(*t))
			return meta_left(v, id, left, sizeof(*t));
		left -= sizeof(*t);
		if (t->info & ~0x9f00ffffu)
			return finding(v, id, EINVAL, "Invalid btf_info:%x", t->info);
		if (!btf_kind_known(btf_kind(t)))
			return finding(v, id, EINVAL, "Invalid kind:%u", btf_kind(t));
		data = btf_type_data_size(t, NULL, 0);
		if ((size_t)data > left)
			return meta_left(v, id, left, (size_t)data);
		if (id >= BTF_MAX_TYPE)
			return finding(v, id, E2BIG, "Exceeded max num of types: %u", id);
		if (VEC_RESERVE(btf->index, btf->index_cap, btf->nr_types + 1))
			return diag_err(v->d, ENOMEM, "out of memory");
		btf->index[btf->nr_types++] = (uint32_t)off;
		if (!name_off_valid(v, t->name_off))
			finding(v, id, EINVAL, "Invalid name_offset:%u", t->name_off);
		else
			check_meta(v, id, t);
		off += 3 + (size_t)data / 4;
	}
	return v->first_err;
}

/* ---- type tags and modifier chains (3.6) ------------------------------ */

static void check_type_tags(struct vctx *v)
{
	const struct btf *btf = v->btf;
	uint32_t id, n = btf_type_count(btf), good = btf->start_id - 1;

	for (id = btf->start_id; id < n; id++) {
		const struct btf_type *t = btf_type_by_id(btf, id);
		int limit = MAX_RESOLVE_DEPTH;
		uint32_t cur = id;
		bool in_tags;

		if (!btf_is_modifier_kind(btf_kind(t)))
			continue;
		in_tags = btf_kind(t) == BTF_KIND_TYPE_TAG;
		while (btf_is_modifier_kind(btf_kind(t))) {
			if (!limit--) {
				finding(v, id, ELOOP, "Max chain length or cycle detected");
				break;
			}
			if (btf_kind(t) == BTF_KIND_TYPE_TAG) {
				if (!in_tags) {
					finding(v, id, EINVAL, "Type tags don't precede modifiers");
					break;
				}
			} else {
				in_tags = false;
			}
			/* Chains into already checked ids stop there (kernel's good_id). */
			if (cur <= good)
				break;
			cur = t->type;
			t = btf_type_by_id(btf, cur);
			if (!t) {
				finding(v, id, EINVAL, "Invalid type_id: modifier chain reaches missing type %u",
					cur);
				break;
			}
		}
		good = id;
	}
}

/* ---- resolve pass (3.4, 3.5) ------------------------------------------ */

static const struct btf_type *tby(const struct vctx *v, uint32_t id)
{
	return btf_type_by_id(v->btf, id);
}


static bool k_is(const struct btf_type *t, unsigned k) { return t && btf_kind(t) == k; }
static bool is_void(const struct btf_type *t) { return t && btf_kind(t) == BTF_KIND_UNKN; }
static bool is_struct(const struct btf_type *t) { return t && btf_is_composite_kind(btf_kind(t)); }
static bool is_mod(const struct btf_type *t) { return t && btf_is_modifier_kind(btf_kind(t)); }

/*
 * The pointer size of the BTF's target, as libbpf guesses it: the size of
 * its first "long" INT (4 or 8), else 8.  A kernel checks pointers at its
 * own size, so BTF of a 32-bit target is checked as a 32-bit kernel would.
 */
static uint32_t guess_ptr_size(const struct vctx *v)
{
	static const char *const longs[] = {
		"long", "long int", "int long", "unsigned long", "long unsigned",
		"unsigned long int", "unsigned int long", "long unsigned int",
		"long int unsigned", "int unsigned long", "int long unsigned",
	};
	uint32_t id, n = btf_type_count(v->btf);
	size_t i;

	for (id = 1; id < n; id++) {
		const struct btf_type *t = tby(v, id);
		const char *name;

		if (!k_is(t, BTF_KIND_INT) || (t->size != 4 && t->size != 8) ||
		    !(name = btf_name(v->btf, t->name_off)))
			continue;
		for (i = 0; i < ARRAY_SIZE(longs); i++)
			if (!strcmp(name, longs[i]))
				return t->size;
	}
	return PTR_SIZE;
}

static bool source_only(const struct btf_type *t)
{
	switch (btf_kind(t)) {
	case BTF_KIND_VAR: case BTF_KIND_DATASEC: case BTF_KIND_DECL_TAG:
		return true;
	case BTF_KIND_UNKN: case BTF_KIND_INT: case BTF_KIND_PTR: case BTF_KIND_ARRAY:
	case BTF_KIND_STRUCT: case BTF_KIND_UNION: case BTF_KIND_ENUM: case BTF_KIND_FWD:
	case BTF_KIND_TYPEDEF: case BTF_KIND_VOLATILE: case BTF_KIND_CONST:
	case BTF_KIND_RESTRICT: case BTF_KIND_FUNC: case BTF_KIND_FUNC_PROTO:
	case BTF_KIND_FLOAT: case BTF_KIND_TYPE_TAG: case BTF_KIND_ENUM64:
		break;
	}
	return false;
}

static bool nosize_or_null(const struct btf_type *t)
{
	if (!t)
		return true;
	switch (btf_kind(t)) {
	case BTF_KIND_UNKN: case BTF_KIND_FWD: case BTF_KIND_FUNC: case BTF_KIND_FUNC_PROTO:
	case BTF_KIND_DECL_TAG:
		return true;
	case BTF_KIND_INT: case BTF_KIND_PTR: case BTF_KIND_ARRAY: case BTF_KIND_STRUCT:
	case BTF_KIND_UNION: case BTF_KIND_ENUM: case BTF_KIND_TYPEDEF: case BTF_KIND_VOLATILE:
	case BTF_KIND_CONST: case BTF_KIND_RESTRICT: case BTF_KIND_VAR: case BTF_KIND_DATASEC:
	case BTF_KIND_FLOAT: case BTF_KIND_TYPE_TAG: case BTF_KIND_ENUM64:
		break;
	}
	return false;
}

static bool has_size(const struct btf_type *t)
{
	switch (btf_kind(t)) {
	case BTF_KIND_INT: case BTF_KIND_STRUCT: case BTF_KIND_UNION: case BTF_KIND_ENUM:
	case BTF_KIND_DATASEC: case BTF_KIND_FLOAT: case BTF_KIND_ENUM64:
		return true;
	case BTF_KIND_UNKN: case BTF_KIND_PTR: case BTF_KIND_ARRAY: case BTF_KIND_FWD:
	case BTF_KIND_TYPEDEF: case BTF_KIND_VOLATILE: case BTF_KIND_CONST:
	case BTF_KIND_RESTRICT: case BTF_KIND_FUNC: case BTF_KIND_FUNC_PROTO:
	case BTF_KIND_VAR: case BTF_KIND_DECL_TAG: case BTF_KIND_TYPE_TAG:
	default:
		return false;
	}
}

static bool needs_resolve(const struct btf_type *t)
{
	switch (btf_kind(t)) {
	case BTF_KIND_PTR: case BTF_KIND_ARRAY: case BTF_KIND_STRUCT: case BTF_KIND_UNION:
	case BTF_KIND_TYPEDEF: case BTF_KIND_VOLATILE: case BTF_KIND_CONST:
	case BTF_KIND_RESTRICT: case BTF_KIND_FUNC: case BTF_KIND_VAR: case BTF_KIND_DATASEC:
	case BTF_KIND_DECL_TAG: case BTF_KIND_TYPE_TAG:
		return true;
	case BTF_KIND_UNKN: case BTF_KIND_INT: case BTF_KIND_ENUM: case BTF_KIND_FWD:
	case BTF_KIND_FUNC_PROTO: case BTF_KIND_FLOAT: case BTF_KIND_ENUM64:
		break;
	}
	return false;
}

static bool int_regular(const struct btf_type *t)
{
	uint32_t w = btf_int_word(t), bits = BTF_INT_BITS(w), bytes = (bits + 7) / 8;

	return !(bits % 8) && !BTF_INT_OFFSET(w) && !(bytes & (bytes - 1));
}

static bool is_resolved(const struct vctx *v, uint32_t id)
{
	return id < v->checked_from || v->state[id] == RESOLVED;
}

static bool is_sink(const struct vctx *v, const struct btf_type *t)
{
	switch (v->mode) {
	case RESOLVE_TBD:
		return !needs_resolve(t);
	case RESOLVE_PTR:
		return !is_mod(t) && !k_is(t, BTF_KIND_PTR);
	default:
		return !is_mod(t) && !k_is(t, BTF_KIND_ARRAY) && !is_struct(t);
	}
}

static int push(struct vctx *v, uint32_t id)
{
	const struct btf_type *t = tby(v, id);

	if (v->top == MAX_RESOLVE_DEPTH)
		return -E2BIG;
	if (v->state[id] != NOT_VISITED)
		return -EEXIST;
	v->state[id] = VISITED;
	v->stack[v->top].id = id;
	v->stack[v->top].next_member = 0;
	v->top++;
	if (v->mode == RESOLVE_TBD) {
		if (k_is(t, BTF_KIND_PTR))
			v->mode = RESOLVE_PTR;
		else if (is_struct(t) || k_is(t, BTF_KIND_ARRAY))
			v->mode = RESOLVE_STRUCT_OR_ARRAY;
	}
	return 0;
}

static void pop_resolved(struct vctx *v, uint32_t rid, uint32_t rsize)
{
	uint32_t id = v->stack[--v->top].id;

	v->rid[id] = rid;
	v->rsize[id] = rsize;
	v->state[id] = RESOLVED;
}

static const struct btf_type *id_resolve(const struct vctx *v, uint32_t *id)
{
	*id = v->rid[*id];
	return tby(v, *id);
}

/* btf_type_id_size(): the sized type behind id (through one resolved hop). */
static const struct btf_type *id_size(const struct vctx *v, uint32_t *id, uint32_t *size)
{
	uint32_t sid = *id, sz;
	const struct btf_type *t = tby(v, sid);

	if (nosize_or_null(t))
		return NULL;
	if (has_size(t)) {
		sz = t->size;
	} else if (k_is(t, BTF_KIND_ARRAY)) {
		sz = v->rsize[sid];
	} else if (k_is(t, BTF_KIND_PTR)) {
		sz = v->ptr_size;
	} else {
		if (!is_mod(t) && !k_is(t, BTF_KIND_VAR))
			return NULL;
		sid = v->rid[sid];
		t = tby(v, sid);
		if (nosize_or_null(t))
			return NULL;
		if (has_size(t))
			sz = t->size;
		else if (k_is(t, BTF_KIND_ARRAY))
			sz = v->rsize[sid];
		else if (k_is(t, BTF_KIND_PTR))
			sz = v->ptr_size;
		else
			return NULL;
	}
	*id = sid;
	if (size)
		*size = sz;
	return t;
}

static int cur_finding(struct vctx *v, int err, const char *fmt, ...) PRINTF_LIKE(3, 4);
static int cur_finding(struct vctx *v, int err, const char *fmt, ...)
{
	char buf[160];
	va_list ap;

	va_start(ap, fmt);
	vsnprintf(buf, sizeof(buf), fmt, ap);
	va_end(ap);
	return finding(v, v->stack[v->top - 1].id, err, "%s", buf);
}

static int modifier_or_ptr_resolve(struct vctx *v, const struct btf_type *t, bool is_ptr,
				   bool is_var)
{
	uint32_t next_id = t->type;
	const struct btf_type *next = tby(v, next_id);

	if (!next || source_only(next))
		return cur_finding(v, EINVAL, "Invalid type_id: %u", next_id);
	if (!is_sink(v, next) && !is_resolved(v, next_id))
		return push(v, next_id);
	if ((is_ptr || is_var) && is_mod(next)) {
		uint32_t rid = next_id;
		const struct btf_type *rt = id_resolve(v, &rid);

		if (k_is(rt, BTF_KIND_PTR) && !is_sink(v, rt) && !is_resolved(v, rid))
			return push(v, rid);
	}
	if (!id_size(v, &next_id, NULL)) {
		if (is_var)
			return cur_finding(v, EINVAL, "Invalid type_id: %u has no size", t->type);
		if (is_resolved(v, next_id))
			next = id_resolve(v, &next_id);
		if (!is_void(next) && !k_is(next, BTF_KIND_FWD) && !k_is(next, BTF_KIND_FUNC_PROTO))
			return cur_finding(v, EINVAL, "Invalid type_id: %u", t->type);
	}
	pop_resolved(v, next_id, 0);
	return 0;
}

static int array_resolve(struct vctx *v, const struct btf_type *t)
{
	const struct btf_array *a = btf_array(t);
	uint32_t idx_id = a->index_type, elem_id = a->type, esize = 0;
	const struct btf_type *it = tby(v, idx_id), *et;

	if (nosize_or_null(it) || source_only(it))
		return cur_finding(v, EINVAL, "Invalid index: %u", idx_id);
	if (!is_sink(v, it) && !is_resolved(v, idx_id))
		return push(v, idx_id);
	it = id_size(v, &idx_id, NULL);
	if (!it || !k_is(it, BTF_KIND_INT) || !int_regular(it))
		return cur_finding(v, EINVAL, "Invalid index: %u", a->index_type);
	et = tby(v, elem_id);
	if (nosize_or_null(et) || source_only(et))
		return cur_finding(v, EINVAL, "Invalid elem: %u", elem_id);
	if (!is_sink(v, et) && !is_resolved(v, elem_id))
		return push(v, elem_id);
	et = id_size(v, &elem_id, &esize);
	if (!et)
		return cur_finding(v, EINVAL, "Invalid elem: %u", a->type);
	if (k_is(et, BTF_KIND_INT) && !int_regular(et))
		return cur_finding(v, EINVAL, "Invalid array of int: %u", a->type);
	if (a->nelems && esize > UINT32_MAX / a->nelems)
		return cur_finding(v, EINVAL, "Array size overflows U32_MAX: %u x %u", esize, a->nelems);
	pop_resolved(v, elem_id, esize * a->nelems);
	return 0;
}

#define MASKED(bits) ((bits) & 7)

/* check_member / check_kflag_member of the member's (resolved) type. */
static int check_member(struct vctx *v, const struct btf_type *st, const struct btf_member *m0,
			uint32_t mtype, bool kflag_mode)
{
	const struct btf_type *mt = tby(v, mtype);
	const char *mname = str_at(v, m0->name_off);
	uint32_t off = m0->offset, S = st->size, bytes_off, bits;
	uint64_t copy_bits, copy_bytes;

	if (is_mod(mt)) {
		uint32_t rid = mtype;
		const struct btf_type *rt = id_resolve(v, &rid);

		if (!rt)
			return cur_finding(v, EINVAL, "member '%.64s': Invalid member", mname);
		return check_member(v, st, m0, rid, kflag_mode);
	}
	if (!mt)
		return cur_finding(v, EINVAL, "member '%.64s': Invalid member", mname);
	if (kflag_mode) {
		uint32_t w = BTF_MEMBER_BITFIELD_SIZE(off);

		off = BTF_MEMBER_BIT_OFFSET(off);
		switch (btf_kind(mt)) {
		case BTF_KIND_INT:
			if (!int_regular(mt))
				return cur_finding(v, EINVAL, "member '%.64s': Invalid member base type", mname);
			bits = BTF_INT_BITS(btf_int_word(mt));
			if (!w) {
				if (MASKED(off))
					return cur_finding(v, EINVAL, "member '%.64s': Invalid member offset: %u",
							   mname, off);
				w = bits;
			} else if (w > bits) {
				return cur_finding(v, EINVAL,
						   "member '%.64s': Invalid member bitfield_size: %u > %u",
						   mname, w, bits);
			}
			copy_bits = w + MASKED(off);
			if (copy_bits > 128)
				return cur_finding(v, EINVAL, "member '%.64s': nr_copy_bits exceeds 128", mname);
			bytes_off = off / 8;
			copy_bytes = (copy_bits + 7) / 8;
			if (S < bytes_off || S - bytes_off < copy_bytes)
				return cur_finding(v, EINVAL, "member '%.64s': Member exceeds struct_size", mname);
			return 0;
		case BTF_KIND_ENUM:
		case BTF_KIND_ENUM64:
			if (!w) {
				if (MASKED(off))
					return cur_finding(v, EINVAL,
							   "member '%.64s': Member is not byte aligned", mname);
				w = 32;
			} else if (w > 32) {
				return cur_finding(v, EINVAL,
						   "member '%.64s': Invalid member bitfield_size: %u > 32",
						   mname, w);
			}
			if (S < ROUNDUP_BYTES((uint64_t)off + w))
				return cur_finding(v, EINVAL, "member '%.64s': Member exceeds struct_size", mname);
			return 0;
		case BTF_KIND_UNKN: case BTF_KIND_PTR: case BTF_KIND_ARRAY:
		case BTF_KIND_STRUCT: case BTF_KIND_UNION: case BTF_KIND_FWD:
		case BTF_KIND_TYPEDEF: case BTF_KIND_VOLATILE: case BTF_KIND_CONST:
		case BTF_KIND_RESTRICT: case BTF_KIND_FUNC: case BTF_KIND_FUNC_PROTO:
		case BTF_KIND_VAR: case BTF_KIND_DATASEC: case BTF_KIND_FLOAT:
		case BTF_KIND_DECL_TAG: case BTF_KIND_TYPE_TAG:
		default:
			if (w)
				return cur_finding(v, EINVAL,
						   "member '%.64s': Invalid member bitfield_size: %u", mname, w);
			break;	/* then as a kflag-0 member at off */
		}
	}
	bytes_off = off / 8;
	switch (btf_kind(mt)) {
	case BTF_KIND_INT: {
		uint32_t w = btf_int_word(mt);

		if (UINT32_MAX - off < BTF_INT_OFFSET(w))
			return cur_finding(v, EINVAL, "member '%.64s': bits_offset exceeds U32_MAX", mname);
		off += BTF_INT_OFFSET(w);
		bytes_off = off / 8;
		copy_bits = BTF_INT_BITS(w) + MASKED(off);
		copy_bytes = (copy_bits + 7) / 8;
		if (copy_bits > 128)
			return cur_finding(v, EINVAL, "member '%.64s': nr_copy_bits exceeds 128", mname);
		if (S < bytes_off || S - bytes_off < copy_bytes)
			return cur_finding(v, EINVAL, "member '%.64s': Member exceeds struct_size", mname);
		return 0;
	}
	case BTF_KIND_ENUM:
	case BTF_KIND_ENUM64:
	case BTF_KIND_STRUCT:
	case BTF_KIND_UNION:
	case BTF_KIND_PTR:
	case BTF_KIND_ARRAY: {
		uint32_t msize = mt->size;

		if (MASKED(off))
			return cur_finding(v, EINVAL, "member '%.64s': Member is not byte aligned", mname);
		if (k_is(mt, BTF_KIND_PTR)) {
			msize = v->ptr_size;
		} else if (k_is(mt, BTF_KIND_ARRAY)) {
			uint32_t aid = mtype;

			msize = 0;
			id_size(v, &aid, &msize);
		}
		if (S - bytes_off < msize)
			return cur_finding(v, EINVAL, "member '%.64s': Member exceeds struct_size", mname);
		return 0;
	}
	case BTF_KIND_FLOAT: {
		uint32_t align_bits = MIN(v->ptr_size, mt->size) * 8;

		if (off % align_bits)
			return cur_finding(v, EINVAL, "member '%.64s': Member is not properly aligned",
					   mname);
		if ((uint64_t)off / 8 + mt->size > S)
			return cur_finding(v, EINVAL, "member '%.64s': Member exceeds struct_size", mname);
		return 0;
	}
	case BTF_KIND_UNKN: case BTF_KIND_FWD: case BTF_KIND_TYPEDEF: case BTF_KIND_VOLATILE:
	case BTF_KIND_CONST: case BTF_KIND_RESTRICT: case BTF_KIND_FUNC:
	case BTF_KIND_FUNC_PROTO: case BTF_KIND_VAR: case BTF_KIND_DATASEC:
	case BTF_KIND_DECL_TAG: case BTF_KIND_TYPE_TAG:
	default:
		return cur_finding(v, EINVAL, "member '%.64s': Unsupported check_member (%s)", mname,
				   btf_kind_str(btf_kind(mt)));
	}
}

static int struct_resolve(struct vctx *v, const struct btf_type *t)
{
	struct vertex *vx = &v->stack[v->top - 1];
	const struct btf_member *m = btf_members(t);
	unsigned i, vlen = btf_vlen(t);
	int err;

	if (vx->next_member) {
		const struct btf_member *last = &m[vx->next_member - 1];

		if (!is_resolved(v, last->type))
			return cur_finding(v, EINVAL, "member #%u not resolved", vx->next_member - 1);
		if ((err = check_member(v, t, last, last->type, btf_kflag(t))))
			return err;
	}
	for (i = vx->next_member; i < vlen; i++) {
		const struct btf_type *mt = tby(v, m[i].type);

		if (nosize_or_null(mt) || source_only(mt))
			return cur_finding(v, EINVAL, "member '%.64s': Invalid member (type %u)",
					   str_at(v, m[i].name_off), m[i].type);
		if (!is_sink(v, mt) && !is_resolved(v, m[i].type)) {
			vx->next_member = i + 1;
			return push(v, m[i].type);
		}
		if ((err = check_member(v, t, &m[i], m[i].type, btf_kflag(t))))
			return err;
	}
	pop_resolved(v, 0, 0);
	return 0;
}

static int datasec_resolve(struct vctx *v, const struct btf_type *t)
{
	struct vertex *vx = &v->stack[v->top - 1];
	const struct btf_var_secinfo *s = btf_secinfos(t);
	unsigned i, vlen = btf_vlen(t);

	for (i = vx->next_member; i < vlen; i++) {
		const struct btf_type *vt = tby(v, s[i].type);
		uint32_t tid, tsize = 0;

		if (!k_is(vt, BTF_KIND_VAR))
			return cur_finding(v, EINVAL, "entry #%u: Not a VAR kind member: %u", i, s[i].type);
		if (!is_sink(v, vt) && !is_resolved(v, s[i].type)) {
			vx->next_member = i + 1;
			return push(v, s[i].type);
		}
		tid = vt->type;
		if (!id_size(v, &tid, &tsize))
			return cur_finding(v, EINVAL, "entry #%u: Invalid type", i);
		if (s[i].size < tsize)
			return cur_finding(v, EINVAL, "entry #%u: Invalid size: %u < %u", i, s[i].size, tsize);
	}
	pop_resolved(v, 0, 0);
	return 0;
}

static int func_check(struct vctx *v, const struct btf_type *t)
{
	const struct btf_type *proto = tby(v, t->type);
	unsigned i;

	if (!k_is(proto, BTF_KIND_FUNC_PROTO))
		return cur_finding(v, EINVAL, "Invalid type_id: %u is not a FUNC_PROTO", t->type);
	for (i = 0; i < btf_vlen(proto); i++)
		if (!btf_params(proto)[i].name_off && btf_params(proto)[i].type)
			return cur_finding(v, EINVAL, "Invalid arg#%u: unnamed", i + 1);
	pop_resolved(v, t->type, 0);
	return 0;
}

static int decl_tag_resolve(struct vctx *v, const struct btf_type *t)
{
	uint32_t next_id = t->type, vlen;
	const struct btf_type *next = tby(v, next_id);
	int idx = btf_decl_tag(t)->component_idx;

	if (!next || !(k_is(next, BTF_KIND_FUNC) || is_struct(next) || k_is(next, BTF_KIND_VAR) ||
		       k_is(next, BTF_KIND_TYPEDEF)))
		return cur_finding(v, EINVAL, "Invalid type_id: %u", next_id);
	if (!is_sink(v, next) && !is_resolved(v, next_id))
		return push(v, next_id);
	if (idx != -1) {
		if (k_is(next, BTF_KIND_VAR) || k_is(next, BTF_KIND_TYPEDEF))
			return cur_finding(v, EINVAL, "Invalid component_idx: %d", idx);
		if (is_struct(next)) {
			vlen = btf_vlen(next);
		} else {
			const struct btf_type *p = tby(v, next->type);

			vlen = p ? btf_vlen(p) : 0;
		}
		if ((uint32_t)idx >= vlen)
			return cur_finding(v, EINVAL, "Invalid component_idx: %d", idx);
	}
	pop_resolved(v, next_id, 0);
	return 0;
}

static int resolve_one(struct vctx *v)
{
	const struct btf_type *t = tby(v, v->stack[v->top - 1].id);

	switch (btf_kind(t)) {
	case BTF_KIND_PTR:
		return modifier_or_ptr_resolve(v, t, true, false);
	case BTF_KIND_VAR:
		return modifier_or_ptr_resolve(v, t, false, true);
	case BTF_KIND_ARRAY:
		return array_resolve(v, t);
	case BTF_KIND_STRUCT:
	case BTF_KIND_UNION:
		return struct_resolve(v, t);
	case BTF_KIND_DATASEC:
		return datasec_resolve(v, t);
	case BTF_KIND_FUNC:
		return func_check(v, t);
	case BTF_KIND_DECL_TAG:
		return decl_tag_resolve(v, t);
	case BTF_KIND_UNKN: case BTF_KIND_INT: case BTF_KIND_ENUM: case BTF_KIND_FWD:
	case BTF_KIND_TYPEDEF: case BTF_KIND_VOLATILE: case BTF_KIND_CONST:
	case BTF_KIND_RESTRICT: case BTF_KIND_FUNC_PROTO: case BTF_KIND_FLOAT:
	case BTF_KIND_TYPE_TAG: case BTF_KIND_ENUM64:
	default:
		return modifier_or_ptr_resolve(v, t, false, false);
	}
}

static bool resolve_valid(struct vctx *v, uint32_t id)
{
	const struct btf_type *t = tby(v, id);
	uint32_t r = id, eid, esize = 0;
	const struct btf_type *et;

	if (!is_resolved(v, id))
		return false;
	switch (btf_kind(t)) {
	case BTF_KIND_STRUCT: case BTF_KIND_UNION: case BTF_KIND_DATASEC:
		return !v->rid[id] && !v->rsize[id];
	case BTF_KIND_DECL_TAG: case BTF_KIND_FUNC:
		return v->rid[id] && !v->rsize[id];
	case BTF_KIND_TYPEDEF: case BTF_KIND_VOLATILE: case BTF_KIND_CONST: case BTF_KIND_RESTRICT:
	case BTF_KIND_TYPE_TAG: case BTF_KIND_PTR: case BTF_KIND_VAR:
		t = id_resolve(v, &r);
		return t && !is_mod(t) && !k_is(t, BTF_KIND_VAR) && !k_is(t, BTF_KIND_DATASEC);
	case BTF_KIND_ARRAY:
		eid = btf_array(t)->type;
		et = id_size(v, &eid, &esize);
		return et && !is_mod(et) && esize * btf_array(t)->nelems == v->rsize[id];
	case BTF_KIND_UNKN: case BTF_KIND_INT: case BTF_KIND_ENUM: case BTF_KIND_FWD:
	case BTF_KIND_FUNC_PROTO: case BTF_KIND_FLOAT: case BTF_KIND_ENUM64:
		break;
	}
	return false;
}

static int resolve(struct vctx *v, uint32_t id)
{
	int err = 0;

	v->mode = RESOLVE_TBD;
	v->top = 0;
	err = push(v, id);
	while (!err && v->top)
		err = resolve_one(v);
	if (err == -E2BIG)
		err = finding(v, id, E2BIG, "Exceeded max resolving depth:%d", MAX_RESOLVE_DEPTH);
	else if (err == -EEXIST)
		err = finding(v, id, EEXIST, "Loop detected");
	if (!err && !resolve_valid(v, id))
		err = finding(v, id, EINVAL, "Invalid resolve state");
	if (err && v->quiet) {
		/* Base BTF we were only asked to rely on: make it usable and go on. */
		while (v->top)
			pop_resolved(v, 0, 0);
		v->state[id] = RESOLVED;
	}
	return err;
}

static int func_proto_check(struct vctx *v, uint32_t id, const struct btf_type *t)
{
	const struct btf_param *a = btf_params(t);
	unsigned i, n = btf_vlen(t);
	int err;

	if (t->type) {
		uint32_t rid = t->type;
		const struct btf_type *rt = tby(v, rid);

		if (!rt || source_only(rt))
			return finding(v, id, EINVAL, "Invalid return type: %u", rid);
		if (needs_resolve(rt) && !is_resolved(v, rid) && (err = resolve(v, rid)))
			return err;
		if (!id_size(v, &rid, NULL))
			return finding(v, id, EINVAL, "Invalid return type: %u has no size", t->type);
	}
	if (!n)
		return 0;
	if (!a[n - 1].type) {
		if (a[n - 1].name_off)
			return finding(v, id, EINVAL, "Invalid arg#%u: named vararg", n);
		n--;
	}
	for (i = 0; i < n; i++) {
		uint32_t aid = a[i].type;
		const struct btf_type *at = tby(v, aid);

		if (!at || source_only(at))
			return finding(v, id, EINVAL, "Invalid arg#%u: type %u", i + 1, aid);
		if (a[i].name_off && (!name_off_valid(v, a[i].name_off) ||
				      !valid_identifier(v, a[i].name_off)))
			return finding(v, id, EINVAL, "Invalid arg#%u: name '%.64s'", i + 1,
				       str_at(v, a[i].name_off));
		if (needs_resolve(at) && !is_resolved(v, aid) && (err = resolve(v, aid)))
			return err;
		if (!id_size(v, &aid, NULL))
			return finding(v, id, EINVAL, "Invalid arg#%u: type %u has no size", i + 1,
				       a[i].type);
	}
	return 0;
}

static int check_all_types(struct vctx *v)
{
	uint32_t n = btf_type_count(v->btf), id;
	uint32_t own = v->btf->start_id;
	int err;

	v->state = mem_zalloc(n);
	v->rid = mem_array(n, sizeof(*v->rid));
	v->rsize = mem_array(n, sizeof(*v->rsize));
	if (!v->state || !v->rid || !v->rsize)
		return diag_err(v->d, ENOMEM, "out of memory");
	/* Base types first, silently: split references rely on their resolution. */
	v->quiet = true;
	v->checked_from = 1;
	for (id = 1; id < own; id++) {
		const struct btf_type *t = tby(v, id);

		if (needs_resolve(t) && !is_resolved(v, id))
			resolve(v, id);
	}
	v->quiet = false;
	v->checked_from = own;
	for (id = own; id < n; id++) {
		const struct btf_type *t = tby(v, id);

		if (needs_resolve(t) && !is_resolved(v, id) && (err = resolve(v, id)))
			return err;
		if (k_is(t, BTF_KIND_FUNC_PROTO) && (err = func_proto_check(v, id, t)))
			return err;
	}
	return 0;
}

/* ---- entry ------------------------------------------------------------ */

int btf_validate(const void *data, size_t len, const struct btf *base, unsigned flags,
		 struct btf_report *rep, struct diag *d)
{
	struct vctx v = { .rep = rep, .d = d };
	const uint8_t *p = data;
	struct btf_header h = { 0 };
	struct btf *btf = NULL;
	const char *s;
	size_t i;
	bool sw = false;
	int err;

	if ((err = check_header(&v, p, len, base != NULL, flags, &h, &sw)))
		goto out;

	/* String section (3.2). */
	s = (const char *)p + h.hdr_len + h.str_off;
	if (!(base && !h.str_len)) {
		if (!h.str_len || h.str_len - 1 > BTF_MAX_NAME_OFFSET || s[h.str_len - 1]) {
			err = finding(&v, 0, EINVAL, "Invalid string section: length %u%s", h.str_len,
				      h.str_len && s[h.str_len - 1] ? ", not NUL-terminated" : "");
			goto out;
		}
		if (!base && s[0]) {
			err = finding(&v, 0, EINVAL, "Invalid string section: first byte is not NUL");
			goto out;
		}
	}
	if (h.type_off % 4) {
		err = finding(&v, 0, EINVAL, "Unaligned type_off: %u", h.type_off);
		goto out;
	}
	if (!base && !h.type_len) {
		err = finding(&v, 0, EINVAL, "No type found");
		goto out;
	}

	/* The blob as a model (no copy of checks the parser would do). */
	btf = mem_zalloc(sizeof(*btf));
	if (!btf || btf_strs_init_raw(&btf->strs, s, h.str_len)) {
		mem_free(btf);
		btf = NULL;
		err = diag_err(d, ENOMEM, "out of memory");
		goto out;
	}
	btf->base = base;
	btf->start_id = base ? btf_type_count(base) : 1;
	btf->start_str_off = base ? btf_strs_end(base) : 0;
	btf->hdr_len = h.hdr_len;
	btf->types_len = h.type_len / 4;
	btf->types_cap = btf->types_len + 3;	/* room for a truncated last header */
	btf->types = mem_zalloc(btf->types_cap * 4);
	if (!btf->types) {
		err = diag_err(d, ENOMEM, "out of memory");
		goto out;
	}
	memcpy(btf->types, p + h.hdr_len + h.type_off, h.type_len);
	if (sw)
		for (i = 0; i < btf->types_len; i++)
			btf->types[i] = bswap32(btf->types[i]);
	if (h.type_len % 4) {
		/* The kernel walks bytes; a partial word can only be a truncated record. */
		btf->types_len++;
	}
	v.btf = btf;
	v.str_len = h.str_len;

	if ((err = check_all_metas(&v)))
		goto out;
	if (flags & BTF_VALIDATE_STRICT)
		v.ptr_size = guess_ptr_size(&v);
	if ((flags & BTF_VALIDATE_STRICT) && (err = check_all_types(&v)))
		goto out;
	check_type_tags(&v);
	err = v.first_err;
out:
	mem_free(v.state);
	mem_free(v.rid);
	mem_free(v.rsize);
	btf_free(btf);
	if (!err && v.first_err)
		err = v.first_err;
	return err;
}

/* SPDX-License-Identifier: GPL-2.0-only */
/*
 * btf/: the BTF model.  A struct btf holds its own types as one growable
 * buffer of u32 words in host byte order plus an id -> word-offset index,
 * and its own strings in a struct strset.  Split BTF points at an
 * immutable base: own type ids start at the base's type count (void
 * included), own string offsets at the base's total string length.
 *
 * Format constants and record layouts are our own (no <linux/btf.h>); they
 * follow docs/btf-format-and-dedup.md section 1.
 *
 * Errors: functions return a negative errno.  Parse/write/validate record
 * a one-line message in the caller's struct diag; the builder records it
 * in the object (btf_error()).  Nothing here prints.
 *
 * Pointers returned by btf_type_by_id() and btf_name() are invalidated by
 * any btf_add_*() on the same object.
 */
#ifndef BTFC_BTF_H
#define BTFC_BTF_H

#include "base/diag.h"
#include "base/strset.h"

#define BTF_MAGIC		0xeB9F
#define BTF_VERSION		1
#define BTF_HDR_LEN		24	/* classic header */
#define BTF_HDR_LEN_LAYOUT	32	/* extended header with layout section */
#define BTF_MAX_TYPE		0x000fffff	/* kernel limit on type ids */
#define BTF_MAX_NAME_OFFSET	0x00ffffff	/* kernel limit on string offsets */
#define BTF_MAX_VLEN		0xffff

enum {
	BTF_KIND_UNKN		= 0,
	BTF_KIND_INT		= 1,
	BTF_KIND_PTR		= 2,
	BTF_KIND_ARRAY		= 3,
	BTF_KIND_STRUCT		= 4,
	BTF_KIND_UNION		= 5,
	BTF_KIND_ENUM		= 6,
	BTF_KIND_FWD		= 7,
	BTF_KIND_TYPEDEF	= 8,
	BTF_KIND_VOLATILE	= 9,
	BTF_KIND_CONST		= 10,
	BTF_KIND_RESTRICT	= 11,
	BTF_KIND_FUNC		= 12,
	BTF_KIND_FUNC_PROTO	= 13,
	BTF_KIND_VAR		= 14,
	BTF_KIND_DATASEC	= 15,
	BTF_KIND_FLOAT		= 16,
	BTF_KIND_DECL_TAG	= 17,
	BTF_KIND_TYPE_TAG	= 18,
	BTF_KIND_ENUM64		= 19,
	NR_BTF_KINDS,
	BTF_KIND_MAX		= NR_BTF_KINDS - 1,
};

/* INT encoding bits (bits 24..27 of the encoding word). */
#define BTF_INT_SIGNED	(1 << 0)
#define BTF_INT_CHAR	(1 << 1)
#define BTF_INT_BOOL	(1 << 2)

enum { BTF_FUNC_STATIC = 0, BTF_FUNC_GLOBAL = 1, BTF_FUNC_EXTERN = 2 };
enum { BTF_VAR_STATIC = 0, BTF_VAR_GLOBAL_ALLOCATED = 1, BTF_VAR_GLOBAL_EXTERN = 2 };

struct btf_header {
	uint16_t magic;
	uint8_t version;
	uint8_t flags;
	uint32_t hdr_len;
	uint32_t type_off, type_len;
	uint32_t str_off, str_len;
	uint32_t layout_off, layout_len;	/* hdr_len >= 32 only */
};

struct btf_type {
	uint32_t name_off;
	uint32_t info;		/* kflag << 31 | kind << 24 | vlen */
	union {
		uint32_t size;
		uint32_t type;
	};
};

struct btf_array { uint32_t type, index_type, nelems; };
struct btf_member { uint32_t name_off, type, offset; };
struct btf_enum { uint32_t name_off; int32_t val; };
struct btf_enum64 { uint32_t name_off, val_lo32, val_hi32; };
struct btf_param { uint32_t name_off, type; };
struct btf_var { uint32_t linkage; };
struct btf_var_secinfo { uint32_t type, offset, size; };
struct btf_decl_tag { int32_t component_idx; };

/* One entry of the (2026) layout section, indexed by kind. */
struct btf_layout { uint8_t info_sz, elem_sz; uint16_t flags; };

#define BTF_INFO_KIND(i)	(((i) >> 24) & 0x1f)
#define BTF_INFO_VLEN(i)	((i) & 0xffff)
#define BTF_INFO_KFLAG(i)	((i) >> 31)
#define BTF_INFO_ENC(kind, kflag, vlen) \
	((uint32_t)(kflag) << 31 | (uint32_t)(kind) << 24 | (uint32_t)(vlen))
#define BTF_INT_ENCODING(v)	(((v) >> 24) & 0x0f)
#define BTF_INT_OFFSET(v)	(((v) >> 16) & 0xff)
#define BTF_INT_BITS(v)		((v) & 0xff)
#define BTF_MEMBER_BITFIELD_SIZE(o)	((o) >> 24)
#define BTF_MEMBER_BIT_OFFSET(o)	((o) & 0xffffff)

static inline unsigned btf_kind(const struct btf_type *t) { return BTF_INFO_KIND(t->info); }
static inline unsigned btf_vlen(const struct btf_type *t) { return BTF_INFO_VLEN(t->info); }
static inline bool btf_kflag(const struct btf_type *t) { return BTF_INFO_KFLAG(t->info); }
static inline uint32_t btf_int_word(const struct btf_type *t) { return *(const uint32_t *)(t + 1); }
static inline struct btf_array *btf_array(const struct btf_type *t) { return (struct btf_array *)(t + 1); }
static inline struct btf_member *btf_members(const struct btf_type *t) { return (struct btf_member *)(t + 1); }
static inline struct btf_enum *btf_enums(const struct btf_type *t) { return (struct btf_enum *)(t + 1); }
static inline struct btf_enum64 *btf_enum64s(const struct btf_type *t) { return (struct btf_enum64 *)(t + 1); }
static inline struct btf_param *btf_params(const struct btf_type *t) { return (struct btf_param *)(t + 1); }
static inline struct btf_var *btf_var(const struct btf_type *t) { return (struct btf_var *)(t + 1); }
static inline struct btf_var_secinfo *btf_secinfos(const struct btf_type *t) { return (struct btf_var_secinfo *)(t + 1); }
static inline struct btf_decl_tag *btf_decl_tag(const struct btf_type *t) { return (struct btf_decl_tag *)(t + 1); }
static inline uint64_t btf_enum64_value(const struct btf_enum64 *e)
{
	return (uint64_t)e->val_hi32 << 32 | e->val_lo32;
}
static inline uint32_t btf_member_bit_offset(const struct btf_type *t, const struct btf_member *m)
{
	return btf_kflag(t) ? BTF_MEMBER_BIT_OFFSET(m->offset) : m->offset;
}
static inline uint32_t btf_member_bitfield_size(const struct btf_type *t, const struct btf_member *m)
{
	return btf_kflag(t) ? BTF_MEMBER_BITFIELD_SIZE(m->offset) : 0;
}
static inline bool btf_is_modifier_kind(unsigned k)
{
	return k == BTF_KIND_TYPEDEF || k == BTF_KIND_VOLATILE || k == BTF_KIND_CONST ||
	       k == BTF_KIND_RESTRICT || k == BTF_KIND_TYPE_TAG;
}
static inline bool btf_is_composite_kind(unsigned k)
{
	return k == BTF_KIND_STRUCT || k == BTF_KIND_UNION;
}

/* "INT", "PTR", ... or "UNKNOWN" for kinds > BTF_KIND_MAX. */
const char *btf_kind_str(unsigned kind);

/*
 * Bytes of the record after the 12-byte header, from kind and vlen; -EINVAL
 * for kinds not in 1..19 (a layout table, if given, covers unknown kinds:
 * layout has nlayout entries indexed by kind).
 */
int btf_type_data_size(const struct btf_type *t, const struct btf_layout *layout,
		       size_t nlayout);

enum btf_endian { BTF_LITTLE_ENDIAN = 0, BTF_BIG_ENDIAN = 1 };

/* The object.  Fields are private to src/btf/: use the functions below. */
struct btf {
	const struct btf *base;
	uint32_t start_id;		/* first own id (1 for base BTF) */
	uint32_t start_str_off;		/* first own string offset (0 for base BTF) */
	uint32_t nr_types;		/* own types */
	uint32_t *types;		/* own records, host order */
	size_t types_len, types_cap;	/* in words */
	uint32_t *index;		/* own id - start_id -> word offset in types */
	size_t index_cap;
	struct strset strs;		/* own string section */
	/* Blob properties, remembered from parse so that write reproduces it. */
	enum btf_endian endian;
	uint32_t hdr_len;		/* 24 or 32 (32 only with a layout section) */
	struct btf_layout *layout;	/* own layout section, or NULL */
	uint32_t nlayout;		/* entries in layout */
	int last_type_kind;		/* kind of the last added type, for btf_add_member etc. */
	struct diag err;		/* first builder error */
	bool types_borrowed;		/* types point into the parsed blob (BTF_PARSE_BORROW) */
	bool types_inplace;		/* ... and may be written there (BTF_PARSE_WRITABLE) */
	bool index_borrowed;		/* index belongs to the caller (btf_parse_known) */
	bool defer_base_strs;		/* btf_add_str skips the base (btf_defer_base_strs) */
	bool defer_index;		/* adds skip index (btf_defer_index) */
	/* ... and leave a mark (own id - start_id, word offset) every ~64k records */
	struct btf_mark { uint32_t idx; size_t off; } *marks;
	size_t nmarks, marks_cap;
	size_t last_off;		/* word offset of the last added record */
	void (*release)(void *);	/* btf_free() calls release(release_ctx) last */
	void *release_ctx;
};

/* New empty BTF; split on base if base is not NULL (base must outlive it). */
struct btf *btf_new(const struct btf *base);
void btf_free(struct btf *btf);
/*
 * Make a BTF parsed with BTF_PARSE_BORROW own its types (a copy) before
 * they are changed in place.  Every mutator in btf/ and btf_type_mut()
 * call it; code that writes btf->types directly must too.  0 or -ENOMEM.
 */
int btf_own(struct btf *btf);
/*
 * Make the types writable where they are: btf_own() unless they are owned
 * or borrowed from a writable blob (BTF_PARSE_WRITABLE).  For changes that
 * keep every record's place and size (btf_type_mut() calls it); growth
 * needs btf_own().  0 or -ENOMEM.
 */
int btf_writable(struct btf *btf);
/* Have btf_free() call release(ctx), e.g. to unmap the blob a BTF borrows. */
static inline void btf_set_release(struct btf *btf, void (*release)(void *), void *ctx)
{
	btf->release = release;
	btf->release_ctx = ctx;
}

/* Type count including void and the base's types: the next id to be added. */
static inline uint32_t btf_type_count(const struct btf *btf) { return btf->start_id + btf->nr_types; }
static inline uint32_t btf_start_id(const struct btf *btf) { return btf->start_id; }
static inline const struct btf *btf_base(const struct btf *btf) { return btf->base; }
/* Logical string space: [0, btf_strs_end). */
static inline uint32_t btf_strs_end(const struct btf *btf) { return btf->start_str_off + (uint32_t)btf->strs.len; }
/* Own string section bytes. */
static inline const char *btf_strs_data(const struct btf *btf) { return btf->strs.data; }
static inline size_t btf_strs_len(const struct btf *btf) { return btf->strs.len; }
/* First builder error, or NULL. */
static inline const struct diag *btf_error(const struct btf *btf) { return btf->err.code ? &btf->err : NULL; }

/*
 * Type by id; id 0 yields a zeroed "void" record.  NULL when id is out of
 * range.  Ids below start_id are looked up in the base.
 */
const struct btf_type *btf_type_by_id(const struct btf *btf, uint32_t id);
/*
 * Mutable access to an own type (NULL for base ids and void).  A borrowed
 * BTF is copied first (btf_own()); NULL if that copy cannot be allocated.
 */
struct btf_type *btf_type_mut(struct btf *btf, uint32_t id);
/* The record the last btf_add_*() made, writable (NULL if none or on ENOMEM). */
struct btf_type *btf_last_type_mut(struct btf *btf);
/*
 * Append-only building without the id index: the adds skip it, and until
 * btf_build_index() nothing may look a type up by id (btf_type_by_id,
 * btf_type_mut, btf_find_by_name_kind and what calls them).  For a
 * builder that only appends: the index of a kernel image's pre-dedup
 * types is 17 MB, at the moment its conversion holds the most memory.
 * The adds mark a record start every 64k records for a parallel build.
 */
static inline void btf_defer_index(struct btf *btf) { btf->defer_index = true; }
/*
 * Build the id index skipped since btf_defer_index() on up to jobs threads
 * (the marks the adds left split the records); 0 or -errno.
 */
int btf_build_index(struct btf *btf, unsigned jobs);
/* Size in bytes of a whole record (header included). */
static inline size_t btf_type_size(const struct btf_type *t)
{
	int n = btf_type_data_size(t, NULL, 0);

	return n < 0 ? sizeof(*t) : sizeof(*t) + (size_t)n;
}

/* String at a logical offset (walking down the bases), NULL if invalid. */
const char *btf_name(const struct btf *btf, uint32_t off);
/* Logical offset of str if present (base first), else -ENOENT. */
int64_t btf_find_str(const struct btf *btf, const char *str);
/* Build the string lookup index if the parse skipped it.  0 or -ENOMEM. */
int btf_index_strings(struct btf *btf);
/*
 * Seed a new base BTF's string section (nothing added yet) with a copy of
 * a string section, data[0, len), whose string at data + p is at offset
 * p + 1: btf_add_str_at() can then make that copy a text's offset (the
 * encoder's .debug_str: a reference to a string there has its offset
 * from its position).  Text after data's last NUL is left out.  0 or a
 * negative errno.
 */
#define SEED_STRS_MAX (1u << 30)	/* the largest section seeded (-E2BIG) */
int btf_seed_strs(struct btf *btf, const char *data, size_t len);
/*
 * btf_add_str_hashed() of a string a seeded BTF's section holds at offset
 * at: if its text is new, that copy becomes the text's offset, not a new
 * one.
 */
int64_t btf_add_str_at(struct btf *btf, uint32_t at, const char *str, size_t len, uint32_t h);
/* Add str (reusing an offset from the base or own section); offset or -errno. */
int64_t btf_add_str(struct btf *btf, const char *str);
/*
 * Split BTF under construction on a base without a string index: skip the
 * base in btf_add_str(), so the base's ~100k strings need not be hashed
 * into an index for a few thousand lookups, and later map every own
 * string the base also has to the base's offset in one pass over the
 * base's strings (btf_resolve_base_strs).  The result is what adding with
 * the base's index gives: the nearest base level's first copy wins.
 */
static inline void btf_defer_base_strs(struct btf *btf)
{
	const struct btf *b;

	/*
	 * An indexed base answers at once (a batch's shared base, a cached
	 * one): a base string then never enters the own set, and there is
	 * no pass afterwards (a batch of modules: 11% less CPU).
	 */
	for (b = btf->base; b; b = b->base)
		if (!b->strs.nslots)
			btf->defer_base_strs = true;
}
int btf_resolve_base_strs(struct btf *btf, struct diag *d);
/* The same with len = strlen(str) and h = strset_hash(str, len) known. */
int64_t btf_add_str_hashed(struct btf *btf, const char *str, size_t len, uint32_t h);

/*
 * Rebuild the own string section in first-reference order: every string
 * field of every own type in id order (doc section 1.7 field order), each
 * string once, unreferenced strings dropped ("" first for base BTF).  Gives
 * a section that depends only on the types, whatever order strings were
 * added in.
 */
int btf_strings_relayout(struct btf *btf, struct diag *d);
/*
 * The own string offsets the own types refer to, in order of first
 * reference (id order, field order), each once: *out (mem_free) and *n.
 * Taken before a dedup that keeps the section (btf_dedup_opts.keep_strings),
 * it is libbpf's string order: its dedup lays strings out so first.
 */
int btf_strings_first_refs(const struct btf *btf, uint32_t **out, size_t *n, struct diag *d);
/*
 * Rebuild the own string section with order's strings first, in that
 * order, then the others the types refer to (first-reference order);
 * unreferenced strings not in order are dropped.  With order from
 * btf_strings_first_refs() before dedup: libbpf's section after its dedup.
 */
int btf_strings_relayout_order(struct btf *btf, const uint32_t *order, size_t n, struct diag *d);

/* First type (base first, then own, in id order) with that name and kind. */
int btf_find_by_name_kind(const struct btf *btf, const char *name, unsigned kind);

/*
 * Builder.  Each returns the new type id (> 0) or a negative errno; the
 * reason goes to btf->err.  Names may be NULL or "" for anonymous.
 * Compound kinds are opened with vlen 0 and grown by the element adders,
 * which extend the last added type.
 */
int btf_add_int(struct btf *btf, const char *name, uint32_t byte_sz, unsigned encoding);
int btf_add_float(struct btf *btf, const char *name, uint32_t byte_sz);
int btf_add_ptr(struct btf *btf, uint32_t ref);
int btf_add_array(struct btf *btf, uint32_t index_type, uint32_t elem_type, uint32_t nelems);
int btf_add_struct(struct btf *btf, const char *name, uint32_t byte_sz);
int btf_add_union(struct btf *btf, const char *name, uint32_t byte_sz);
/* bitfield_size 0 = not a bitfield; a non-zero one switches the struct to kflag mode. */
int btf_add_member(struct btf *btf, const char *name, uint32_t type, uint32_t bit_offset,
		   uint32_t bitfield_size);
int btf_add_enum(struct btf *btf, const char *name, uint32_t byte_sz);
int btf_add_enum_value(struct btf *btf, const char *name, int64_t value);
int btf_add_enum64(struct btf *btf, const char *name, uint32_t byte_sz, bool is_signed);
int btf_add_enum64_value(struct btf *btf, const char *name, uint64_t value);
/* fwd_kind: BTF_KIND_STRUCT, BTF_KIND_UNION or BTF_KIND_ENUM (a 4-byte ENUM, vlen 0). */
int btf_add_fwd(struct btf *btf, const char *name, unsigned fwd_kind);
int btf_add_typedef(struct btf *btf, const char *name, uint32_t ref);
int btf_add_volatile(struct btf *btf, uint32_t ref);
int btf_add_const(struct btf *btf, uint32_t ref);
int btf_add_restrict(struct btf *btf, uint32_t ref);
int btf_add_type_tag(struct btf *btf, const char *value, uint32_t ref);
int btf_add_func(struct btf *btf, const char *name, unsigned linkage, uint32_t proto);
int btf_add_func_proto(struct btf *btf, uint32_t ret_type);
int btf_add_param(struct btf *btf, const char *name, uint32_t type);
int btf_add_var(struct btf *btf, const char *name, unsigned linkage, uint32_t type);
int btf_add_datasec(struct btf *btf, const char *name, uint32_t byte_sz);
int btf_add_secinfo(struct btf *btf, uint32_t var, uint32_t offset, uint32_t byte_sz);
int btf_add_decl_tag(struct btf *btf, const char *value, uint32_t ref, int component_idx);
/*
 * Append one raw record (header + trailing data, host order, already
 * using this BTF's string offsets): for parsers, mergers and tests that
 * need records the checked adders refuse.  Returns the id.
 */
int btf_add_raw(struct btf *btf, const struct btf_type *t, size_t bytes);
/*
 * btf_add_raw() of n records at once: words[0..nwords) holds them back to
 * back and nothing else, record k starting at word offs[k] - offs[0].
 * Returns the first new id, and in *at where the copy starts in btf (valid
 * until the next add, for the caller to patch the new records in place).
 */
int btf_add_raw_n(struct btf *btf, const uint32_t *words, size_t nwords, const uint32_t *offs,
		  size_t n, uint32_t **at);

/*
 * Copy all own types of src into dst (libbpf btf__add_btf): strings are
 * re-added, src's own ids are shifted to follow dst's, ids below
 * src->start_id are kept (src and dst must then share the base).
 * Returns the id the first copied type got, or -errno.
 */
int btf_append(struct btf *dst, const struct btf *src);

/*
 * Field iteration in the order of doc section 1.7: every type-id field or
 * every string-offset field of one record.
 *
 *	struct btf_field_iter it;
 *	uint32_t *p;
 *	btf_field_iter_init(&it, t, BTF_FIELD_IDS);
 *	while ((p = btf_field_iter_next(&it)))
 *		...
 */
enum btf_field_kind { BTF_FIELD_IDS, BTF_FIELD_STRS };

struct btf_field_iter {
	uint32_t *words;	/* the record */
	int nfixed;		/* fixed word indexes still to return ... */
	uint8_t fixed[2];
	int fidx;
	uint32_t elem_words;	/* words per vlen element */
	uint32_t elem_field;	/* word index of the field in an element */
	uint32_t vlen, vidx;
	uint32_t first;		/* word index of the first element */
};

int btf_field_iter_init(struct btf_field_iter *it, struct btf_type *t, enum btf_field_kind which);
uint32_t *btf_field_iter_next(struct btf_field_iter *it);

/*
 * Parse a raw blob (either byte order, 24- or 32-byte header) on an
 * optional base.  The blob is copied (see BTF_PARSE_BORROW).  Checks are libbpf's: header and
 * section bounds, string section shape, record bounds, and (unless
 * BTF_PARSE_LENIENT) that every string offset and type id resolves and
 * FUNCs point at FUNC_PROTOs.
 */
#define BTF_PARSE_LENIENT	(1u << 0)
/*
 * Skip hashing the string section (most of a parse's cost).  Readers never
 * need it; btf_add_str() on the object builds it on first use, and
 * btf_find_str() falls back to a scan.  A BTF that will serve as the base
 * of split BTF under construction should be indexed (the default, or
 * btf_index_strings()).
 */
#define BTF_PARSE_NO_STR_INDEX	(1u << 1)
/*
 * Do not copy: a native-order blob's types and strings are used where they
 * lie (a mapped file needs no anonymous pages).  The blob must stay valid
 * and unchanged until btf_free() (btf_set_release() ties the two); it may
 * be read-only, as btf_own() copies before any change.  A foreign-order
 * or misaligned type section is copied as usual.
 */
#define BTF_PARSE_BORROW	(1u << 2)
/*
 * With BTF_PARSE_BORROW: the blob may also be written, until btf_free()
 * (a private writable mapping, say), so in-place changes need no copy of
 * the types: one copy of the input in memory instead of two.
 */
#define BTF_PARSE_WRITABLE	(1u << 3)
int btf_parse(const void *data, size_t len, const struct btf *base, struct btf **out,
	      struct diag *d);
int btf_parse_flags(const void *data, size_t len, const struct btf *base, unsigned flags,
		    struct btf **out, struct diag *d);
/*
 * What a parse learns that a later parse of the same bytes can reuse: the
 * record index and the string lookup slots (NULL/0 unless the BTF has a
 * string index).  btf_known_of() fills it from a parsed base BTF (no
 * base of its own, native order); the pointers stay valid while btf does.
 */
struct btf_known {
	const uint32_t *index;
	uint32_t nr_types;
	const struct strset_slot *str_slots;
	size_t str_nslots, str_count;
};
int btf_known_of(const struct btf *btf, struct btf_known *k);
/*
 * Parse bytes that an earlier btf_parse_flags() accepted, with what it
 * learnt (a cache that outlives the process, keyed by the file's
 * identity): header and section bounds are checked, records and strings
 * are not, and the index (which must match: every entry inside the type
 * section, ascending) and slots are borrowed, not built.  A base BTF in
 * native order only; borrowed like BTF_PARSE_BORROW.  k's arrays must
 * outlive the result.
 */
int btf_parse_known(const void *data, size_t len, const struct btf_known *k, struct btf **out,
		    struct diag *d);
/* Decode a header of either byte order (host-order result).  0 or -errno. */
int btf_parse_header(const void *data, size_t len, struct btf_header *h, bool *swapped,
		     struct diag *d);

/*
 * Serialise: header (btf->hdr_len), types, layout (if any), strings, in
 * btf->endian.  Parsed objects keep the source's byte order and header
 * length, so parse + write reproduces canonical input byte for byte.
 * *out is allocated with mem_alloc; the caller frees it with mem_free.
 */
int btf_write(const struct btf *btf, void **out, size_t *len, struct diag *d);
static inline void btf_set_endian(struct btf *btf, enum btf_endian e) { btf->endian = e; }
static inline enum btf_endian btf_host_endian(void)
{
	return __BYTE_ORDER__ == __ORDER_BIG_ENDIAN__ ? BTF_BIG_ENDIAN : BTF_LITTLE_ENDIAN;
}

/*
 * Validation with the kernel's rules (doc section 3) on a raw blob.
 * Default ("kernel" mode): what the kernel checks on vmlinux/module BTF:
 * header and section tiling, string section, per-type meta checks,
 * modifier chains and type-tag order.  BTF_VALIDATE_STRICT adds the
 * user-BTF resolve pass and FUNC_PROTO checks (sections 3.4-3.5).
 *
 * Returns 0 when valid, otherwise the negative errno of the first finding
 * (ENOTSUPP is reported as -524 like the kernel).  Every finding (up to
 * rep->max, if rep is given) is appended to rep; d gets the first one.
 */
#define BTF_VALIDATE_STRICT	(1u << 0)
#define BTF_ENOTSUPP		524

struct btf_finding {
	uint32_t id;		/* type id, 0 for header/string findings */
	int err;		/* positive errno */
	char msg[200];		/* "[id] KIND rule: value" */
};

struct btf_report {
	struct btf_finding *items;
	size_t n, cap;
	size_t max;		/* 0 = unlimited */
	size_t dropped;		/* findings beyond max */
};

void btf_report_free(struct btf_report *rep);
int btf_validate(const void *data, size_t len, const struct btf *base, unsigned flags,
		 struct btf_report *rep, struct diag *d);

#endif

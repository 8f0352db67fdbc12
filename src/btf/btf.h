/* SPDX-License-Identifier: GPL-2.0-only */
/*
 * btf/: the BTF model.  A struct btf holds its own types as one growable
 * buffer of u32 words in host byte order plus an id -> word-offset index,
 * and its own strings in a struct strset.  Split BTF points at an
 * immutable base: own type ids start at the base's type count (void
 * included), own string offsets at the base's total string length.
 *
 * Format constants and record layouts are our own (no <linux/btf.h>); they
 * follow docs/btf.md section 1.
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

/*
 * The kinds.  Adding one: ARCHITECTURE.md, "How to add a BTF kind".
 * Switches on a kind switch on this type and list every kind (the build
 * has -Wswitch-enum), so a new kind makes the compiler list each of them.
 * Values from a blob may be any 5-bit number: such switches keep a
 * default for kinds no table row describes.
 */
enum btf_kind {
	BTF_KIND_UNKN		= 0,	/* void: id 0, never a record */
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
};

/*
 * The kind table: what every part of btfc knows of a kind's record,
 * indexed by kind.  A record is the 12-byte header (name_off, info,
 * size/type: words 0-2), `fixed` bytes, then vlen entries of `entry`
 * bytes.  Word 0 is a string offset for every kind; the other string
 * offsets and the type ids are the fields below.  Every field of every
 * record is a 32-bit word, so a byte swap is one per word (parse.c,
 * write.c, validate.c) whatever the kind.
 *
 * It lives in this header, static, so that code specialised per kind
 * (BTF_KIND_DISPATCH) reads it as constants: the loads fold away and a
 * hot loop gets the code a hand-written switch would have.
 */
#define BTF_NO_FIELD	(-1)
struct btf_kind_info {
	const char *name;	/* "INT", "FUNC_PROTO"...: as bpftool prints it */
	uint8_t fixed;		/* bytes after the header, before the entries */
	uint8_t entry;		/* bytes per vlen entry; 0: vlen counts no entries */
	uint8_t nids;		/* type ids outside the entries: */
	uint8_t ids[2];		/* their word indexes (2: the header's `type`) */
	int8_t entry_id;	/* word of an entry holding a type id, or BTF_NO_FIELD */
	int8_t entry_str;	/* word of an entry holding a string offset, or BTF_NO_FIELD */
};

static const struct btf_kind_info btf_kinds[] = {
	/*			name		fixed	entry	nids	ids	entry_id	entry_str */
	[BTF_KIND_UNKN]	      = { "UNKNOWN",	0,	0,	0,	{ 0 },	BTF_NO_FIELD,	BTF_NO_FIELD },
	[BTF_KIND_INT]	      = { "INT",	4,	0,	0,	{ 0 },	BTF_NO_FIELD,	BTF_NO_FIELD },
	[BTF_KIND_PTR]	      = { "PTR",	0,	0,	1,	{ 2 },	BTF_NO_FIELD,	BTF_NO_FIELD },
	[BTF_KIND_ARRAY]      = { "ARRAY",	12,	0,	2,	{ 3, 4 }, BTF_NO_FIELD,	BTF_NO_FIELD },
	[BTF_KIND_STRUCT]     = { "STRUCT",	0,	12,	0,	{ 0 },	1,		0 },
	[BTF_KIND_UNION]      = { "UNION",	0,	12,	0,	{ 0 },	1,		0 },
	[BTF_KIND_ENUM]	      = { "ENUM",	0,	8,	0,	{ 0 },	BTF_NO_FIELD,	0 },
	[BTF_KIND_FWD]	      = { "FWD",	0,	0,	1,	{ 2 },	BTF_NO_FIELD,	BTF_NO_FIELD },
	[BTF_KIND_TYPEDEF]    = { "TYPEDEF",	0,	0,	1,	{ 2 },	BTF_NO_FIELD,	BTF_NO_FIELD },
	[BTF_KIND_VOLATILE]   = { "VOLATILE",	0,	0,	1,	{ 2 },	BTF_NO_FIELD,	BTF_NO_FIELD },
	[BTF_KIND_CONST]      = { "CONST",	0,	0,	1,	{ 2 },	BTF_NO_FIELD,	BTF_NO_FIELD },
	[BTF_KIND_RESTRICT]   = { "RESTRICT",	0,	0,	1,	{ 2 },	BTF_NO_FIELD,	BTF_NO_FIELD },
	[BTF_KIND_FUNC]	      = { "FUNC",	0,	0,	1,	{ 2 },	BTF_NO_FIELD,	BTF_NO_FIELD },
	[BTF_KIND_FUNC_PROTO] = { "FUNC_PROTO",	0,	8,	1,	{ 2 },	1,		0 },
	[BTF_KIND_VAR]	      = { "VAR",	4,	0,	1,	{ 2 },	BTF_NO_FIELD,	BTF_NO_FIELD },
	[BTF_KIND_DATASEC]    = { "DATASEC",	0,	12,	0,	{ 0 },	0,		BTF_NO_FIELD },
	[BTF_KIND_FLOAT]      = { "FLOAT",	0,	0,	0,	{ 0 },	BTF_NO_FIELD,	BTF_NO_FIELD },
	[BTF_KIND_DECL_TAG]   = { "DECL_TAG",	4,	0,	1,	{ 2 },	BTF_NO_FIELD,	BTF_NO_FIELD },
	[BTF_KIND_TYPE_TAG]   = { "TYPE_TAG",	0,	0,	1,	{ 2 },	BTF_NO_FIELD,	BTF_NO_FIELD },
	[BTF_KIND_ENUM64]     = { "ENUM64",	0,	12,	0,	{ 0 },	BTF_NO_FIELD,	0 },
};

/* Kinds with a row (the table's size follows its last row): 1..BTF_KIND_MAX are records. */
#define NR_BTF_KINDS	((unsigned)(sizeof(btf_kinds) / sizeof(btf_kinds[0])))
#define BTF_KIND_MAX	(NR_BTF_KINDS - 1)

/* Does the table describe kind k's record?  (Not void, not beyond the table.) */
static inline bool btf_kind_known(unsigned k)
{
	return k != BTF_KIND_UNKN && k < NR_BTF_KINDS;
}

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
/*
 * A decl tag btfc's encoder adds for the struct view only (enc_opts
 * struct_view), never to output: BTF_ALIGN_TAG "N" on a struct or union
 * (component -1) or one of its members whose DWARF has DW_AT_alignment N.
 */
#define BTF_ALIGN_TAG "btfc.aligned="

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

static inline enum btf_kind btf_kind(const struct btf_type *t) { return BTF_INFO_KIND(t->info); }
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
/* Kinds that only qualify or name their `type` (the kernel's modifiers). */
static inline bool btf_is_modifier_kind(enum btf_kind k)
{
	switch (k) {
	case BTF_KIND_TYPEDEF: case BTF_KIND_VOLATILE: case BTF_KIND_CONST:
	case BTF_KIND_RESTRICT: case BTF_KIND_TYPE_TAG:
		return true;
	case BTF_KIND_UNKN: case BTF_KIND_INT: case BTF_KIND_PTR: case BTF_KIND_ARRAY:
	case BTF_KIND_STRUCT: case BTF_KIND_UNION: case BTF_KIND_ENUM: case BTF_KIND_FWD:
	case BTF_KIND_FUNC: case BTF_KIND_FUNC_PROTO: case BTF_KIND_VAR: case BTF_KIND_DATASEC:
	case BTF_KIND_FLOAT: case BTF_KIND_DECL_TAG: case BTF_KIND_ENUM64:
		break;
	}
	return false;
}
/* Kinds whose entries are members (struct btf_member). */
static inline bool btf_is_composite_kind(enum btf_kind k)
{
	switch (k) {
	case BTF_KIND_STRUCT: case BTF_KIND_UNION:
		return true;
	case BTF_KIND_UNKN: case BTF_KIND_INT: case BTF_KIND_PTR: case BTF_KIND_ARRAY:
	case BTF_KIND_ENUM: case BTF_KIND_FWD: case BTF_KIND_TYPEDEF: case BTF_KIND_VOLATILE:
	case BTF_KIND_CONST: case BTF_KIND_RESTRICT: case BTF_KIND_FUNC: case BTF_KIND_FUNC_PROTO:
	case BTF_KIND_VAR: case BTF_KIND_DATASEC: case BTF_KIND_FLOAT: case BTF_KIND_DECL_TAG:
	case BTF_KIND_TYPE_TAG: case BTF_KIND_ENUM64:
		break;
	}
	return false;
}

/* "INT", "PTR", ... or "UNKNOWN" for kinds > BTF_KIND_MAX. */
static inline const char *btf_kind_str(unsigned kind)
{
	return kind < NR_BTF_KINDS ? btf_kinds[kind].name : "UNKNOWN";
}

/*
 * Code specialised per kind, for hot loops over records: a switch over
 * every kind that runs CASE(k) with k a constant, so that what CASE reads
 * of btf_kinds[k] folds away; OTHER for void and for kinds the table does
 * not describe.  CASE(k) and OTHER are statements.  A kind without a row
 * in btf_kinds[] is a build error here (a negative array size), not a
 * read past the table.
 */
#define BTF_KIND_CASE_(k, CASE)							\
	case k:									\
		(void)sizeof(char[(k) < NR_BTF_KINDS ? 1 : -1]);		\
		CASE(k);							\
		break;
#define BTF_KIND_DISPATCH(kind, CASE, OTHER)					\
	switch ((enum btf_kind)(kind)) {					\
	BTF_KIND_CASE_(BTF_KIND_INT, CASE)					\
	BTF_KIND_CASE_(BTF_KIND_PTR, CASE)					\
	BTF_KIND_CASE_(BTF_KIND_ARRAY, CASE)					\
	BTF_KIND_CASE_(BTF_KIND_STRUCT, CASE)					\
	BTF_KIND_CASE_(BTF_KIND_UNION, CASE)					\
	BTF_KIND_CASE_(BTF_KIND_ENUM, CASE)					\
	BTF_KIND_CASE_(BTF_KIND_FWD, CASE)					\
	BTF_KIND_CASE_(BTF_KIND_TYPEDEF, CASE)					\
	BTF_KIND_CASE_(BTF_KIND_VOLATILE, CASE)					\
	BTF_KIND_CASE_(BTF_KIND_CONST, CASE)					\
	BTF_KIND_CASE_(BTF_KIND_RESTRICT, CASE)					\
	BTF_KIND_CASE_(BTF_KIND_FUNC, CASE)					\
	BTF_KIND_CASE_(BTF_KIND_FUNC_PROTO, CASE)				\
	BTF_KIND_CASE_(BTF_KIND_VAR, CASE)					\
	BTF_KIND_CASE_(BTF_KIND_DATASEC, CASE)					\
	BTF_KIND_CASE_(BTF_KIND_FLOAT, CASE)					\
	BTF_KIND_CASE_(BTF_KIND_DECL_TAG, CASE)					\
	BTF_KIND_CASE_(BTF_KIND_TYPE_TAG, CASE)					\
	BTF_KIND_CASE_(BTF_KIND_ENUM64, CASE)					\
	case BTF_KIND_UNKN:							\
	default:								\
		OTHER;								\
		break;								\
	}

/*
 * The type-id fields of record w (uint32_t *) of kind k, in field order
 * (docs/btf.md 1.7): the statement after P runs with P (uint32_t *) at each.  For a
 * constant k (under BTF_KIND_DISPATCH) it is straight-line code; the
 * generic walk is btf_field_iter.
 */
#define BTF_FOR_EACH_ID(w, k, P, ...)						\
	do {									\
		const struct btf_kind_info *ki_ = &btf_kinds[k];		\
		uint32_t *w_ = (w);						\
		size_t j_, n_;							\
										\
		for (j_ = 0; j_ < ki_->nids; j_++) {				\
			uint32_t *P = w_ + ki_->ids[j_];			\
			__VA_ARGS__;						\
		}								\
		if (ki_->entry_id != BTF_NO_FIELD)				\
			for (j_ = 0, n_ = BTF_INFO_VLEN(w_[1]); j_ < n_; j_++) { \
				uint32_t *P = w_ + 3 + ki_->fixed / 4 +		\
					      j_ * (ki_->entry / 4) + ki_->entry_id; \
				__VA_ARGS__;					\
			}							\
	} while (0)

/*
 * Type-id field idx of record t, in field order (as btf_field_iter visits
 * them), from the kind table; NULL past the last one or for a kind the
 * table lacks.  btf_id_fields(): how many there are.  btf_id_field_k()
 * is the same for t of kind k, a known kind: under BTF_KIND_DISPATCH the
 * table's loads fold.
 */
static inline __attribute__((always_inline)) uint32_t *
btf_id_field_k(struct btf_type *t, enum btf_kind k, unsigned idx)
{
	const struct btf_kind_info *ki = &btf_kinds[k];

	if (idx < ki->nids)
		return (uint32_t *)t + ki->ids[idx];
	idx -= ki->nids;
	if (ki->entry_id == BTF_NO_FIELD || idx >= btf_vlen(t))
		return NULL;
	return (uint32_t *)t + 3 + ki->fixed / 4 + idx * (ki->entry / 4) + ki->entry_id;
}
static inline uint32_t *btf_id_field(struct btf_type *t, unsigned idx)
{
	return btf_kind_known(btf_kind(t)) ? btf_id_field_k(t, btf_kind(t), idx) : NULL;
}
static inline unsigned btf_id_fields(const struct btf_type *t)
{
	const struct btf_kind_info *ki;

	if (!btf_kind_known(btf_kind(t)))
		return 0;
	ki = &btf_kinds[btf_kind(t)];
	return ki->nids + (ki->entry_id == BTF_NO_FIELD ? 0 : btf_vlen(t));
}

/*
 * Bytes of the record after the 12-byte header, from kind and vlen; -EINVAL
 * for kinds the table does not describe, unless a layout table describes
 * them (layout has nlayout entries indexed by kind).
 */
int btf_type_data_size(const struct btf_type *t, const struct btf_layout *layout,
		       size_t nlayout);

enum btf_endian { BTF_LITTLE_ENDIAN = 0, BTF_BIG_ENDIAN = 1 };

/* The object (btf_internal.h: private to src/btf/). */
struct btf;

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
 * already.  For changes that keep every record's place and size
 * (btf_type_mut() calls it); growth needs btf_own().  0 or -ENOMEM.
 */
int btf_writable(struct btf *btf);
/* Have btf_free() call release(ctx), e.g. to unmap the blob a BTF borrows. */
void btf_set_release(struct btf *btf, void (*release)(void *), void *ctx);

/* Type count including void and the base's types: the next id to be added. */
uint32_t btf_type_count(const struct btf *btf);
uint32_t btf_start_id(const struct btf *btf);
const struct btf *btf_base(const struct btf *btf);
/* Logical string space: [0, btf_strs_end). */
uint32_t btf_strs_end(const struct btf *btf);
/* Own string section bytes. */
const char *btf_strs_data(const struct btf *btf);
size_t btf_strs_len(const struct btf *btf);
/* Do btf and every base below it have a string lookup index? */
bool btf_strs_indexed(const struct btf *btf);
/* First builder error, or NULL. */
const struct diag *btf_error(const struct btf *btf);

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
 * What a builder outside btf/ appended (the encoder, encode/builder.c):
 * nr records whole, in id order, host order, in types (nwords words of
 * cap), with their id index; the own string section their offsets point
 * into.  base_strs_unmatched: strings were added without
 * looking at the base (which had no string index); btf_from_parts() maps
 * every own string the base also has to the base's offset, as adding
 * with the base's index would have (the nearest level's first copy).
 */
struct btf_parts {
	uint32_t *types;
	size_t nwords, cap;
	uint32_t nr;
	uint32_t *index;		/* the id index (may be NULL without records) */
	size_t index_cap;
	struct strset strs;
	bool base_strs_unmatched;
};
/*
 * A BTF on base (may be NULL) that takes over parts' arrays (parts is
 * left empty, to free), in byte order e.  0 or -errno with d set.
 */
int btf_from_parts(const struct btf *base, struct btf_parts *parts, enum btf_endian e,
		   struct btf **out, struct diag *d);
/* Size in bytes of a whole record (header included). */
static inline size_t btf_type_size(const struct btf_type *t)
{
	int n = btf_type_data_size(t, NULL, 0);

	return n < 0 ? sizeof(*t) : sizeof(*t) + (size_t)n;
}

/* String at a logical offset (walking down the bases), NULL if invalid. */
const char *btf_name(const struct btf *btf, uint32_t off);
/* The same as bpftool shows it: "(anon)" for offset 0, "(invalid)" for a bad one. */
static inline const char *btf_name_shown(const struct btf *btf, uint32_t off)
{
	const char *s;

	if (!off)
		return "(anon)";
	s = btf_name(btf, off);
	return s ? s : "(invalid)";
}
/* Logical offset of str if present (base first), else -ENOENT. */
int64_t btf_find_str(const struct btf *btf, const char *str);
/* The same with len = strlen(str) and h = strset_hash(str, len) known. */
int64_t btf_find_str_hashed(const struct btf *btf, const char *str, size_t len, uint32_t h);
/* Build the string lookup index if the parse skipped it.  0 or -ENOMEM. */
int btf_index_strings(struct btf *btf);
/* The largest string section a builder seeds from a copy of .debug_str (-E2BIG). */
#define SEED_STRS_MAX (1u << 30)
/* Add str (reusing an offset from the base or own section); offset or -errno. */
int64_t btf_add_str(struct btf *btf, const char *str);
/*
 * Rebuild the own string section in first-reference order: every string
 * field of every own type in id order (docs/btf.md 1.7 field order), each
 * string once, unreferenced strings dropped ("" first for base BTF).  Gives
 * a section that depends only on the types, whatever order strings were
 * added in.
 */
int btf_strings_relayout(struct btf *btf, struct diag *d);
/*
 * The own string offsets the own types refer to, in order of first
 * reference (id order, field order), each once: *out (mem_free) and *n;
 * on jobs threads.
 * Taken before a dedup that keeps the section (btf_dedup_opts.keep_strings),
 * it is libbpf's string order: its dedup lays strings out so first.
 */
int btf_strings_first_refs(const struct btf *btf, unsigned jobs, uint32_t **out, size_t *n,
			   struct diag *d);
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
 * Copy all own types of src into dst (libbpf btf__add_btf): strings are
 * re-added, src's own ids are shifted to follow dst's, ids below
 * src->start_id are kept (src and dst must then share the base).
 * Returns the id the first copied type got, or -errno.
 */
int btf_append(struct btf *dst, const struct btf *src);

/*
 * Field iteration in the order of docs/btf.md 1.7: every type-id field or
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
void btf_set_endian(struct btf *btf, enum btf_endian e);
static inline enum btf_endian btf_host_endian(void)
{
	return __BYTE_ORDER__ == __ORDER_BIG_ENDIAN__ ? BTF_BIG_ENDIAN : BTF_LITTLE_ENDIAN;
}

/*
 * Validation with the kernel's rules (docs/btf.md 3) on a raw blob.
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

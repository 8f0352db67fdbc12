/* SPDX-License-Identifier: GPL-2.0-only */
/* layout/ internals shared by layout.c, print.c, class.c, reorg.c and emit.c. */
#ifndef BTFC_LAYOUT_INTERNAL_H
#define BTFC_LAYOUT_INTERNAL_H

#include <stdarg.h>

#include "layout/layout.h"

/* pahole's struct class_member, with its field widths. */
struct lmember {
	const char *name;
	uint32_t type;
	uint32_t bit_offset, bit_size, byte_offset;
	uint64_t byte_size;
	int8_t bitfield_offset;
	uint8_t bitfield_size;
	uint8_t bit_hole;
	int32_t hole;
	uint32_t alignment;
	uint32_t idx;		/* index in the BTF record (kept by -R copies) */
};

/* pahole's struct class (or struct type, for unions). */
struct lclass {
	uint32_t id;
	const struct btf_type *t;
	uint32_t nr;
	bool is_struct;
	bool holes_searched, packed_inferred, is_packed;
	bool flex_verified, has_flex;	/* class__has_flexible_array's cache */
	bool emb_searched, has_emb;	/* class__has_embedded_flexible_array's cache */
	uint16_t nr_holes, nr_bit_holes, pre_hole, padding;
	uint8_t pre_bit_hole, bit_padding;
	uint32_t alignment;
	struct layout_member *pub;	/* layout_members() view */
	struct lmember m[];
};

struct lseen {
	uint32_t *slots;	/* type ids, 0 = empty */
	uint64_t *hashes;	/* their key hashes */
	size_t nslots, count;
};

struct layout {
	const struct btf *btf;
	struct layout_opts o;
	unsigned compat;	/* o.compat resolved: LAYOUT_COMPAT_1_24, _1_30 or _1_31 */
	uint32_t ntypes;
	uint32_t cacheline_size, addr_size;
	struct lclass **cls;	/* by id, lazily built */
	uint32_t *natal;	/* cached natural alignment by id (0 = not yet) */
	struct lseen seen;	/* print_classes dedup */
	int depth;		/* recursion guard for hostile type graphs */
	uint32_t uint_id[9];	/* reorg.c's unsigned types by size: 0 = not looked up, else id + 1 */
	struct lalign {		/* o.dwarf: the tagged alignments, sorted */
		uint32_t id;
		int32_t component;	/* member index, -1: the struct */
		uint32_t align;
	} *aligns;
	size_t naligns;
	bool oom;		/* an allocation failed: output is incomplete */
};

/* Does the text follow pahole 1.30 and later (the same as 1.31 but where noted)? */
static inline bool compat_130(const struct layout *l)
{
	return l->compat >= LAYOUT_COMPAT_1_30;
}

static inline enum btf_kind K(const struct btf_type *t) { return btf_kind(t); }
static inline bool pt_is_typedef(const struct btf_type *t) { return t && K(t) == BTF_KIND_TYPEDEF; }
static inline bool pt_is_pointer(const struct btf_type *t) { return t && K(t) == BTF_KIND_PTR; }
/* base_type bit size (pahole bt->bit_size) */
static inline uint32_t base_bits(const struct btf_type *t)
{
	return K(t) == BTF_KIND_INT ? BTF_INT_BITS(btf_int_word(t)) : t->size * 8;
}
/* enumeration type->size, in bits */
static inline uint32_t enum_bits(const struct btf_type *t)
{
	return t->size ? t->size * 8 : 32;
}
static inline uint32_t class_size(const struct btf_type *t)
{
	return K(t) == BTF_KIND_FWD ? 0 : t->size;
}
static inline uint32_t class_nr_members(const struct btf_type *t)
{
	return K(t) == BTF_KIND_FWD ? 0 : btf_vlen(t);
}

static inline uint32_t class_size_of(const struct lclass *c)
{
	return btf_kind(c->t) == BTF_KIND_FWD ? 0 : c->t->size;
}

const struct btf_type *ptag(const struct layout *l, uint32_t id);
bool pt_is_struct(const struct btf_type *t);
bool pt_is_union(const struct btf_type *t);
bool pt_is_enum(const struct btf_type *t);
bool pt_is_base(const struct btf_type *t);
bool pt_is_modifier(const struct btf_type *t);
uint32_t pt_type(const struct btf_type *t);
const char *pt_name(const struct layout *l, const struct btf_type *t);
uint64_t pt_size(const struct layout *l, const struct btf_type *t);
struct lclass *layout_class(struct layout *l, uint32_t id);
struct lclass *lclass_get(struct layout *l, uint32_t id);
void class_find_holes(const struct layout *l, struct lclass *c);
bool class_infer_packed(struct layout *l, struct lclass *c);
void union_infer_packed(struct layout *l, struct lclass *u);
bool class_has_flexible_array(struct layout *l, struct lclass *c);
bool class_has_embedded_flexible_array(struct layout *l, struct lclass *c, int depth);
PRINTF_LIKE(2, 0) int lbuf_vprintf(struct lbuf *b, const char *fmt, va_list ap);
int layout_print_class(struct layout *l, struct lclass *c, struct lbuf *out);

#endif

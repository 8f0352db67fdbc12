/* SPDX-License-Identifier: GPL-2.0-only */
/*
 * layout/: struct layouts over the BTF model, printed the way pahole
 * prints them from BTF (`pahole -F btf`), as 1.24, 1.30 or 1.31 does
 * (layout_opts.compat): member lines with offset and size comments,
 * holes, bit holes, cacheline boundaries, the summary, and the
 * __aligned__/__packed__ attributes pahole infers from BTF.
 *
 * pahole's layout model is reproduced faithfully, including its state:
 * inferring __packed__ for one struct can mark the types of its members
 * packed, which changes how they print later in the same run.  That
 * state lives in struct layout, so printing the same types in the same
 * order gives pahole's text byte for byte.
 *
 * Nothing here prints: text goes into a struct lbuf (a growable buffer).
 * Errors are negative errnos with a struct diag.
 */
#ifndef BTFC_LAYOUT_H
#define BTFC_LAYOUT_H

#include "base/diag.h"
#include "btf/btf.h"

/* A growable text buffer.  On allocation failure oom is set and the text stops growing. */
struct lbuf {
	char *p;
	size_t len, cap;
	bool oom;
};

void lbuf_free(struct lbuf *b);
int lbuf_printf(struct lbuf *b, const char *fmt, ...) PRINTF_LIKE(2, 3);
static inline void lbuf_reset(struct lbuf *b) { b->len = 0; if (b->p) b->p[0] = 0; }

/* The pahole versions whose text layout/ reproduces (layout_opts.compat). */
#define LAYOUT_COMPAT_1_24 124
#define LAYOUT_COMPAT_1_30 130
#define LAYOUT_COMPAT_1_31 131
#define LAYOUT_COMPAT_DEFAULT LAYOUT_COMPAT_1_31

struct layout_opts {
	unsigned compat;		/* LAYOUT_COMPAT_*: whose text; 0 = the default (1.31) */
	unsigned cacheline_size;	/* 0 = 64 */
	bool expand_types;		/* -E: expand member types inline */
	bool hex;			/* --hex: offsets and sizes in hex */
	bool rel_offset;		/* -r: offsets relative to the inner struct */
	bool quiet;			/* -q: no comments, no stats */
	bool suppress_aligned;		/* --suppress_aligned_attribute */
	bool suppress_packed;		/* --suppress_packed */
	bool compile;			/* --compile style output (used by layout_emit_c) */
	/*
	 * The BTF came from DWARF for the struct view (enc_opts.struct_view),
	 * and prints as pahole -F dwarf: alignments are the DW_AT_alignment
	 * the encoder tagged (BTF_ALIGN_TAG decl tags), none is inferred from
	 * offsets, and an array of arrays is one array of several dimensions
	 * (int a[3][4], where pahole's BTF printer would say a[4][3]).
	 */
	bool dwarf;
	bool suppress_force_paddings;	/* --suppress_force_paddings (dwarf) */
};

struct layout;

int layout_open(const struct btf *btf, const struct layout_opts *o, struct layout **out,
		struct diag *d);
void layout_close(struct layout *l);
const struct btf *layout_btf(const struct layout *l);

/*
 * pahole's cu__find_type_by_name: the first typedef, struct, union or
 * enum (not a forward declaration) named name, in id order.  0 if none.
 */
uint32_t layout_find(const struct layout *l, const char *name);

/*
 * Append pahole's text for type id (tag__fprintf + ";"), without the
 * trailing newline pahole adds after it.  prefix/suffix are pahole's
 * "typedef" / alias name for anonymous structs (NULL normally).
 */
int layout_print(struct layout *l, uint32_t id, const char *prefix, const char *suffix,
		 struct lbuf *out);

/* Class statistics pahole's filters and one-line formatters use. */
struct layout_class_info {
	const char *name;
	uint32_t size;
	uint32_t nr_members;
	uint32_t nr_holes, nr_bit_holes;
	uint32_t max_hole;		/* largest byte hole (0 if none) */
	uint32_t padding;
	bool is_union, is_packed;
	bool has_flexible_array;	/* pahole's class__has_flexible_array */
};
/*
 * -EINVAL if id is not a struct or union; *ci is still filled as far as
 * pahole's formatters read a type they take for a class (-s -C TYPEDEF):
 * name, size (an enum's in bits), members (an enum's enumerators).
 */
int layout_class_info(struct layout *l, uint32_t id, struct layout_class_info *ci);
/*
 * pahole 1.30+'s class__has_embedded_flexible_array: struct id has a
 * member struct (typedefs and modifiers stripped), at any depth, whose
 * last member is a flexible array.  False for unions.
 */
bool layout_has_embedded_flexible_array(struct layout *l, uint32_t id);
/* pahole's class__infer_packed_attributes (stateful, as in pahole). */
bool layout_infer_packed(struct layout *l, uint32_t id);

/*
 * Structs and unions in the order pahole prints them with no type named:
 * id order, named only, no forward declarations, one of each identical
 * (name, size, members' names, bit offsets and bitfield sizes) layout.
 * fn returns non-zero to stop.  The filter, if given, is called first and
 * returns false to skip (skipped types are not recorded as printed).
 */
typedef bool (*layout_filter_fn)(void *ctx, struct layout *l, uint32_t id);
typedef int (*layout_each_fn)(void *ctx, struct layout *l, uint32_t id);
int layout_each_class(struct layout *l, layout_filter_fn filter, layout_each_fn fn, void *ctx);

/* First typedef whose target is id (pahole cu__find_first_typedef_of_type), 0 if none. */
uint32_t layout_first_typedef_of(const struct layout *l, uint32_t id);

/* Strip typedefs and CV modifiers from id (0 for void / unknown). */
uint32_t layout_strip(const struct layout *l, uint32_t id);

/* Per-member layout facts (after pahole's BTF fixups and hole search). */
struct layout_member {
	const char *name;	/* NULL if anonymous */
	uint32_t type;		/* BTF type id */
	uint32_t bit_offset;	/* from the struct start */
	uint32_t byte_offset;	/* pahole's byte offset (storage unit for bitfields) */
	uint32_t byte_size;	/* size of the member's type */
	uint32_t bitfield_offset, bitfield_size;	/* bitfield_size 0: not a bitfield */
	uint32_t alignment;	/* inferred __aligned__, 0 if none */
	uint32_t natural_alignment;
	int32_t hole;		/* bytes of hole after this member */
	uint32_t bit_hole;	/* bits of hole after this member */
};
/* Members of struct/union id (valid until layout_close).  -EINVAL for other kinds. */
int layout_members(struct layout *l, uint32_t id, const struct layout_member **m, uint32_t *n);
/* pahole's natural alignment of a type (1 if none). */
uint32_t layout_natural_alignment(struct layout *l, uint32_t id);
/* Inferred alignment of struct/union id (0 if natural). */
uint32_t layout_type_alignment(struct layout *l, uint32_t id);
/* Size in bytes of type id as pahole computes it (tag__size). */
uint64_t layout_type_size(const struct layout *l, uint32_t id);
/* Type name as pahole prints it in a member declaration ("struct foo", "int *"). */
int layout_type_name(struct layout *l, uint32_t id, char *buf, size_t len);

/* Did an allocation fail inside l (so some output is missing)? */
bool layout_oom(const struct layout *l);

#endif

/* SPDX-License-Identifier: GPL-2.0-only */
/* Helpers shared by the files of src/btf/ only. */
#ifndef BTFC_BTF_INTERNAL_H
#define BTFC_BTF_INTERNAL_H

#include "btf/btf.h"

/* The object; btf.h declares its functions. */
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
	bool index_borrowed;		/* index belongs to the caller (btf_parse_known) */
	void (*release)(void *);	/* btf_free() calls release(release_ctx) last */
	void *release_ctx;
};


/*
 * Set up s holding a copy of data without a lookup index (nslots == 0):
 * strset_get works, strset_find/strset_add must not be called until
 * btf_strs_index() built the index.  Parsing ~100k strings into a hash
 * is most of the cost of a parse, and readers never need it.
 */
int btf_strs_init_raw(struct strset *s, const char *data, size_t len);
int btf_strs_index(struct strset *s);

#endif

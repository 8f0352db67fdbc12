/* SPDX-License-Identifier: GPL-2.0-only */
/*
 * The encoder's BTF under construction: what the merge appends (records
 * whole, in id order), the strings the workers intern, and the functions
 * and DATASECs the policies add at the end, with the id index kept as
 * they land (the merge knows each record's offset; a pass over the
 * records afterwards cost more CPU than the index's pages: 18 MB for a
 * kernel image, docs/internals.md).  encb_finish hands the parts to btf/
 * (btf_from_parts), which dedups them next.
 *
 * Strings: a kernel image's section starts as a copy of .debug_str
 * (encb_seed_strs: a name there takes its offset from its position); a
 * split output looks each string up in an indexed base as it is first
 * added, and matches them all against an unindexed base once, in
 * btf_from_parts (a lone module on a mapped vmlinux BTF).  Not
 * thread-safe: the encoder's workers intern under its lock.
 */
#ifndef BTFC_ENCODE_BUILDER_H
#define BTFC_ENCODE_BUILDER_H

#include "btf/btf.h"

struct enc_builder {
	const struct btf *base;
	uint32_t start_id, start_str_off;
	struct btf_parts p;
	struct diag err;		/* first error */
};

int encb_init(struct enc_builder *b, const struct btf *base);
void encb_free(struct enc_builder *b);
/* Start the (empty, base-less) string section as "" and a copy of data (.debug_str). */
int encb_seed_strs(struct enc_builder *b, const char *data, size_t len);
/* Offset of str (len bytes, strset_hash h) in the output, added if new; or -errno. */
int64_t encb_add_str_hashed(struct enc_builder *b, const char *str, size_t len, uint32_t h);
int64_t encb_add_str(struct enc_builder *b, const char *str);
/*
 * The same for a string a seeded section holds at offset at: if its text
 * is new, that copy becomes the text's offset, not a new one.
 */
int64_t encb_add_str_at(struct enc_builder *b, uint32_t at, const char *str, size_t len,
			uint32_t h);
/*
 * Append n records, nwords words in all, record k at words[offs[k] -
 * offs[0]], whole (sizes follow from their headers); *at: where they
 * landed, to patch their ids.  The first's id, or -errno.
 */
int encb_add_raw_n(struct enc_builder *b, const uint32_t *words, size_t nwords,
		   const uint32_t *offs, size_t n, uint32_t **at);
/* Append one record of bytes bytes; its id or -errno. */
int encb_add_raw(struct enc_builder *b, const struct btf_type *t, size_t bytes);
/* A record of no more than a header: name (NULL: none), info, size or type; its id or -errno. */
int encb_add_hdr(struct enc_builder *b, const char *name, uint32_t info, uint32_t size_type);
/* DECL_TAG value on type (component -1: the whole); its id or -errno. */
int encb_add_decl_tag(struct enc_builder *b, const char *value, uint32_t type, int component);
/* DATASEC name of size bytes with n entries; its id or -errno. */
int encb_add_datasec(struct enc_builder *b, const char *name, uint32_t size,
		     const struct btf_var_secinfo *si, size_t n);
/* Type by id (the base's too); void for 0, NULL out of range. */
const struct btf_type *encb_type_by_id(const struct enc_builder *b, uint32_t id);
/* String at a logical offset (the base's below its end), NULL if invalid. */
const char *encb_name(const struct enc_builder *b, uint32_t off);
/* The next id. */
static inline uint32_t encb_count(const struct enc_builder *b) { return b->start_id + b->p.nr; }
/* First error, or NULL. */
static inline const struct diag *encb_error(const struct enc_builder *b)
{
	return b->err.code ? &b->err : NULL;
}
/* Hand the parts over: a BTF in byte order e, with the builder's id index. */
int encb_finish(struct enc_builder *b, enum btf_endian e, struct btf **out, struct diag *d);

#endif

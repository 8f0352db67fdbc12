/* SPDX-License-Identifier: GPL-2.0-only */
/*
 * String set: unique NUL-terminated strings stored back to back in one
 * buffer, addressed by byte offset (the layout of a BTF string section).
 * Strings are kept in first-insertion order.  Not thread-safe.
 */
#ifndef BTFC_BASE_STRSET_H
#define BTFC_BASE_STRSET_H

#include "base/common.h"
#include "base/hash.h"

struct strset_slot {
	uint32_t off1;		/* offset + 1, 0 = empty */
	uint32_t hash;		/* strset_hash() of the string */
};

struct strset {
	char *data;		/* the string section */
	size_t len, cap;
	struct strset_slot *slots;	/* open addressing (one miss per probe) */
	size_t nslots, count;
	bool borrowed;		/* data points into memory the set does not own */
	bool slots_borrowed;	/* ... and so do the slots (strset_borrow_indexed) */
};

/* Empty set; if with_empty, "" is added first at offset 0. */
int strset_init(struct strset *s, bool with_empty);
/* Start from an existing section (copied); duplicates keep their first offset. */
int strset_init_from(struct strset *s, const char *data, size_t len);
/*
 * Start from "" followed by a copy of data (len bytes, ending in a NUL):
 * the string at data + p is at offset p + 1.  Only "" is indexed: the
 * others are found once strset_add_at() names them.
 */
int strset_init_after_empty(struct strset *s, const char *data, size_t len);
/*
 * Start from an existing section without copying it and without an index
 * (lookups find nothing until strset_index()).  The section must stay
 * valid and unchanged while the set lives; the first strset_add() copies it.
 */
void strset_borrow(struct strset *s, const char *data, size_t len);
/*
 * Borrow a section and an index made for it earlier (a cache of the
 * slots strset_index() built): lookups check every offset against the
 * section and never probe more than nslots (a power of two) slots, so a
 * wrong index gives wrong answers, never a wrong access.  Both must stay
 * valid while the set lives; the first strset_add() copies them.
 */
void strset_borrow_indexed(struct strset *s, const char *data, size_t len,
			   const struct strset_slot *slots, size_t nslots, size_t count);
/*
 * Index room for n strings in all, so that adding them never rehashes,
 * and room for bytes more bytes of text (NULs included), so that adding
 * that much never moves the text (an owned set: a borrowed section is
 * copied by its first add).
 */
int strset_reserve(struct strset *s, size_t n, size_t bytes);
/*
 * Own data (len bytes from mem_alloc, NUL-terminated strings back to back)
 * as the section, without an index: as strset_borrow() for lookups, but
 * freed with the set; the first add builds the index.
 */
void strset_adopt(struct strset *s, char *data, size_t len);
/* Build the lookup index over the current strings (no-op if there is one). */
int strset_index(struct strset *s);
void strset_free(struct strset *s);
/* Offset of s (added if absent) or a negative errno. */
int64_t strset_add(struct strset *s, const char *str, size_t len);
/* Offset of str or -ENOENT. */
int64_t strset_find(const struct strset *s, const char *str, size_t len);
/* The hash the set uses; the _hashed variants take it precomputed. */
static inline uint32_t strset_hash(const char *str, size_t len)
{
	return (uint32_t)hash_bytes(str, len);
}
/*
 * Offset of str, added if absent; but where the section already holds str
 * at offset at (a suffix of a longer string, say), that copy is indexed
 * instead of a new one appended.
 */
int64_t strset_add_at(struct strset *s, size_t at, const char *str, size_t len, uint32_t h);
int64_t strset_find_hashed(const struct strset *s, const char *str, size_t len, uint32_t h);
int64_t strset_add_hashed(struct strset *s, const char *str, size_t len, uint32_t h);
static inline const char *strset_get(const struct strset *s, uint32_t off)
{
	return off < s->len ? s->data + off : NULL;
}

#endif

// SPDX-License-Identifier: GPL-2.0-only
/*
 * Pass 2 of a unit's conversion: the grouped IR as BTF records in the
 * fragment, names interned through the worker's string caches into the
 * output's string set.
 */
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "base/hash.h"
#include "base/mem.h"
#include "encode/worker.h"

/* ---- strings: a per-worker cache in front of the shared interner ---- */

/*
 * Names are interned once into the output BTF's string set (the only
 * shared mutable state of the conversion, behind ctx->str_lock, and the
 * seeded section's bitmap of known positions, set atomically).  Strings
 * without a position there are remembered by content in a per-worker
 * cache.  Offsets depend on which worker interned first; the final string
 * section is re-laid out in a fixed order after dedup, so output bytes do
 * not.
 */
static int64_t intern_slow(struct enc_worker *w, const char *s, size_t len, uint32_t h)
{
	int64_t off;

	pthread_mutex_lock(w->ctx->str_lock);
	off = encb_add_str_hashed(w->ctx->out, s, len, h);
	pthread_mutex_unlock(w->ctx->str_lock);
	return off < 0 ? -ENOMEM : off;
}

static int scache_grow(struct str_cache *c)
{
	size_t ncap = c->cap ? c->cap * 2 : 4096, i;
	struct scache_slot *n = mem_array(ncap, sizeof(*n));

	if (!n)
		return -ENOMEM;
	for (i = 0; i < c->cap; i++) {
		size_t j;

		if (!c->slots[i].key)
			continue;
		for (j = c->slots[i].hash & (ncap - 1); n[j].key; j = (j + 1) & (ncap - 1))
			;
		n[j] = c->slots[i];
	}
	mem_free(c->slots);
	c->slots = n;
	c->cap = ncap;
	return 0;
}

/* Look s up by key (address or content); *slot receives the insertion slot. */
static inline bool scache_find(const struct str_cache *c, uint32_t h, const char *s, size_t len,
			       bool by_addr, size_t *slot, uint32_t *off)
{
	size_t j;

	for (j = h & (c->cap - 1); c->slots[j].key; j = (j + 1) & (c->cap - 1)) {
		const struct scache_slot *e = &c->slots[j];

		if (e->hash != h)
			continue;
		if (by_addr ? e->key == s : e->len == len && bytes_eq(e->key, s, len)) {
			*off = e->val;
			return true;
		}
	}
	*slot = j;
	return false;
}

/* Cache s; copy it first unless it stays where it is (a .debug_str string). */
static int scache_put(struct str_cache *c, uint32_t h, const char *s, size_t len, uint32_t off,
		      bool copy)
{
	uint32_t dummy;
	size_t slot;

	if ((c->n + 1) * 2 > c->cap && scache_grow(c))
		return -ENOMEM;
	if (scache_find(c, h, s, len, false, &slot, &dummy))
		return 0;
	if (copy) {
		char *k = arena_alloc(&c->copies, len + 1);

		if (!k)
			return -ENOMEM;
		memcpy(k, s, len + 1);
		s = k;
	}
	c->slots[slot].key = s;
	c->slots[slot].hash = h;
	c->slots[slot].len = (uint32_t)len;
	c->slots[slot].val = off;
	c->n++;
	return 0;
}

/*
 * A seeded string of .debug_str (ctx->str_first) at pos, not yet known
 * there: its text's offset, and if that is its own (the first copy, or
 * the first reference to a suffix of a longer string, which becomes the
 * text's offset), its bit is set: later references need no lookup.
 */
static int64_t intern_seeded(struct enc_worker *w, size_t pos, const char *s)
{
	size_t len = strlen(s);
	int64_t off;

	if (w->ctx->str_lock)
		pthread_mutex_lock(w->ctx->str_lock);
	off = encb_add_str_at(w->ctx->out, (uint32_t)pos + 1, s, len, strset_hash(s, len));
	if (w->ctx->str_lock)
		pthread_mutex_unlock(w->ctx->str_lock);
	if (off < 0)
		return -ENOMEM;
	if ((size_t)off == pos + 1)
		__atomic_fetch_or(&w->ctx->str_first[pos / 64], 1ull << (pos % 64), __ATOMIC_RELAXED);
	return off;
}

/*
 * Global string offset of s (NULL or "" -> 0), or a negative errno.  A
 * string of .debug_str in a seeded section (a kernel image) has its
 * offset from its position, after the first reference to it without
 * reading it; the others (inline DW_FORM_string names, the alternate
 * file's, all of a module's) are looked up by their text, in the worker's
 * cache first.
 */
static int64_t str_off_text(struct enc_worker *w, const char *s, size_t pos);

/* s's key for the short-name cache, if it has one to three characters. */
static inline bool short_key(const char *s, uint32_t *key)
{
	uint32_t k = (uint8_t)s[0];

	if (s[1]) {
		k |= (uint32_t)(uint8_t)s[1] << 8;
		if (s[2]) {
			if (s[3])
				return false;
			k |= (uint32_t)(uint8_t)s[2] << 16;
		}
	}
	*key = k;
	return true;
}

static int64_t str_off_name(struct enc_worker *w, const char *s, size_t pos);

static inline int64_t str_off(struct enc_worker *w, const char *s)
{
	const struct bslice *ds = &w->ctx->in->dw_str;
	uint64_t *first = w->ctx->str_first;
	size_t pos;

	if (!s)
		return 0;
	pos = (size_t)((const uint8_t *)s - ds->p);
	if (first && (const uint8_t *)s >= ds->p && pos < ds->len) {
		/* the common case inline: a seeded string already known */
		if (__atomic_load_n(&first[pos / 64], __ATOMIC_RELAXED) >> (pos % 64) & 1)
			return (int64_t)pos + 1;
		return *s ? intern_seeded(w, pos, s) : 0;
	}
	return str_off_name(w, s, pos);
}

/* str_off() of a string outside the seeded section: short ones by their bytes. */
static __attribute__((noinline)) int64_t str_off_name(struct enc_worker *w, const char *s,
						       size_t pos)
{
	struct short_slot *sh = NULL;
	uint32_t key = 0;
	int64_t r;

	if (!*s)
		return 0;
	if (short_key(s, &key)) {
		sh = &w->shorts[hash_mix(key) & (SHORT_SLOTS - 1)];
		if (sh->key == key)
			return sh->off;
	}
	r = str_off_text(w, s, pos);
	if (sh && r > 0) {
		sh->key = key;
		sh->off = (uint32_t)r;
	}
	return r;
}

/* str_off() of a string not in the seeded section, by its text. */
static int64_t str_off_text(struct enc_worker *w, const char *s, size_t pos)
{
	const struct bslice *ds = &w->ctx->in->dw_str;
	size_t len = strlen(s), slot;
	uint32_t off, ht;
	int64_t r;

	ht = strset_hash(s, len);
	if (!w->ctx->str_lock) {	/* the only worker: the set is the cache */
		r = encb_add_str_hashed(w->ctx->out, s, len, ht);
		return r < 0 ? -ENOMEM : r;
	}
	if (!w->scache_text.cap && scache_grow(&w->scache_text))
		return -ENOMEM;
	if (scache_find(&w->scache_text, ht, s, len, false, &slot, &off))
		return off;
	r = intern_slow(w, s, len, ht);
	if (r < 0)
		return r;
	if (scache_put(&w->scache_text, ht, s, len, (uint32_t)r,
			(const uint8_t *)s < ds->p || pos >= ds->len))
		return -ENOMEM;
	return r;
}

/* ---- pass 2: IR -> BTF records in the fragment ---- */

/*
 * Append a record: header plus ntrail zeroed words; returns the trailing
 * words (NULL on allocation failure).  Local ids are record positions + 1.
 */
static uint32_t *rec_add(struct cu_frag *f, uint32_t name, unsigned kind, bool kflag,
			 uint32_t vlen, uint32_t size_type, size_t ntrail)
{
	uint32_t *p;

	if (VEC_RESERVE(f->words, f->words_cap, f->nwords + 3 + ntrail) ||
	    VEC_RESERVE(f->recs, f->recs_cap, f->nrecs + 1))
		return NULL;
	f->recs[f->nrecs++] = (uint32_t)f->nwords;
	p = f->words + f->nwords;
	p[0] = name;
	p[1] = BTF_INFO_ENC(kind, kflag, vlen);
	p[2] = size_type;
	memset(p + 3, 0, ntrail * 4);
	f->nwords += 3 + ntrail;
	return p + 3;
}

#define STR(s)                                        \
	({                                            \
		int64_t o_ = str_off(w, (s));         \
		if (o_ < 0)                           \
			return (int)o_;               \
		(uint32_t)o_;                         \
	})

static bool int_size_ok(uint64_t sz)
{
	return sz && sz <= 16 && !(sz & (sz - 1));
}

/*
 * The record id of IR id (IR index + 1): the same, unless nested types
 * permute the records (nest_order()); ids past the types (the made-up
 * index type) stay.
 */
static inline uint32_t lid(const struct enc_worker *w, uint32_t id)
{
	return unlikely(w->nested) && id && id <= w->ntypes ? w->perm[id - 1] + 1 : id;
}

/*
 * The records were written with IR ids (IR index + 1) and the types in
 * nest_order(): their ids become record positions, in every record, once
 * (a rare unit's: C has nearly no nested types, and every id written
 * otherwise would pay a test).  Records past the types refer to them by
 * position already.
 */
static void permute_ids(struct enc_worker *w)
{
	struct cu_frag *f = w->frag;
	size_t r;

	for (r = 0; r < f->nrecs; r++) {
		struct btf_field_iter it;
		uint32_t *id;

		if (btf_field_iter_init(&it, (struct btf_type *)(f->words + f->recs[r]), BTF_FIELD_IDS))
			continue;	/* (the encoder writes no kind the iterator lacks) */
		while ((id = btf_field_iter_next(&it)))
			*id = lid(w, *id);
	}
}

/*
 * pahole adds a struct's or union's nested types (clang's anonymous
 * members, C++ nested classes) to its type table before the type itself,
 * each level in turn: records go in that post-order, and ids are mapped
 * through w->perm.  Iterative (a hostile input nests 65,536 deep).
 */
static int nest_order(struct enc_worker *w)
{
	size_t n = w->ntypes, i, k = 0, top;
	uint32_t *start = mem_array(n + 1, sizeof(uint32_t)), *kid = mem_array(n + 1, sizeof(uint32_t));
	uint32_t *stack = mem_array(2 * n + 2, sizeof(uint32_t));
	int err = 0;

	if (!start || !kid || !stack || VEC_RESERVE(w->perm, w->perm_cap, n + 1) ||
	    !(w->perm_order = mem_realloc(w->perm_order, (n + 1) * sizeof(uint32_t)))) {
		err = -ENOMEM;
		goto out;
	}
	memset(start, 0, (n + 1) * sizeof(uint32_t));
	for (i = 0; i < n; i++)
		if (w->types[i].nest >= 0)
			start[w->types[i].nest + 1]++;
	for (i = 0; i < n; i++)
		start[i + 1] += start[i];
	for (i = 0; i < n; i++)		/* children in IR order; start[p] ends at p's end */
		if (w->types[i].nest >= 0)
			kid[start[w->types[i].nest]++] = (uint32_t)i;
	for (i = n; i > 0; i--)		/* back to each parent's first child */
		start[i] = start[i - 1];
	start[0] = 0;
	for (i = 0; i < n; i++) {
		if (w->types[i].nest >= 0)
			continue;
		/* post-order from root i: (node, next child) pairs */
		top = 0;
		stack[top++] = (uint32_t)i;
		stack[top++] = start[i];
		while (top) {
			uint32_t node = stack[top - 2], *next = &stack[top - 1];

			if (*next < start[node + 1]) {
				uint32_t c = kid[(*next)++];

				stack[top++] = c;
				stack[top++] = start[c];
				continue;
			}
			w->perm_order[k] = node;
			w->perm[node] = (uint32_t)k++;
			top -= 2;
		}
	}
	if (k != n)	/* (a nest cycle cannot be: a parent precedes its types) */
		err = -EINVAL;
out:
	mem_free(start);
	mem_free(kid);
	mem_free(stack);
	return err;
}

/* What the kernel takes for a name: a C identifier of fewer than KSYM_NAME_LEN bytes. */
static bool c_ident(const char *s)
{
	size_t i;

	if (!((s[0] >= 'a' && s[0] <= 'z') || (s[0] >= 'A' && s[0] <= 'Z') || s[0] == '_'))
		return false;
	for (i = 1; s[i]; i++)
		if (!((s[i] >= 'a' && s[i] <= 'z') || (s[i] >= 'A' && s[i] <= 'Z') ||
		      (s[i] >= '0' && s[i] <= '9') || s[i] == '_') || i >= 511)
			return false;
	return true;
}

#define NAME_MAX_BTF 512

/*
 * A name of a unit that is not C (C++: "Vec<int, 4>", "_vptr.Shape",
 * "operator+", gcc's struct "typedef __va_list_tag __va_list_tag"), made
 * a C identifier: every other byte becomes '_' (a leading digit gets one
 * before it), at most 511 bytes; with a note.  C units' names are taken
 * as they are (checking every name of a kernel would cost): a broken one
 * fails the final check (btf_encode_file) with one line.
 */
static __attribute__((noinline, cold)) const char *name_fix(struct enc_worker *w, const char *s,
							  const char *what, uint64_t die,
			    char buf[NAME_MAX_BTF])
{
	size_t i, j = 0;

	if (!s || !*s || c_ident(s))
		return s;
	if (s[0] >= '0' && s[0] <= '9')
		buf[j++] = '_';
	for (i = 0; s[i] && j < NAME_MAX_BTF - 1; i++) {
		char c = s[i];

		buf[j++] = (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') || (c >= '0' && c <= '9') ?
			   c : '_';
	}
	buf[j] = 0;
	enc_note_die(w, die, "%s name '%s' is not a C identifier: encoded as '%s'", what, s, buf);
	return buf;
}

/* (check_names: a local or a constant; C units' names are not tested) */
#define NAME(s, what, die) STR(unlikely(check_names) ? name_fix(w, (s), (what), (die), nbuf) : (s))

/* pahole's stand-in for a base type BTF cannot have: a 4-byte INT. */
static __attribute__((noinline, cold)) int emit_fake_int(struct enc_worker *w)
{
	uint32_t *p = rec_add(w->frag, STR("__SANITIZED_FAKE_INT__"), BTF_KIND_INT, false, 0, 4, 1);

	if (p)
		*p = 32;
	return p ? 0 : -ENOMEM;
}

/*
 * One IR type's record.  check_names: a constant at each call (two
 * copies: C units test no name).  One piece (190 lines): a switch with a
 * case per IR kind, each writing its record; the cases share only the
 * fragment and the unit's index type.
 */
static inline __attribute__((always_inline)) int
emit_type(struct enc_worker *w, const struct ir_type *t, uint32_t index_id, const bool check_names)
{
	const struct enc_opts *o = w->ctx->o;
	const struct ir_child *k = w->grouped + t->first;
	struct cu_frag *f = w->frag;
	char nbuf[NAME_MAX_BTF];
	uint32_t i, *p;

	switch ((enum ir_kind)t->kind) {
	case IR_INT: {
		uint32_t sz = (uint32_t)t->size, name;

		if (t->complex)
			enc_note_die(w, t->die, "complex/imaginary base type '%s' (%llu bytes) encoded as %s",
				     t->name ? t->name : "", (unsigned long long)t->size,
				     int_size_ok(t->size) ? "an INT of that size" :
				     "__SANITIZED_FAKE_INT__ (no BTF integer has that size)");
		if (!int_size_ok(t->size)) {
			if (!t->complex)
				enc_note_die(w, t->die, "base type '%s' of %llu bytes encoded as __SANITIZED_FAKE_INT__",
					     t->name ? t->name : "", (unsigned long long)t->size);
			return emit_fake_int(w);
		}
		name = STR(t->name ? t->name : "__anon_int__");
		p = rec_add(f, name, BTF_KIND_INT, false, 0, sz, 1);
		if (p)
			*p = t->enc << 24 | sz * 8;
		return p ? 0 : -ENOMEM;
	}
	case IR_FLOAT:
		if (t->size != 2 && t->size != 4 && t->size != 8 && t->size != 12 && t->size != 16) {
			/* the kernel's FLOAT sizes; DWARF may say anything */
			enc_note_die(w, t->die, "float type '%s' of %llu bytes encoded as __SANITIZED_FAKE_INT__",
				     t->name ? t->name : "", (unsigned long long)t->size);
			return emit_fake_int(w);
		}
		return rec_add(f, STR(t->name ? t->name : "__anon_float__"), BTF_KIND_FLOAT, false, 0,
			       (uint32_t)t->size, 0) ? 0 : -ENOMEM;
	case IR_PTR:
		return rec_add(f, 0, BTF_KIND_PTR, false, 0, t->ref_id, 0) ? 0 : -ENOMEM;
	case IR_TYPE_TAG:
		return rec_add(f, STR(t->name), BTF_KIND_TYPE_TAG, false, 0, t->ref_id, 0) ?
		       0 : -ENOMEM;
	case IR_CONST:
		return rec_add(f, 0, BTF_KIND_CONST, false, 0, t->ref_id, 0) ? 0 : -ENOMEM;
	case IR_VOLATILE:
		return rec_add(f, 0, BTF_KIND_VOLATILE, false, 0, t->ref_id, 0) ? 0 : -ENOMEM;
	case IR_RESTRICT:
		return rec_add(f, 0, BTF_KIND_RESTRICT, false, 0, t->ref_id, 0) ? 0 : -ENOMEM;
	case IR_TYPEDEF:
		return rec_add(f, NAME(t->name, "typedef", t->die), BTF_KIND_TYPEDEF, false, 0,
			       t->ref_id, 0) ? 0 : -ENOMEM;
	case IR_FWD:
		if (!t->name || !*t->name) {
			/* BTF has no nameless declaration: an empty anonymous struct */
			enc_note_die(w, t->die, "declaration without a name encoded as an empty anonymous %s",
				     t->fwd_union ? "union" : "struct");
			return rec_add(f, 0, t->fwd_union ? BTF_KIND_UNION : BTF_KIND_STRUCT, false, 0, 0,
				       0) ? 0 : -ENOMEM;
		}
		return rec_add(f, NAME(t->name, "declaration", t->die), BTF_KIND_FWD, t->fwd_union, 0,
			       0, 0) ? 0 : -ENOMEM;
	case IR_STRUCT:
	case IR_UNION: {
		bool kflag = false, is_union = t->kind == IR_UNION;
		uint32_t name = NAME(t->name, is_union ? "union" : "struct", t->die);

		if (t->n > BTF_MAX_VLEN)
			return diag_err(w->d, E2BIG, "%s: DIE 0x%llx: %u members, more than BTF allows",
					dw_file_path(w->ctx->in->dw),
					(unsigned long long)DW_REF_OFF(t->die), t->n);
		/* As libbpf's btf__add_field: any bitfield switches the record to kflag. */
		for (i = 0; i < t->n; i++)
			kflag |= k[i].bit_size != 0;
		p = rec_add(f, name, is_union ? BTF_KIND_UNION : BTF_KIND_STRUCT, kflag, t->n,
			    (uint32_t)t->size, 3 * (size_t)t->n);
		if (!p)
			return -ENOMEM;
		for (i = 0; i < t->n; i++) {
			uint64_t off = is_union ? 0 : k[i].bit_offset;

			/*
			 * (A member broken DWARF gives no type, out of order or
			 * past the end is left to the final check, check_output():
			 * millions of members would pay for the test here.)
			 */
			if ((kflag && off > 0xffffff) || off > UINT32_MAX || k[i].bit_size > 255)
				return diag_err(w->d, E2BIG,
						"%s: DIE 0x%llx: member '%s' at bit %llu cannot be encoded",
						dw_file_path(w->ctx->in->dw),
						(unsigned long long)DW_REF_OFF(t->die),
						k[i].name ? k[i].name : "", (unsigned long long)off);
			p[3 * i] = NAME(k[i].name, "member", t->die);
			p[3 * i + 1] = k[i].ref_id;
			p[3 * i + 2] = kflag ? k[i].bit_size << 24 | (uint32_t)off : (uint32_t)off;
		}
		return 0;
	}
	case IR_ENUM: {
		uint32_t name = NAME(t->name, "enum", t->die);
		bool is64 = t->size > 4 && o->enum64;
		uint64_t esz = is64 ? 8 : t->size > 8 ? 4 : t->size;

		if (esz == 3 || (esz > 4 && esz < 8)) {
			/* the kernel's enum sizes are powers of two */
			enc_note_die(w, t->die, "enum '%s' of %llu bytes encoded with %u",
				     t->name ? t->name : "(anon)", (unsigned long long)t->size,
				     esz == 3 ? 4 : 8);
			esz = esz == 3 ? 4 : 8;
		} else if (is64 && t->size > 8) {
			enc_note_die(w, t->die, "enum '%s' of %llu bytes encoded with 8",
				     t->name ? t->name : "(anon)", (unsigned long long)t->size);
		}

		if (t->n > BTF_MAX_VLEN)
			return diag_err(w->d, E2BIG, "%s: DIE 0x%llx: %u enumerators, more than BTF allows",
					dw_file_path(w->ctx->in->dw),
					(unsigned long long)DW_REF_OFF(t->die), t->n);
		if (is64) {
			p = rec_add(f, name, BTF_KIND_ENUM64, t->enum_signed, t->n, (uint32_t)esz,
				    3 * (size_t)t->n);
			for (i = 0; p && i < t->n; i++) {
				p[3 * i] = NAME(k[i].name, "enumerator", t->die);
				p[3 * i + 1] = (uint32_t)k[i].value;
				p[3 * i + 2] = (uint32_t)((uint64_t)k[i].value >> 32);
			}
			return p ? 0 : -ENOMEM;
		}
		/*
		 * libbpf's btf__add_enum_value: a negative value makes the enum
		 * signed.  pahole 1.24 without enum64 writes every ENUM unsigned.
		 */
		{
			bool sgn = false;

			for (i = 0; i < t->n && o->enum64; i++)
				sgn |= k[i].value < 0;
			p = rec_add(f, name, BTF_KIND_ENUM, sgn, t->n, (uint32_t)esz, 2 * (size_t)t->n);
		}
		for (i = 0; p && i < t->n; i++) {
			p[2 * i] = NAME(k[i].name, "enumerator", t->die);
			p[2 * i + 1] = (uint32_t)k[i].value;	/* 32 bits: truncated when ENUM64 is off */
		}
		return p ? 0 : -ENOMEM;
	}
	case IR_ARRAY: {
		uint32_t nelems = 1;

		p = rec_add(f, 0, BTF_KIND_ARRAY, false, 0, 0, 3);
		if (!p)
			return -ENOMEM;
		p[1] = index_id;
		if (o->struct_view && t->n > 1) {
			/* the inner dimensions: ARRAYs after the types (emit_dims) */
			p[0] = w->dims_next;
			p[2] = (uint32_t)k[0].value;
			w->dims_next += t->n - 1;
			return 0;
		}
		for (i = 0; i < t->n; i++)
			nelems *= (uint32_t)k[i].value;
		p[0] = t->ref_id;
		if (!t->ref_id) {
			/* an array of void (broken DWARF): the kernel refuses it */
			enc_note_die(w, t->die, "array of void encoded as an array of its index type");
			p[0] = index_id;
		}
		p[2] = t->n ? nelems : 0;
		return 0;
	}
	case IR_PROTO: {
		uint32_t np = 0, j = 0;

		for (i = 0; i < t->n; i++)
			np += k[i].kind == CH_PARAM;
		np += t->has_vararg;
		p = rec_add(f, 0, BTF_KIND_FUNC_PROTO, false, np, t->ref_id, 2 * (size_t)np);
		if (!p)
			return -ENOMEM;
		for (i = 0; i < t->n; i++) {
			if (k[i].kind != CH_PARAM)
				continue;
			p = f->words + f->recs[f->nrecs - 1] + 3;	/* (STR may not move it) */
			p[2 * j] = NAME(k[i].name, "parameter", t->die);
			p = f->words + f->recs[f->nrecs - 1] + 3;
			p[2 * j + 1] = k[i].ref_id;
			j++;
		}
		return 0;	/* a vararg slot stays zeroed */
	}
	}
	return -EINVAL;
}

static int emit_decl_tag(struct enc_worker *w, const char *value, uint32_t target, int component)
{
	uint32_t *p = rec_add(w->frag, STR(value), BTF_KIND_DECL_TAG, false, 0, target, 1);

	if (!p)
		return -ENOMEM;
	*p = (uint32_t)component;
	return 0;
}

static int emit_func(struct enc_worker *w, const struct ir_func *f)
{
	const struct ir_child *k = w->grouped + f->first;
	struct cu_frag *fr = w->frag;
	uint32_t np = f->vararg, i, j = 0, proto, func, *p;
	const bool check_names = w->check_names;
	char nbuf[NAME_MAX_BTF];
	struct frag_func *ff;

	if (check_names && !c_ident(f->name)) {	/* (C's are: a broken one fails the final check) */
		enc_note_die(w, f->die, "function '%s': not a C identifier, not encoded", f->name);
		return 0;
	}
	for (i = 0; i < f->n; i++)
		np += k[i].kind == CH_PARAM;
	p = rec_add(fr, 0, BTF_KIND_FUNC_PROTO, false, np, f->ret_id, 2 * (size_t)np);
	if (!p)
		return -ENOMEM;
	proto = (uint32_t)fr->nrecs;
	for (i = 0; i < f->n; i++) {
		if (k[i].kind != CH_PARAM)
			continue;
		p = fr->words + fr->recs[proto - 1] + 3;	/* STR may not move it, but be safe */
		p[2 * j] = NAME(k[i].name, "parameter", f->die);
		p = fr->words + fr->recs[proto - 1] + 3;
		p[2 * j + 1] = k[i].ref_id;
		j++;
	}
	if (!rec_add(fr, STR(f->name), BTF_KIND_FUNC, false, BTF_FUNC_STATIC, proto, 0))
		return -ENOMEM;
	func = (uint32_t)fr->nrecs;
	for (i = 0; i < w->ntags; i++) {
		const struct ir_decl_tag *dt = &w->tags[i];
		int err;

		if (dt->on != TAG_ON_FUNC || dt->target != (uint32_t)(f - w->funcs))
			continue;
		if ((err = emit_decl_tag(w, dt->value, func, dt->component)))
			return err;
	}
	if (VEC_RESERVE(fr->funcs, fr->funcs_cap, fr->nfuncs + 1))
		return -ENOMEM;
	ff = &fr->funcs[fr->nfuncs++];
	memset(ff, 0, sizeof(*ff));
	ff->name = f->name;
	ff->first = proto;
	ff->last = (uint32_t)fr->nrecs;	/* FUNC_PROTO, FUNC, then its decl tags */
	ff->suffix_only = f->suffix_only;
	ff->kfunc_ok = f->kfunc_ok;
	ff->elf_name = f->elf_name;
	if (w->ctx->o->compat != ENC_COMPAT_124)
		enc_func_flags(w, f, ff);
	return 0;
}

static int emit_vars(struct enc_worker *w)
{
	const struct enc_syms *sy = w->ctx->syms;
	bool modern = w->ctx->o->compat != ENC_COMPAT_124;
	struct cu_frag *fr = w->frag;
	size_t i, j;

	for (i = 0; i < w->nvars; i++) {
		struct ir_var *v = &w->vars[i];
		struct frag_var *fv;
		int err;

		if (modern) {
			if (!v->sec)
				continue;
			v->size = enc_ir_size(w, v->type_id, 0);
			if (!v->size || v->size > UINT32_MAX || v->addr > UINT32_MAX) {
				enc_note(w, "variable '%s': %s, skipped", v->name,
				     v->addr > UINT32_MAX ? "its offset does not fit in 32 bits" :
				     v->size ? "over-sized" : "zero-sized");
				continue;
			}
		} else if (!v->ps) {
			continue;
		}
		if (!c_ident(modern ? v->name : v->ps->name)) {
			/* pahole lets '.' through; the kernel does not */
			enc_note_die(w, v->die, "variable '%s': not a C identifier, not encoded",
				     modern ? v->name : v->ps->name);
			continue;
		}
		if (!rec_add(fr, STR(modern ? v->name : v->ps->name), BTF_KIND_VAR, false, 0,
			     v->type_id, 1))
			return -ENOMEM;
		fr->words[fr->nwords - 1] = v->external ? BTF_VAR_GLOBAL_ALLOCATED : BTF_VAR_STATIC;
		if (VEC_RESERVE(fr->vars, fr->vars_cap, fr->nvars + 1))
			return -ENOMEM;
		fv = &fr->vars[fr->nvars++];
		fv->id = fv->last = (uint32_t)fr->nrecs;
		fv->offset = v->addr;
		fv->size = modern ? v->size : v->ps->size;
		fv->sec = modern ? (uint32_t)(v->sec - sy->secs) : 0;
		for (j = 0; j < w->ntags; j++) {
			const struct ir_decl_tag *dt = &w->tags[j];

			if (dt->on != TAG_ON_VAR || dt->target != i)
				continue;
			if ((err = emit_decl_tag(w, dt->value, fv->id, -1)))
				return err;
			fv->last = (uint32_t)fr->nrecs;
		}
	}
	return 0;
}

/*
 * struct_view: the inner dimensions of each multi-dimensional array, in
 * the order emit_type() numbered them from after the types: ARRAY(n =
 * dims[1]) of ARRAY(n = dims[2]) ... of the element type.
 */
static int emit_dims(struct enc_worker *w, uint32_t index_id, const uint32_t *order)
{
	uint32_t next = (uint32_t)w->frag->nrecs + 1;

	for (size_t i = 0; i < w->ntypes; i++) {
		const struct ir_type *t = &w->types[order ? order[i] : i];
		const struct ir_child *k = w->grouped + t->first;

		if (t->kind != IR_ARRAY || t->n < 2)
			continue;
		for (uint32_t j = 1; j < t->n; j++) {
			uint32_t *p = rec_add(w->frag, 0, BTF_KIND_ARRAY, false, 0, 0, 3);

			if (!p)
				return -ENOMEM;
			p[0] = j + 1 < t->n ? next + 1 : t->ref_id ? t->ref_id : index_id;
			p[1] = index_id;
			p[2] = (uint32_t)k[j].value;
			next++;
		}
	}
	return 0;
}

/* Pass 2, in the order merge_frag() expects: types, decl tags on them, functions, variables. */
int enc_emit_unit(struct enc_worker *w)
{
	struct cu_frag *f = w->frag;
	const uint32_t *order;
	uint32_t index_id = 0;
	size_t i;
	int err;

	/* The array index type: the unit's "int", else one made up after the types. */
	if (w->int_type >= 0)
		index_id = (uint32_t)w->int_type + 1;
	else
		for (i = 0; i < w->ntypes; i++)
			if (w->types[i].kind == IR_ARRAY) {
				index_id = (uint32_t)w->ntypes + 1;
				break;
			}
	w->dims_next = (uint32_t)w->ntypes + 1 + (index_id == w->ntypes + 1);
	if (w->nested && (err = nest_order(w)))
		return err;
	order = w->nested ? w->perm_order : NULL;
	if (w->check_names) {
		for (i = 0; i < w->ntypes; i++)
			if ((err = emit_type(w, &w->types[order ? order[i] : i], index_id, true)))
				return err;
	} else {
		for (i = 0; i < w->ntypes; i++)
			if ((err = emit_type(w, &w->types[order ? order[i] : i], index_id, false)))
				return err;
	}
	if (index_id == w->ntypes + 1) {
		/* pahole's (every version): a signed 4-byte INT named "int" */
		uint32_t *p = rec_add(f, STR("int"), BTF_KIND_INT, false, 0, 4, 1);

		if (!p)
			return -ENOMEM;
		*p = BTF_INT_SIGNED << 24 | 32;
		f->synth_id = index_id;
	}
	if (w->ctx->o->struct_view && (err = emit_dims(w, index_id, order)))
		return err;
	for (i = 0; i < w->ntags; i++) {
		const struct ir_decl_tag *dt = &w->tags[i];

		if (dt->on == TAG_ON_TYPE &&
		    (err = emit_decl_tag(w, dt->value, dt->target + 1, dt->component)))
			return err;
	}
	f->ntypes = (uint32_t)f->nrecs;
	f->has_int = w->int_type >= 0;
	f->int_id = lid(w, (uint32_t)(w->int_type + 1));
	for (i = 0; i < w->nfuncs; i++) {
		if (!w->funcs[i].keep)
			continue;
		if ((err = emit_func(w, &w->funcs[i])))
			return err;
	}
	if ((err = emit_vars(w)))
		return err;
	if (w->nested)
		permute_ids(w);
	return 0;
}

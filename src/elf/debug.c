// SPDX-License-Identifier: GPL-2.0-only
/*
 * Debug-section preparation: decompression (SHF_COMPRESSED with zlib or
 * zstd, legacy .zdebug_*) and relocation of ET_REL objects, each into a
 * private buffer -- the file mapping is never written.
 */
#include <gelf.h>
#include <stdio.h>
#include <zlib.h>
#include <zstd.h>

#include "base/mem.h"
#include "elf/elf_internal.h"

#ifndef ELFCOMPRESS_ZSTD
#define ELFCOMPRESS_ZSTD 2
#endif

/* Sanity bound for a claimed uncompressed size, checked before allocating. */
#define MAX_INFLATE_RATIO 4096
#define MAX_INFLATED (4ULL << 30)

int belf_decompress(struct belf *e, size_t idx, struct bslice in, bool legacy,
		    struct bslice *out, bool *owned, struct diag *d)
{
	const char *name = e->secs[idx].name;
	uint64_t usize;
	uint32_t ctype;
	size_t hdr;
	uint8_t *buf;

	if (legacy) {
		if (in.len < 12 || memcmp(in.p, "ZLIB", 4))
			return diag_err(d, EINVAL, "%s: section '%s': bad .zdebug header", e->path, name);
		usize = 0;
		for (int i = 4; i < 12; i++)
			usize = usize << 8 | in.p[i];
		ctype = ELFCOMPRESS_ZLIB;
		hdr = 12;
	} else if (e->cls == 32) {
		if (in.len < 12)
			return diag_err(d, EINVAL, "%s: section '%s': compression header truncated",
					e->path, name);
		ctype = belf_rd32(e, in.p);
		usize = belf_rd32(e, in.p + 4);
		hdr = 12;
	} else {
		if (in.len < 24)
			return diag_err(d, EINVAL, "%s: section '%s': compression header truncated",
					e->path, name);
		ctype = belf_rd32(e, in.p);
		usize = belf_rd64(e, in.p + 8);
		hdr = 24;
	}
	if (usize > MAX_INFLATED || usize / MAX_INFLATE_RATIO > in.len)
		return diag_err(d, EFBIG,
				"%s: section '%s': claimed uncompressed size %llu is implausible for %zu compressed bytes",
				e->path, name, (unsigned long long)usize, in.len);
	buf = mem_alloc(usize ? usize : 1);
	if (!buf)
		return diag_err(d, ENOMEM, "%s: section '%s': out of memory (%llu bytes)", e->path,
				name, (unsigned long long)usize);
	if (ctype == ELFCOMPRESS_ZLIB) {
		z_stream zs;
		int zr;

		memset(&zs, 0, sizeof(zs));
		if (inflateInit(&zs) != Z_OK) {
			mem_free(buf);
			return diag_err(d, ENOMEM, "%s: zlib init failed", e->path);
		}
		zs.next_in = (Bytef *)(in.p + hdr);
		zs.avail_in = (uInt)MIN(in.len - hdr, (size_t)UINT32_MAX);
		zs.next_out = buf;
		zs.avail_out = (uInt)usize;
		zr = inflate(&zs, Z_FINISH);
		inflateEnd(&zs);
		if (zr != Z_STREAM_END || zs.total_out != usize) {
			mem_free(buf);
			return diag_err(d, EINVAL,
					"%s: section '%s': zlib data corrupt at compressed offset %lu (%s)",
					e->path, name, zs.total_in, zs.msg ? zs.msg : "size mismatch");
		}
	} else if (ctype == ELFCOMPRESS_ZSTD) {
		size_t r = ZSTD_decompress(buf, usize, in.p + hdr, in.len - hdr);

		if (ZSTD_isError(r) || r != usize) {
			mem_free(buf);
			return diag_err(d, EINVAL, "%s: section '%s': zstd data corrupt (%s)", e->path,
					name, ZSTD_isError(r) ? ZSTD_getErrorName(r) : "size mismatch");
		}
	} else {
		mem_free(buf);
		return diag_err(d, ENOTSUP, "%s: section '%s': unknown compression type %u", e->path,
				name, ctype);
	}
	out->p = buf;
	out->len = usize;
	*owned = true;
	return 0;
}

static bool has_relocs(const struct belf *e, size_t target)
{
	size_t i;

	for (i = 1; i < e->nsec; i++)
		if ((e->secs[i].type == SHT_RELA || e->secs[i].type == SHT_REL) &&
		    e->secs[i].info == target && e->secs[i].size)
			return true;
	return false;
}

/* One section's bytes, decompressed and relocated. */
static int prepare(struct belf *e, size_t idx, bool legacy, struct bslice *out, bool *owned,
		   struct diag *d)
{
	struct bslice raw;
	int err;

	*owned = false;
	if ((err = belf_raw(e, idx, &raw, d)))
		return err;
	if (legacy || (e->secs[idx].flags & SHF_COMPRESSED)) {
		if ((err = belf_decompress(e, idx, raw, legacy, &raw, owned, d)))
			return err;
	}
	if (e->etype == ET_REL && has_relocs(e, idx)) {
		uint8_t *copy = (uint8_t *)raw.p;

		if (!*owned) {
			copy = mem_alloc(raw.len);
			if (!copy)
				return diag_err(d, ENOMEM, "%s: out of memory copying '%s'", e->path,
						e->secs[idx].name);
			if (raw.len)	/* an empty (e.g. NOBITS) section has no bytes at all */
				memcpy(copy, raw.p, raw.len);
			*owned = true;
		}
		err = belf_relocate(e, idx, copy, raw.len, d);
		raw.p = copy;
		if (err) {
			mem_free(copy);
			*owned = false;
			return err;
		}
	}
	if (*owned)
		mem_tag(raw.p, "debug section copy");
	*out = raw;
	return 0;
}

/*
 * Object files compiled with -fdebug-types-section (and some LTO outputs)
 * carry several sections of one name, one per COMDAT group; a linker would
 * concatenate them in order, and so do we.
 */
int belf_debug(struct belf *e, const char *name, struct bslice *out, struct diag *d)
{
	return belf_debug_opt(e, name, 0, out, d);
}

size_t belf_skipped_relocs(const struct belf *e, const char **first)
{
	*first = e->nskipped ? e->skipped : NULL;
	return e->nskipped;
}

static int debug_prepare(struct belf *e, const char *name, bool ranged, struct bslice *out,
			 struct diag *d);

int belf_debug_opt(struct belf *e, const char *name, unsigned flags, struct bslice *out,
		   struct diag *d)
{
	int err;

	e->lenient = flags & BELF_DEBUG_LENIENT;
	err = debug_prepare(e, name, (flags & BELF_DEBUG_RANGED) && !e->lenient, out, d);
	e->lenient = false;
	return err;
}

const struct belf_ranged *belf_debug_ranged(const struct belf *e, const char *name)
{
	size_t idx = belf_find(e, name);

	return idx ? e->cache[idx].ranged : NULL;
}

void belf_debug_release(struct belf *e)
{
	size_t i;

	for (i = 0; i < e->nsec; i++) {
		struct belf_cache *c = &e->cache[i];

		if (c->owned)
			mem_free((void *)c->data.p);
		belf_ranged_free(c->ranged);
		memset(c, 0, sizeof(*c));
	}
}

static int debug_prepare(struct belf *e, const char *name, bool ranged, struct bslice *out,
			 struct diag *d)
{
	char zname[64];
	struct belf_cache *c;
	struct bslice part;
	size_t idx, i, n = 0, total = 0;
	bool legacy = false, owned;
	uint8_t *buf;
	int err;

	out->p = NULL;
	out->len = 0;
	idx = belf_find(e, name);
	if (!idx && !strncmp(name, ".debug_", 7)) {
		snprintf(zname, sizeof(zname), ".zdebug_%s", name + 7);
		name = zname;
		idx = belf_find(e, zname);
		legacy = idx != 0;
	}
	if (!idx)
		return 0;
	c = &e->cache[idx];
	if (c->done) {
		*out = c->data;
		return 0;
	}
	for (i = idx; i < e->nsec; i++)
		if (!strcmp(e->secs[i].name, name))
			n++;
	if (n == 1 && ranged && !legacy && !c->ranged) {
		if (!(c->ranged = belf_ranged_new(e, idx, &err, d)) && err)
			return err;
	}
	/* the file's bytes: belf_ranged_read() relocates what it reads; a
	 * caller not asking for ranges gets the relocated copy */
	if (c->ranged && ranged)
		return belf_raw(e, idx, out, d);
	if (n == 1) {
		if ((err = prepare(e, idx, legacy, &part, &owned, d)))
			return err;
		c->data = part;
		c->owned = owned;
		c->done = true;
		*out = part;
		return 0;
	}
	buf = NULL;
	for (i = idx; i < e->nsec; i++) {
		uint8_t *nb;

		if (strcmp(e->secs[i].name, name))
			continue;
		if ((err = prepare(e, i, legacy, &part, &owned, d))) {
			mem_free(buf);
			return err;
		}
		nb = mem_realloc(buf, total + part.len);
		if (!nb) {
			if (owned)
				mem_free((void *)part.p);
			mem_free(buf);
			return diag_err(d, ENOMEM, "%s: out of memory joining '%s' sections", e->path,
					name);
		}
		buf = nb;
		if (part.len)	/* empty (NOBITS) parts have no bytes */
			memcpy(buf + total, part.p, part.len);
		total += part.len;
		if (owned)
			mem_free((void *)part.p);
	}
	c->data.p = buf;
	c->data.len = total;
	c->owned = true;
	c->done = true;
	*out = c->data;
	return 0;
}

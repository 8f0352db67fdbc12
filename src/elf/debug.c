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

static uint32_t rd32(const struct belf *e, const uint8_t *p)
{
	uint32_t v = load32(p);
	return e->swap ? bswap32(v) : v;
}

static uint64_t rd64(const struct belf *e, const uint8_t *p)
{
	uint64_t v = load64(p);
	return e->swap ? bswap64(v) : v;
}

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
		ctype = rd32(e, in.p);
		usize = rd32(e, in.p + 4);
		hdr = 12;
	} else {
		if (in.len < 24)
			return diag_err(d, EINVAL, "%s: section '%s': compression header truncated",
					e->path, name);
		ctype = rd32(e, in.p);
		usize = rd64(e, in.p + 8);
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

enum rk { RK_NONE, RK_ABS, RK_PCREL, RK_ADD, RK_SUB, RK_SET, RK_SUB6, RK_SET6, RK_UNSUPP };

struct rinfo {
	enum rk kind;
	uint8_t width;	/* bytes */
};

/*
 * Relocation types that appear in debug sections, per machine.  Anything
 * else in a debug section is reported (never silently left unrelocated).
 */
static struct rinfo rel_type(uint16_t machine, uint32_t type)
{
	switch (machine) {
	case EM_X86_64:
		switch (type) {
		case 0: return (struct rinfo){ RK_NONE, 0 };
		case 1: return (struct rinfo){ RK_ABS, 8 };	/* R_X86_64_64 */
		case 2: return (struct rinfo){ RK_PCREL, 4 };	/* PC32 */
		case 10: case 11: return (struct rinfo){ RK_ABS, 4 }; /* 32, 32S */
		case 24: return (struct rinfo){ RK_PCREL, 8 };	/* PC64 */
		}
		break;
	case EM_386:
		switch (type) {
		case 0: return (struct rinfo){ RK_NONE, 0 };
		case 1: return (struct rinfo){ RK_ABS, 4 };	/* R_386_32 */
		case 2: return (struct rinfo){ RK_PCREL, 4 };
		}
		break;
	case EM_AARCH64:
		switch (type) {
		case 0: return (struct rinfo){ RK_NONE, 0 };
		case 257: return (struct rinfo){ RK_ABS, 8 };
		case 258: return (struct rinfo){ RK_ABS, 4 };
		case 259: return (struct rinfo){ RK_ABS, 2 };
		case 260: return (struct rinfo){ RK_PCREL, 8 };
		case 261: return (struct rinfo){ RK_PCREL, 4 };
		}
		break;
	case EM_ARM:
		switch (type) {
		case 0: return (struct rinfo){ RK_NONE, 0 };
		case 2: return (struct rinfo){ RK_ABS, 4 };	/* R_ARM_ABS32 */
		case 3: return (struct rinfo){ RK_PCREL, 4 };	/* R_ARM_REL32 */
		}
		break;
	case EM_RISCV:
		switch (type) {
		case 0: return (struct rinfo){ RK_NONE, 0 };
		case 1: return (struct rinfo){ RK_ABS, 4 };
		case 2: return (struct rinfo){ RK_ABS, 8 };
		case 33: return (struct rinfo){ RK_ADD, 1 };
		case 34: return (struct rinfo){ RK_ADD, 2 };
		case 35: return (struct rinfo){ RK_ADD, 4 };
		case 36: return (struct rinfo){ RK_ADD, 8 };
		case 37: return (struct rinfo){ RK_SUB, 1 };
		case 38: return (struct rinfo){ RK_SUB, 2 };
		case 39: return (struct rinfo){ RK_SUB, 4 };
		case 40: return (struct rinfo){ RK_SUB, 8 };
		case 51: return (struct rinfo){ RK_NONE, 0 };	/* RELAX */
		case 52: return (struct rinfo){ RK_SUB6, 1 };
		case 53: return (struct rinfo){ RK_SET6, 1 };
		case 54: return (struct rinfo){ RK_SET, 1 };
		case 55: return (struct rinfo){ RK_SET, 2 };
		case 56: return (struct rinfo){ RK_SET, 4 };
		case 57: return (struct rinfo){ RK_PCREL, 4 };
		}
		break;
	case EM_S390:
		switch (type) {
		case 0: return (struct rinfo){ RK_NONE, 0 };
		case 4: return (struct rinfo){ RK_ABS, 4 };	/* R_390_32 */
		case 22: return (struct rinfo){ RK_ABS, 8 };	/* R_390_64 */
		case 5: return (struct rinfo){ RK_PCREL, 4 };
		case 23: return (struct rinfo){ RK_PCREL, 8 };
		}
		break;
	case EM_PPC64:
		switch (type) {
		case 0: return (struct rinfo){ RK_NONE, 0 };
		case 1: return (struct rinfo){ RK_ABS, 4 };	/* ADDR32 */
		case 38: return (struct rinfo){ RK_ABS, 8 };	/* ADDR64 */
		case 26: return (struct rinfo){ RK_PCREL, 4 };	/* REL32 */
		case 44: return (struct rinfo){ RK_PCREL, 8 };	/* REL64 */
		}
		break;
	case EM_LOONGARCH:
		switch (type) {
		case 0: return (struct rinfo){ RK_NONE, 0 };
		case 1: return (struct rinfo){ RK_ABS, 4 };
		case 2: return (struct rinfo){ RK_ABS, 8 };
		case 47: return (struct rinfo){ RK_ADD, 1 };
		case 48: return (struct rinfo){ RK_ADD, 2 };
		case 50: return (struct rinfo){ RK_ADD, 4 };
		case 51: return (struct rinfo){ RK_ADD, 8 };
		case 52: return (struct rinfo){ RK_SUB, 1 };
		case 53: return (struct rinfo){ RK_SUB, 2 };
		case 55: return (struct rinfo){ RK_SUB, 4 };
		case 56: return (struct rinfo){ RK_SUB, 8 };
		case 99: return (struct rinfo){ RK_PCREL, 4 };
		case 100: return (struct rinfo){ RK_NONE, 0 };	/* RELAX */
		}
		break;
	}
	return (struct rinfo){ RK_UNSUPP, 0 };
}

static uint64_t get_n(const struct belf *e, const uint8_t *p, int w)
{
	uint64_t v = 0;
	int i;

	if (!e->swap && w == 8)
		return load64(p);
	if (!e->swap && w == 4)
		return load32(p);
	if (e->big)
		for (i = 0; i < w; i++)
			v = v << 8 | p[i];
	else
		for (i = w - 1; i >= 0; i--)
			v = v << 8 | p[i];
	return v;
}

static void put_n(const struct belf *e, uint8_t *p, int w, uint64_t v)
{
	int i;

	if (!e->swap && w == 8) {
		store64(p, v);
		return;
	}
	if (!e->swap && w == 4) {
		store32(p, (uint32_t)v);
		return;
	}
	if (e->big)
		for (i = w - 1; i >= 0; i--, v >>= 8)
			p[i] = (uint8_t)v;
	else
		for (i = 0; i < w; i++, v >>= 8)
			p[i] = (uint8_t)v;
}

/* Address of symbol sym for a relocation (ET_REL: distinct section addresses). */
static uint64_t sym_addr(const struct belf *e, uint64_t sym)
{
	uint64_t s = e->syms[sym].value;

	if (e->syms[sym].shndx < e->nsec)
		s += belf_section_addr(e, e->syms[sym].shndx);
	return s;
}

/* Apply entry i of relocation section rs (already decoded) to buf. */
static int rel_one(const struct belf *e, const struct belf_section *rs, size_t i, bool rela,
		   uint64_t off, uint64_t sym, uint64_t type, uint64_t add, uint8_t *buf, size_t len,
		   struct diag *d)
{
	struct rinfo ki;
	uint64_t s, v;

	if (e->machine == EM_MIPS)
		type &= 0xff;
	ki = rel_type(e->machine, (uint32_t)type);
	if (ki.kind == RK_NONE)
		return 0;
	if (ki.kind == RK_UNSUPP)
		return diag_err(d, ENOTSUP,
				"%s: section '%s': relocation %zu (offset 0x%llx) has type %llu, unsupported for machine %u",
				e->path, rs->name, i, (unsigned long long)off,
				(unsigned long long)type, e->machine);
	if (off > len || ki.width > len - off)
		return diag_err(d, EINVAL,
				"%s: section '%s': relocation %zu offset 0x%llx outside the %zu-byte target",
				e->path, rs->name, i, (unsigned long long)off, len);
	if (sym >= e->nsyms)
		return diag_err(d, EINVAL,
				"%s: section '%s': relocation %zu refers to symbol %llu of %zu",
				e->path, rs->name, i, (unsigned long long)sym, e->nsyms);
	s = sym_addr(e, sym);
	if (!rela)
		add = get_n(e, buf + off, ki.width);
	v = get_n(e, buf + off, ki.width);
	switch (ki.kind) {
	case RK_ABS: v = s + add; break;
	case RK_PCREL: v = s + add - off; break;
	case RK_ADD: v = v + s + add; break;
	case RK_SUB: v = v - s - add; break;
	case RK_SET: v = s + add; break;
	case RK_SUB6: v = (v & 0xc0) | ((v - s - add) & 0x3f); break;
	case RK_SET6: v = (v & 0xc0) | ((s + add) & 0x3f); break;
	case RK_NONE: case RK_UNSUPP: break;	/* returned above */
	}
	put_n(e, buf + off, ki.width, v);
	return 0;
}

/*
 * x86-64 RELA in host order, every x86 kernel module: R_X86_64_64 and
 * R_X86_64_32 (what DWARF uses, ~100k per module) inline, against a
 * one-symbol cache (most name .debug_str's section symbol); the rest
 * through rel_one().
 */
static int rel_x86_64(const struct belf *e, const struct belf_section *rs, const uint8_t *rp,
		      size_t n, uint8_t *buf, size_t len, struct diag *d)
{
	uint64_t last_sym = UINT64_MAX, last_s = 0;
	size_t i;
	int err;

	for (i = 0; i < n; i++, rp += 24) {
		uint64_t off = load64(rp), info = load64(rp + 8), add = load64(rp + 16);
		uint64_t sym = info >> 32, type = info & 0xffffffff;

		if ((type == 1 || type == 10) && off <= len && (type == 1 ? 8 : 4) <= len - off &&
		    sym < e->nsyms) {
			if (sym != last_sym) {
				last_sym = sym;
				last_s = sym_addr(e, sym);
			}
			if (type == 1)
				store64(buf + off, last_s + add);
			else
				store32(buf + off, (uint32_t)(last_s + add));
			continue;
		}
		if ((err = rel_one(e, rs, i, true, off, sym, type, add, buf, len, d)))
			return err;
	}
	return 0;
}

int belf_relocate(struct belf *e, size_t target, uint8_t *buf, size_t len, struct diag *d)
{
	size_t ri;
	int err;

	if ((err = belf_load_syms(e, d)))
		return err;
	for (ri = 1; ri < e->nsec; ri++) {
		const struct belf_section *rs = &e->secs[ri];
		bool rela = rs->type == SHT_RELA;
		size_t esz = (e->cls == 64 ? 8 : 4) * (rela ? 3 : 2), i, n;
		const uint8_t *rp;
		struct bslice raw;

		if ((rs->type != SHT_RELA && rs->type != SHT_REL) || rs->info != target)
			continue;
		if ((err = belf_raw(e, ri, &raw, d)))
			return err;
		rp = raw.p;
		n = raw.len / esz;
		if (e->machine == EM_X86_64 && e->cls == 64 && rela && !e->swap) {
			if ((err = rel_x86_64(e, rs, rp, n, buf, len, d)))
				return err;
			continue;
		}
		for (i = 0; i < n; i++, rp += esz) {
			uint64_t off, sym, type, add = 0, info;

			/* Entries read straight from the file (gelf_getrela per entry is slow). */
			if (e->cls == 64) {
				off = rd64(e, rp);
				info = rd64(e, rp + 8);
				if (rela)
					add = rd64(e, rp + 16);
				sym = info >> 32;
				type = info & 0xffffffff;
			} else {
				off = rd32(e, rp);
				info = rd32(e, rp + 4);
				if (rela)
					add = (uint64_t)(int64_t)(int32_t)rd32(e, rp + 8);
				sym = info >> 8;
				type = info & 0xff;
			}
			if ((err = rel_one(e, rs, i, rela, off, sym, type, add, buf, len, d)))
				return err;
		}
	}
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

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

enum rk {
	RK_NONE, RK_ABS, RK_PCREL, RK_ADD, RK_SUB, RK_SET, RK_SUB6, RK_SET6, RK_ADD6,
	RK_DTPREL,	/* offset in the symbol's TLS section: st_value + A */
	RK_GOTOFF,	/* S + A - GOT, with no GOT in a relocatable file: S + A */
	RK_SET_ULEB, RK_SUB_ULEB,	/* a ULEB128 in place, rewritten in its own length */
	RK_ADD_ULEB,
	RK_UNSUPP,
};

struct rinfo {
	enum rk kind;
	uint8_t width;	/* bytes (ULEB kinds: the value's own) */
	const char *name;
};

struct rtype {
	uint16_t machine;
	uint16_t type;
	uint8_t kind, width;
	const char *name;
};

/*
 * Relocation types that gcc, clang and binutils put into debug sections
 * (DWARF's addresses, string and section offsets, TLS variables'
 * DW_OP_const*u x@dtpoff, PIC code's @GOTOFF in location lists, RISC-V's
 * and LoongArch's label differences), per machine; a few others by name
 * only (RK_UNSUPP), for messages.  A type not applied is reported by name
 * (belf_debug's lenient sections skip it instead).
 */
#define R(m, t, k, w, n) { m, t, k, w, n }
static const struct rtype rtypes[] = {
	R(EM_X86_64, 0, RK_NONE, 0, "R_X86_64_NONE"),
	R(EM_X86_64, 1, RK_ABS, 8, "R_X86_64_64"),
	R(EM_X86_64, 2, RK_PCREL, 4, "R_X86_64_PC32"),
	R(EM_X86_64, 3, RK_UNSUPP, 0, "R_X86_64_GOT32"),
	R(EM_X86_64, 4, RK_UNSUPP, 0, "R_X86_64_PLT32"),
	R(EM_X86_64, 9, RK_UNSUPP, 0, "R_X86_64_GOTPCREL"),
	R(EM_X86_64, 10, RK_ABS, 4, "R_X86_64_32"),
	R(EM_X86_64, 11, RK_ABS, 4, "R_X86_64_32S"),
	R(EM_X86_64, 12, RK_ABS, 2, "R_X86_64_16"),
	R(EM_X86_64, 14, RK_ABS, 1, "R_X86_64_8"),
	R(EM_X86_64, 17, RK_DTPREL, 8, "R_X86_64_DTPOFF64"),
	R(EM_X86_64, 18, RK_UNSUPP, 0, "R_X86_64_TPOFF64"),
	R(EM_X86_64, 19, RK_UNSUPP, 0, "R_X86_64_TLSGD"),
	R(EM_X86_64, 20, RK_UNSUPP, 0, "R_X86_64_TLSLD"),
	R(EM_X86_64, 21, RK_DTPREL, 4, "R_X86_64_DTPOFF32"),
	R(EM_X86_64, 22, RK_UNSUPP, 0, "R_X86_64_GOTTPOFF"),
	R(EM_X86_64, 23, RK_UNSUPP, 0, "R_X86_64_TPOFF32"),
	R(EM_X86_64, 24, RK_PCREL, 8, "R_X86_64_PC64"),
	R(EM_X86_64, 25, RK_GOTOFF, 8, "R_X86_64_GOTOFF64"),
	R(EM_X86_64, 26, RK_UNSUPP, 0, "R_X86_64_GOTPC32"),
	R(EM_X86_64, 41, RK_UNSUPP, 0, "R_X86_64_GOTPCRELX"),
	R(EM_X86_64, 42, RK_UNSUPP, 0, "R_X86_64_REX_GOTPCRELX"),
	R(EM_386, 0, RK_NONE, 0, "R_386_NONE"),
	R(EM_386, 1, RK_ABS, 4, "R_386_32"),
	R(EM_386, 2, RK_PCREL, 4, "R_386_PC32"),
	R(EM_386, 3, RK_UNSUPP, 0, "R_386_GOT32"),
	R(EM_386, 4, RK_UNSUPP, 0, "R_386_PLT32"),
	R(EM_386, 9, RK_GOTOFF, 4, "R_386_GOTOFF"),
	R(EM_386, 10, RK_UNSUPP, 0, "R_386_GOTPC"),
	R(EM_386, 20, RK_ABS, 2, "R_386_16"),
	R(EM_386, 22, RK_ABS, 1, "R_386_8"),
	R(EM_386, 32, RK_DTPREL, 4, "R_386_TLS_LDO_32"),
	R(EM_386, 36, RK_DTPREL, 4, "R_386_TLS_DTPOFF32"),
	R(EM_386, 43, RK_UNSUPP, 0, "R_386_GOT32X"),
	R(EM_AARCH64, 0, RK_NONE, 0, "R_AARCH64_NONE"),
	R(EM_AARCH64, 256, RK_NONE, 0, "R_AARCH64_NONE"),
	R(EM_AARCH64, 257, RK_ABS, 8, "R_AARCH64_ABS64"),
	R(EM_AARCH64, 258, RK_ABS, 4, "R_AARCH64_ABS32"),
	R(EM_AARCH64, 259, RK_ABS, 2, "R_AARCH64_ABS16"),
	R(EM_AARCH64, 260, RK_PCREL, 8, "R_AARCH64_PREL64"),
	R(EM_AARCH64, 261, RK_PCREL, 4, "R_AARCH64_PREL32"),
	R(EM_AARCH64, 262, RK_PCREL, 2, "R_AARCH64_PREL16"),
	R(EM_AARCH64, 1029, RK_DTPREL, 8, "R_AARCH64_TLS_DTPREL64"),
	R(EM_ARM, 0, RK_NONE, 0, "R_ARM_NONE"),
	R(EM_ARM, 2, RK_ABS, 4, "R_ARM_ABS32"),
	R(EM_ARM, 3, RK_PCREL, 4, "R_ARM_REL32"),
	R(EM_ARM, 38, RK_ABS, 4, "R_ARM_TARGET1"),
	R(EM_ARM, 106, RK_DTPREL, 4, "R_ARM_TLS_LDO32"),
	R(EM_RISCV, 0, RK_NONE, 0, "R_RISCV_NONE"),
	R(EM_RISCV, 1, RK_ABS, 4, "R_RISCV_32"),
	R(EM_RISCV, 2, RK_ABS, 8, "R_RISCV_64"),
	R(EM_RISCV, 8, RK_DTPREL, 4, "R_RISCV_TLS_DTPREL32"),
	R(EM_RISCV, 9, RK_DTPREL, 8, "R_RISCV_TLS_DTPREL64"),
	R(EM_RISCV, 33, RK_ADD, 1, "R_RISCV_ADD8"),
	R(EM_RISCV, 34, RK_ADD, 2, "R_RISCV_ADD16"),
	R(EM_RISCV, 35, RK_ADD, 4, "R_RISCV_ADD32"),
	R(EM_RISCV, 36, RK_ADD, 8, "R_RISCV_ADD64"),
	R(EM_RISCV, 37, RK_SUB, 1, "R_RISCV_SUB8"),
	R(EM_RISCV, 38, RK_SUB, 2, "R_RISCV_SUB16"),
	R(EM_RISCV, 39, RK_SUB, 4, "R_RISCV_SUB32"),
	R(EM_RISCV, 40, RK_SUB, 8, "R_RISCV_SUB64"),
	R(EM_RISCV, 43, RK_NONE, 0, "R_RISCV_ALIGN"),
	R(EM_RISCV, 51, RK_NONE, 0, "R_RISCV_RELAX"),
	R(EM_RISCV, 52, RK_SUB6, 1, "R_RISCV_SUB6"),
	R(EM_RISCV, 53, RK_SET6, 1, "R_RISCV_SET6"),
	R(EM_RISCV, 54, RK_SET, 1, "R_RISCV_SET8"),
	R(EM_RISCV, 55, RK_SET, 2, "R_RISCV_SET16"),
	R(EM_RISCV, 56, RK_SET, 4, "R_RISCV_SET32"),
	R(EM_RISCV, 57, RK_PCREL, 4, "R_RISCV_32_PCREL"),
	R(EM_RISCV, 60, RK_SET_ULEB, 0, "R_RISCV_SET_ULEB128"),
	R(EM_RISCV, 61, RK_SUB_ULEB, 0, "R_RISCV_SUB_ULEB128"),
	R(EM_S390, 0, RK_NONE, 0, "R_390_NONE"),
	R(EM_S390, 4, RK_ABS, 4, "R_390_32"),
	R(EM_S390, 5, RK_PCREL, 4, "R_390_PC32"),
	R(EM_S390, 22, RK_ABS, 8, "R_390_64"),
	R(EM_S390, 23, RK_PCREL, 8, "R_390_PC64"),
	R(EM_S390, 52, RK_DTPREL, 4, "R_390_TLS_LDO32"),
	R(EM_S390, 53, RK_DTPREL, 8, "R_390_TLS_LDO64"),
	R(EM_S390, 55, RK_DTPREL, 8, "R_390_TLS_DTPOFF"),
	R(EM_PPC64, 0, RK_NONE, 0, "R_PPC64_NONE"),
	R(EM_PPC64, 1, RK_ABS, 4, "R_PPC64_ADDR32"),
	R(EM_PPC64, 26, RK_PCREL, 4, "R_PPC64_REL32"),
	R(EM_PPC64, 38, RK_ABS, 8, "R_PPC64_ADDR64"),
	R(EM_PPC64, 44, RK_PCREL, 8, "R_PPC64_REL64"),
	R(EM_PPC64, 78, RK_DTPREL, 8, "R_PPC64_DTPREL64"),
	R(EM_LOONGARCH, 0, RK_NONE, 0, "R_LARCH_NONE"),
	R(EM_LOONGARCH, 1, RK_ABS, 4, "R_LARCH_32"),
	R(EM_LOONGARCH, 2, RK_ABS, 8, "R_LARCH_64"),
	R(EM_LOONGARCH, 8, RK_DTPREL, 4, "R_LARCH_TLS_DTPREL32"),
	R(EM_LOONGARCH, 9, RK_DTPREL, 8, "R_LARCH_TLS_DTPREL64"),
	R(EM_LOONGARCH, 47, RK_ADD, 1, "R_LARCH_ADD8"),
	R(EM_LOONGARCH, 48, RK_ADD, 2, "R_LARCH_ADD16"),
	R(EM_LOONGARCH, 49, RK_ADD, 3, "R_LARCH_ADD24"),
	R(EM_LOONGARCH, 50, RK_ADD, 4, "R_LARCH_ADD32"),
	R(EM_LOONGARCH, 51, RK_ADD, 8, "R_LARCH_ADD64"),
	R(EM_LOONGARCH, 52, RK_SUB, 1, "R_LARCH_SUB8"),
	R(EM_LOONGARCH, 53, RK_SUB, 2, "R_LARCH_SUB16"),
	R(EM_LOONGARCH, 54, RK_SUB, 3, "R_LARCH_SUB24"),
	R(EM_LOONGARCH, 55, RK_SUB, 4, "R_LARCH_SUB32"),
	R(EM_LOONGARCH, 56, RK_SUB, 8, "R_LARCH_SUB64"),
	R(EM_LOONGARCH, 99, RK_PCREL, 4, "R_LARCH_32_PCREL"),
	R(EM_LOONGARCH, 100, RK_NONE, 0, "R_LARCH_RELAX"),
	R(EM_LOONGARCH, 102, RK_NONE, 0, "R_LARCH_ALIGN"),
	R(EM_LOONGARCH, 105, RK_ADD6, 1, "R_LARCH_ADD6"),
	R(EM_LOONGARCH, 106, RK_SUB6, 1, "R_LARCH_SUB6"),
	R(EM_LOONGARCH, 107, RK_ADD_ULEB, 0, "R_LARCH_ADD_ULEB128"),
	R(EM_LOONGARCH, 108, RK_SUB_ULEB, 0, "R_LARCH_SUB_ULEB128"),
	R(EM_LOONGARCH, 109, RK_PCREL, 8, "R_LARCH_64_PCREL"),
};
#undef R

static struct rinfo rel_type(uint16_t machine, uint32_t type)
{
	size_t i;

	for (i = 0; i < sizeof(rtypes) / sizeof(rtypes[0]); i++)
		if (rtypes[i].machine == machine && rtypes[i].type == type)
			return (struct rinfo){ rtypes[i].kind, rtypes[i].width, rtypes[i].name };
	return (struct rinfo){ RK_UNSUPP, 0, NULL };
}

static const char *machine_name(uint16_t m)
{
	switch (m) {
	case EM_X86_64: return "x86-64";
	case EM_386: return "i386";
	case EM_AARCH64: return "aarch64";
	case EM_ARM: return "arm";
	case EM_RISCV: return "riscv";
	case EM_S390: return "s390";
	case EM_PPC64: return "ppc64";
	case EM_LOONGARCH: return "loongarch";
	default: return NULL;
	}
}

/* "R_X86_64_PLT32 (type 4)" or "type 4 (machine 62)". */
static void rel_describe(const struct belf *e, uint32_t type, char *buf, size_t len)
{
	struct rinfo ki = rel_type(e->machine, type);
	const char *m = machine_name(e->machine);

	if (ki.name)
		snprintf(buf, len, "%s (type %u)", ki.name, type);
	else if (m)
		snprintf(buf, len, "type %u, unknown for %s", type, m);
	else
		snprintf(buf, len, "type %u, on machine %u, which btfc does not relocate", type,
			 e->machine);
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

/* A ULEB128 at p (up to end): its value, and its length in *n (0: malformed). */
static uint64_t uleb_at(const uint8_t *p, const uint8_t *end, size_t *n)
{
	uint64_t v = 0;
	size_t i;

	for (i = 0; p + i < end && i < 10; i++) {
		v |= (uint64_t)(p[i] & 0x7f) << (7 * i);
		if (!(p[i] & 0x80)) {
			*n = i + 1;
			return v;
		}
	}
	*n = 0;
	return 0;
}

/* v into the n bytes of the ULEB128 at p, as the assembler padded it. */
static void uleb_put(uint8_t *p, size_t n, uint64_t v)
{
	size_t i;

	for (i = 0; i < n; i++, v >>= 7)
		p[i] = (uint8_t)((v & 0x7f) | (i + 1 < n ? 0x80 : 0));
}

/* Apply entry i of relocation section rs (already decoded) to buf. */
static int rel_one(struct belf *e, const struct belf_section *rs, size_t i, bool rela,
		   uint64_t off, uint64_t sym, uint64_t type, uint64_t add, uint8_t *buf, size_t len,
		   struct diag *d)
{
	struct rinfo ki;
	uint64_t s, v;
	size_t n;

	if (e->machine == EM_MIPS)
		type &= 0xff;
	ki = rel_type(e->machine, (uint32_t)type);
	if (ki.kind == RK_NONE)
		return 0;
	if (ki.kind == RK_UNSUPP) {
		char what[96];

		rel_describe(e, (uint32_t)type, what, sizeof(what));
		if (e->lenient) {	/* a section the caller can do without: left as it is */
			if (!e->nskipped++)
				snprintf(e->skipped, sizeof(e->skipped),
					 "section '%s': relocation %zu (offset 0x%llx), %s", rs->name,
					 i, (unsigned long long)off, what);
			return 0;
		}
		return diag_err(d, ENOTSUP,
				"%s: section '%s': relocation %zu (offset 0x%llx) is %s, which btfc cannot apply",
				e->path, rs->name, i, (unsigned long long)off, what);
	}
	if (ki.kind == RK_SET_ULEB || ki.kind == RK_SUB_ULEB || ki.kind == RK_ADD_ULEB) {
		if (off >= len || !(v = uleb_at(buf + off, buf + len, &n), n))
			return diag_err(d, EINVAL,
					"%s: section '%s': relocation %zu offset 0x%llx is not at a ULEB128 of the %zu-byte target",
					e->path, rs->name, i, (unsigned long long)off, len);
		ki.width = (uint8_t)n;
	} else {
		v = 0;
	}
	if (off > len || ki.width > len - off)
		return diag_err(d, EINVAL,
				"%s: section '%s': relocation %zu offset 0x%llx outside the %zu-byte target",
				e->path, rs->name, i, (unsigned long long)off, len);
	if (sym >= e->nsyms)
		return diag_err(d, EINVAL,
				"%s: section '%s': relocation %zu refers to symbol %llu of %zu",
				e->path, rs->name, i, (unsigned long long)sym, e->nsyms);
	s = sym_addr(e, sym);
	if (ki.kind == RK_SET_ULEB || ki.kind == RK_SUB_ULEB || ki.kind == RK_ADD_ULEB) {
		v = ki.kind == RK_SET_ULEB ? s + add : ki.kind == RK_SUB_ULEB ? v - s - add : v + s + add;
		uleb_put(buf + off, n, v);
		return 0;
	}
	if (!rela)
		add = get_n(e, buf + off, ki.width);
	v = get_n(e, buf + off, ki.width);
	switch (ki.kind) {
	case RK_ABS: case RK_GOTOFF: v = s + add; break;
	case RK_PCREL: v = s + add - off; break;
	case RK_ADD: v = v + s + add; break;
	case RK_SUB: v = v - s - add; break;
	case RK_SET: v = s + add; break;
	case RK_SUB6: v = (v & 0xc0) | ((v - s - add) & 0x3f); break;
	case RK_SET6: v = (v & 0xc0) | ((s + add) & 0x3f); break;
	case RK_ADD6: v = (v & 0xc0) | ((v + s + add) & 0x3f); break;
	case RK_DTPREL: v = e->syms[sym].value + add; break;
	case RK_NONE: case RK_UNSUPP: case RK_SET_ULEB: case RK_SUB_ULEB: case RK_ADD_ULEB:
		break;	/* returned above */
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
static int rel_x86_64(struct belf *e, const struct belf_section *rs, const uint8_t *rp,
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
	return belf_debug_opt(e, name, 0, out, d);
}

size_t belf_skipped_relocs(const struct belf *e, const char **first)
{
	*first = e->nskipped ? e->skipped : NULL;
	return e->nskipped;
}

static int debug_prepare(struct belf *e, const char *name, struct bslice *out, struct diag *d);

int belf_debug_opt(struct belf *e, const char *name, unsigned flags, struct bslice *out,
		   struct diag *d)
{
	int err;

	e->lenient = flags & BELF_DEBUG_LENIENT;
	err = debug_prepare(e, name, out, d);
	e->lenient = false;
	return err;
}

static int debug_prepare(struct belf *e, const char *name, struct bslice *out, struct diag *d)
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

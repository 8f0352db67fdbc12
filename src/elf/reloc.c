// SPDX-License-Identifier: GPL-2.0-only
/*
 * Relocations of ET_REL debug sections: the table of the types compilers
 * put there, by machine; a whole section relocated into its copy
 * (belf_relocate); and a section read range by range, each range
 * relocated as it is read (belf_ranged_read), for the big modules whose
 * relocated copy would be most of their memory.
 */
#include <gelf.h>
#include <limits.h>
#include <stdio.h>
#include <unistd.h>

#include "base/mem.h"
#include "elf/elf_internal.h"

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


/* A relocation entry, decoded. */
struct rent {
	uint64_t off, sym, type, add;
};

static inline void rent_decode(const struct belf *e, bool rela, const uint8_t *rp, struct rent *r)
{
	uint64_t info;

	/* Entries read straight from the file (gelf_getrela per entry is slow). */
	r->add = 0;
	if (e->cls == 64) {
		r->off = belf_rd64(e, rp);
		info = belf_rd64(e, rp + 8);
		if (rela)
			r->add = belf_rd64(e, rp + 16);
		r->sym = info >> 32;
		r->type = info & 0xffffffff;
	} else {
		r->off = belf_rd32(e, rp);
		info = belf_rd32(e, rp + 4);
		if (rela)
			r->add = (uint64_t)(int64_t)(int32_t)belf_rd32(e, rp + 8);
		r->sym = info >> 8;
		r->type = info & 0xff;
	}
	if (e->machine == EM_MIPS)
		r->type &= 0xff;
}

/* Bytes per entry of relocation section rs. */
static size_t rent_size(const struct belf *e, const struct belf_section *rs)
{
	return (e->cls == 64 ? 8 : 4) * (rs->type == SHT_RELA ? 3 : 2);
}

/* Entry i's symbol is one of the file's: 0, or -EINVAL with the reason. */
static int rel_sym_check(const struct belf *e, const struct belf_section *rs, size_t i,
			 const struct rent *r, struct diag *d)
{
	if (r->sym < e->nsyms)
		return 0;
	return diag_err(d, EINVAL, "%s: section '%s': relocation %zu refers to symbol %llu of %zu",
			e->path, rs->name, i, (unsigned long long)r->sym, e->nsyms);
}

/*
 * The checks of entry i (type, then target range, then symbol) on a
 * target of len bytes: 0 with its kind in *ki (RK_NONE: nothing to do),
 * or a negative errno with the reason.  A kind btfc does not apply is
 * skipped (RK_NONE, counted) in a lenient section.  ULEB128 kinds are not
 * range-checked here: their width is the target's (rel_one).
 */
static int rel_check(struct belf *e, const struct belf_section *rs, size_t i,
		     const struct rent *r, size_t len, struct rinfo *ki, struct diag *d)
{
	*ki = rel_type(e->machine, (uint32_t)r->type);
	if (ki->kind == RK_NONE)
		return 0;
	if (ki->kind == RK_UNSUPP) {
		char what[96];

		rel_describe(e, (uint32_t)r->type, what, sizeof(what));
		if (e->lenient) {	/* a section the caller can do without: left as it is */
			if (!e->nskipped++)
				snprintf(e->skipped, sizeof(e->skipped),
					 "section '%s': relocation %zu (offset 0x%llx), %s", rs->name,
					 i, (unsigned long long)r->off, what);
			ki->kind = RK_NONE;
			return 0;
		}
		return diag_err(d, ENOTSUP,
				"%s: section '%s': relocation %zu (offset 0x%llx) is %s, which btfc cannot apply",
				e->path, rs->name, i, (unsigned long long)r->off, what);
	}
	if (ki->kind == RK_SET_ULEB || ki->kind == RK_SUB_ULEB || ki->kind == RK_ADD_ULEB)
		return 0;
	if (r->off > len || ki->width > len - r->off)
		return diag_err(d, EINVAL,
				"%s: section '%s': relocation %zu offset 0x%llx outside the %zu-byte target",
				e->path, rs->name, i, (unsigned long long)r->off, len);
	return rel_sym_check(e, rs, i, r, d);
}

/*
 * Apply a checked relocation of kind ki (not ULEB128) to the ki.width
 * bytes at p, which are the target's at offset off: s the symbol's
 * address, sval its value (TLS offsets).
 */
static void rel_apply(const struct belf *e, struct rinfo ki, uint8_t *p, uint64_t off, uint64_t s,
		      uint64_t sval, uint64_t add, bool rela)
{
	uint64_t v;

	if (!rela)
		add = belf_get_n(e, p, ki.width);
	v = belf_get_n(e, p, ki.width);
	switch (ki.kind) {
	case RK_ABS: case RK_GOTOFF: v = s + add; break;
	case RK_PCREL: v = s + add - off; break;
	case RK_ADD: v = v + s + add; break;
	case RK_SUB: v = v - s - add; break;
	case RK_SET: v = s + add; break;
	case RK_SUB6: v = (v & 0xc0) | ((v - s - add) & 0x3f); break;
	case RK_SET6: v = (v & 0xc0) | ((s + add) & 0x3f); break;
	case RK_ADD6: v = (v & 0xc0) | ((v + s + add) & 0x3f); break;
	case RK_DTPREL: v = sval + add; break;
	case RK_NONE: case RK_UNSUPP: case RK_SET_ULEB: case RK_SUB_ULEB: case RK_ADD_ULEB:
		return;	/* the caller's */
	}
	belf_put_n(e, p, ki.width, v);
}

/* Apply entry i of relocation section rs (already decoded) to buf. */
static int rel_one(struct belf *e, const struct belf_section *rs, size_t i, bool rela,
		   const struct rent *r, uint8_t *buf, size_t len, struct diag *d)
{
	struct rinfo ki;
	uint64_t s, v;
	size_t n;
	int err;

	if ((err = rel_check(e, rs, i, r, len, &ki, d)) || ki.kind == RK_NONE)
		return err;
	if (ki.kind == RK_SET_ULEB || ki.kind == RK_SUB_ULEB || ki.kind == RK_ADD_ULEB) {
		if (r->off >= len || !(v = uleb_at(buf + r->off, buf + len, &n), n))
			return diag_err(d, EINVAL,
					"%s: section '%s': relocation %zu offset 0x%llx is not at a ULEB128 of the %zu-byte target",
					e->path, rs->name, i, (unsigned long long)r->off, len);
		if ((err = rel_sym_check(e, rs, i, r, d)))
			return err;
		s = sym_addr(e, r->sym);
		v = ki.kind == RK_SET_ULEB ? s + r->add
		    : ki.kind == RK_SUB_ULEB ? v - s - r->add : v + s + r->add;
		uleb_put(buf + r->off, n, v);
		return 0;
	}
	rel_apply(e, ki, buf + r->off, r->off, sym_addr(e, r->sym), e->syms[r->sym].value, r->add,
		  rela);
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
		struct rent r = { load64(rp), 0, 0, load64(rp + 16) };
		uint64_t info = load64(rp + 8);

		r.sym = info >> 32;
		r.type = info & 0xffffffff;
		if ((r.type == 1 || r.type == 10) && r.off <= len &&
		    (r.type == 1 ? 8 : 4) <= len - r.off && r.sym < e->nsyms) {
			if (r.sym != last_sym) {
				last_sym = r.sym;
				last_s = sym_addr(e, r.sym);
			}
			if (r.type == 1)
				store64(buf + r.off, last_s + r.add);
			else
				store32(buf + r.off, (uint32_t)(last_s + r.add));
			continue;
		}
		if ((err = rel_one(e, rs, i, true, &r, buf, len, d)))
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
		size_t esz = rent_size(e, rs), i, n;
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
			struct rent r;

			rent_decode(e, rela, rp, &r);
			if ((err = rel_one(e, rs, i, rela, &r, buf, len, d)))
				return err;
		}
	}
	return 0;
}

/* ---- a section relocated range by range ---- */

/*
 * A big module's .debug_info is read unit by unit (dwarf/: each unit
 * walked in a copy, dw_cursor_init_copy), and its relocations, twice its
 * size (amdgpu.ko: 163 MB of DWARF, 245 MB of relocations), only matter
 * to the unit they fall in.  So instead of a relocated copy of the whole
 * section (and every page of the table read through the mapping), a
 * range is read from the file and the relocations that fall in it are
 * applied then, read from the file too: nothing of either stays in
 * memory beyond the reader's own copy.
 *
 * That needs the relocations of a range to be found and applied without
 * the others: the section has one relocation table, sorted by offset
 * (assemblers and ld -r write them so), and the entries that touch bytes
 * (all but the RK_NONE kinds) either lie after the one before or exactly
 * on it with the same width (RISC-V's and LoongArch's ADD/SUB pairs), so
 * each group at one offset depends only on the bytes under it.  ULEB128
 * kinds (widths known only from the bytes) are not read this way.
 * belf_ranged_new() checks all that in one pass over the table, with the
 * checks and messages belf_relocate() would give in the same order, and
 * keeps every RANGED_CK-th entry's offset to start a range's search from.
 * An entry is then applied to a range exactly as belf_relocate() applies it
 * to the whole: a group straddling the range's edge is computed on its
 * own bytes read from the file, and its part inside copied.
 */
#ifndef RANGED_CK		/* the fuzz build sets 4 */
#define RANGED_CK 256		/* entries per checkpoint */
#endif
#define RMAXW 8			/* widest relocation outside the ULEB128 kinds */
#define RCHUNK (64u << 10)	/* bytes of the table read at once */

struct belf_ranged {
	struct belf *e;
	const struct belf_section *rs;	/* its relocation table */
	uint64_t off, len;		/* the section in the file */
	size_t nrel, esz;
	bool rela;
	uint64_t *ck;			/* per checkpoint (entries 0, RANGED_CK, ...): the offset
					 * of the last entry before it that touches bytes */
	size_t nck;
	uint64_t *saddr, *sval;		/* per symbol: address, value */
};

/* n bytes at file offset off into buf, or false. */
static bool pread_all(int fd, void *buf, size_t n, uint64_t off)
{
	size_t got = 0;

	while (got < n) {
		ssize_t k = pread(fd, (char *)buf + got, n - got, (off_t)(off + got));

		if (k < 0 && errno == EINTR)
			continue;
		if (k <= 0)
			return false;
		got += (size_t)k;
	}
	return true;
}

void belf_ranged_free(struct belf_ranged *r)
{
	if (!r)
		return;
	mem_free(r->ck);
	mem_free(r->saddr);
	mem_free(r->sval);
	mem_free(r);
}

/* One-entry cache of rel_type(): entries repeat a few types. */
struct tcache {
	uint64_t type;
	struct rinfo ki;
	bool valid;
};

static inline struct rinfo rel_type_cached(const struct belf *e, struct tcache *tc, uint64_t type)
{
	if (!tc->valid || tc->type != type) {
		tc->ki = rel_type(e->machine, (uint32_t)type);
		tc->type = type;
		tc->valid = true;
	}
	return tc->ki;
}

/*
 * The table of section target checked as belf_relocate() would (*err its
 * first error, with d's message: the caller fails as belf_debug would);
 * NULL with *err 0 when the section cannot be read by ranges, or memory
 * was short (then it is relocated whole, as before).
 */
static struct belf_ranged *ranged_check(struct belf *e, size_t target, size_t ri, int *err,
					struct diag *d)
{
	const struct belf_section *rs = &e->secs[ri], *ts = &e->secs[target];
	struct belf_ranged *r = mem_zalloc(sizeof(*r));
	uint64_t prev_off = 0, prev_end = 0, eff = 0;
	unsigned prev_w = 0;
	uint8_t *chunk = mem_alloc(RCHUNK);
	struct tcache tc = { 0 };
	bool any = false;
	size_t i, k;

	*err = 0;
	if (!r || !chunk)
		goto no;
	r->e = e;
	r->rs = rs;
	r->off = ts->offset;
	r->len = ts->size;
	r->rela = rs->type == SHT_RELA;
	r->esz = rent_size(e, rs);
	r->nrel = rs->size / r->esz;
	r->nck = (r->nrel + RANGED_CK - 1) / RANGED_CK;	/* the checkpoints below nrel */
	if (!(r->ck = mem_array(r->nck, sizeof(*r->ck))))
		goto no;
	for (i = 0; i < r->nrel; i += k) {
		size_t n = MIN(r->nrel - i, RCHUNK / r->esz);

		if (!pread_all(e->fd, chunk, n * r->esz, rs->offset + i * r->esz))
			goto no;
		for (k = 0; k < n; k++) {
			struct rent en;
			struct rinfo ki;

			if ((i + k) % RANGED_CK == 0)
				r->ck[(i + k) / RANGED_CK] = eff;
			rent_decode(e, r->rela, chunk + k * r->esz, &en);
			ki = rel_type_cached(e, &tc, en.type);
			if (ki.kind == RK_NONE)
				continue;
			if (ki.kind == RK_SET_ULEB || ki.kind == RK_SUB_ULEB || ki.kind == RK_ADD_ULEB)
				goto no;	/* (rel_check would pass it; belf_relocate checks it) */
			if ((*err = rel_check(e, rs, i + k, &en, ts->size, &ki, d)))
				goto no;
			if (any && (en.off < prev_off ||
				    (en.off == prev_off ? ki.width != prev_w : en.off < prev_end)))
				goto no;	/* unsorted or overlapping: not by ranges */
			any = true;
			prev_off = eff = en.off;
			prev_w = ki.width;
			prev_end = en.off + ki.width;
		}
	}
	r->saddr = mem_array(e->nsyms ? e->nsyms : 1, sizeof(*r->saddr));
	r->sval = mem_array(e->nsyms ? e->nsyms : 1, sizeof(*r->sval));
	if (!r->saddr || !r->sval)
		goto no;
	for (i = 0; i < e->nsyms; i++) {
		r->saddr[i] = sym_addr(e, i);
		r->sval[i] = e->syms[i].value;
	}
	mem_free(chunk);
	return r;
no:
	mem_free(chunk);
	belf_ranged_free(r);
	return NULL;
}

struct belf_ranged *belf_ranged_new(struct belf *e, size_t target, int *err, struct diag *d)
{
	const struct belf_section *ts = &e->secs[target];
	size_t i, ri = 0;

	*err = 0;
	if (e->etype != ET_REL || ts->type == SHT_NOBITS || (ts->flags & SHF_COMPRESSED) ||
	    e->fd < 0)
		return NULL;
	for (i = 1; i < e->nsec; i++) {
		const struct belf_section *s = &e->secs[i];

		if ((s->type != SHT_RELA && s->type != SHT_REL) || s->info != target)
			continue;
		if (ri)
			return NULL;	/* several tables: applied in turn, whole */
		ri = i;
	}
	if (!ri || !e->secs[ri].size || e->secs[ri].type == SHT_NOBITS)
		return NULL;
	if ((*err = belf_load_syms(e, d)))
		return NULL;
	return ranged_check(e, target, ri, err, d);
}

/* The first entry that can touch bytes at or after off. */
static size_t ranged_start(const struct belf_ranged *r, uint64_t off)
{
	size_t lo = 0, hi = r->nck;

	/* the last checkpoint k with every entry before it ending at or before off */
	while (hi - lo > 1) {
		size_t mid = (lo + hi) / 2;

		if (r->ck[mid] + RMAXW <= off)
			lo = mid;
		else
			hi = mid;
	}
	return lo * RANGED_CK;
}

ssize_t belf_ranged_read(const struct belf_ranged *r, uint64_t off, void *out, size_t len)
{
	const struct belf *e = r->e;
	uint64_t end = off + len, tmp_off = UINT64_MAX;
	uint8_t *buf = out, tmp[RMAXW], stack[4096], *chunk = stack;
	size_t i, n = 0, k = 0, cap = sizeof(stack) / r->esz;
	struct tcache tc = { 0 };
	ssize_t ret = (ssize_t)len;

	if (off > r->len || len > r->len - off || len > (size_t)SSIZE_MAX ||
	    !pread_all(e->fd, buf, len, r->off + off))
		return -1;
	for (i = ranged_start(r, off); i < r->nrel; i++, k++) {
		struct rent en;
		struct rinfo ki;
		uint64_t lo, hi;

		if (k == n) {	/* the next piece of the table; pieces grow up to RCHUNK */
			if (chunk == stack && n == cap && (chunk = mem_alloc(RCHUNK)))
				cap = RCHUNK / r->esz;
			if (!chunk) {
				ret = -1;
				break;
			}
			n = MIN(cap, r->nrel - i);
			k = 0;
			if (!pread_all(e->fd, chunk, n * r->esz, r->rs->offset + i * r->esz)) {
				ret = -1;
				break;
			}
		}
		rent_decode(e, r->rela, chunk + k * r->esz, &en);
		ki = rel_type_cached(e, &tc, en.type);
		if (ki.kind == RK_NONE)
			continue;
		if (en.off >= end)
			break;
		if (en.off + ki.width <= off)
			continue;
		if (en.off >= off && en.off + ki.width <= end) {
			rel_apply(e, ki, buf + (en.off - off), en.off, r->saddr[en.sym], r->sval[en.sym],
				  en.add, r->rela);
			continue;
		}
		/* across an edge of the range: on its own bytes, then the part inside */
		if (tmp_off != en.off) {
			if (!pread_all(e->fd, tmp, ki.width, r->off + en.off)) {
				ret = -1;
				break;
			}
			tmp_off = en.off;
		}
		rel_apply(e, ki, tmp, en.off, r->saddr[en.sym], r->sval[en.sym], en.add, r->rela);
		lo = MAX(en.off, off);
		hi = MIN(en.off + ki.width, end);
		memcpy(buf + (lo - off), tmp + (lo - en.off), (size_t)(hi - lo));
	}
	if (chunk != stack)
		mem_free(chunk);
	return ret;
}

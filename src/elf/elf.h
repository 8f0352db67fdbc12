/* SPDX-License-Identifier: GPL-2.0-only */
/*
 * elf/: read access to an ELF file over libelf, plus the debug-section
 * preparation DWARF needs (decompression, ET_REL relocations).  Hands out
 * byte slices; knows nothing of DWARF or BTF.
 *
 * Lifetime: every slice returned stays valid until belf_close().  All
 * debug sections a consumer will read from several threads must be
 * fetched before the threads start (fetching caches; reading is then
 * immutable).
 */
#ifndef BTFC_ELF_H
#define BTFC_ELF_H

#include <sys/types.h>

#include "base/diag.h"
#include "base/slice.h"

struct belf_section {
	const char *name;
	uint32_t name_off;	/* sh_name */
	uint32_t type, link, info;
	uint64_t flags, addr, offset, size, entsize, addralign;
};

struct belf_sym {
	const char *name;
	uint64_t value, size;
	uint32_t shndx;		/* extended indices already resolved */
	uint8_t type, bind, other;
};

struct belf;

/* Open and map path; validates the ELF and section headers. */
int belf_open(struct belf **out, const char *path, struct diag *d);
void belf_close(struct belf *e);

const char *belf_path(const struct belf *e);
int belf_class(const struct belf *e);		/* 32 or 64 */
bool belf_big_endian(const struct belf *e);
uint16_t belf_machine(const struct belf *e);
uint16_t belf_type(const struct belf *e);	/* ET_REL, ET_EXEC, ... */
size_t belf_nsections(const struct belf *e);
const struct belf_section *belf_section(const struct belf *e, size_t idx);
/* Index of the first section named name, or 0 (SHN_UNDEF) if none. */
size_t belf_find(const struct belf *e, const char *name);
/* The file bytes of a section as stored (no decompression, no relocation). */
int belf_raw(struct belf *e, size_t idx, struct bslice *out, struct diag *d);

/*
 * A debug section by DWARF name (".debug_info"): found as NAME or as
 * ".zdebug_*", decompressed (SHF_COMPRESSED zlib/zstd or legacy ZLIB
 * header) and, for ET_REL files, with its .rela/.rel relocations applied.
 * A missing section yields an empty slice and 0.  Cached.
 */
int belf_debug(struct belf *e, const char *name, struct bslice *out, struct diag *d);
/*
 * belf_debug() with flags.  BELF_DEBUG_LENIENT: a section the caller can
 * do without (location and range lists): a relocation of a type btfc
 * cannot apply is left unapplied and counted (belf_skipped_relocs())
 * instead of failing; the others still fail, naming the type.
 */
#define BELF_DEBUG_LENIENT 1u
/*
 * BELF_DEBUG_RANGED (not with LENIENT): an ET_REL section that needs
 * relocations is not copied and relocated whole if its relocations can
 * be applied range by range (reloc.c says when): *out is then its bytes
 * in the file, NOT relocated, and belf_ranged_read() reads ranges of it
 * relocated (belf_debug_ranged() gives the reader).  The relocations are
 * checked here all the same, with belf_debug()'s errors.  A later
 * belf_debug() of the section makes the relocated copy.
 */
#define BELF_DEBUG_RANGED 2u
int belf_debug_opt(struct belf *e, const char *name, unsigned flags, struct bslice *out,
		   struct diag *d);
struct belf_ranged;
/* Section name's range reader (belf_debug_opt(BELF_DEBUG_RANGED)), or NULL. */
const struct belf_ranged *belf_debug_ranged(const struct belf *e, const char *name);
/*
 * len bytes at offset off of the section, its relocations applied, read
 * from the file (none of its pages or of its table's stay mapped); len,
 * or -1 (out of the section, a read error, no memory).  Thread-safe.
 */
ssize_t belf_ranged_read(const struct belf_ranged *r, uint64_t off, void *buf, size_t len);
/*
 * Done with the debug sections: free the copies belf_debug() made and the
 * range readers.  Slices they returned are invalid afterwards; fetching a
 * section again prepares it again.
 */
void belf_debug_release(struct belf *e);
/* Relocations left unapplied so far, and the first one (section, index, type), or 0. */
size_t belf_skipped_relocs(const struct belf *e, const char **first);

/*
 * The address a section is taken to load at.  Its sh_addr, except in ET_REL
 * files, where every allocated section has address 0: there they get
 * distinct, non-overlapping addresses (laid out in section order, as
 * libdwfl does), so that DWARF addresses from different sections (applied
 * through relocations, see belf_debug) never collide.
 */
uint64_t belf_section_addr(const struct belf *e, size_t idx);

/* Symbols of SHT_SYMTAB (or SHT_DYNSYM if there is no symtab). */
size_t belf_nsyms(const struct belf *e);
int belf_load_syms(struct belf *e, struct diag *d);
const struct belf_sym *belf_sym(const struct belf *e, size_t i);

/*
 * Write a copy of e to out_path (which may be e's own path) with sections
 * replaced or added: for each i, the section named names[i] gets data[i]
 * (SHT_PROGBITS, no flags, 4-byte aligned when it is new).  Every other
 * section keeps its bytes and offset; new data and the section header
 * table go after the last section.  Written to a temp file in out_path's
 * directory and renamed over it, keeping its mode: on failure out_path is
 * untouched.
 */
int belf_write_sections(struct belf *e, const char *out_path, size_t n, const char *const *names,
			const void *const *data, const size_t *len, struct diag *d);

/* Release the page cache mapping of [off, off+len) once it is consumed. */
void belf_drop_range(struct belf *e, const void *p, size_t len);
/*
 * Copy len bytes at p, inside the file's own mapping, from the file
 * instead (pread: no page of the mapping is touched); the bytes copied or
 * -1 (p is not in the mapping, e.g. a decompressed or relocated section).
 */
ssize_t belf_pread(const struct belf *e, const void *p, void *buf, size_t len);
/* The same for the whole file (it is read again, from the page cache, if needed). */
void belf_drop(struct belf *e);
/*
 * Done with the symbols: free the decoded table (belf_load_syms() would
 * decode it again) and release the pages of the symbol table and its
 * strings.  Names taken from it stay valid (read again from the page cache).
 */
void belf_drop_syms(struct belf *e);

#endif

// SPDX-License-Identifier: GPL-2.0-only
#include "elf/elf.h"

#include <errno.h>
#include <fcntl.h>
#include <gelf.h>
#include <libelf.h>
#include <stdio.h>
#include <sys/mman.h>
#include <sys/stat.h>
#include <unistd.h>

#include "base/mem.h"
#include "elf/elf_internal.h"

static int elf_fail(struct belf *e, struct diag *d, const char *what)
{
	int err = elf_errno();

	/* libelf does not always say why ("no error"): then say nothing more. */
	if (!err)
		return diag_err(d, EINVAL, "%s: %s", e->path, what);
	return diag_err(d, EINVAL, "%s: %s: %s", e->path, what, elf_errmsg(err));
}

int belf_open(struct belf **out, const char *path, struct diag *d)
{
	struct belf *e;
	struct stat st;
	GElf_Ehdr eh;
	size_t i;
	int err = 0;

	*out = NULL;
	if (elf_version(EV_CURRENT) == EV_NONE)
		return diag_err(d, EINVAL, "libelf initialisation failed");
	e = mem_zalloc(sizeof(*e));
	if (!e)
		return diag_err(d, ENOMEM, "%s: out of memory", path);
	e->fd = -1;
	e->path = mem_strdup(path);
	if (!e->path) {
		err = diag_err(d, ENOMEM, "%s: out of memory", path);
		goto fail;
	}
	e->fd = open(path, O_RDONLY | O_CLOEXEC);
	if (e->fd < 0) {
		err = diag_err(d, errno, "%s: %s", path, strerror(errno));
		goto fail;
	}
	if (fstat(e->fd, &st) < 0) {
		err = diag_err(d, errno, "%s: %s", path, strerror(errno));
		goto fail;
	}
	if (!S_ISREG(st.st_mode)) {
		err = diag_err(d, EINVAL, "%s: not a regular file", path);
		goto fail;
	}
	e->size = (size_t)st.st_size;
	if (e->size < EI_NIDENT) {
		err = diag_err(d, EINVAL, "%s: offset 0: file too small for an ELF header (%zu bytes)",
			       path, e->size);
		goto fail;
	}
	e->map = mmap(NULL, e->size, PROT_READ, MAP_PRIVATE, e->fd, 0);
	if (e->map == MAP_FAILED) {
		e->map = NULL;
		err = diag_err(d, errno, "%s: mmap: %s", path, strerror(errno));
		goto fail;
	}
	if (memcmp(e->map, ELFMAG, SELFMAG)) {
		err = diag_err(d, EINVAL, "%s: offset 0: not an ELF file (bad magic)", path);
		goto fail;
	}
	e->elf = elf_memory((char *)e->map, e->size);
	if (!e->elf || elf_kind(e->elf) != ELF_K_ELF) {
		err = elf_fail(e, d, "offset 0: not a valid ELF file");
		goto fail;
	}
	if (!gelf_getehdr(e->elf, &eh)) {
		err = elf_fail(e, d, "offset 0: bad ELF header");
		goto fail;
	}
	e->cls = eh.e_ident[EI_CLASS] == ELFCLASS32 ? 32 : 64;
	e->big = eh.e_ident[EI_DATA] == ELFDATA2MSB;
	e->swap = e->big != (__BYTE_ORDER__ == __ORDER_BIG_ENDIAN__);
	e->machine = eh.e_machine;
	e->etype = eh.e_type;
	if (eh.e_shoff) {
		uint64_t n = eh.e_shnum ? eh.e_shnum : 1, ent = eh.e_shentsize;

		if (eh.e_shoff > e->size || ent * n > e->size - eh.e_shoff) {
			err = diag_err(d, EINVAL,
				       "%s: offset 0x%llx: section header table (%llu entries) extends past the end of the file (0x%zx bytes); the file is truncated",
				       path, (unsigned long long)eh.e_shoff, (unsigned long long)n,
				       e->size);
			goto fail;
		}
	}
	if (elf_getshdrnum(e->elf, &e->nsec) || elf_getshdrstrndx(e->elf, &e->shstrndx)) {
		err = elf_fail(e, d, "bad section header table");
		goto fail;
	}
	e->secs = mem_array(e->nsec ? e->nsec : 1, sizeof(*e->secs));
	e->cache = mem_array(e->nsec ? e->nsec : 1, sizeof(*e->cache));
	if (!e->secs || !e->cache) {
		err = diag_err(d, ENOMEM, "%s: out of memory", path);
		goto fail;
	}
	for (i = 0; i < e->nsec; i++) {
		Elf_Scn *scn = elf_getscn(e->elf, i);
		struct belf_section *s = &e->secs[i];
		GElf_Shdr sh;
		const char *name;

		if (!scn || !gelf_getshdr(scn, &sh)) {
			err = diag_err(d, EINVAL, "%s: section %zu: bad section header: %s", path, i,
				       elf_errmsg(-1));
			goto fail;
		}
		name = i ? elf_strptr(e->elf, e->shstrndx, sh.sh_name) : "";
		s->name = name ? name : "";
		s->name_off = sh.sh_name;
		s->type = sh.sh_type;
		s->flags = sh.sh_flags;
		s->addr = sh.sh_addr;
		s->offset = sh.sh_offset;
		s->size = sh.sh_size;
		s->link = sh.sh_link;
		s->info = sh.sh_info;
		s->entsize = sh.sh_entsize;
		s->addralign = sh.sh_addralign;
		if (s->type != SHT_NOBITS && i &&
		    (s->offset > e->size || s->size > e->size - s->offset)) {
			err = diag_err(d, EINVAL,
				       "%s: section %zu '%s' (offset 0x%llx, size 0x%llx) extends past the end of the file (0x%zx bytes); the file is truncated",
				       path, i, s->name, (unsigned long long)s->offset,
				       (unsigned long long)s->size, e->size);
			goto fail;
		}
	}
	*out = e;
	return 0;
fail:
	belf_close(e);
	return err;
}

void belf_close(struct belf *e)
{
	if (!e)
		return;
	if (e->cache)
		belf_debug_release(e);
	mem_free(e->cache);
	mem_free(e->secs);
	mem_free(e->syms);
	mem_free(e->rel_addr);
	if (e->elf)
		elf_end(e->elf);
	if (e->map)
		munmap(e->map, e->size);
	if (e->fd >= 0)
		close(e->fd);
	mem_free(e->path);
	mem_free(e);
}

const char *belf_path(const struct belf *e) { return e->path; }
int belf_class(const struct belf *e) { return e->cls; }
bool belf_big_endian(const struct belf *e) { return e->big; }
uint16_t belf_machine(const struct belf *e) { return e->machine; }
uint16_t belf_type(const struct belf *e) { return e->etype; }
size_t belf_nsections(const struct belf *e) { return e->nsec; }

const struct belf_section *belf_section(const struct belf *e, size_t idx)
{
	return idx < e->nsec ? &e->secs[idx] : NULL;
}

size_t belf_find(const struct belf *e, const char *name)
{
	size_t i;

	for (i = 1; i < e->nsec; i++)
		if (!strcmp(e->secs[i].name, name))
			return i;
	return 0;
}

int belf_raw(struct belf *e, size_t idx, struct bslice *out, struct diag *d)
{
	const struct belf_section *s = belf_section(e, idx);

	out->p = NULL;
	out->len = 0;
	if (!s || !idx)
		return diag_err(d, EINVAL, "%s: no section %zu", e->path, idx);
	if (s->type == SHT_NOBITS)
		return 0;
	out->p = (const uint8_t *)e->map + s->offset;
	out->len = s->size;
	return 0;
}

void belf_drop(struct belf *e)
{
	belf_drop_range(e, e->map, e->size);
}

ssize_t belf_pread(const struct belf *e, const void *p, void *buf, size_t len)
{
	uintptr_t a = (uintptr_t)p, base = (uintptr_t)e->map;
	size_t got = 0;

	if (e->fd < 0 || !e->map || a < base || a - base > e->size || len > e->size - (a - base))
		return -1;
	while (got < len) {
		ssize_t n = pread(e->fd, (char *)buf + got, len - got, (off_t)(a - base + got));

		if (n < 0 && errno == EINTR)
			continue;
		if (n <= 0)
			return -1;	/* the file changed under the mapping */
		got += (size_t)n;
	}
	return (ssize_t)got;
}

void belf_drop_range(struct belf *e, const void *p, size_t len)
{
	uintptr_t lo = (uintptr_t)p, hi = lo + len, base = (uintptr_t)e->map;
	long pg = sysconf(_SC_PAGESIZE);

	if (lo < base || hi > base + e->size || pg <= 0)
		return;
	lo = (lo + pg - 1) & ~((uintptr_t)pg - 1);
	hi &= ~((uintptr_t)pg - 1);
	if (hi > lo)
		madvise((void *)lo, hi - lo, MADV_DONTNEED);
}

void belf_drop_syms(struct belf *e)
{
	size_t i;

	mem_free(e->syms);
	e->syms = NULL;
	e->nsyms = 0;
	e->syms_loaded = false;

	for (i = 1; i < e->nsec; i++) {
		const struct belf_section *s = &e->secs[i];

		if (s->type != SHT_SYMTAB && s->type != SHT_SYMTAB_SHNDX && s->type != SHT_DYNSYM &&
		    !(s->type == SHT_STRTAB && i != e->shstrndx))
			continue;
		if (s->type != SHT_NOBITS && s->offset <= e->size && s->size <= e->size - s->offset)
			belf_drop_range(e, (const uint8_t *)e->map + s->offset, s->size);
	}
}

int belf_load_syms(struct belf *e, struct diag *d)
{
	size_t i, symidx = 0, xidx = 0, n;
	Elf_Data *data, *xdata = NULL;
	Elf_Scn *scn;

	if (e->syms_loaded)
		return 0;
	for (i = 1; i < e->nsec; i++)
		if (e->secs[i].type == SHT_SYMTAB)
			symidx = i;
	if (!symidx)
		for (i = 1; i < e->nsec; i++)
			if (e->secs[i].type == SHT_DYNSYM)
				symidx = i;
	e->syms_loaded = true;
	if (!symidx)
		return 0;
	for (i = 1; i < e->nsec; i++)
		if (e->secs[i].type == SHT_SYMTAB_SHNDX && e->secs[i].link == symidx)
			xidx = i;
	scn = elf_getscn(e->elf, symidx);
	data = scn ? elf_getdata(scn, NULL) : NULL;
	if (!data)
		return elf_fail(e, d, "cannot read the symbol table");
	if (xidx) {
		Elf_Scn *xs = elf_getscn(e->elf, xidx);
		xdata = xs ? elf_getdata(xs, NULL) : NULL;
	}
	n = e->secs[symidx].entsize ? e->secs[symidx].size / e->secs[symidx].entsize : 0;
	e->syms = mem_array(n ? n : 1, sizeof(*e->syms));
	if (!e->syms)
		return diag_err(d, ENOMEM, "%s: out of memory for %zu symbols", e->path, n);
	for (i = 0; i < n; i++) {
		struct belf_sym *s = &e->syms[i];
		GElf_Sym sym;
		Elf32_Word xs = 0;
		const char *name;

		if (!gelf_getsymshndx(data, xdata, (int)i, &sym, &xs))
			return diag_err(d, EINVAL, "%s: symbol %zu: unreadable", e->path, i);
		name = elf_strptr(e->elf, e->secs[symidx].link, sym.st_name);
		s->name = name ? name : "";
		s->value = sym.st_value;
		s->size = sym.st_size;
		s->shndx = sym.st_shndx == SHN_XINDEX ? xs : sym.st_shndx;
		s->type = GELF_ST_TYPE(sym.st_info);
		s->bind = GELF_ST_BIND(sym.st_info);
		s->other = sym.st_other;
	}
	e->nsyms = n;
	if (e->etype == ET_REL) {
		uint64_t next = 0;

		e->rel_addr = mem_array(e->nsec ? e->nsec : 1, sizeof(*e->rel_addr));
		if (!e->rel_addr)
			return diag_err(d, ENOMEM, "%s: out of memory", e->path);
		for (i = 1; i < e->nsec; i++) {
			const struct belf_section *s = &e->secs[i];
			uint64_t al = s->addralign > 1 ? s->addralign : 1;

			if (!(s->flags & SHF_ALLOC))
				continue;
			next = (next + al - 1) / al * al;
			e->rel_addr[i] = next;
			next += s->size;
		}
	}
	return 0;
}

uint64_t belf_section_addr(const struct belf *e, size_t idx)
{
	if (idx >= e->nsec)
		return 0;
	if (e->etype == ET_REL)
		return e->rel_addr ? e->rel_addr[idx] : 0;
	return e->secs[idx].addr;
}

size_t belf_nsyms(const struct belf *e) { return e->nsyms; }
const struct belf_sym *belf_sym(const struct belf *e, size_t i)
{
	return i < e->nsyms ? &e->syms[i] : NULL;
}

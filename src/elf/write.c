// SPDX-License-Identifier: GPL-2.0-only
/*
 * Section replacement without objcopy.  The output is the input's bytes up
 * to the end of its last kept section, then a grown .shstrtab when a
 * section is added, the new section contents, and a new section header
 * table (in that order, so replacing again rewrites only the tail).
 * Nothing before that point moves, so every other section keeps its bytes
 * and its offset (segments and relocations stay valid).  A replaced section
 * that sat in the middle of the file leaves its old bytes behind, unused.
 */
#include <gelf.h>
#include <stdio.h>

#include "base/file.h"
#include "base/mem.h"
#include "elf/elf_internal.h"

/* The new tail of the file, starting at file offset base. */
struct outbuf {
	uint8_t *p;
	size_t base, len, cap;	/* file offset of p[0]; bytes used */
};

static size_t out_pos(const struct outbuf *o)
{
	return o->base + o->len;
}

static int out_put(struct outbuf *o, const void *data, size_t len)
{
	if (!len)
		return 0;	/* also: o->p may still be NULL, data may be NULL */
	if (mem_grow((void **)&o->p, &o->cap, 1, o->len + len))
		return -ENOMEM;
	memcpy(o->p + o->len, data, len);
	o->len += len;
	return 0;
}

static int out_align(struct outbuf *o, size_t a)
{
	static const uint8_t zero[16];
	size_t pad = (a - out_pos(o) % a) % a;

	return out_put(o, zero, pad);
}

/* One section header in the file's class and byte order. */
static size_t put_shdr(const struct belf *e, uint8_t *p, const struct belf_section *s)
{
	if (e->cls == 64) {
		belf_put_n(e, p + 0, 4, s->name_off);
		belf_put_n(e, p + 4, 4, s->type);
		belf_put_n(e, p + 8, 8, s->flags);
		belf_put_n(e, p + 16, 8, s->addr);
		belf_put_n(e, p + 24, 8, s->offset);
		belf_put_n(e, p + 32, 8, s->size);
		belf_put_n(e, p + 40, 4, s->link);
		belf_put_n(e, p + 44, 4, s->info);
		belf_put_n(e, p + 48, 8, s->addralign);
		belf_put_n(e, p + 56, 8, s->entsize);
		return 64;
	}
	belf_put_n(e, p + 0, 4, s->name_off);
	belf_put_n(e, p + 4, 4, s->type);
	belf_put_n(e, p + 8, 4, s->flags);
	belf_put_n(e, p + 12, 4, s->addr);
	belf_put_n(e, p + 16, 4, s->offset);
	belf_put_n(e, p + 20, 4, s->size);
	belf_put_n(e, p + 24, 4, s->link);
	belf_put_n(e, p + 28, 4, s->info);
	belf_put_n(e, p + 32, 4, s->addralign);
	belf_put_n(e, p + 36, 4, s->entsize);
	return 40;
}

int belf_write_sections(struct belf *e, const char *out_path, size_t n, const char *const *names,
			const void *const *data, const size_t *len, struct diag *d)
{
	struct belf_section *secs = NULL;
	size_t nsec = e->nsec, total, i, keep_end = 0, shoff, shent = e->cls == 64 ? 64 : 40;
	size_t *target = NULL, shstr = e->shstrndx;
	struct outbuf o = { 0 };
	uint8_t ehdr[64];
	size_t ehsize = e->cls == 64 ? 64 : 52;
	struct file_out f;
	GElf_Ehdr eh;
	bool grow_shstr = false;
	int err = -ENOMEM;

	if (!gelf_getehdr(e->elf, &eh))
		return diag_err(d, EINVAL, "%s: bad ELF header", e->path);
	if (!shstr || shstr >= nsec)
		return diag_err(d, EINVAL, "%s: no section name table", e->path);
	target = mem_array(n ? n : 1, sizeof(*target));
	secs = mem_array(nsec + n + 1, sizeof(*secs));
	if (!target || !secs)
		goto oom;
	memcpy(secs, e->secs, nsec * sizeof(*secs));
	total = nsec;
	for (i = 0; i < n; i++) {
		target[i] = belf_find(e, names[i]);
		if (!target[i]) {
			target[i] = total++;
			grow_shstr = true;
		}
	}
	/* Bytes to keep: up to the end of the last section we do not replace. */
	if (eh.e_phoff)
		keep_end = eh.e_phoff + (size_t)eh.e_phnum * eh.e_phentsize;
	keep_end = MAX(keep_end, (size_t)(e->cls == 64 ? 64 : 52));
	for (i = 1; i < nsec; i++) {
		const struct belf_section *s = &e->secs[i];
		size_t k;
		bool replaced = false;

		for (k = 0; k < n; k++)
			replaced |= target[k] == i;
		if (replaced || (grow_shstr && i == shstr) || s->type == SHT_NOBITS)
			continue;
		keep_end = MAX(keep_end, (size_t)(s->offset + s->size));
	}
	if (keep_end > e->size)
		keep_end = e->size;
	o.base = keep_end;
	for (i = 0; i < n; i++) {
		struct belf_section *s = &secs[target[i]];

		if (target[i] >= nsec) {	/* a new section */
			memset(s, 0, sizeof(*s));
			s->type = SHT_PROGBITS;
			s->addralign = 4;
			s->name = names[i];
		}
	}
	if (grow_shstr) {
		const struct belf_section *old = &e->secs[shstr];
		struct belf_section *s = &secs[shstr];

		s->offset = out_pos(&o);
		if (out_put(&o, (const uint8_t *)e->map + old->offset, old->size))
			goto oom;
		for (i = 0; i < n; i++) {
			if (target[i] < nsec)
				continue;
			secs[target[i]].name_off = (uint32_t)(out_pos(&o) - s->offset);
			if (out_put(&o, names[i], strlen(names[i]) + 1))
				goto oom;
		}
		s->size = out_pos(&o) - s->offset;
	}
	for (i = 0; i < n; i++) {
		struct belf_section *s = &secs[target[i]];

		if (out_align(&o, s->addralign > 1 && s->addralign <= 16 ? s->addralign : 4))
			goto oom;
		s->offset = out_pos(&o);
		s->size = len[i];
		if (out_put(&o, data[i], len[i]))
			goto oom;
	}
	if (out_align(&o, 8))
		goto oom;
	shoff = out_pos(&o);
	/* Extended numbering when the count no longer fits e_shnum. */
	if (total >= SHN_LORESERVE || eh.e_shnum == 0)
		secs[0].size = total;
	else
		secs[0].size = 0;
	if (shstr >= SHN_LORESERVE)
		secs[0].link = (uint32_t)shstr;
	if (mem_grow((void **)&o.p, &o.cap, 1, o.len + total * shent))
		goto oom;
	for (i = 0; i < total; i++)
		o.len += put_shdr(e, o.p + o.len, &secs[i]);
	/* ELF header: e_shoff, e_shnum, e_shstrndx. */
	memcpy(ehdr, e->map, ehsize);
	if (e->cls == 64) {
		belf_put_n(e, ehdr + 40, 8, shoff);
		belf_put_n(e, ehdr + 58, 2, shent);
		belf_put_n(e, ehdr + 60, 2, total >= SHN_LORESERVE || eh.e_shnum == 0 ? 0 : total);
		belf_put_n(e, ehdr + 62, 2, shstr >= SHN_LORESERVE ? SHN_XINDEX : shstr);
	} else {
		if (shoff > UINT32_MAX) {
			err = diag_err(d, EFBIG, "%s: output would exceed 4 GiB for ELFCLASS32",
				       out_path);
			goto out;
		}
		belf_put_n(e, ehdr + 32, 4, shoff);
		belf_put_n(e, ehdr + 46, 2, shent);
		belf_put_n(e, ehdr + 48, 2, total >= SHN_LORESERVE || eh.e_shnum == 0 ? 0 : total);
		belf_put_n(e, ehdr + 50, 2, shstr >= SHN_LORESERVE ? SHN_XINDEX : shstr);
	}
	/* Stream: patched header, the kept bytes straight from the mapping, the tail. */
	if ((err = file_out_open(&f, out_path, d)))
		goto out;
	if ((err = file_write_all(f.fd, ehdr, ehsize)) ||
	    (err = file_write_all(f.fd, (const uint8_t *)e->map + ehsize, keep_end - ehsize)) ||
	    (err = file_write_all(f.fd, o.p, o.len))) {
		file_out_abort(&f);
		err = diag_err(d, -err, "%s: writing failed: %s", out_path, strerror(-err));
		goto out;
	}
	err = file_out_commit(&f, out_path, d);
	goto out;
oom:
	err = diag_err(d, ENOMEM, "%s: out of memory writing sections", out_path);
out:
	mem_free(o.p);
	mem_free(secs);
	mem_free(target);
	return err;
}

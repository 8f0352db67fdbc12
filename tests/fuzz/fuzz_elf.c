// SPDX-License-Identifier: GPL-2.0-only
/*
 * ELF reader: open, section headers and names, raw section bytes, symbols,
 * and every debug section through belf_debug (decompression, relocation of
 * ET_REL files, COMDAT joining).  A section read by ranges
 * (BELF_DEBUG_RANGED) reads, for every range, what the relocated copy
 * holds, or fails to open as belf_debug fails, with the same message.
 */
#include <stdlib.h>

#include "base/diag.h"
#include "base/mem.h"
#include "elf/elf.h"
#include "fuzz_common.h"

static const char *const debug_names[] = {
	".debug_info", ".debug_abbrev", ".debug_str", ".debug_line_str", ".debug_str_offsets",
	".debug_addr", ".debug_rnglists", ".debug_loclists", ".debug_loc", ".debug_ranges",
	".debug_types", ".debug_line", ".debug_frame", ".debug_aranges",
};

/* One range of r against whole's bytes. */
static void range_same(const struct belf_ranged *r, struct bslice whole, uint64_t off, size_t len)
{
	uint8_t *buf = mem_alloc(len ? len : 1);
	ssize_t n;

	if (!buf)
		return;
	n = belf_ranged_read(r, off, buf, len);
	if (off > whole.len || len > whole.len - off) {
		if (n != -1)
			__builtin_trap();	/* out of the section */
	} else if (n != (ssize_t)len || (len && memcmp(buf, whole.p + off, len))) {
		fprintf(stderr, "ranged read [0x%llx, +%zu) differs from the relocated copy\n",
			(unsigned long long)off, len);
		__builtin_trap();
	}
	mem_free(buf);
}

static void ranged_same(const char *path, const char *name, int whole_err,
			const struct diag *whole_d, struct bslice whole)
{
	static const size_t widths[] = { 1, 2, 3, 5, 8, 13, 64, 256 };
	const struct belf_ranged *r;
	struct bslice raw;
	struct belf *e;
	struct diag d;
	size_t step, i;
	uint64_t off;
	int err;

	diag_clear(&d);
	if (belf_open(&e, path, &d))
		__builtin_trap();	/* it opened a moment ago */
	(void)belf_load_syms(e, &d);	/* as the first one did: a failure sticks */
	diag_clear(&d);
	err = belf_debug_opt(e, name, BELF_DEBUG_RANGED, &raw, &d);
	if (err || whole_err) {
		if (err != whole_err || strcmp(d.msg, whole_d->msg)) {
			fprintf(stderr, "by ranges: %d '%s'; whole: %d '%s'\n", err, d.msg, whole_err,
				whole_d->msg);
			__builtin_trap();
		}
		belf_close(e);
		return;
	}
	if (!(r = belf_debug_ranged(e, name))) {	/* not by ranges: the copy itself */
		if (raw.len != whole.len || (raw.len && memcmp(raw.p, whole.p, raw.len)))
			__builtin_trap();
		belf_close(e);
		return;
	}
	range_same(r, whole, 0, whole.len);
	step = whole.len / 61 + 1;
	for (off = 0; off <= whole.len; off += step)
		for (i = 0; i < sizeof(widths) / sizeof(widths[0]); i++)
			range_same(r, whole, off, widths[i]);
	range_same(r, whole, whole.len, 0);
	range_same(r, whole, whole.len + 1, 0);
	belf_close(e);
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	char path[64];
	struct belf *e;
	struct diag d;
	size_t i, n;
	int fd, err;

	fd = fuzz_memfd(data, size, path, sizeof(path));
	if (fd < 0)
		return 0;
	diag_clear(&d);
	err = belf_open(&e, path, &d);
	fuzz_check_err(err, &d);
	if (err) {
		close(fd);
		return 0;
	}
	(void)belf_class(e);
	(void)belf_big_endian(e);
	(void)belf_machine(e);
	(void)belf_type(e);
	n = belf_nsections(e);
	for (i = 0; i < n; i++) {
		const struct belf_section *s = belf_section(e, i);
		struct bslice raw;

		fuzz_touch_str(s->name);
		diag_clear(&d);
		err = belf_raw(e, i, &raw, &d);
		fuzz_check_err(err, &d);
		if (!err)
			fuzz_touch(raw.p, raw.len);
	}
	(void)belf_section(e, n);	/* out of range */
	(void)belf_find(e, ".BTF");
	diag_clear(&d);
	err = belf_load_syms(e, &d);
	fuzz_check_err(err, &d);
	if (!err) {
		for (i = 0; i < belf_nsyms(e); i++) {
			const struct belf_sym *s = belf_sym(e, i);

			fuzz_touch_str(s->name);
		}
	}
	for (i = 0; i < sizeof(debug_names) / sizeof(debug_names[0]); i++) {
		struct bslice sl;

		diag_clear(&d);
		err = belf_debug(e, debug_names[i], &sl, &d);
		fuzz_check_err(err, &d);
		if (!err)
			fuzz_touch(sl.p, sl.len);
		ranged_same(path, debug_names[i], err, &d, sl);
		/* cached: a second fetch gives the same answer */
		diag_clear(&d);
		err = belf_debug(e, debug_names[i], &sl, &d);
		fuzz_check_err(err, &d);
	}
	belf_close(e);
	close(fd);
	return 0;
}

// SPDX-License-Identifier: GPL-2.0-only
/*
 * ELF reader: open, section headers and names, raw section bytes, symbols,
 * and every debug section through belf_debug (decompression, relocation of
 * ET_REL files, COMDAT joining).
 */
#include "base/diag.h"
#include "elf/elf.h"
#include "fuzz_common.h"

static const char *const debug_names[] = {
	".debug_info", ".debug_abbrev", ".debug_str", ".debug_line_str", ".debug_str_offsets",
	".debug_addr", ".debug_rnglists", ".debug_loclists", ".debug_loc", ".debug_ranges",
	".debug_types", ".debug_line", ".debug_frame", ".debug_aranges",
};

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
		/* cached: a second fetch gives the same answer */
		diag_clear(&d);
		err = belf_debug(e, debug_names[i], &sl, &d);
		fuzz_check_err(err, &d);
	}
	belf_close(e);
	close(fd);
	return 0;
}

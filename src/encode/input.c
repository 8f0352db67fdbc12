// SPDX-License-Identifier: GPL-2.0-only
#include "encode/input.h"

#include <stdio.h>
#include <string.h>
#include <unistd.h>

#include "base/mem.h"

int dwarf_sections_load(struct belf *e, struct dw_sections *s, struct diag *d)
{
	/* lenient: lists only 1.30+ reads, for parameters' registers: a skipped relocation there is noted */
	static const struct {
		const char *name;
		size_t off;
		bool lenient;
	} secs[] = {
		{ ".debug_info", offsetof(struct dw_sections, info) },
		{ ".debug_abbrev", offsetof(struct dw_sections, abbrev) },
		{ ".debug_str", offsetof(struct dw_sections, str) },
		{ ".debug_line_str", offsetof(struct dw_sections, line_str) },
		{ ".debug_str_offsets", offsetof(struct dw_sections, str_offsets) },
		{ ".debug_addr", offsetof(struct dw_sections, addr) },
		{ ".debug_rnglists", offsetof(struct dw_sections, rnglists), true },
		{ ".debug_loclists", offsetof(struct dw_sections, loclists), true },
		{ ".debug_loc", offsetof(struct dw_sections, loc), true },
		{ ".debug_ranges", offsetof(struct dw_sections, ranges), true },
		{ ".debug_types", offsetof(struct dw_sections, types) },
	};
	size_t i;
	int err;

	memset(s, 0, sizeof(*s));
	for (i = 0; i < ARRAY_SIZE(secs); i++)
		if ((err = belf_debug(e, secs[i].name, (struct bslice *)((char *)s + secs[i].off), d)))
			return err;
	return 0;
}

/* .gnu_debugaltlink: a NUL-terminated path, then the build-id. */
static int open_alt(struct dwarf_input *in, const char *path, unsigned jobs, struct diag *d)
{
	size_t idx = belf_find(in->elf, ".gnu_debugaltlink");
	struct dw_sections s;
	struct bslice raw;
	const char *name, *slash;
	size_t n;
	int err;

	if (!idx)
		return 0;
	if ((err = belf_raw(in->elf, idx, &raw, d)))
		return err;
	if (!raw.len || !memchr(raw.p, 0, raw.len))
		return diag_err(d, EINVAL, "%s: malformed .gnu_debugaltlink section", path);
	name = (const char *)raw.p;
	slash = strrchr(path, '/');
	n = strlen(name) + (slash ? (size_t)(slash - path) : 0) + 2;
	in->alt_path = mem_alloc(n);
	if (!in->alt_path)
		return diag_err(d, ENOMEM, "out of memory");
	if (name[0] == '/' || !slash)
		snprintf(in->alt_path, n, "%s", name);
	else
		snprintf(in->alt_path, n, "%.*s/%s", (int)(slash - path), path, name);
	if (access(in->alt_path, R_OK))
		return diag_err(d, ENOENT,
				"%s: the dwz alternate file '%s' named by .gnu_debugaltlink is missing",
				path, in->alt_path);
	if ((err = belf_open(&in->alt_elf, in->alt_path, d)) ||
	    (err = dwarf_sections_load(in->alt_elf, &s, d)) ||
	    (err = dw_file_open(&in->alt, in->alt_path, &s, belf_big_endian(in->alt_elf), NULL, jobs, d)))
		return err;
	return 0;
}

/* dw_sections.info_peek: .debug_info's bytes from the file, if it is mapped as is. */
static ssize_t peek_info(void *ctx, uint64_t off, void *buf, size_t len)
{
	const struct dwarf_input *in = ctx;

	return belf_pread(in->elf, in->dw_info.p + off, buf, len);
}

int dwarf_input_open(struct dwarf_input *in, const char *path, unsigned jobs, struct diag *d)
{
	struct dw_sections s;
	int err;

	memset(in, 0, sizeof(*in));
	if ((err = belf_open(&in->elf, path, d)) || (err = dwarf_sections_load(in->elf, &s, d)) ||
	    (err = open_alt(in, path, jobs, d))) {
		dwarf_input_close(in);
		return err;
	}
	in->dw_str = s.str;
	in->dw_info = s.info;
	in->dw_loclists = s.loclists;
	s.info_peek = peek_info;
	s.peek_ctx = in;
	if ((err = dw_file_open(&in->dw, path, &s, belf_big_endian(in->elf), in->alt, jobs, d))) {
		dwarf_input_close(in);
		return err;
	}
	/* the abbreviation tables are parsed: their bytes are not read again */
	belf_drop_range(in->elf, s.abbrev.p, s.abbrev.len);
	return 0;
}

void dwarf_input_done(struct dwarf_input *in)
{
	dw_file_free(in->dw);
	dw_file_free(in->alt);
	in->dw = in->alt = NULL;
	belf_drop(in->elf);
	if (in->alt_elf)
		belf_drop(in->alt_elf);
}

void dwarf_input_close(struct dwarf_input *in)
{
	dw_file_free(in->dw);
	dw_file_free(in->alt);
	belf_close(in->elf);
	belf_close(in->alt_elf);
	mem_free(in->alt_path);
	memset(in, 0, sizeof(*in));
}

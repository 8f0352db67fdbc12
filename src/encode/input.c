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
		if ((err = belf_debug_opt(e, secs[i].name, secs[i].lenient ? BELF_DEBUG_LENIENT : 0,
					  (struct bslice *)((char *)s + secs[i].off), d)))
			return err;
	return 0;
}

/*
 * The paths an alternate file's name may be found at, in order: as named
 * (relative names against the directory of path); for an absolute name
 * under /usr/lib/debug, the same under the tree path is in (a debug
 * package unpacked elsewhere: path .../usr/lib/debug/...); and by
 * build-id, .build-id/xx/rest.debug under that debug directory (or
 * /usr/lib/debug).  Each into a fresh string in cands[]; how many.
 */
#define ALT_CANDS 3
static size_t alt_candidates(const char *path, const char *name, const uint8_t *id, size_t idlen,
			     char *cands[ALT_CANDS])
{
	static const char debugdir[] = "/usr/lib/debug/";
	const char *slash = strrchr(path, '/'), *root = strstr(path, debugdir);
	size_t n = 0, rootlen = root ? (size_t)(root - path) : 0, len, i;
	char *c;

	len = strlen(name) + (slash ? (size_t)(slash - path) : 0) + 2;
	if ((c = mem_alloc(len))) {
		if (name[0] == '/' || !slash)
			snprintf(c, len, "%s", name);
		else
			snprintf(c, len, "%.*s/%s", (int)(slash - path), path, name);
		cands[n++] = c;
	}
	if (root && !strncmp(name, debugdir, sizeof(debugdir) - 1) && rootlen) {
		len = rootlen + strlen(name) + 1;
		if ((c = mem_alloc(len))) {
			snprintf(c, len, "%.*s%s", (int)rootlen, path, name);
			cands[n++] = c;
		}
	}
	if (idlen >= 2 && idlen <= 64) {
		len = rootlen + sizeof(debugdir) + sizeof(".build-id/") + 2 * idlen + sizeof(".debug") + 2;
		if ((c = mem_alloc(len))) {
			size_t k = (size_t)snprintf(c, len, "%.*s%s.build-id/%02x/", (int)rootlen,
						    root ? path : "", debugdir, id[0]);

			for (i = 1; i < idlen && k + 3 < len; i++)
				k += (size_t)snprintf(c + k, len - k, "%02x", id[i]);
			snprintf(c + k, len - k, ".debug");
			cands[n++] = c;
		}
	}
	return n;
}

/*
 * The dwz alternate file: .gnu_debugaltlink (a NUL-terminated path, then
 * the build-id) or DWARF 5's .debug_sup (version 5, is_supplementary 0,
 * the path, a ULEB128 checksum length and the checksum).
 */
static int open_alt(struct dwarf_input *in, const char *path, unsigned jobs, struct diag *d)
{
	size_t idx = belf_find(in->elf, ".gnu_debugaltlink"), n = 0, i, tried = 0;
	const char *what = ".gnu_debugaltlink", *name;
	const uint8_t *id = NULL;
	char *cands[ALT_CANDS], msg[600];
	struct dw_sections s;
	struct bslice raw;
	size_t idlen = 0, namelen;
	int err;

	if (!idx) {
		idx = belf_find(in->elf, ".debug_sup");
		what = ".debug_sup";
	}
	if (!idx)
		return 0;
	if ((err = belf_raw(in->elf, idx, &raw, d)))
		return err;
	if (idx == belf_find(in->elf, ".debug_sup")) {
		if (raw.len < 4 || raw.p[2] != 0 || !memchr(raw.p + 3, 0, raw.len - 3))
			return diag_err(d, EINVAL, "%s: malformed .debug_sup section", path);
		name = (const char *)raw.p + 3;
		if (!name[0])
			return 0;	/* this is the supplementary file itself, or names none */
	} else {
		if (!raw.len || !memchr(raw.p, 0, raw.len))
			return diag_err(d, EINVAL, "%s: malformed .gnu_debugaltlink section", path);
		name = (const char *)raw.p;
		namelen = strlen(name) + 1;
		id = raw.p + namelen;
		idlen = raw.len - namelen;
	}
	n = alt_candidates(path, name, id, idlen, cands);
	for (i = 0; i < n && !in->alt_path; i++)
		if (!access(cands[i], R_OK)) {
			in->alt_path = cands[i];
			cands[i] = NULL;
		}
	msg[0] = 0;
	for (i = 0; i < n; i++) {
		if (cands[i] && !in->alt_path) {
			size_t k = strlen(msg);

			snprintf(msg + k, sizeof(msg) - k, "%s'%s'", tried++ ? ", " : "", cands[i]);
		}
		mem_free(cands[i]);
	}
	if (!in->alt_path)
		return diag_err(d, n ? ENOENT : ENOMEM,
				"%s: the dwz alternate file '%s' named by %s is missing (tried %s)",
				path, name, what, msg);
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
	if ((err = belf_open(&in->elf, path, d)) || (err = dwarf_sections_load(in->elf, &s, d))) {
		dwarf_input_close(in);
		return err;
	}
	/* no DWARF: said as such, before looking for a dwz file it would need */
	if (!s.info.len && !s.types.len) {
		dwarf_input_close(in);
		return diag_err(d, ENODATA, "%s: no DWARF debug info (.debug_info is missing or empty)",
				path);
	}
	if ((err = open_alt(in, path, jobs, d))) {
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

// SPDX-License-Identifier: GPL-2.0-only
#include "encode/input.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "base/mem.h"

enum { SEC_MAIN, SEC_RANGED, SEC_DWO };	/* sections_load()'s modes */

/*
 * The sections of an ELF file (SEC_RANGED: .debug_info read by ranges,
 * the caller's info_peek reads it), or of a .dwo or .dwp file (SEC_DWO:
 * the names ending ".dwo", all lenient).
 */
static int sections_load(struct belf *e, struct dw_sections *s, int mode, struct diag *d)
{
	/* lenient: lists only 1.30+ reads, for parameters' registers: a skipped relocation there is noted */
	static const struct {
		const char *name;
		size_t off;
		bool lenient, dwo;
	} secs[] = {
		{ ".debug_info", offsetof(struct dw_sections, info), false, true },
		{ ".debug_abbrev", offsetof(struct dw_sections, abbrev), false, true },
		{ ".debug_str", offsetof(struct dw_sections, str), false, true },
		{ ".debug_line_str", offsetof(struct dw_sections, line_str) },
		{ ".debug_str_offsets", offsetof(struct dw_sections, str_offsets), false, true },
		{ ".debug_addr", offsetof(struct dw_sections, addr) },
		{ ".debug_rnglists", offsetof(struct dw_sections, rnglists), true, true },
		{ ".debug_loclists", offsetof(struct dw_sections, loclists), true, true },
		{ ".debug_loc", offsetof(struct dw_sections, loc), true, true },
		{ ".debug_ranges", offsetof(struct dw_sections, ranges), true },
		{ ".debug_types", offsetof(struct dw_sections, types), false, true },
	};
	char name[32];
	size_t i;
	int err;

	memset(s, 0, sizeof(*s));
	for (i = 0; i < ARRAY_SIZE(secs); i++) {
		unsigned flags = secs[i].lenient || mode == SEC_DWO ? BELF_DEBUG_LENIENT
				 : mode == SEC_RANGED && !i ? BELF_DEBUG_RANGED : 0;

		if (mode == SEC_DWO && !secs[i].dwo)
			continue;
		snprintf(name, sizeof(name), "%s%s", secs[i].name, mode == SEC_DWO ? ".dwo" : "");
		if ((err = belf_debug_opt(e, name, flags, (struct bslice *)((char *)s + secs[i].off), d)))
			return err;
	}
	s->info_peek_only = mode == SEC_RANGED && belf_debug_ranged(e, ".debug_info");
	return 0;
}

int dwarf_sections_load(struct belf *e, struct dw_sections *s, struct diag *d)
{
	return sections_load(e, s, SEC_MAIN, d);
}

/* ---- split DWARF: skeleton units and their .dwo files or .dwp package ---- */

/* The sections joined (main file's first, then each .dwo or .dwp), by dw_sections slot. */
enum { J_INFO, J_ABBREV, J_STR, J_STROFF, J_LOC, J_LOCLISTS, J_RNGLISTS, J_TYPES, NJ };
static const size_t jslot[NJ] = {
	offsetof(struct dw_sections, info), offsetof(struct dw_sections, abbrev),
	offsetof(struct dw_sections, str), offsetof(struct dw_sections, str_offsets),
	offsetof(struct dw_sections, loc), offsetof(struct dw_sections, loclists),
	offsetof(struct dw_sections, rnglists), offsetof(struct dw_sections, types),
};
#define JSEC(s, k) ((struct bslice *)((char *)(s) + jslot[k]))

struct split {
	struct dw_sections s;		/* the joined sections (the rest: the main file's) */
	uint8_t *buf[NJ];		/* owned: s's joined ones */
	size_t len[NJ];			/* bytes joined so far */
	struct dw_contrib *contrib;
	size_t ncontrib, contrib_cap;
	char **paths;			/* .dwo files read, owned */
	size_t npaths, paths_cap;
};

static void split_free(struct split *sp)
{
	size_t i;

	if (!sp)
		return;
	for (i = 0; i < NJ; i++)
		mem_free(sp->buf[i]);
	for (i = 0; i < sp->npaths; i++)
		mem_free(sp->paths[i]);
	mem_free(sp->paths);
	mem_free(sp->contrib);
	mem_free(sp);
}

/* Append a piece's sections; base[k]: where its section k starts in the joined one. */
static int split_append(struct split *sp, const struct dw_sections *piece, uint64_t base[NJ])
{
	size_t k;

	for (k = 0; k < NJ; k++) {
		const struct bslice *b = JSEC(piece, k);
		uint8_t *nb;

		base[k] = sp->len[k];
		if (!b->len)
			continue;
		if (!(nb = mem_realloc(sp->buf[k], sp->len[k] + b->len)))
			return -ENOMEM;
		memcpy(nb + sp->len[k], b->p, b->len);
		sp->buf[k] = nb;
		sp->len[k] += b->len;
	}
	return 0;
}

static struct dw_contrib *split_contrib(struct split *sp)
{
	if (VEC_RESERVE(sp->contrib, sp->contrib_cap, sp->ncontrib + 1))
		return NULL;
	memset(&sp->contrib[sp->ncontrib], 0, sizeof(sp->contrib[0]));
	return &sp->contrib[sp->ncontrib++];
}

/* A skeleton unit: its .dwo and what its split unit takes from it. */
struct skel {
	const struct dw_unit *u;
	bool found;			/* in the .dwp */
};

static bool is_skeleton(const struct dw_unit *u)
{
	return !u->split && (u->unit_type == DW_UT_skeleton ||
			     (u->version < 5 && u->dwo_name && u->has_dwo_id));
}

/*
 * A .dwp's index (.debug_cu_index, .debug_tu_index; version 2 for DWARF 4,
 * 5 for DWARF 5): a contribution per unit, offsets shifted by base.  A
 * compile unit's skeleton (by dwo_id) gives its address base.
 */
static int dwp_index(struct split *sp, struct belf *e, const char *path, const char *name,
		     bool tu, const uint64_t base[NJ], struct skel *sk, size_t nsk, struct diag *d)
{
	size_t idx = belf_find(e, name), i, j;
	uint32_t ver, ncols, nunits, nslots;
	const uint8_t *p, *hash, *rows, *ids, *offs, *sizes;
	bool swap = belf_big_endian(e) != (__BYTE_ORDER__ == __ORDER_BIG_ENDIAN__);
	struct bslice raw;
	int err;

#define R32(q) (swap ? bswap32(load32(q)) : load32(q))
#define R64(q) (swap ? bswap64(load64(q)) : load64(q))
	if (!idx)
		return 0;
	if ((err = belf_raw(e, idx, &raw, d)))
		return err;
	p = raw.p;
	if (raw.len < 16)
		goto bad;
	ver = R32(p);
	if (ver != 2 && (ver & 0xffff) != 5)
		return diag_err(d, ENOTSUP, "%s: %s version %u: not a DWARF package index btfc reads",
				path, name, ver);
	ver = ver == 2 ? 2 : 5;
	ncols = R32(p + 4);
	nunits = R32(p + 8);
	nslots = R32(p + 12);
	if (ncols > 16 || nslots > raw.len / 12 || nunits > nslots ||
	    16 + (uint64_t)nslots * 12 + (uint64_t)ncols * 4 +
	    2ull * nunits * ncols * 4 > raw.len)
		goto bad;
	hash = p + 16;
	rows = hash + (size_t)nslots * 8;
	ids = rows + (size_t)nslots * 4;
	offs = ids + (size_t)ncols * 4;
	sizes = offs + (size_t)nunits * ncols * 4;
	for (i = 0; i < nslots; i++) {
		uint32_t row = R32(rows + i * 4);
		uint64_t sig = R64(hash + i * 8);
		struct dw_contrib *c;
		bool have_info = false;

		if (!row)
			continue;
		if (row > nunits)
			goto bad;
		if (!(c = split_contrib(sp)))
			return diag_err(d, ENOMEM, "out of memory");
		c->str = base[J_STR];
		c->types = tu && ver == 2;
		for (j = 0; j < ncols; j++) {
			uint32_t id = R32(ids + j * 4);
			uint64_t off = R32(offs + ((size_t)(row - 1) * ncols + j) * 4);
			uint64_t len = R32(sizes + ((size_t)(row - 1) * ncols + j) * 4);

			switch (id) {
			case 1:		/* DW_SECT_INFO */
				c->off = base[J_INFO] + off;
				c->len = len;
				have_info = !c->types;
				break;
			case 2:		/* DW_SECT_TYPES (version 2) */
				if (ver == 2) {
					c->off = base[J_TYPES] + off;
					c->len = len;
					have_info = c->types;
				}
				break;
			case 3: c->abbrev = base[J_ABBREV] + off; break;
			case 5:
				if (ver == 2)
					c->loc = base[J_LOC] + off;
				else
					c->loclists = base[J_LOCLISTS] + off;
				break;
			case 6: c->str_offsets = base[J_STROFF] + off; break;
			case 8:
				if (ver == 5)
					c->rnglists = base[J_RNGLISTS] + off;
				break;
			}
		}
		if (!have_info) {
			sp->ncontrib--;
			continue;
		}
		if (!tu)
			for (j = 0; j < nsk; j++)
				if (sk[j].u->dwo_id == sig) {
					c->addr_base = sk[j].u->addr_base;
					c->has_addr = true;
					sk[j].found = true;
				}
	}
	return 0;
bad:
	return diag_err(d, EINVAL, "%s: malformed %s", path, name);
#undef R32
#undef R64
}

/* Append a .dwp (its index) or one .dwo (one contribution for all its units). */
static int split_add_file(struct split *sp, const char *path, bool dwp, struct skel *sk,
			  size_t nsk, const struct dw_unit *skel_of_dwo, struct diag *d)
{
	struct belf *e = NULL;
	struct dw_sections ds;
	uint64_t base[NJ];
	int err;

	if ((err = belf_open(&e, path, d)) || (err = sections_load(e, &ds, SEC_DWO, d)))
		goto out;
	if (!ds.info.len && !ds.types.len) {
		err = diag_err(d, ENODATA, "%s: no split DWARF (.debug_info.dwo is missing or empty)",
			       path);
		goto out;
	}
	if ((err = split_append(sp, &ds, base))) {
		err = diag_err(d, ENOMEM, "out of memory");
		goto out;
	}
	if (dwp || belf_find(e, ".debug_cu_index") || belf_find(e, ".debug_tu_index")) {
		if ((err = dwp_index(sp, e, path, ".debug_cu_index", false, base, sk, nsk, d)) ||
		    (err = dwp_index(sp, e, path, ".debug_tu_index", true, base, sk, nsk, d)))
			goto out;
	} else {
		bool t;

		for (t = false; ; t = true) {
			struct dw_contrib *c;
			size_t k = t ? J_TYPES : J_INFO;

			if (JSEC(&ds, k)->len) {
				if (!(c = split_contrib(sp))) {
					err = diag_err(d, ENOMEM, "out of memory");
					goto out;
				}
				c->types = t;
				c->off = base[k];
				c->len = JSEC(&ds, k)->len;
				c->abbrev = base[J_ABBREV];
				c->str = base[J_STR];
				c->str_offsets = base[J_STROFF];
				c->loc = base[J_LOC];
				c->loclists = base[J_LOCLISTS];
				c->rnglists = base[J_RNGLISTS];
				if (skel_of_dwo) {
					c->addr_base = skel_of_dwo->addr_base;
					c->has_addr = true;
				}
			}
			if (t)
				break;
		}
	}
out:
	belf_close(e);
	return err;
}

static int cmp_contrib(const void *a, const void *b)
{
	const struct dw_contrib *x = a, *y = b;

	if (x->types != y->types)
		return x->types ? 1 : -1;
	return x->off < y->off ? -1 : x->off > y->off;
}

/*
 * Where a skeleton's .dwo may be, in order: its dwo name when
 * absolute, else under its compilation directory, then beside the file being
 * encoded (as named, and by its last component).  The first readable one
 * in *out; else an error naming every path tried.
 */
static int find_dwo(const char *path, const struct dw_unit *u, char **out, struct diag *d)
{
	const char *name = u->dwo_name, *slash = strrchr(path, '/'), *nbase = strrchr(name, '/');
	char *cand[4], tried[700];
	size_t n = 0, i, len, k = 0;
	int dirlen = slash ? (int)(slash - path) : 0;

	*out = NULL;
	len = strlen(name) + (u->comp_dir ? strlen(u->comp_dir) : 0) + strlen(path) + 4;
	for (i = 0; i < 4; i++)
		cand[i] = NULL;
	if (name[0] == '/') {
		if ((cand[n] = mem_alloc(len)))
			snprintf(cand[n++], len, "%s", name);
	} else if (u->comp_dir && (cand[n] = mem_alloc(len))) {
		snprintf(cand[n++], len, "%s/%s", u->comp_dir, name);
	}
	if (name[0] != '/' && (cand[n] = mem_alloc(len)))
		snprintf(cand[n++], len, "%.*s%s%s", dirlen, path, slash ? "/" : "", name);
	if (nbase && (cand[n] = mem_alloc(len)))
		snprintf(cand[n++], len, "%.*s%s%s", dirlen, path, slash ? "/" : "", nbase + 1);
	tried[0] = 0;
	for (i = 0; i < n; i++) {
		if (!*out && !access(cand[i], R_OK)) {
			*out = cand[i];
			continue;
		}
		k += (size_t)snprintf(tried + k, k < sizeof(tried) ? sizeof(tried) - k : 0, "%s'%s'",
				      k ? ", " : "", cand[i]);
		if (k >= sizeof(tried))
			k = sizeof(tried) - 1;
		mem_free(cand[i]);
	}
	if (*out)
		return 0;
	return diag_err(d, ENOENT,
			"%s: unit 0x%llx: split DWARF: its .dwo '%s' is missing (tried %s)", path,
			(unsigned long long)u->off, name, tried);
}

/*
 * The file's skeleton units name their split units: read them (from
 * PATH.dwp, else each .dwo) and reopen the DWARF as the main file's
 * sections with theirs joined after, each split unit reading its own
 * parts (dw_contrib) and the skeleton's .debug_addr.
 */
static int open_split(struct dwarf_input *in, const char *path, struct dw_sections *s,
		      unsigned jobs, struct diag *d)
{
	size_t n = dw_nunits(in->dw), nsk = 0, i, j;
	struct skel *sk = NULL;
	struct split *sp = NULL;
	uint64_t base[NJ];
	char *dwp = NULL;
	int err = 0;

	for (i = 0; i < n; i++)
		nsk += is_skeleton(dw_unit_at(in->dw, i));
	if (!nsk)
		return 0;
	if (!(sk = mem_array(nsk, sizeof(*sk))) || !(sp = mem_zalloc(sizeof(*sp))) ||
	    !(dwp = mem_alloc(strlen(path) + 5))) {
		err = diag_err(d, ENOMEM, "out of memory");
		goto out;
	}
	for (i = j = 0; i < n; i++)
		if (is_skeleton(dw_unit_at(in->dw, i)))
			sk[j++].u = dw_unit_at(in->dw, i);
	/* the joined .debug_info is a copy: of the relocated bytes */
	if (s->info_peek_only) {
		if ((err = belf_debug(in->elf, ".debug_info", &s->info, d)))
			goto out;
		s->info_peek_only = false;
	}
	if ((err = split_append(sp, s, base))) {	/* the main file's, at offset 0 */
		err = diag_err(d, ENOMEM, "out of memory");
		goto out;
	}
	sprintf(dwp, "%s.dwp", path);
	if (!access(dwp, R_OK) && (err = split_add_file(sp, dwp, true, sk, nsk, NULL, d)))
		goto out;
	for (i = 0; i < nsk; i++) {
		char *dwo;

		if (sk[i].found)
			continue;
		if (!sk[i].u->dwo_name) {
			err = diag_err(d, ENOENT,
				       "%s: unit 0x%llx: split DWARF: a skeleton naming no .dwo, not in '%s'",
				       path, (unsigned long long)sk[i].u->off, dwp);
			goto out;
		}
		if ((err = find_dwo(path, sk[i].u, &dwo, d)))
			goto out;
		for (j = 0; j < sp->npaths && strcmp(sp->paths[j], dwo); j++)
			;
		if (j < sp->npaths) {	/* one .dwo for several skeletons: its units' addresses are one's */
			mem_free(dwo);
			err = diag_err(d, ENOTSUP,
				       "%s: unit 0x%llx: split DWARF: '%s' is named by several skeletons, which btfc does not read",
				       path, (unsigned long long)sk[i].u->off, sp->paths[j]);
			goto out;
		}
		if (VEC_RESERVE(sp->paths, sp->paths_cap, sp->npaths + 1)) {
			mem_free(dwo);
			err = diag_err(d, ENOMEM, "out of memory");
			goto out;
		}
		sp->paths[sp->npaths++] = dwo;
		if ((err = split_add_file(sp, dwo, false, sk, nsk, sk[i].u, d)))
			goto out;
	}
	qsort(sp->contrib, sp->ncontrib, sizeof(*sp->contrib), cmp_contrib);
	sp->s = *s;
	for (i = 0; i < NJ; i++) {
		JSEC(&sp->s, i)->p = sp->buf[i];
		JSEC(&sp->s, i)->len = sp->len[i];
	}
	sp->s.contrib = sp->contrib;
	sp->s.ncontrib = sp->ncontrib;
	sp->s.info_peek = NULL;		/* the joined .debug_info is not the file's */
	dw_file_free(in->dw);
	in->dw = NULL;
	if ((err = dw_file_open(&in->dw, path, &sp->s, belf_big_endian(in->elf), in->alt, jobs, d)))
		goto out;
	in->split = sp;
	sp = NULL;
	*s = in->split->s;
out:
	split_free(sp);
	mem_free(sk);
	mem_free(dwp);
	return err;
}

/*
 * A .dwo or .dwp given directly: its split units alone, with no
 * skeleton's .debug_addr (their addresses read as 0).
 */
static int open_dwo_direct(struct dwarf_input *in, const char *path, struct dw_sections *s,
			   struct diag *d)
{
	struct split *sp = mem_zalloc(sizeof(*sp));
	struct dw_sections none;
	uint64_t base[NJ];
	size_t i;
	int err;

	if (!sp)
		return diag_err(d, ENOMEM, "out of memory");
	memset(&none, 0, sizeof(none));
	if ((err = split_append(sp, &none, base)) ||
	    (err = split_add_file(sp, path, false, NULL, 0, NULL, d))) {
		split_free(sp);
		return err;
	}
	qsort(sp->contrib, sp->ncontrib, sizeof(*sp->contrib), cmp_contrib);
	sp->s = *s;
	for (i = 0; i < NJ; i++) {
		JSEC(&sp->s, i)->p = sp->buf[i];
		JSEC(&sp->s, i)->len = sp->len[i];
	}
	sp->s.contrib = sp->contrib;
	sp->s.ncontrib = sp->ncontrib;
	in->split = sp;
	*s = sp->s;
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

/*
 * dw_sections.info_peek: .debug_info's bytes from the file: relocated
 * as they are read (an ET_REL file's, BELF_DEBUG_RANGED), or if it is
 * mapped as is.
 */
static ssize_t peek_info(void *ctx, uint64_t off, void *buf, size_t len)
{
	const struct dwarf_input *in = ctx;

	if (in->info_ranged)
		return belf_ranged_read(in->info_ranged, off, buf, len);
	return belf_pread(in->elf, in->dw_info.p + off, buf, len);
}

static int input_open(struct dwarf_input *in, const char *path, unsigned jobs, bool lazy,
		      bool whole, struct diag *d)
{
	struct dw_sections s;
	int err;

	memset(in, 0, sizeof(*in));
	if ((err = belf_open(&in->elf, path, d)) ||
	    (err = sections_load(in->elf, &s, whole ? SEC_MAIN : SEC_RANGED, d))) {
		dwarf_input_close(in);
		return err;
	}
	if (s.info_peek_only)
		in->info_ranged = belf_debug_ranged(in->elf, ".debug_info");
	/* a .dwo or .dwp itself */
	if (!s.info.len && !s.types.len &&
	    (belf_find(in->elf, ".debug_info.dwo") || belf_find(in->elf, ".debug_types.dwo")) &&
	    (err = open_dwo_direct(in, path, &s, d))) {
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
	in->dw_info = s.info;	/* (peek_info reads it) */
	if (!in->split) {
		s.info_peek = peek_info;
		s.peek_ctx = in;
	}
	/*
	 * Lazily (the struct view's lookups stop at the first unit defining
	 * a name): unless the first unit is a split-DWARF skeleton, which
	 * needs every skeleton found before any unit is read.
	 */
	if (lazy && !in->split) {
		if ((err = dw_file_open_lazy(&in->dw, path, &s, belf_big_endian(in->elf), in->alt, d)) ||
		    (err = dw_file_index_more(in->dw, 1, d)) < 0) {
			dwarf_input_close(in);
			return err;
		}
		if (dw_nunits(in->dw) && is_skeleton(dw_unit_at(in->dw, 0))) {
			dw_file_free(in->dw);
			in->dw = NULL;
			lazy = false;
		}
	}
	if ((!in->dw && (err = dw_file_open(&in->dw, path, &s, belf_big_endian(in->elf), in->alt, jobs,
					    d))) ||
	    (!lazy && !in->split && (err = open_split(in, path, &s, jobs, d)))) {
		dwarf_input_close(in);
		return err;
	}
	in->dw_str = s.str;
	in->dw_info = s.info;
	in->dw_loclists = s.loclists;
	/* the abbreviation tables are parsed: their bytes are not read again */
	if (!lazy)
		belf_drop_range(in->elf, s.abbrev.p, s.abbrev.len);
	return 0;
}

int dwarf_input_open(struct dwarf_input *in, const char *path, unsigned jobs, struct diag *d)
{
	return input_open(in, path, jobs, false, false, d);
}

int dwarf_input_open_whole(struct dwarf_input *in, const char *path, unsigned jobs,
			   struct diag *d)
{
	return input_open(in, path, jobs, false, true, d);
}

int dwarf_input_open_lazy(struct dwarf_input *in, const char *path, struct diag *d)
{
	return input_open(in, path, 1, true, false, d);
}

void dwarf_input_done(struct dwarf_input *in)
{
	dw_file_free(in->dw);
	dw_file_free(in->alt);
	in->dw = in->alt = NULL;
	/* the sections' relocated and decompressed copies too */
	belf_debug_release(in->elf);
	memset(&in->dw_str, 0, sizeof(in->dw_str));
	memset(&in->dw_info, 0, sizeof(in->dw_info));
	memset(&in->dw_loclists, 0, sizeof(in->dw_loclists));
	in->info_ranged = NULL;
	belf_drop(in->elf);
	if (in->alt_elf) {
		belf_debug_release(in->alt_elf);
		belf_drop(in->alt_elf);
	}
}

void dwarf_input_close(struct dwarf_input *in)
{
	dw_file_free(in->dw);
	dw_file_free(in->alt);
	belf_close(in->elf);
	belf_close(in->alt_elf);
	mem_free(in->alt_path);
	split_free(in->split);
	memset(in, 0, sizeof(*in));
}

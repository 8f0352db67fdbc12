// SPDX-License-Identifier: GPL-2.0-only
/*
 * btfc layout: struct layouts as `pahole -F btf` prints them (1.31, or
 * 1.30 or 1.24 with --compat), with pahole's everyday options, plus JSON,
 * a layout diff and a cacheline map.
 */
#include <getopt.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

#include "base/mem.h"
#include "base/pool.h"
#include "btf/btf.h"
#include "cli/cli.h"
#include "elf/elf.h"
#include "encode/encode.h"
#include "layout/layout.h"
#include "layout/layout_ext.h"

static const char usage_text[] =
	"usage: btfc layout [OPTIONS] [TYPE ...] [FILE]\n"
	"  Print struct/union/enum/typedef layouts like `pahole -F btf`: offsets,\n"
	"  sizes, holes, bit holes, padding, cacheline boundaries, summaries.  With no\n"
	"  TYPE, every named struct and union (pahole's order).  FILE: raw BTF, ELF with\n"
	"  .BTF, ELF with DWARF only (encoded in memory), /sys/kernel/btf/NAME; default\n"
	"  /sys/kernel/btf/vmlinux.\n"
	"  --compat=V              the pahole version whose text to print: 1.24, 1.30 or\n"
	"                          1.31 (default).  1.30+ lists the holes, bit holes and\n"
	"                          flexible arrays of member struct types, with totals,\n"
	"                          expands named enums under -E, ends each -C type with a\n"
	"                          blank line; 1.31 also infers __aligned__ of zero-sized\n"
	"                          members (flexible arrays)\n"
	"  -C, --class_name=LIST   types to show (comma separated; file://PATH: one per line)\n"
	"  --base=FILE             base BTF for split (module) BTF\n"
	"  -E, --expand_types      expand member types inline\n"
	"  --hex                   offsets and sizes in hex\n"
	"  -r, --rel_offset        offsets in inner structs relative to them\n"
	"  -c, --cacheline_size=N  cacheline size (default 64)\n"
	"  -q, --quiet             no comments, no summary\n"
	"  -s, --sizes             print NAME<tab>SIZE<tab>HOLES per struct\n"
	"  -n, --nr_members        print NAME<tab>MEMBERS per struct\n"
	"  -N, --class_name_len    print NAME<tab>LENGTH per struct\n"
	"  -t, --separator=C       field separator for -s/-n/-N (default tab)\n"
	"  -H, --holes=N           only structs with at least N holes\n"
	"  -B, --bit_holes=N       only structs with at least N bit holes\n"
	"  -z, --hole_size_ge=N    only structs with a hole >= N bytes (prints names)\n"
	"  -i, --contains=TYPE     structs with a member of type TYPE\n"
	"  -f, --find_pointers_to=TYPE  members that point to TYPE\n"
	"  -y, --prefix_filter=P   only types whose name starts with P\n"
	"  -x, --exclude=P         skip types whose name starts with P\n"
	"  -X, --cu_exclude=P      accepted for pahole compatibility (BTF has one unit)\n"
	"  --structs, --unions, --packed, --with_flexible_array   kind filters\n"
	"  --with_embedded_flexible_array  structs with a member struct that has a\n"
	"                          flexible array, at any depth (pahole 1.30+)\n"
	"  -R, --reorganize        suggest a smaller member order (-S: show steps)\n"
	"  -P, --packable          structs that -R can shrink: NAME SIZE NEWSIZE SAVED\n"
	"  --check-reorg           check every struct's -R plan (exit status 1: a bad one)\n"
	"  --compile               a compilable C header of the types and what they use\n"
	"                          (no TYPE: every struct and union, as pahole --compile)\n"
	"  --skip_missing          go on past type names that are not found\n"
	"  --suppress_aligned_attribute, --suppress_packed   omit inferred attributes\n"
	"  --format=json           members with offsets, sizes, holes, cachelines as JSON\n"
	"  --cacheline-map         one line per cacheline listing the members in it\n"
	"  --diff OLD NEW          how TYPEs' layouts changed between two BTF files\n"
	"  -F FMT                  btf (default: .BTF if there is one) or dwarf (FILE's DWARF,\n"
	"                          as pahole -F dwarf: with TYPEs only the first unit defining\n"
	"                          each is read; __aligned__ from DW_AT_alignment)\n"
	"  -V, --verbose           say where the types come from (BTF, which base, DWARF)\n"
	"  A module's split .BTF is read on --base, else /sys/kernel/btf/vmlinux when its\n"
	"  BTF checks out on it (the kernel's rules); otherwise its DWARF, as pahole does.\n"
	"  FILE may be - (raw BTF on stdin).  A last argument that is not a C identifier\n"
	"  (a path) is FILE.  --format json prints one JSON array.\n"
	"  Exit status: 0 printed, 1 --diff: layouts differ (--check-reorg: a bad plan),\n"
	"  2 error (a TYPE not found, unreadable FILE).\n";

enum lmode { M_PRINT, M_SIZES, M_NR_MEMBERS, M_NAME_LEN, M_NAMES, M_CONTAINS, M_PTRS_TO,
	     M_REORG, M_PACKABLE, M_COMPILE, M_JSON, M_CLMAP, M_CHECKR };

struct lcmd {
	struct layout_opts lo;
	enum lmode mode;
	char sep;
	unsigned nr_holes, nr_bit_holes, hole_size_ge;
	const char *prefix, *exclude;
	bool just_structs, just_unions, just_packed, flexible, embedded_flexible, skip_missing, show_steps;
	struct lbuf out;
	uint32_t target;	/* -i / -f */
	unsigned checked, shrunk, bad;	/* --check-reorg */
	unsigned njson;		/* objects printed: --format json is one array */
	FILE *fp;
};

static void flush(struct lcmd *c)
{
	if (c->out.len)
		fwrite(c->out.p, 1, c->out.len, c->fp);
	lbuf_reset(&c->out);
}

/* pahole's class__filter */
static bool class_filter(void *ctx, struct layout *l, uint32_t id)
{
	struct lcmd *c = ctx;
	struct layout_class_info ci;

	if (layout_class_info(l, id, &ci))
		return false;
	if (c->just_unions && !ci.is_union)
		return false;
	if (c->just_structs && ci.is_union)
		return false;
	if (c->just_packed && !layout_infer_packed(l, id))
		return false;
	if (!ci.name)
		return false;
	if (c->exclude && !strncmp(c->exclude, ci.name, strlen(c->exclude)))
		return false;
	if (c->prefix && strncmp(c->prefix, ci.name, strlen(c->prefix)))
		return false;
	if (c->just_unions)
		return true;
	if (ci.is_union)
		return !(c->just_structs || c->mode == M_PACKABLE || c->nr_holes || c->nr_bit_holes ||
			 c->hole_size_ge);
	if (ci.nr_holes < c->nr_holes || ci.nr_bit_holes < c->nr_bit_holes ||
	    (c->hole_size_ge && !(ci.nr_holes && ci.max_hole >= c->hole_size_ge)))
		return false;
	if (c->mode == M_PACKABLE && !layout_packable(l, id))
		return false;
	if (c->flexible && !ci.has_flexible_array)
		return false;
	if (c->embedded_flexible && !layout_has_embedded_flexible_array(l, id))
		return false;
	return true;
}

/*
 * --check-reorg: the -R plan of struct id keeps every member once, puts
 * each at a multiple of its alignment, overlaps nothing and fits the
 * new size, which is no larger than the old.
 */
static int check_reorg(struct lcmd *c, struct layout *l, uint32_t id)
{
	const struct layout_member *m;
	uint32_t *order = NULL, n, nn, new_size, i, j;
	uint64_t *bits = NULL;
	struct layout_class_info ci;
	const char *why = NULL;
	uint8_t *seen;
	int err;

	layout_class_info(l, id, &ci);
	if (ci.is_union)
		return 0;
	ci.is_packed = layout_infer_packed(l, id);
	if ((err = layout_members(l, id, &m, &n)))
		return err;
	if ((err = layout_reorg_plan(l, id, &order, &bits, &nn, &new_size)))
		return err;
	seen = mem_zalloc(n + 1);
	if (!seen) {
		err = -ENOMEM;
		goto out;
	}
	if (nn != n)
		why = "member count";
	if (new_size > ci.size)
		why = "grew";
	for (i = 0; !why && i < nn; i++) {
		const struct layout_member *x = &m[order[i]];
		uint64_t s0 = bits[i], e0 = s0 + (x->bitfield_size ? x->bitfield_size : x->byte_size * 8ull);
		uint32_t a = x->natural_alignment > x->alignment ? x->natural_alignment : x->alignment;

		if (order[i] >= n || seen[order[i]]++)
			why = "member lost or duplicated";
		else if (!x->bitfield_size && !ci.is_packed && new_size < ci.size && a && (s0 / 8) % a)
			why = "misaligned";
		else if (!x->bitfield_size && s0 % 8)
			why = "not byte aligned";
		else if (e0 > (uint64_t)new_size * 8 && (x->byte_size || e0 > (uint64_t)new_size * 8))
			why = "past the end";
		for (j = 0; !why && j < i; j++) {
			const struct layout_member *y = &m[order[j]];
			uint64_t s1 = bits[j], e1 = s1 + (y->bitfield_size ? y->bitfield_size : y->byte_size * 8ull);

			if (s0 < e1 && s1 < e0)
				why = "overlap";
		}
	}
	c->checked++;
	if (new_size < ci.size)
		c->shrunk++;
	if (why) {
		c->bad++;
		lbuf_printf(&c->out, "reorg check failed: %s: %s\n", ci.name ? ci.name : "(anon)", why);
	}
	mem_free(seen);
out:
	mem_free(order);
	mem_free(bits);
	return err;
}

static int print_one(struct lcmd *c, struct layout *l, uint32_t id)
{
	struct layout_class_info ci;
	int err = 0;

	switch (c->mode) {
	case M_SIZES:
		layout_class_info(l, id, &ci);
		lbuf_printf(&c->out, "%s%c%u%c%u\n", ci.name, c->sep, ci.size, c->sep,
			    ci.is_union ? 0 : ci.nr_holes);
		break;
	case M_NR_MEMBERS:
		layout_class_info(l, id, &ci);
		lbuf_printf(&c->out, "%s%c%u\n", ci.name, c->sep, ci.nr_members);
		break;
	case M_NAME_LEN:
		layout_class_info(l, id, &ci);
		lbuf_printf(&c->out, "%s%c%zu\n", ci.name, c->sep, strlen(ci.name));
		break;
	case M_NAMES:
		layout_class_info(l, id, &ci);
		lbuf_printf(&c->out, "%s\n", ci.name);
		break;
	case M_PACKABLE:
		err = layout_print_packable(l, id, c->sep, &c->out);
		break;
	case M_CHECKR:
		err = check_reorg(c, l, id);
		break;
	case M_JSON:
		lbuf_printf(&c->out, c->njson++ ? "," : "[");
		err = layout_json(l, id, &c->out);
		break;
	case M_CLMAP:
		err = layout_cacheline_map(l, id, &c->out);
		break;
	case M_PRINT:
	/* not printed type by type: cmd_layout() never calls this for them */
	case M_CONTAINS: case M_PTRS_TO: case M_REORG: case M_COMPILE:
		err = layout_print(l, id, NULL, NULL, &c->out);
		lbuf_printf(&c->out, "\n");
		break;
	}
	if (c->out.len > (1 << 16))
		flush(c);
	return err;
}

static int each_cb(void *ctx, struct layout *l, uint32_t id)
{
	return print_one(ctx, l, id);
}

/* -i: pahole's print_containers (not recursive) */
static bool contains_filter(void *ctx, struct layout *l, uint32_t id)
{
	struct lcmd *c = ctx;
	const struct layout_member *m;
	uint32_t n, i;

	if (!class_filter(ctx, l, id) || layout_members(l, id, &m, &n))
		return false;
	for (i = 0; i < n; i++)
		if (m[i].type == c->target)
			return true;
	return false;
}

static int contains_cb(void *ctx, struct layout *l, uint32_t id)
{
	struct lcmd *c = ctx;
	struct layout_class_info ci;

	layout_class_info(l, id, &ci);
	lbuf_printf(&c->out, "%s\n", ci.name);
	return 0;
}

/* -f: pahole's print_structs_with_pointer_to */
static bool ptrs_filter(void *ctx, struct layout *l, uint32_t id)
{
	struct lcmd *c = ctx;
	const struct btf *b = layout_btf(l);
	const struct layout_member *m;
	uint32_t n, i;

	if (!class_filter(ctx, l, id) || layout_members(l, id, &m, &n))
		return false;
	for (i = 0; i < n; i++) {
		const struct btf_type *t = btf_type_by_id(b, m[i].type);

		if (t && btf_kind(t) == BTF_KIND_PTR && t->type == c->target)
			return true;
	}
	return false;
}

static int ptrs_cb(void *ctx, struct layout *l, uint32_t id)
{
	struct lcmd *c = ctx;
	const struct btf *b = layout_btf(l);
	struct layout_class_info ci;
	const struct layout_member *m;
	uint32_t n, i;

	layout_class_info(l, id, &ci);
	layout_members(l, id, &m, &n);
	for (i = 0; i < n; i++) {
		const struct btf_type *t = btf_type_by_id(b, m[i].type);

		if (t && btf_kind(t) == BTF_KIND_PTR && t->type == c->target)
			lbuf_printf(&c->out, "%s: %s\n", ci.name, m[i].name ? m[i].name : "(null)");
	}
	return 0;
}

/* Type names: comma separated, file://PATH entries read one per line. */
struct names {
	char **v;
	size_t n, cap;
};

static int names_add(struct names *ns, const char *s, size_t len)
{
	char *p;

	if (VEC_RESERVE(ns->v, ns->cap, ns->n + 1))
		return -ENOMEM;
	p = mem_alloc(len + 1);
	if (!p)
		return -ENOMEM;
	memcpy(p, s, len);
	p[len] = 0;
	ns->v[ns->n++] = p;
	return 0;
}

static int names_add_list(struct names *ns, const char *list)
{
	const char *s = list;

	while (*s) {
		const char *e = strchr(s, ',');
		size_t len = e ? (size_t)(e - s) : strlen(s);

		if (len > 7 && !strncmp(s, "file://", 7)) {
			char path[4096];
			FILE *f;
			char line[1024];

			snprintf(path, sizeof(path), "%.*s", (int)(len - 7), s + 7);
			f = fopen(path, "r");
			if (!f)
				return -errno;
			while (fgets(line, sizeof(line), f)) {
				size_t ll = strlen(line);

				if (ll == 0)
					continue;
				line[ll - 1] = line[ll - 1] == '\n' ? 0 : line[ll - 1];
				if (names_add(ns, line, strlen(line))) {
					fclose(f);
					return -ENOMEM;
				}
			}
			fclose(f);
		} else if (len && names_add(ns, s, len)) {
			return -ENOMEM;
		}
		if (!e)
			break;
		s = e + 1;
	}
	return 0;
}

static void names_free(struct names *ns)
{
	for (size_t i = 0; i < ns->n; i++)
		mem_free(ns->v[i]);
	mem_free(ns->v);
}

static bool is_file(const char *p)
{
	struct stat st;

	return stat(p, &st) == 0 && S_ISREG(st.st_mode);
}

/* A type name (or comma list of them): C identifier characters only; anything else is a path. */
static bool is_type_arg(const char *s)
{
	if (!*s)
		return false;
	for (; *s; s++)
		if (!(*s == '_' || *s == ',' || (*s >= 'a' && *s <= 'z') || (*s >= 'A' && *s <= 'Z') ||
		      (*s >= '0' && *s <= '9')))
			return false;
	return true;
}

static bool is_elf(const char *path)
{
	unsigned char m[4];
	FILE *f = cli_is_stdio(path) ? NULL : fopen(path, "rb");
	bool yes;

	if (!f)
		return false;
	yes = fread(m, 1, 4, f) == 4 && !memcmp(m, "\177ELF", 4);
	fclose(f);
	return yes;
}


/*
 * Split BTF on base_path: parsed, and valid by the kernel's rules (which
 * a module's BTF on another build's vmlinux fails: names and types it
 * refers to in the base are not there).  0, or an error with *why.
 */
static int split_on(const char *path, const char *base_path, struct btf **base, struct btf **btf,
		    struct diag *d)
{
	struct btf_report rep = { .max = 1 };
	void *data = NULL;
	size_t len;
	int err;

	if ((err = cli_btf_load(path, base_path, base, btf, d)))
		return err;
	if ((err = cli_btf_blob(path, &data, &len, d)))
		goto fail;
	err = btf_validate(data, len, *base, 0, &rep, d);
	mem_free(data);
	if (err && err != -ENOMEM && rep.n)
		err = diag_err(d, EINVAL, "%s: %s", path, rep.items[0].msg);
	btf_report_free(&rep);
	if (!err)
		return 0;
fail:
	btf_free(*btf);
	btf_free(*base);
	*btf = *base = NULL;
	return err;
}

/*
 * FILE's BTF: raw or ELF .BTF (cli_btf_load).  A split .BTF without
 * --base goes on /sys/kernel/btf/vmlinux.  -ENOENT with *use_dwarf: read
 * FILE's DWARF instead (no .BTF, or split BTF no base fits: pahole falls
 * back to DWARF too).
 */
static int layout_load_btf(const char *path, const char *base_path, bool verbose,
			   struct btf **base, struct btf **btf, bool *use_dwarf, struct diag *d)
{
	const char *try_base = base_path;
	struct cli_blob *b;
	const void *p = NULL;
	size_t len = 0;
	bool split;
	int err;

	*use_dwarf = false;
	*base = *btf = NULL;
	if (cli_is_stdio(path))	/* read once: raw BTF, split only on --base */
		return cli_btf_load(path, base_path, base, btf, d);
	if ((err = cli_blob_open(path, &b, &p, &len, d))) {
		if (err == -ENOENT && is_file(path) && is_elf(path)) {
			if (verbose)
				cli_note("%s: no .BTF; reading its DWARF", path);
			*use_dwarf = true;
		}
		return err;
	}
	split = cli_btf_is_split(p, len);
	cli_blob_release(b);
	if (!split || cli_btf_default_base(path)) {
		if ((err = cli_btf_load(path, base_path, base, btf, d)))
			return err;
		if (verbose)
			cli_note("%s: BTF%s%s", path, *base ? " on " : "",
				 *base ? (base_path ? base_path : cli_btf_default_base(path)) : "");
		return 0;
	}
	if (!try_base)
		try_base = "/sys/kernel/btf/vmlinux";
	if (!(err = split_on(path, try_base, base, btf, d))) {
		if (verbose)
			cli_note("%s: split BTF on %s", path, try_base);
		return 0;
	}
	if (err == -ENOMEM || !is_elf(path))
		return err;
	if (verbose)
		cli_note("%s: its split BTF does not check out on %s (built for another "
			 "kernel?); reading its DWARF", path, try_base);
	*use_dwarf = true;
	return -ENOENT;
}

/* FILE's DWARF, all of it, as BTF with its alignments (for layouts of every type). */
static int layout_load_dwarf(const char *path, struct btf **btf, struct diag *d)
{
	struct dwarf_input in;
	struct enc_opts o;
	struct enc_stats st;
	int err;

	if ((err = dwarf_input_open(&in, path, pool_ncpus(), d)))
		return err;
	enc_opts_default(&o);
	o.floats = true;
	o.struct_view = true;
	o.jobs = pool_ncpus();
	err = btf_encode(&in, NULL, &o, btf, &st, d);
	dwarf_input_close(&in);
	return err;
}

int cli_layout_load(const char *path, const char *base_path, struct btf **base,
		    struct btf **btf, struct diag *d)
{
	bool use_dwarf;
	int err = layout_load_btf(path, base_path, false, base, btf, &use_dwarf, d);

	if (err && use_dwarf) {
		diag_clear(d);
		err = layout_load_dwarf(path, btf, d);
	}
	return err;
}

/*
 * The print of named types (-C), one after another as pahole prints
 * them; *rc becomes EXIT_ERR for a name not found (stop unless
 * --skip_missing).  where: FILE, for messages.
 */
static int print_name(struct lcmd *c, struct layout *l, const char *name, const char *where,
		      int *rc)
{
	uint32_t id = layout_find(l, name);
	int err = 0;

	if (!id) {
		cli_fail("%s: type '%s' not found", where, name);
		*rc = EXIT_ERR;
		return c->skip_missing ? 0 : -ENOENT;
	}
	if (c->mode == M_REORG) {
		err = layout_reorganize(l, id, c->show_steps, &c->out);
		if (err == -EINVAL)	/* not a struct: pahole prints nothing */
			err = 0;
	} else {
		/*
		 * A -C type: 1.24 prints its text whatever the formatter
		 * (-s, -n, -N, -z); 1.30 goes through the formatter, then
		 * prints a newline.
		 */
		enum lmode mode = c->mode;
		bool formatter = mode == M_PRINT || mode == M_SIZES || mode == M_NR_MEMBERS ||
				 mode == M_NAME_LEN || mode == M_NAMES;

		if (formatter && c->lo.compat == LAYOUT_COMPAT_1_24)
			c->mode = M_PRINT;
		err = print_one(c, l, id);
		c->mode = mode;
		if (formatter && c->lo.compat != LAYOUT_COMPAT_1_24)
			lbuf_printf(&c->out, "\n");
	}
	return err;
}

struct unit_name {
	size_t unit, idx;
};

static int cmp_unit_name(const void *a, const void *b)
{
	const struct unit_name *x = a, *y = b;

	if (x->unit != y->unit)
		return x->unit < y->unit ? -1 : 1;
	return x->idx < y->idx ? -1 : x->idx > y->idx;
}

/*
 * -F dwarf -C NAMES FILE, as pahole 1.24-1.31 load it: unit by unit, each
 * name from the first unit that defines it (without --skip_missing, from
 * the unit of the name before it: pahole looks for the next name only
 * once the one before is found), stopping at the last one found; each
 * unit's types printed on their own, as pahole prints them from that unit.
 */
static int layout_dwarf_names(struct lcmd *c, const char *path, const struct names *ns, int *rc)
{
	struct unit_name *un = mem_array(ns->n ? ns->n : 1, sizeof(*un));
	struct dwarf_input in;
	struct layout_opts lo = c->lo;
	struct btf *btf = NULL;
	struct layout *l = NULL;
	struct diag d;
	size_t i, n = 0, from = 0, cur = SIZE_MAX;
	int err;

	diag_clear(&d);
	if (!un)
		return -ENOMEM;
	if ((err = dwarf_input_open_lazy(&in, path, &d))) {
		mem_free(un);
		cli_report(&d, err);
		*rc = EXIT_ERR;
		return 0;
	}
	for (i = 0; i < ns->n; i++) {
		size_t u = 0;

		err = enc_find_type_unit(&in, ns->v[i], c->skip_missing ? 0 : from, &u, &d);
		if (err == -ENOENT) {
			cli_fail("%s: type '%s' not found", path, ns->v[i]);
			*rc = EXIT_ERR;
			err = 0;
			if (!c->skip_missing)
				break;
			continue;
		}
		if (err)
			break;
		un[n].unit = from = u;
		un[n++].idx = i;
	}
	if (c->skip_missing)
		qsort(un, n, sizeof(*un), cmp_unit_name);
	lo.dwarf = true;
	for (i = 0; i < n && !err; i++) {
		if (un[i].unit != cur) {
			struct enc_opts o;

			layout_close(l);
			btf_free(btf);
			l = NULL;
			btf = NULL;
			enc_opts_default(&o);
			o.floats = true;
			o.struct_view = true;
			if ((err = btf_encode_unit(&in, un[i].unit, &o, &btf, &d)) ||
			    (err = layout_open(btf, &lo, &l, &d)))
				break;
			cur = un[i].unit;
		}
		err = print_name(c, l, ns->v[un[i].idx], path, rc);
		if (err == -ENOENT)	/* cannot happen: the unit defines it */
			err = 0;
	}
	if (err && d.code) {
		cli_report(&d, err);
		*rc = EXIT_ERR;
		err = 0;
	}
	if (!err && l && layout_oom(l))
		err = -ENOMEM;
	layout_close(l);
	btf_free(btf);
	dwarf_input_close(&in);
	mem_free(un);
	return err;
}

/*
 * One piece (275 lines): pahole's long option table and its getopt loop
 * are two thirds of it; the rest is one straight sequence (pick the
 * input, open it, select, print by mode) over those options with one
 * cleanup path.
 */
int cmd_layout(int argc, char **argv)
{
	enum { O_BASE = 256, O_HEX, O_STRUCTS, O_UNIONS, O_PACKED, O_FLEX, O_COMPILE, O_SKIPM,
	       O_SUPA, O_SUPP, O_FORMAT, O_CLMAP, O_DIFF, O_SUPF, O_FRESH, O_CHECKR, O_COMPAT,
	       O_EMBFLEX };
	static const struct option opts[] = {
		{ "class_name", required_argument, NULL, 'C' },
		{ "base", required_argument, NULL, O_BASE },
		{ "btf_base", required_argument, NULL, O_BASE },
		{ "expand_types", no_argument, NULL, 'E' },
		{ "hex", no_argument, NULL, O_HEX },
		{ "rel_offset", no_argument, NULL, 'r' },
		{ "cacheline_size", required_argument, NULL, 'c' },
		{ "quiet", no_argument, NULL, 'q' },
		{ "sizes", no_argument, NULL, 's' },
		{ "nr_members", no_argument, NULL, 'n' },
		{ "class_name_len", no_argument, NULL, 'N' },
		{ "separator", required_argument, NULL, 't' },
		{ "holes", required_argument, NULL, 'H' },
		{ "bit_holes", required_argument, NULL, 'B' },
		{ "hole_size_ge", required_argument, NULL, 'z' },
		{ "contains", required_argument, NULL, 'i' },
		{ "find_pointers_to", required_argument, NULL, 'f' },
		{ "prefix_filter", required_argument, NULL, 'y' },
		{ "exclude", required_argument, NULL, 'x' },
		{ "cu_exclude", required_argument, NULL, 'X' },
		{ "structs", no_argument, NULL, O_STRUCTS },
		{ "unions", no_argument, NULL, O_UNIONS },
		{ "packed", no_argument, NULL, O_PACKED },
		{ "with_flexible_array", no_argument, NULL, O_FLEX },
		{ "with_embedded_flexible_array", no_argument, NULL, O_EMBFLEX },
		{ "compat", required_argument, NULL, O_COMPAT },
		{ "reorganize", no_argument, NULL, 'R' },
		{ "show_reorg_steps", no_argument, NULL, 'S' },
		{ "packable", no_argument, NULL, 'P' },
		{ "compile", no_argument, NULL, O_COMPILE },
		{ "skip_missing", no_argument, NULL, O_SKIPM },
		{ "suppress_aligned_attribute", no_argument, NULL, O_SUPA },
		{ "suppress_packed", no_argument, NULL, O_SUPP },
		{ "suppress_force_paddings", no_argument, NULL, O_SUPF },
		{ "format", required_argument, NULL, O_FORMAT },
		{ "cacheline-map", no_argument, NULL, O_CLMAP },
		{ "diff", no_argument, NULL, O_DIFF },
		{ "format_path", required_argument, NULL, 'F' },
		{ "fresh", no_argument, NULL, O_FRESH },
		{ "check-reorg", no_argument, NULL, O_CHECKR },
		{ "verbose", no_argument, NULL, 'V' },
		{ "help", no_argument, NULL, 'h' },
		{ NULL, 0, NULL, 0 },
	};
	static const char shortopts[] = "C:Ehrc:qsnNt:H:B:z:i:f:y:x:X:RSPF:V";
	struct lcmd c = { .sep = '\t', .fp = stdout };
	struct names names = { 0 };
	const char *base_path = NULL, *file = NULL, *target_name = NULL;
	struct btf *base = NULL, *btf = NULL;
	struct layout *l = NULL;
	struct diag d;
	bool diff = false, fresh = false, force_dwarf = false, verbose = false, use_dwarf = false;
	int opt, err = 0, rc = EXIT_OK, npos;

	optind = 1;
	opterr = 0;
	while ((opt = getopt_long(argc, argv, shortopts, opts, NULL)) != -1) {
		switch (opt) {
		case 'C':
			if (names_add_list(&names, optarg)) {
				names_free(&names);
				return cli_fail("layout: cannot read type list '%s'", optarg);
			}
			break;
		case 'V': verbose = true; break;
		case O_BASE: base_path = optarg; break;
		case 'E': c.lo.expand_types = true; break;
		case O_HEX: c.lo.hex = true; break;
		case 'r': c.lo.rel_offset = true; break;
		case 'c': c.lo.cacheline_size = (unsigned)atoi(optarg); break;
		case 'q': c.lo.quiet = true; break;
		case 's': c.mode = M_SIZES; break;
		case 'n': c.mode = M_NR_MEMBERS; break;
		case 'N': c.mode = M_NAME_LEN; break;
		case 't': c.sep = optarg[0]; break;
		case 'H': c.nr_holes = (unsigned)atoi(optarg); break;
		case 'B': c.nr_bit_holes = (unsigned)atoi(optarg); break;
		case 'z': c.hole_size_ge = (unsigned)atoi(optarg); c.mode = M_NAMES; break;
		case 'i': c.mode = M_CONTAINS; target_name = optarg; break;
		case 'f': c.mode = M_PTRS_TO; target_name = optarg; break;
		case 'y': c.prefix = optarg; break;
		case 'x': c.exclude = optarg; break;
		case 'X': break;
		case 'F':
			if (strcmp(optarg, "btf") && strcmp(optarg, "dwarf")) {
				names_free(&names);
				return cli_usage("layout", "-F takes btf or dwarf, not '%s'", optarg);
			}
			force_dwarf = !strcmp(optarg, "dwarf");
			break;
		case O_STRUCTS: c.just_structs = true; break;
		case O_UNIONS: c.just_unions = true; break;
		case O_PACKED: c.just_structs = c.just_packed = true; break;
		case O_FLEX: c.flexible = true; break;
		case O_EMBFLEX: c.just_structs = c.embedded_flexible = true; break;
		case O_COMPAT:
			if (!strcmp(optarg, "1.24"))
				c.lo.compat = LAYOUT_COMPAT_1_24;
			else if (!strcmp(optarg, "1.30"))
				c.lo.compat = LAYOUT_COMPAT_1_30;
			else if (!strcmp(optarg, "1.31"))
				c.lo.compat = LAYOUT_COMPAT_1_31;
			else {
				names_free(&names);
				return cli_usage("layout", "--compat takes 1.24, 1.30 or 1.31, not '%s'",
						 optarg);
			}
			break;
		case 'R': c.mode = M_REORG; break;
		case 'S': c.show_steps = true; break;
		case 'P': c.mode = M_PACKABLE; break;
		case O_COMPILE: c.mode = M_COMPILE; break;
		case O_SKIPM: c.skip_missing = true; break;
		case O_SUPA: c.lo.suppress_aligned = true; break;
		case O_SUPP: c.lo.suppress_packed = true; break;
		case O_SUPF: c.lo.suppress_force_paddings = true; break;
		case O_FORMAT:
			if (!strcmp(optarg, "json"))
				c.mode = M_JSON;
			else if (strcmp(optarg, "text")) {
				names_free(&names);
				return cli_usage("layout", "--format takes text or json, not '%s'", optarg);
			}
			break;
		case O_CLMAP: c.mode = M_CLMAP; break;
		case O_DIFF: diff = true; break;
		case O_FRESH: fresh = true; break;
		case O_CHECKR: c.mode = M_CHECKR; break;
		case 'h': fputs(usage_text, stdout); names_free(&names); return EXIT_OK;
		default: names_free(&names); return cli_bad_option("layout", argv, shortopts);
		}
	}
	npos = argc - optind;
	if (diff) {
		if (npos < 2) {
			names_free(&names);
			return cli_usage("layout", "--diff needs OLD NEW [TYPE ...]");
		}
		for (int i = optind + 2; i < argc; i++)
			names_add_list(&names, argv[i]);
		rc = cli_layout_diff(argv[optind], argv[optind + 1], base_path, &c.lo,
				     (const char *const *)names.v, names.n);
		names_free(&names);
		return rc;
	}
	/*
	 * The last positional is FILE if it is a file or cannot be a type
	 * name (a path: "vmlinux.missing" is a file that is not there, not a
	 * type).
	 */
	if (npos > 0 && (is_file(argv[argc - 1]) || !is_type_arg(argv[argc - 1]))) {
		file = argv[argc - 1];
		npos--;
	}
	for (int i = 0; i < npos; i++) {
		if (!is_type_arg(argv[optind + i])) {
			names_free(&names);
			return cli_usage("layout", "'%s': one FILE, after the type names",
					 argv[optind + i]);
		}
		if (names_add_list(&names, argv[optind + i])) {
			names_free(&names);
			return cli_fail("layout: out of memory");
		}
	}
	if (!file)
		file = "/sys/kernel/btf/vmlinux";
	diag_clear(&d);
	if (!force_dwarf)
		err = layout_load_btf(file, base_path, verbose, &base, &btf, &use_dwarf, &d);
	if (force_dwarf || use_dwarf) {
		diag_clear(&d);
		c.lo.dwarf = true;
		/* named types: only the units that define them, as pahole reads them */
		if (names.n && c.mode != M_CONTAINS && c.mode != M_PTRS_TO && c.mode != M_COMPILE &&
		    c.mode != M_CHECKR && !fresh) {
			if (verbose && force_dwarf)
				cli_note("%s: reading its DWARF, the units defining the types", file);
			err = layout_dwarf_names(&c, file, &names, &rc);
			goto print_end;
		}
		if (verbose && force_dwarf)
			cli_note("%s: reading its DWARF", file);
		err = layout_load_dwarf(file, &btf, &d);
	}
	if (err) {
		cli_report(&d, err);
		names_free(&names);
		return EXIT_ERR;
	}
	if ((err = layout_open(btf, &c.lo, &l, &d))) {
		cli_report(&d, err);
		rc = EXIT_ERR;
		goto out;
	}
	if (c.mode == M_CONTAINS || c.mode == M_PTRS_TO) {
		c.target = layout_find(l, target_name);
		if (c.mode == M_PTRS_TO && !c.target)
			c.target = layout_find_decl(l, target_name);
		if (!c.target) {
			rc = cli_fail("%s: type '%s' not found", file, target_name);
			goto out;
		}
		err = layout_each_class(l, c.mode == M_CONTAINS ? contains_filter : ptrs_filter,
					c.mode == M_CONTAINS ? contains_cb : ptrs_cb, &c);
	} else if (c.mode == M_COMPILE) {
		/* no names: every named struct and union, as pahole --compile does */
		const struct btf *b = layout_btf(l);
		uint32_t ntypes = btf_type_count(b);
		uint32_t *ids = mem_array(names.n ? names.n : ntypes, sizeof(*ids));
		size_t n = 0;

		if (!ids) {
			err = -ENOMEM;	/* reported below */
		} else if (names.n) {
			for (n = 0; n < names.n; n++)
				if (!(ids[n] = layout_find(l, names.v[n])))
					rc = cli_fail("%s: type '%s' not found", file, names.v[n]);
		} else {
			for (uint32_t id = 1; id < ntypes; id++) {
				const struct btf_type *t = btf_type_by_id(b, id);

				if (t->name_off && btf_is_composite_kind(btf_kind(t)))
					ids[n++] = id;
			}
		}
		if (ids && rc == EXIT_OK)
			err = layout_emit_c(l, ids, n, &c.out);
		mem_free(ids);
	} else if (names.n == 0) {
		if (c.mode == M_REORG) {
			rc = cli_usage("layout", "-R needs type names");
			goto out;
		}
		err = layout_each_class(l, class_filter, each_cb, &c);
	} else {
		for (size_t i = 0; i < names.n && !err; i++) {
			/* --fresh: each type as if printed by its own run (for oracle checks) */
			if (fresh && i > 0) {
				layout_close(l);
				l = NULL;
				if ((err = layout_open(btf, &c.lo, &l, &d)))
					break;
			}
			err = print_name(&c, l, names.v[i], file, &rc);
		}
		if (err == -ENOENT)	/* reported: rc is EXIT_ERR */
			err = 0;
	}
print_end:
	if (c.mode == M_CHECKR) {
		lbuf_printf(&c.out, "reorg check: %u structs, %u shrunk, %u failed\n", c.checked, c.shrunk,
			    c.bad);
		if (c.bad)
			rc = EXIT_DIFF;
	}
	if (c.mode == M_JSON)
		lbuf_printf(&c.out, c.njson ? "]\n" : "[]\n");
	flush(&c);
	if (err) {
		rc = cli_fail("%s: %s", file, strerror(err < 0 ? -err : err));
	} else if (c.out.oom || (l && layout_oom(l))) {
		rc = cli_fail("layout: out of memory; the output above is incomplete");
	}
out:
	lbuf_free(&c.out);
	layout_close(l);
	btf_free(btf);
	btf_free(base);
	names_free(&names);
	return rc;
}

static bool diff_collect(void *ctx, struct layout *l, uint32_t id)
{
	return true;
}

struct diff_ctx {
	struct layout *other;
	struct lbuf *out;
	int rc;
};

static int diff_each(void *ctx, struct layout *l, uint32_t id)
{
	struct diff_ctx *dc = ctx;
	struct layout_class_info ci;
	int r;

	layout_class_info(l, id, &ci);
	r = layout_diff(l, dc->other, ci.name, dc->out);
	if (r > 0)
		dc->rc = EXIT_DIFF;
	return r < 0 && r != -ENOENT ? r : 0;
}

int cli_layout_diff(const char *old_path, const char *new_path, const char *base_path,
		    const struct layout_opts *lo, const char *const *names, size_t n)
{
	struct btf *ba = NULL, *a = NULL, *bb = NULL, *b = NULL;
	struct layout *la = NULL, *lb = NULL;
	struct lbuf out = { 0 };
	struct diag d;
	int err, rc = EXIT_OK;

	diag_clear(&d);
	if ((err = cli_layout_load(old_path, base_path, &ba, &a, &d)) ||
	    (err = cli_layout_load(new_path, base_path, &bb, &b, &d)) ||
	    (err = layout_open(a, lo, &la, &d)) || (err = layout_open(b, lo, &lb, &d))) {
		cli_report(&d, err);
		rc = EXIT_ERR;
		goto out;
	}
	if (n == 0) {
		/* every named struct/union of OLD; then those only in NEW */
		struct diff_ctx dc = { lb, &out, EXIT_OK };

		err = layout_each_class(la, diff_collect, diff_each, &dc);
		rc = dc.rc;
	} else {
		for (size_t i = 0; i < n; i++) {
			int r = layout_diff(la, lb, names[i], &out);

			if (r == -ENOENT) {
				rc = cli_fail("layout: type '%s' not found in either file", names[i]);
			} else if (r > 0 && rc == EXIT_OK) {
				rc = EXIT_DIFF;
			}
		}
	}
	fwrite(out.p ? out.p : "", 1, out.len, stdout);
	if (err < 0) {
		cli_report(NULL, err);
		rc = EXIT_ERR;
	}
out:
	lbuf_free(&out);
	layout_close(la);
	layout_close(lb);
	btf_free(a);
	btf_free(ba);
	btf_free(b);
	btf_free(bb);
	return rc;
}

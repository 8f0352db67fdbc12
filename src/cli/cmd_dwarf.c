// SPDX-License-Identifier: GPL-2.0-only
/* btfc dwarf: print units and DIEs, or decode every DIE and count them. */
#include <getopt.h>
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "base/clock.h"
#include "base/mem.h"
#include "base/pool.h"
#include "cli/cli.h"
#include "encode/input.h"

static const char usage_text[] =
	"usage: btfc dwarf [OPTIONS] FILE\n"
	"  Print every unit and DIE of FILE's DWARF with decoded attributes.\n"
	"  --cu NAME|0xOFF   only units whose name ends with NAME, or at offset OFF\n"
	"  --offset 0xOFF    only the DIE at OFF and its children\n"
	"  --stats           decode every DIE with every attribute; print unit and\n"
	"                    DIE counts (per tag) and the time taken\n"
	"  --skip-only       with --stats: decode abbreviations only, skip values\n"
	"  -j N, --jobs N    threads for indexing and --stats (default: all CPUs)\n"
	"  Exit status: 0 printed, 2 error.\n";

static void print_tag(FILE *o, unsigned tag)
{
	const char *n = dw_tag_name(tag);

	if (n)
		fputs(n, o);
	else
		fprintf(o, "DW_TAG_unknown_0x%x", tag);
}

static void print_attr(FILE *o, const struct dw_attr *a)
{
	const char *an = dw_at_name(a->at), *fn = dw_form_name(a->form);
	uint32_t i;

	if (an)
		fprintf(o, "%s", an);
	else
		fprintf(o, "DW_AT_unknown_0x%x", a->at);
	if (fn)
		fprintf(o, " [%s]\t(", fn);
	else
		fprintf(o, " [DW_FORM_0x%x]\t(", a->form);
	switch (a->cls) {
	case DW_CL_STRING:
		fprintf(o, "\"%s\"", a->str);
		break;
	case DW_CL_REF:
		fprintf(o, "0x%08" PRIx64 "%s%s", DW_REF_OFF(a->u), a->u & DW_REF_ALT ? " alt" : "",
			a->u & DW_REF_TYPES ? " types" : "");
		break;
	case DW_CL_SIG:
		fprintf(o, "sig 0x%016" PRIx64, a->u);
		break;
	case DW_CL_SCONST:
		fprintf(o, "%" PRId64, a->s);
		break;
	case DW_CL_FLAG:
		fputs(a->u ? "true" : "false", o);
		break;
	case DW_CL_ADDR:
		fprintf(o, "0x%016" PRIx64, a->u);
		break;
	case DW_CL_BLOCK:
	case DW_CL_DATA16:
		fprintf(o, "<0x%x>", a->len);
		for (i = 0; i < a->len && i < 64; i++)
			fprintf(o, " %02x", a->blk[i]);
		if (a->len > 64)
			fputs(" ...", o);
		break;
	default:
		fprintf(o, "0x%" PRIx64, a->u);
	}
	fputs(")\n", o);
}

static const char *unit_type_name(unsigned t)
{
	switch (t) {
	case DW_UT_compile: return "compile";
	case DW_UT_type: return "type";
	case DW_UT_partial: return "partial";
	case DW_UT_skeleton: return "skeleton";
	case DW_UT_split_compile: return "split_compile";
	case DW_UT_split_type: return "split_type";
	}
	return "unknown";
}

static bool unit_selected(const struct dw_unit *u, const char *cu)
{
	size_t ln, lc;

	if (!cu)
		return true;
	if (!strncmp(cu, "0x", 2))
		return u->off == strtoull(cu, NULL, 16);
	if (!u->name)
		return false;
	ln = strlen(u->name);
	lc = strlen(cu);
	return ln >= lc && !strcmp(u->name + ln - lc, cu);
}

static int print_units(struct dwarf_input *in, const char *cu, const char *offset)
{
	uint64_t want = offset ? strtoull(offset, NULL, 16) : 0;
	struct dw_die *die = mem_alloc(sizeof(*die));
	int status = EXIT_OK;
	size_t i;

	if (!die)
		return cli_fail("out of memory");
	for (i = 0; i < dw_nunits(in->dw); i++) {
		const struct dw_unit *u = dw_unit_at(in->dw, i);
		struct dw_cursor c;
		struct diag d;
		int r, in_sel = -1;

		diag_clear(&d);
		if (!unit_selected(u, cu))
			continue;
		if (offset && (want < u->off || want >= u->end || u->in_types))
			continue;
		if (!offset)
			printf("%s unit at 0x%08" PRIx64 ": version %u, %s, addr_size %u, offset_size %u%s\n",
			       u->in_types ? ".debug_types" : ".debug_info", u->off, u->version,
			       unit_type_name(u->unit_type), u->addr_size, u->offset_size,
			       u->bad ? ", UNREADABLE" : "");
		if ((r = dw_cursor_init(&c, in->dw, u, &d)) < 0) {
			cli_report(&d, r);
			status = EXIT_ERR;
			continue;
		}
		while ((r = dw_next(&c, die)) > 0) {
			unsigned k;

			if (offset) {
				if (in_sel < 0 && DW_REF_OFF(die->off) == want)
					in_sel = die->depth;
				else if (in_sel >= 0 && die->depth <= in_sel)
					break;
				if (in_sel < 0)
					continue;
			}
			printf("0x%08" PRIx64 ": %*s", DW_REF_OFF(die->off), die->depth * 2, "");
			print_tag(stdout, die->tag);
			putchar('\n');
			for (k = 0; k < die->nattr; k++) {
				printf("%*s", 14 + die->depth * 2, "");
				print_attr(stdout, &die->attr[k]);
			}
		}
		if (r < 0) {
			fflush(stdout);
			cli_report(&d, r);
			status = EXIT_ERR;
		}
	}
	mem_free(die);
	return status;
}

struct stats_ctx {
	const struct dw_file *dw;
	bool skip_only;
	uint64_t (*counts)[0x10000];	/* per worker */
	uint64_t *ndies;		/* per worker (skip-only) */
	struct dw_die **dies;		/* per worker */
	struct diag *diags;		/* per unit */
	int *errs;			/* per unit */
};

static int stats_unit(void *p, unsigned w, size_t i)
{
	struct stats_ctx *s = p;
	const struct dw_unit *u = dw_unit_at(s->dw, i);
	struct dw_die *die = s->dies[w];
	struct dw_cursor c;
	int r;

	diag_clear(&s->diags[i]);
	if (s->skip_only) {
		r = dw_walk_skip(s->dw, u, &s->ndies[w], &s->diags[i]);
	} else if ((r = dw_cursor_init(&c, s->dw, u, &s->diags[i])) == 0) {
		while ((r = dw_next(&c, die)) > 0)
			s->counts[w][die->tag & 0xffff]++;
	}
	s->errs[i] = r < 0 ? r : 0;
	return 0;	/* keep going: report every bad unit */
}

static int print_stats(struct dwarf_input *in, unsigned jobs, bool skip_only, double t0)
{
	size_t n = dw_nunits(in->dw), i;
	struct stats_ctx s = { .dw = in->dw, .skip_only = skip_only };
	uint64_t total = 0, nerr = 0;
	double t1 = clock_now(), t2;
	unsigned w, tag;
	int status = EXIT_OK;

	s.counts = mem_array(jobs, sizeof(*s.counts));
	s.ndies = mem_array(jobs, sizeof(uint64_t));
	s.dies = mem_array(jobs, sizeof(*s.dies));
	s.diags = mem_array(n ? n : 1, sizeof(struct diag));
	s.errs = mem_array(n ? n : 1, sizeof(int));
	if (!s.counts || !s.ndies || !s.dies || !s.diags || !s.errs) {
		status = cli_fail("out of memory");
		goto out;
	}
	for (w = 0; w < jobs; w++)
		if (!(s.dies[w] = mem_alloc(sizeof(struct dw_die)))) {
			status = cli_fail("out of memory");
			goto out;
		}
	pool_for(jobs, n, stats_unit, &s);
	t2 = clock_now();
	for (i = 0; i < n; i++)
		if (s.errs[i]) {
			cli_report(&s.diags[i], s.errs[i]);
			nerr++;
		}
	printf("units: %zu\n", n);
	if (skip_only) {
		for (w = 0; w < jobs; w++)
			total += s.ndies[w];
	} else {
		for (tag = 0; tag < 0x10000; tag++) {
			uint64_t c = 0;

			for (w = 0; w < jobs; w++)
				c += s.counts[w][tag];
			if (!c)
				continue;
			total += c;
			if (dw_tag_name(tag))
				printf("%-40s %" PRIu64 "\n", dw_tag_name(tag), c);
			else
				printf("DW_TAG_unknown_0x%-24x %" PRIu64 "\n", tag, c);
		}
	}
	printf("dies: %" PRIu64 "\n", total);
	printf("errors: %" PRIu64 "\n", nerr);
	printf("time: %.3f s (index %.3f s, %s %.3f s, %u threads)\n", t2 - t0, t1 - t0,
	       skip_only ? "skip walk" : "decode", t2 - t1, jobs);
	if (nerr)
		status = EXIT_ERR;
out:
	if (s.dies)
		for (w = 0; w < jobs; w++)
			mem_free(s.dies[w]);
	mem_free(s.dies);
	mem_free(s.counts);
	mem_free(s.ndies);
	mem_free(s.diags);
	mem_free(s.errs);
	return status;
}

int cmd_dwarf(int argc, char **argv)
{
	static const struct option opts[] = {
		{ "cu", required_argument, NULL, 'c' },
		{ "offset", required_argument, NULL, 'o' },
		{ "stats", no_argument, NULL, 's' },
		{ "skip-only", no_argument, NULL, 'k' },
		{ "jobs", required_argument, NULL, 'j' },
		{ "help", no_argument, NULL, 'h' },
		{ NULL, 0, NULL, 0 },
	};
	const char *cu = NULL, *offset = NULL;
	bool stats = false, skip_only = false;
	unsigned jobs = pool_ncpus();
	struct dwarf_input in;
	struct diag d;
	double t0;
	int c, err, status;

	optind = 1;
	opterr = 0;
	while ((c = getopt_long(argc, argv, "j:h", opts, NULL)) != -1) {
		switch (c) {
		case 'c': cu = optarg; break;
		case 'o': offset = optarg; break;
		case 's': stats = true; break;
		case 'k': skip_only = true; break;
		case 'j':
			if (!(jobs = cli_jobs(optarg)))
				return cli_usage("dwarf", "bad thread count '%s'", optarg);
			break;
		case 'h': fputs(usage_text, stdout); return EXIT_OK;
		default: return cli_bad_option("dwarf", argv, "j:h");
		}
	}
	if (optind + 1 != argc)
		return cli_usage("dwarf", optind == argc ? "no input file" : "one FILE only");
	if (cli_is_stdio(argv[optind]))
		return cli_usage("dwarf", "'-': an ELF is read from a path, not standard input");
	diag_clear(&d);
	t0 = clock_now();
	if ((err = dwarf_input_open(&in, argv[optind], jobs, &d))) {
		cli_report(&d, err);
		return EXIT_ERR;
	}
	if (stats)
		status = print_stats(&in, jobs, skip_only, t0);
	else
		status = print_units(&in, cu, offset);
	if (dw_file_index_error(in.dw)) {
		cli_report(dw_file_index_error(in.dw), EINVAL);
		status = EXIT_ERR;
	}
	dwarf_input_close(&in);
	return status;
}

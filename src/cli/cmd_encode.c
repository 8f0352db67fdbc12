// SPDX-License-Identifier: GPL-2.0-only
/* btfc encode: DWARF -> BTF for a kernel image or module. */
#include <getopt.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "base/file.h"
#include "base/mem.h"
#include "base/pool.h"
#include "cli/cli.h"
#include "encode/encode.h"

static const char usage_text[] =
	"usage: btfc encode [OPTIONS] FILE\n"
	"  Encode FILE's DWARF as BTF (split BTF on --base).\n"
	"  -o, --output OUT       write raw BTF to OUT (default: FILE's .BTF section,\n"
	"                         replaced or added in place through a temp file)\n"
	"  --base B               base BTF (ELF with .BTF, raw BTF, /sys/kernel/btf/vmlinux)\n"
	"  --compat 1.24|modern   function selection of pahole 1.24 (default) or 1.31\n"
	"  --no-floats            floats as INT (pahole without --btf_gen_floats)\n"
	"  --no-enum64            8-byte enums as ENUM, values truncated\n"
	"  --no-vars              no per-CPU VARs / DATASEC\n"
	"  --lang-exclude LIST    skip units in these languages (default: rust)\n"
	"  --force                skip invalid variables instead of failing\n"
	"  --no-dedup             write the merged BTF without deduplication\n"
	"  -j N, --jobs N         threads (default: all CPUs); output is the same for any N\n"
	"  --stats                print per-phase times and counts to stderr\n"
	"  -v, --verbose          notes about what was dropped or degraded, and why\n";

static void log_line(void *ctx, const char *line)
{
	(void)ctx;
	fprintf(stderr, "%s\n", line);
}

static const struct {
	const char *name;
	uint32_t code;
} langs[] = {
	{ "c89", DW_LANG_C89 }, { "c", DW_LANG_C }, { "c99", DW_LANG_C99 }, { "c11", DW_LANG_C11 },
	{ "rust", DW_LANG_Rust }, { "asm", DW_LANG_Mips_Assembler },
	{ "c++", 0x4 }, { "c++03", 0x19 }, { "c++11", 0x1a }, { "c++14", 0x21 },
	{ "go", 0x16 }, { "ada83", 0x3 }, { "fortran77", 0x7 }, { "c17", 0x2c },
};

static int parse_langs(const char *list, uint32_t *out, size_t max)
{
	char buf[256], *tok, *save = NULL;
	size_t n = 0, i;

	snprintf(buf, sizeof(buf), "%s", list);
	for (tok = strtok_r(buf, ",", &save); tok; tok = strtok_r(NULL, ",", &save)) {
		for (i = 0; i < sizeof(langs) / sizeof(langs[0]); i++)
			if (!strcmp(tok, langs[i].name))
				break;
		if (i == sizeof(langs) / sizeof(langs[0]))
			return -1;
		if (n + 1 >= max)
			return -1;
		out[n++] = langs[i].code;
		if (langs[i].code == DW_LANG_Mips_Assembler)
			continue;
	}
	out[n] = 0;
	return 0;
}

static int load_base(const char *path, struct btf **base, struct diag *d)
{
	void *data;
	size_t len;
	int err;

	if ((err = cli_btf_blob(path, &data, &len, d)))
		return err;
	err = btf_parse(data, len, NULL, base, d);
	mem_free(data);
	return err;
}

int cmd_encode(int argc, char **argv)
{
	enum { O_BASE = 256, O_COMPAT, O_NOFLOATS, O_NOENUM64, O_NOVARS, O_LANGX, O_FORCE,
	       O_NODEDUP, O_STATS };
	static const struct option opts[] = {
		{ "output", required_argument, NULL, 'o' },
		{ "base", required_argument, NULL, O_BASE },
		{ "compat", required_argument, NULL, O_COMPAT },
		{ "no-floats", no_argument, NULL, O_NOFLOATS },
		{ "no-enum64", no_argument, NULL, O_NOENUM64 },
		{ "no-vars", no_argument, NULL, O_NOVARS },
		{ "lang-exclude", required_argument, NULL, O_LANGX },
		{ "force", no_argument, NULL, O_FORCE },
		{ "no-dedup", no_argument, NULL, O_NODEDUP },
		{ "jobs", required_argument, NULL, 'j' },
		{ "stats", no_argument, NULL, O_STATS },
		{ "verbose", no_argument, NULL, 'v' },
		{ "help", no_argument, NULL, 'h' },
		{ NULL, 0, NULL, 0 },
	};
	static uint32_t lang_ex[16] = { DW_LANG_Rust, 0 };
	const char *output = NULL, *base_path = NULL;
	struct dwarf_input in;
	struct enc_opts o;
	struct enc_stats st;
	struct btf *base = NULL, *btf = NULL;
	struct diag d;
	bool stats = false;
	void *raw = NULL;
	size_t raw_len;
	int c, err;

	enc_opts_default(&o);
	o.floats = true;
	o.jobs = pool_ncpus();
	o.lang_exclude = lang_ex;
	o.log = log_line;
	optind = 1;
	while ((c = getopt_long(argc, argv, "o:j:vh", opts, NULL)) != -1) {
		switch (c) {
		case 'o': output = optarg; break;
		case O_BASE: base_path = optarg; break;
		case O_COMPAT:
			if (!strcmp(optarg, "1.24"))
				o.compat = ENC_COMPAT_124;
			else if (!strcmp(optarg, "modern"))
				o.compat = ENC_MODERN;
			else
				return cli_fail("encode: --compat takes 1.24 or modern, not '%s'", optarg);
			break;
		case O_NOFLOATS: o.floats = false; break;
		case O_NOENUM64: o.enum64 = false; break;
		case O_NOVARS: o.vars = false; break;
		case O_LANGX:
			if (parse_langs(optarg, lang_ex, sizeof(lang_ex) / sizeof(lang_ex[0])))
				return cli_fail("encode: unknown language in '%s'", optarg);
			break;
		case O_FORCE: o.force = true; break;
		case O_NODEDUP: o.no_dedup = true; break;
		case O_STATS: stats = true; break;
		case 'j':
			if (!(o.jobs = cli_jobs(optarg)))
				return cli_fail("encode: bad thread count '%s'", optarg);
			break;
		case 'v': o.verbose++; break;
		case 'h': fputs(usage_text, stdout); return EXIT_OK;
		default: fputs(usage_text, stderr); return EXIT_ERR;
		}
	}
	if (optind + 1 != argc) {
		fputs(usage_text, stderr);
		return EXIT_ERR;
	}
	diag_clear(&d);
	if (base_path && (err = load_base(base_path, &base, &d))) {
		cli_report(&d, err);
		return EXIT_ERR;
	}
	if ((err = dwarf_input_open(&in, argv[optind], &d))) {
		cli_report(&d, err);
		btf_free(base);
		return EXIT_ERR;
	}
	err = btf_encode(&in, base, &o, &btf, &st, &d);
	if (!err)
		err = btf_write(btf, &raw, &raw_len, &d);
	if (!err && output) {
		err = file_write_atomic(output, raw, raw_len, &d);
	} else if (!err) {
		static const char *const names[] = { ".BTF" };
		const void *datas[] = { raw };

		err = belf_write_sections(in.elf, argv[optind], 1, names, datas, &raw_len, &d);
	}
	if (err)
		cli_report(&d, err);
	else if (stats)
		fprintf(stderr,
			"units %llu (%llu skipped), types before dedup %llu, after %u, funcs %llu, vars %llu\n"
			"time: open %.3f s, convert %.3f s, merge %.3f s, dedup %.3f s\n",
			(unsigned long long)st.units, (unsigned long long)st.units_skipped,
			(unsigned long long)st.types_pre_dedup,
			btf_type_count(btf) - btf_start_id(btf), (unsigned long long)st.funcs,
			(unsigned long long)st.vars, st.open, st.convert, st.merge, st.dedup);
	mem_free(raw);
	btf_free(btf);
	dwarf_input_close(&in);
	btf_free(base);
	return err ? EXIT_ERR : EXIT_OK;
}

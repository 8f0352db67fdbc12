// SPDX-License-Identifier: GPL-2.0-only
/*
 * The pahole-compatible front end.  btfc run as `pahole` (the basename of
 * argv[0], e.g. the libexec/btfc/pahole link `make install` makes) or as
 * `btfc pahole` takes pahole's command line:
 *
 *   - encoding (-J, --btf_encode_detached=F, --btf_base[=]F, -j[N],
 *     --jobs[=N], --btf_features[_strict]=..., every legacy encoding flag,
 *     --lang_exclude / $PAHOLE_LANG_EXCLUDE) runs the encoder;
 *   - --version / --numeric_version / --supported_btf_features answer
 *     what the kernel build and scripts ask;
 *   - everything else is pahole's struct view and goes to `btfc layout`,
 *     whose long option names are pahole's.
 *
 * Option semantics follow pahole 1.31 (its man page and pahole.c):
 * -j's count must be attached (-j8, --jobs=8; a bare -j means all
 * CPUs), the first --btf_features* resets every feature knob and later
 * ones only add, legacy flags act on the same knobs in argv order, unknown
 * feature names are ignored (listed under -V) unless strict.
 */
#include <errno.h>
#include <getopt.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

#include "base/mem.h"
#include "base/pool.h"
#include "btf/btf.h"
#include "btf/dedup.h"
#include "cli/base_cache.h"
#include "cli/cli.h"
#include "cli/pahole.h"
#include "dwarf/consts.h"
#include "encode/encode.h"

/* ---- features ---- */

enum feat_support {
	FS_YES,		/* the encoder does it */
	FS_PARTIAL,	/* mapped onto what the encoder has; see note */
	FS_NOOP,	/* nothing to do in btfc */
	FS_NO,		/* accepted, not implemented: the output lacks it */
};

static const struct {
	const char *name;
	bool initial;		/* value without any --btf_features */
	bool in_default;	/* part of "default" / "+..." */
	enum feat_support support;
	const char *note;	/* -V note when requested but not fully honoured */
} features[PF__NR] = {
	[PF_ENCODE_FORCE] = { "encode_force", false, true, FS_YES, NULL },
	[PF_VAR] = { "var", true, true, FS_YES, NULL },
	[PF_FLOAT] = { "float", false, true, FS_YES, NULL },
	[PF_DECL_TAG] = { "decl_tag", true, true, FS_YES, NULL },
	[PF_TYPE_TAG] = { "type_tag", true, true, FS_YES, NULL },
	[PF_ENUM64] = { "enum64", true, true, FS_YES, NULL },
	[PF_OPTIMIZED_FUNC] = { "optimized_func", false, true, FS_YES, NULL },
	[PF_CONSISTENT_FUNC] = { "consistent_func", false, true, FS_YES, NULL },
	[PF_DECL_TAG_KFUNCS] = { "decl_tag_kfuncs", false, true, FS_YES,
		"decl_tag_kfuncs: needs decl_tag; no kfunc tags without it (as pahole)" },
	[PF_REPRODUCIBLE_BUILD] = { "reproducible_build", false, false, FS_NOOP,
		"reproducible_build: btfc output never depends on -j" },
	[PF_DISTILLED_BASE] = { "distilled_base", false, false, FS_YES, NULL },
	[PF_GLOBAL_VAR] = { "global_var", false, false, FS_YES, NULL },
	[PF_ATTRIBUTES] = { "attributes", false, false, FS_YES, NULL },
};

/* Features pahole 1.24 does not have: under a 1.24 claim they are noted and ignored. */
static bool feature_after_124(int f)
{
	return f == PF_OPTIMIZED_FUNC || f == PF_CONSISTENT_FUNC || f == PF_DECL_TAG_KFUNCS ||
	       f == PF_REPRODUCIBLE_BUILD || f == PF_DISTILLED_BASE || f == PF_GLOBAL_VAR ||
	       f == PF_ATTRIBUTES;
}

unsigned pahole_claim(const char *env, char *err, size_t err_len)
{
	const char *v = env;

	if (!v || !*v)
		return PAHOLE_CLAIM_DEFAULT;
	if (*v == 'v')
		v++;
	if (!strcmp(v, "1.24") || !strcmp(v, "124"))
		return 24;
	if (!strcmp(v, "1.30") || !strcmp(v, "130"))
		return 30;
	if (!strcmp(v, "1.31") || !strcmp(v, "131"))
		return 31;
	snprintf(err, err_len, "BTFC_PAHOLE_VERSION=%s: btfc behaves as pahole 1.24, 1.30 or 1.31",
		 env);
	return 0;
}

const char *pahole_feature_name(enum pahole_feature f)
{
	return (unsigned)f < PF__NR ? features[f].name : NULL;
}

static int find_feature(const char *name)
{
	for (int i = 0; i < PF__NR; i++)
		if (!strcmp(name, features[i].name))
			return i;
	return -1;
}

static void print_supported(FILE *f)
{
	for (int i = 0; i < PF__NR; i++)
		fprintf(f, "%s%s", i ? "," : "", features[i].name);
	fputc('\n', f);
}

static int perr(struct pahole_opts *po, const char *fmt, ...) PRINTF_LIKE(2, 3);
static int perr(struct pahole_opts *po, const char *fmt, ...)
{
	va_list ap;

	va_start(ap, fmt);
	vsnprintf(po->err, sizeof(po->err), fmt, ap);
	va_end(ap);
	return -1;
}

static int push(char ***v, size_t *n, size_t *cap, const char *s)
{
	char *c;

	if (VEC_RESERVE(*v, *cap, *n + 2) || !(c = mem_strdup(s)))
		return -1;
	(*v)[(*n)++] = c;
	(*v)[*n] = NULL;
	return 0;
}

static void set_default_set(struct pahole_opts *po)
{
	for (int i = 0; i < PF__NR; i++)
		if (features[i].in_default)
			po->feat[i] = true;
}

/*
 * pahole's parse_btf_features: the first call resets every knob to off;
 * "default" (alone, in the list, or as a leading '+') enables the default
 * set; known names are enabled; unknown ones are ignored, or fatal if
 * strict.
 */
static int parse_features(struct pahole_opts *po, const char *list, bool strict)
{
	char buf[1024], *tok, *save = NULL, *s;

	if (!po->features_reset) {
		memset(po->feat, 0, sizeof(po->feat));
		po->features_reset = true;
	}
	if (strlen(list) >= sizeof(buf))
		return perr(po, "--btf_features list too long");
	strcpy(buf, list);
	s = buf;
	if (*s == '+') {
		set_default_set(po);
		s++;
	}
	for (tok = strtok_r(s, ",", &save); tok; tok = strtok_r(NULL, ",", &save)) {
		int f = find_feature(tok);

		if (f >= 0) {
			po->feat[f] = true;
		} else if (!strcmp(tok, "default")) {
			set_default_set(po);
		} else if (strict) {
			return perr(po, "Feature '%s' in '%s' is not supported.  Supported BTF features are:",
				    tok, list);
		} else if (push(&po->ignored, &po->nignored, &po->ignored_cap, tok)) {
			return perr(po, "out of memory");
		}
	}
	return 0;
}

/* ---- the option table ---- */

enum opt_kind {
	K_ENC,		/* handled here */
	K_LAYOUT,	/* passed to btfc layout as --NAME[=ARG] */
	K_IGNORE,	/* accepted, no effect in btfc */
	K_UNSUPP,	/* pahole has it, btfc does not (yet) */
};

enum {
	O_DETACHED = 256, O_BASE, O_FEATURES, O_FEATURES_STRICT, O_SUPPORTED, O_GEN_FLOATS,
	O_GEN_ALL, O_GEN_OPTIMIZED, O_FORCE, O_SKIP_VARS, O_SKIP_ENUM64, O_SKIP_DECL_TAG,
	O_SKIP_TYPE_TAG, O_SKIP_INCONSISTENT, O_REPRODUCIBLE, O_ATTRIBUTES, O_LANG_EXCLUDE,
	O_VERSION, O_NUMERIC_VERSION, O_HELP,
	/* layout pass-through */
	O_HEX, O_STRUCTS, O_UNIONS, O_PACKED, O_FLEX, O_COMPILE, O_SKIP_MISSING, O_SUP_ALIGNED,
	O_SUP_PACKED, O_SUP_FORCE_PAD,
	/* ignored */
	O_FIRST_OBJ, O_CLASSES_AS_STRUCTS, O_FIXUP_BITFIELDS, O_HASHBITS, O_PTR_STATS,
	/* not supported */
	O_FLAT_ARRAYS, O_PRIVATE_CLASSES, O_COUNT, O_SKIP, O_SEEK, O_SIZE_BYTES, O_RANGE,
	O_HEADER, O_PRETTIFY, O_SORT, O_KABI, O_LANG, O_INNER_ANON, O_RUNNING_KERNEL,
	O_PADDING_GE, O_PADDING, O_EMBEDDED_FLEX, O_CONTAINS_ENUM,
};

static const struct popt {
	const char *name;	/* long name (pahole's; NULL: short only) */
	int has_arg;
	int val;
	enum opt_kind kind;
} popts[] = {
	/* encoding */
	{ "btf_encode", no_argument, 'J', K_ENC },
	{ "btf_encode_detached", required_argument, O_DETACHED, K_ENC },
	{ "btf_base", required_argument, O_BASE, K_ENC },
	{ "jobs", optional_argument, 'j', K_ENC },
	{ "btf_features", required_argument, O_FEATURES, K_ENC },
	{ "btf_features_strict", required_argument, O_FEATURES_STRICT, K_ENC },
	{ "supported_btf_features", no_argument, O_SUPPORTED, K_ENC },
	{ "btf_gen_floats", no_argument, O_GEN_FLOATS, K_ENC },
	{ "btf_gen_all", no_argument, O_GEN_ALL, K_ENC },
	{ "btf_gen_optimized", no_argument, O_GEN_OPTIMIZED, K_ENC },
	{ "btf_encode_force", no_argument, O_FORCE, K_ENC },
	{ "skip_encoding_btf_vars", no_argument, O_SKIP_VARS, K_ENC },
	{ "skip_encoding_btf_enum64", no_argument, O_SKIP_ENUM64, K_ENC },
	{ "skip_encoding_btf_decl_tag", no_argument, O_SKIP_DECL_TAG, K_ENC },
	{ "skip_encoding_btf_type_tag", no_argument, O_SKIP_TYPE_TAG, K_ENC },
	{ "skip_encoding_btf_inconsistent_proto", no_argument, O_SKIP_INCONSISTENT, K_ENC },
	{ "reproducible_build", no_argument, O_REPRODUCIBLE, K_ENC },
	{ "btf_attributes", no_argument, O_ATTRIBUTES, K_ENC },
	{ "lang_exclude", required_argument, O_LANG_EXCLUDE, K_ENC },
	{ "verbose", no_argument, 'V', K_ENC },
	{ "version", no_argument, O_VERSION, K_ENC },
	{ "numeric_version", no_argument, O_NUMERIC_VERSION, K_ENC },
	{ "help", no_argument, O_HELP, K_ENC },
	{ "usage", no_argument, O_HELP, K_ENC },
	/* the struct view: btfc layout has the same long names */
	{ "class_name", required_argument, 'C', K_LAYOUT },
	{ "expand_types", no_argument, 'E', K_LAYOUT },
	{ "hex", no_argument, O_HEX, K_LAYOUT },
	{ "rel_offset", no_argument, 'r', K_LAYOUT },
	{ "cacheline_size", required_argument, 'c', K_LAYOUT },
	{ "quiet", no_argument, 'q', K_LAYOUT },
	{ "sizes", no_argument, 's', K_LAYOUT },
	{ "nr_members", no_argument, 'n', K_LAYOUT },
	{ "class_name_len", no_argument, 'N', K_LAYOUT },
	{ "separator", required_argument, 't', K_LAYOUT },
	{ "holes", required_argument, 'H', K_LAYOUT },
	{ "bit_holes", required_argument, 'B', K_LAYOUT },
	{ "hole_size_ge", required_argument, 'z', K_LAYOUT },
	{ "contains", required_argument, 'i', K_LAYOUT },
	{ "find_pointers_to", required_argument, 'f', K_LAYOUT },
	{ "prefix_filter", required_argument, 'y', K_LAYOUT },
	{ "exclude", required_argument, 'x', K_LAYOUT },
	{ "cu_exclude", required_argument, 'X', K_LAYOUT },
	{ "structs", no_argument, O_STRUCTS, K_LAYOUT },
	{ "unions", no_argument, O_UNIONS, K_LAYOUT },
	{ "packed", no_argument, O_PACKED, K_LAYOUT },
	{ "with_flexible_array", no_argument, O_FLEX, K_LAYOUT },
	{ "with_embedded_flexible_array", no_argument, O_EMBEDDED_FLEX, K_LAYOUT },
	{ "reorganize", no_argument, 'R', K_LAYOUT },
	{ "show_reorg_steps", no_argument, 'S', K_LAYOUT },
	{ "packable", no_argument, 'P', K_LAYOUT },
	{ "compile", no_argument, O_COMPILE, K_LAYOUT },
	{ "skip_missing", no_argument, O_SKIP_MISSING, K_LAYOUT },
	{ "suppress_aligned_attribute", no_argument, O_SUP_ALIGNED, K_LAYOUT },
	{ "suppress_packed", no_argument, O_SUP_PACKED, K_LAYOUT },
	{ "suppress_force_paddings", no_argument, O_SUP_FORCE_PAD, K_LAYOUT },
	{ "format_path", required_argument, 'F', K_LAYOUT },
	/* no effect on BTF-based output or on btfc's encoder */
	{ "first_obj_only", no_argument, O_FIRST_OBJ, K_IGNORE },
	{ "classes_as_structs", no_argument, O_CLASSES_AS_STRUCTS, K_IGNORE },
	{ "fixup_silly_bitfields", no_argument, O_FIXUP_BITFIELDS, K_IGNORE },
	{ "hashbits", required_argument, O_HASHBITS, K_IGNORE },
	{ "ptr_table_stats", no_argument, O_PTR_STATS, K_IGNORE },
	/* pahole options btfc does not have */
	{ "anon_include", no_argument, 'a', K_UNSUPP },
	{ "nested_anon_include", no_argument, 'A', K_UNSUPP },
	{ "recursive", no_argument, 'd', K_UNSUPP },
	{ "decl_exclude", required_argument, 'D', K_UNSUPP },
	{ "show_decl_info", no_argument, 'I', K_UNSUPP },
	{ "show_first_biggest_size_base_type_member", no_argument, 'l', K_UNSUPP },
	{ "nr_methods", no_argument, 'm', K_UNSUPP },
	{ "show_only_data_members", no_argument, 'M', K_UNSUPP },
	{ "expand_pointers", no_argument, 'p', K_UNSUPP },
	{ "nr_definitions", no_argument, 'T', K_UNSUPP },
	{ "defined_in", no_argument, 'u', K_UNSUPP },
	{ "word_size", required_argument, 'w', K_UNSUPP },
	{ "ctf_encode", no_argument, 'Z', K_UNSUPP },
	{ "flat_arrays", no_argument, O_FLAT_ARRAYS, K_UNSUPP },
	{ "show_private_classes", no_argument, O_PRIVATE_CLASSES, K_UNSUPP },
	{ "count", required_argument, O_COUNT, K_UNSUPP },
	{ "skip", required_argument, O_SKIP, K_UNSUPP },
	{ "seek_bytes", required_argument, O_SEEK, K_UNSUPP },
	{ "size_bytes", required_argument, O_SIZE_BYTES, K_UNSUPP },
	{ "range", required_argument, O_RANGE, K_UNSUPP },
	{ "header_type", required_argument, O_HEADER, K_UNSUPP },
	{ "header", required_argument, O_HEADER, K_UNSUPP },
	{ "prettify", required_argument, O_PRETTIFY, K_UNSUPP },
	{ "sort", no_argument, O_SORT, K_UNSUPP },
	{ "kabi_prefix", required_argument, O_KABI, K_UNSUPP },
	{ "lang", required_argument, O_LANG, K_UNSUPP },
	{ "inner_anon", no_argument, O_INNER_ANON, K_UNSUPP },
	{ "running_kernel_vmlinux", no_argument, O_RUNNING_KERNEL, K_UNSUPP },
	{ "padding_ge", required_argument, O_PADDING_GE, K_UNSUPP },
	{ "padding", required_argument, O_PADDING, K_UNSUPP },
	{ "contains_enumerator", required_argument, O_CONTAINS_ENUM, K_UNSUPP },
};

#define NPOPTS (sizeof(popts) / sizeof(popts[0]))

static const char short_opts[] = "Jj::VC:Ehrc:qsnNt:H:B:z:i:f:y:x:X:RSPF:aAdD:IlmMpTuw:Z";

static const struct popt *popt_by_val(int val)
{
	for (size_t i = 0; i < NPOPTS; i++)
		if (popts[i].val == val)
			return &popts[i];
	return NULL;
}

/* pahole's language names (dwarves.c lang__str2int); "asm" is special there too. */
static const struct {
	const char *name;
	uint32_t code;
} langs[] = {
	{ "c89", 0x01 }, { "c", 0x02 }, { "ada83", 0x03 }, { "c++", 0x04 }, { "cobol74", 0x05 },
	{ "cobol85", 0x06 }, { "fortran77", 0x07 }, { "fortran90", 0x08 }, { "pascal83", 0x09 },
	{ "modula2", 0x0a }, { "java", 0x0b }, { "c99", 0x0c }, { "ada95", 0x0d },
	{ "fortran95", 0x0e }, { "pli", 0x0f }, { "objc", 0x10 }, { "objc++", 0x11 },
	{ "upc", 0x12 }, { "d", 0x13 }, { "python", 0x14 }, { "opencl", 0x15 }, { "go", 0x16 },
	{ "modula3", 0x17 }, { "haskell", 0x18 }, { "c++03", 0x19 }, { "c++11", 0x1a },
	{ "ocaml", 0x1b }, { "rust", DW_LANG_Rust }, { "c11", 0x1d }, { "swift", 0x1e },
	{ "julia", 0x1f }, { "dylan", 0x20 }, { "c++14", 0x21 }, { "fortran03", 0x22 },
	{ "fortran08", 0x23 }, { "renderscript", 0x24 }, { "bliss", 0x25 }, { "kotlin", 0x26 },
	{ "zig", 0x27 }, { "crystal", 0x28 }, { "c++17", 0x2a }, { "c++20", 0x2b },
	{ "c17", 0x2c }, { "fortran18", 0x2d }, { "ada2005", 0x2e }, { "ada2012", 0x2f },
	{ "asm", DW_LANG_Mips_Assembler },
};

static int parse_langs(struct pahole_opts *po, const char *list, uint32_t *out, size_t max)
{
	char buf[512], *tok, *save = NULL;
	size_t n = 0, i;

	if (strlen(list) >= sizeof(buf))
		return perr(po, "language list too long");
	strcpy(buf, list);
	for (tok = strtok_r(buf, ",", &save); tok; tok = strtok_r(NULL, ",", &save)) {
		for (i = 0; i < sizeof(langs) / sizeof(langs[0]); i++)
			if (!strcmp(tok, langs[i].name))
				break;
		if (i == sizeof(langs) / sizeof(langs[0]))
			return perr(po, "unknown language \"%s\"", tok);
		if (n + 1 >= max)
			return perr(po, "too many languages in \"%s\"", list);
		out[n++] = langs[i].code;
	}
	out[n] = 0;
	return 0;
}

static int parse_jobs(struct pahole_opts *po, const char *arg, unsigned ncpus)
{
	char *end;
	unsigned long n;

	if (!arg) {		/* bare -j / --jobs: all CPUs */
		po->jobs = ncpus ? ncpus : 1;
		return 0;
	}
	if (!*arg) {		/* --jobs= : pahole's atoi("") = 0 = one thread */
		po->jobs = 1;
		return 0;
	}
	errno = 0;
	n = strtoul(arg, &end, 10);
	if (*end || errno || n > 4096)
		return perr(po, "invalid number of jobs '%s'", arg);
	po->jobs = n ? (unsigned)n : 1;	/* pahole: -j0 = one thread */
	return 0;
}

/* -F LIST: btfc layout takes one format; pahole tries them in order. */
static const char *first_format(const char *list, char *buf, size_t len)
{
	size_t n = strcspn(list, ",");

	snprintf(buf, len, "%.*s", (int)n, list);
	return buf;
}

int pahole_parse(int argc, char **argv, const char *env_lang, unsigned ncpus, unsigned claim,
		 struct pahole_opts *po)
{
	struct option lopts[NPOPTS + 1];
	bool version = false, numeric = false, supported = false, help = false;
	int c, idx;

	memset(po, 0, sizeof(*po));
	po->claim = claim;
	for (int i = 0; i < PF__NR; i++)
		po->feat[i] = features[i].initial;
	for (size_t i = 0; i < NPOPTS; i++)
		lopts[i] = (struct option){ popts[i].name, popts[i].has_arg, NULL, popts[i].val };
	memset(&lopts[NPOPTS], 0, sizeof(lopts[0]));
	if (push(&po->layout_argv, &po->layout_argc, &po->layout_cap, "layout"))
		return perr(po, "out of memory");

	optind = 0;		/* full reinitialisation (GNU) */
	opterr = 0;
	while ((c = getopt_long(argc, argv, short_opts, lopts, &idx)) != -1) {
		const struct popt *p;
		char arg[4096], fmt[32];

		switch (c) {
		case 'J': po->encode = true; continue;
		case O_DETACHED: po->encode = true; po->detached = optarg; continue;
		case O_BASE: po->btf_base = optarg; continue;
		case 'j':
			if (parse_jobs(po, optarg, ncpus))
				return -1;
			continue;
		case O_FEATURES:
		case O_FEATURES_STRICT:
			if (parse_features(po, optarg, c == O_FEATURES_STRICT))
				return -1;
			continue;
		case O_SUPPORTED: supported = true; continue;
		case O_GEN_FLOATS: po->feat[PF_FLOAT] = true; continue;
		case O_GEN_ALL:
			/*
			 * 1.21-1.26: all features of the time beyond the defaults =
			 * floats.  1.27+ passes "all" to the --btf_features parser,
			 * which no longer knows it: every knob off, none on.
			 */
			if (po->claim == 24)
				po->feat[PF_FLOAT] = true;
			else if (parse_features(po, "all", false))
				return -1;
			continue;
		case O_GEN_OPTIMIZED: po->feat[PF_OPTIMIZED_FUNC] = true; continue;
		case O_FORCE: po->feat[PF_ENCODE_FORCE] = true; continue;
		case O_SKIP_VARS: po->feat[PF_VAR] = false; continue;
		case O_SKIP_ENUM64: po->feat[PF_ENUM64] = false; continue;
		case O_SKIP_DECL_TAG: po->feat[PF_DECL_TAG] = false; continue;
		case O_SKIP_TYPE_TAG: po->feat[PF_TYPE_TAG] = false; continue;
		case O_SKIP_INCONSISTENT: po->feat[PF_CONSISTENT_FUNC] = true; continue;
		case O_REPRODUCIBLE: po->feat[PF_REPRODUCIBLE_BUILD] = true; continue;
		case O_ATTRIBUTES: po->feat[PF_ATTRIBUTES] = true; continue;
		case O_LANG_EXCLUDE: po->lang_exclude = optarg; continue;
		case 'V': po->verbose++; continue;
		case O_VERSION: version = true; continue;
		case O_NUMERIC_VERSION: numeric = true; continue;
		case O_HELP: help = true; continue;
		case '?':
			if (optopt == 'j')	/* cannot happen: -j's argument is optional */
				return perr(po, "bad -j");
			if (optopt && optopt < 256 && strchr(short_opts, optopt))
				return perr(po, "option '-%c' requires an argument", optopt);
			if (optopt && popt_by_val(optopt))
				return perr(po, "option '--%s' requires an argument",
					    popt_by_val(optopt)->name);
			return perr(po, "unrecognized option '%s'", argv[optind - 1]);
		default:
			break;
		}
		p = popt_by_val(c);
		if (!p)
			return perr(po, "unrecognized option '%s'", argv[optind - 1]);
		if (p->kind == K_IGNORE)
			continue;
		if (p->kind == K_UNSUPP) {
			if (p->val < 256)
				return perr(po, "option '-%c' (--%s) is not supported by btfc", p->val,
					    p->name);
			return perr(po, "option '--%s' is not supported by btfc", p->name);
		}
		/* K_LAYOUT: hand over as --NAME[=ARG] */
		if (p->has_arg)
			snprintf(arg, sizeof(arg), "--%s=%s", p->name,
				 c == 'F' ? first_format(optarg, fmt, sizeof(fmt)) : optarg);
		else
			snprintf(arg, sizeof(arg), "--%s", p->name);
		if (push(&po->layout_argv, &po->layout_argc, &po->layout_cap, arg))
			return perr(po, "out of memory");
	}
	for (int i = optind; i < argc; i++)
		if (push(&po->files, &po->nfiles, &po->files_cap, argv[i]))
			return perr(po, "out of memory");
	if (!po->lang_exclude && env_lang && *env_lang)
		po->lang_exclude = env_lang;
	if (help)
		po->mode = PH_HELP;
	else if (version)
		po->mode = PH_VERSION;
	else if (numeric)
		po->mode = PH_NUMERIC_VERSION;
	else if (supported)
		po->mode = PH_SUPPORTED;
	else if (po->encode)
		po->mode = PH_ENCODE;
	else
		po->mode = PH_LAYOUT;
	return 0;
}

static void free_vec(char **v, size_t n)
{
	for (size_t i = 0; i < n; i++)
		mem_free(v[i]);
	mem_free(v);
}

void pahole_opts_free(struct pahole_opts *po)
{
	free_vec(po->ignored, po->nignored);
	free_vec(po->layout_argv, po->layout_argc);
	free_vec(po->files, po->nfiles);
	po->ignored = po->layout_argv = po->files = NULL;
	po->nignored = po->layout_argc = po->nfiles = 0;
}

static void note_add(char *notes, size_t len, const char *fmt, ...) PRINTF_LIKE(3, 4);
static void note_add(char *notes, size_t len, const char *fmt, ...)
{
	size_t used;
	va_list ap;

	if (!notes || !len)
		return;
	used = strlen(notes);
	if (used + 1 >= len)
		return;
	va_start(ap, fmt);
	vsnprintf(notes + used, len - used, fmt, ap);
	va_end(ap);
	used = strlen(notes);
	if (used + 1 < len) {
		notes[used] = '\n';
		notes[used + 1] = 0;
	}
}

int pahole_enc_opts(struct pahole_opts *po, struct enc_opts *o, uint32_t *langs_out, size_t n,
		    char *notes, size_t notes_len)
{
	const bool *f = po->feat;

	if (notes && notes_len)
		notes[0] = 0;
	enc_opts_default(o);
	o->force = f[PF_ENCODE_FORCE];
	o->vars = f[PF_VAR];
	o->floats = f[PF_FLOAT];
	o->decl_tags = f[PF_DECL_TAG];
	o->type_tags = f[PF_TYPE_TAG];
	o->enum64 = f[PF_ENUM64];
	/* pahole tags kfuncs only when decl tags are on (policy_kfunc_tags) */
	o->decl_tag_kfuncs = f[PF_DECL_TAG_KFUNCS];
	o->compat = po->claim == 24 ? ENC_COMPAT_124 : po->claim == 30 ? ENC_COMPAT_130
								      : ENC_COMPAT_131;
	if (po->claim != 24) {
		o->consistent_func = f[PF_CONSISTENT_FUNC];
		o->optimized_func = f[PF_OPTIMIZED_FUNC];
		o->global_vars = f[PF_GLOBAL_VAR];
		o->attributes = f[PF_ATTRIBUTES];
	} else {
		o->decl_tag_kfuncs = false;
	}
	o->jobs = po->jobs ? po->jobs : 1;
	o->verbose = po->verbose;
	/* pahole writes .BTF.base only into an ELF: ignored for detached output. */
	o->distilled_base = f[PF_DISTILLED_BASE] && !po->detached && po->claim != 24;
	if (o->distilled_base && !po->btf_base)
		return perr(po, "distilled_base needs --btf_base");
	if (f[PF_DISTILLED_BASE] && po->detached)
		note_add(notes, notes_len, "distilled_base: ignored with --btf_encode_detached (as pahole)");
	if (langs_out && n) {
		langs_out[0] = 0;
		if (po->lang_exclude && parse_langs(po, po->lang_exclude, langs_out, n))
			return -1;
		o->lang_exclude = langs_out;
	}
	if (f[PF_DECL_TAG_KFUNCS] && !f[PF_DECL_TAG])
		note_add(notes, notes_len, "%s", features[PF_DECL_TAG_KFUNCS].note);
	for (int i = 0; i < PF__NR; i++) {
		if (f[i] && po->claim == 24 && feature_after_124(i))
			note_add(notes, notes_len, "%s: not in pahole 1.24 (BTFC_PAHOLE_VERSION=1.24), ignored",
				 features[i].name);
		else if (f[i] && features[i].note && features[i].support != FS_YES)
			note_add(notes, notes_len, "%s", features[i].note);
	}
	for (size_t i = 0; i < po->nignored; i++)
		note_add(notes, notes_len, "Ignoring unsupported feature '%s'", po->ignored[i]);
	return 0;
}

/* ---- -V: function drops in pahole's wording ---- */

#define PAHOLE_SKIP " : skipping BTF encoding of function due to "

/* btfc reason spellings -> pahole's */
static const struct {
	const char *btfc, *pahole;
} reasons[] = {
	{ "unexpected register", "unexpected register used for parameter" },
	{ "uncertain location", "uncertain parameter location" },
	{ "inconsistent prototype", "multiple inconsistent function prototypes" },
	{ "optimized-out parameters", "optimized parameters" },
};

int pahole_format_note(const char *line, char *out, size_t len)
{
	static const char *const verbs[] = { "' skipped: ", "' dropped: ", "' not encoded: " };
	const char *name, *end = NULL, *reason = NULL;
	size_t i;

	/* already pahole's: "NAME : skipping ..." (1.31), "NAME (SYMBOL): skipping ..." (1.30) */
	if (strstr(line, PAHOLE_SKIP) || strstr(line, "): skipping BTF encoding of function due to ")) {
		snprintf(out, len, "%s", line);
		return 1;
	}
	/* "function 'NAME' skipped: REASON" (also "dropped", "not encoded") */
	if (strncmp(line, "function '", 10)) {
		snprintf(out, len, "%s", line);
		return 0;
	}
	name = line + 10;
	for (i = 0; i < sizeof(verbs) / sizeof(verbs[0]) && !end; i++) {
		const char *v = strstr(name, verbs[i]);

		if (v) {
			end = v;
			reason = v + strlen(verbs[i]);
		}
	}
	if (!end || end == name) {
		snprintf(out, len, "%s", line);
		return 0;
	}
	for (i = 0; i < sizeof(reasons) / sizeof(reasons[0]); i++)
		if (!strcmp(reason, reasons[i].btfc)) {
			reason = reasons[i].pahole;
			break;
		}
	snprintf(out, len, "%.*s" PAHOLE_SKIP "%s", (int)(end - name), name, reason);
	return 1;
}

/*
 * pahole prints function skips on stdout (its tests parse them there), in
 * its words; other notes go to stderr with the file's name (ctx).
 */
static void pahole_log(void *ctx, const char *line)
{
	char buf[1024];

	if (pahole_format_note(line, buf, sizeof(buf)))
		printf("%s\n", buf);
	else
		cli_note("%s: %s", (const char *)ctx, buf);
}

/* The subcommand for usage messages: "pahole" under btfc, none as pahole. */
static const char *pcmd(void)
{
	return strcmp(cli_prog(), "pahole") ? "pahole" : NULL;
}

/* ---- running ---- */

static const char usage_text[] =
	"usage: pahole [OPTIONS] [FILE | TYPE...]\n"
	"  btfc's pahole-compatible front end: pahole v1.31's command line and\n"
	"  behaviour ($BTFC_PAHOLE_VERSION=1.24 or 1.30: that version's).\n"
	"  Encoding:\n"
	"    -J, --btf_encode             encode FILE's DWARF as BTF into FILE's .BTF (in place)\n"
	"    --btf_encode_detached=OUT    write raw BTF to OUT instead\n"
	"    --btf_base[=]BASE            split BTF on BASE (module)\n"
	"    -j[N], --jobs[=N]            threads (bare: all CPUs; N must be attached)\n"
	"    --btf_features=LIST          encode_force,var,float,decl_tag,type_tag,enum64,...\n"
	"                                 (first use resets all; 'default'; '+' = default plus)\n"
	"    --btf_features_strict=LIST   same, unknown names are an error\n"
	"    --supported_btf_features     list the feature names\n"
	"    --btf_gen_floats, --btf_gen_all, --btf_gen_optimized, --btf_encode_force,\n"
	"    --skip_encoding_btf_{vars,enum64,decl_tag,type_tag,inconsistent_proto}\n"
	"    --lang_exclude=LANGS         skip units in these languages ($PAHOLE_LANG_EXCLUDE)\n"
	"    -V, --verbose                notes, and dropped functions in pahole's wording\n"
	"    --version, --numeric_version\n"
	"  Struct layouts (see 'btfc layout --help'): -C, -E, -r, -c, -q, -s, -n, -N, -t,\n"
	"  -H, -B, -z, -i, -f, -y, -x, -X, -R, -S, -P, -F, --hex, --structs, --unions,\n"
	"  --packed, --with_flexible_array, --with_embedded_flexible_array, --compile,\n"
	"  --skip_missing, --suppress_*.\n"
	"  Without FILE: /sys/kernel/btf/vmlinux ($PAHOLE_VMLINUX_BTF_FILENAME).\n"
	"  Exit status: 0 done, 2 error (a type not found, a failed encode).  See btfc-pahole(1).\n";

static int run_encode(struct pahole_opts *po)
{
	uint32_t langs_buf[64];
	struct enc_opts o;
	struct enc_stats st;
	struct btf *base = NULL;
	struct btf_dedup_base *pb = NULL;
	struct diag d;
	char notes[4096];
	int err;

	if (po->nfiles != 1)
		return cli_usage(pcmd(), "-J needs exactly one FILE (got %zu); "
				 "'btfc encode' encodes many on one base", po->nfiles);
	if (pahole_enc_opts(po, &o, langs_buf, sizeof(langs_buf) / sizeof(langs_buf[0]), notes,
			    sizeof(notes)))
		return cli_usage(pcmd(), "%s", po->err);
	if (cli_is_stdio(po->files[0]))
		return cli_usage(pcmd(), "'-': an ELF is read from a path, not standard input");
	if (po->verbose && notes[0]) {
		char *line = notes, *nl;

		for (; (nl = strchr(line, '\n')); line = nl + 1) {
			*nl = 0;
			cli_note("%s", line);
		}
	}
	o.log = pahole_log;
	o.log_ctx = po->files[0];
	diag_clear(&d);
	/* one module: the base and its dedup tables from the base cache, when it has them */
	if (po->btf_base && (err = base_cache_load(po->btf_base, &base, &pb, &d))) {
		cli_report(&d, err);
		return EXIT_ERR;
	}
	o.dedup_base = pb;
	err = btf_encode_file(po->files[0], po->detached, base, &o, &st, &d);
	btf_dedup_base_free(pb);
	btf_free(base);
	fflush(stdout);
	if (err) {
		cli_report(&d, err);
		return EXIT_ERR;
	}
	return EXIT_OK;
}

static bool is_file(const char *p)
{
	struct stat st;

	return stat(p, &st) == 0 && S_ISREG(st.st_mode);
}

static int run_layout(struct pahole_opts *po)
{
	const char *vmlinux = getenv("PAHOLE_VMLINUX_BTF_FILENAME");
	bool have_file = false;
	size_t i;

	/* the struct view of the pahole version claimed (btfc layout's default is 1.31's) */
	if (push(&po->layout_argv, &po->layout_argc, &po->layout_cap,
		 po->claim == 24 ? "--compat=1.24" : po->claim == 30 ? "--compat=1.30" : "--compat=1.31"))
		return cli_fail("out of memory");
	if (po->verbose && push(&po->layout_argv, &po->layout_argc, &po->layout_cap, "--verbose"))
		return cli_fail("out of memory");
	if (po->btf_base) {
		char arg[4096];

		snprintf(arg, sizeof(arg), "--base=%s", po->btf_base);
		if (push(&po->layout_argv, &po->layout_argc, &po->layout_cap, arg))
			return cli_fail("out of memory");
	}
	if (po->layout_argc > 1 || po->nfiles)
		if (push(&po->layout_argv, &po->layout_argc, &po->layout_cap, "--"))
			return cli_fail("out of memory");
	for (i = 0; i < po->nfiles; i++) {
		if (is_file(po->files[i]) || strchr(po->files[i], '/'))
			have_file = true;
		if (push(&po->layout_argv, &po->layout_argc, &po->layout_cap, po->files[i]))
			return cli_fail("out of memory");
	}
	if (!have_file && vmlinux && *vmlinux)
		if (push(&po->layout_argv, &po->layout_argc, &po->layout_cap, vmlinux))
			return cli_fail("out of memory");
	return cmd_layout((int)po->layout_argc, po->layout_argv);
}

int cmd_pahole(int argc, char **argv)
{
	char err[160];
	unsigned claim = pahole_claim(getenv("BTFC_PAHOLE_VERSION"), err, sizeof(err));
	struct pahole_opts po;
	int rc = EXIT_ERR;	/* every mode sets it below */

	if (!claim)
		return cli_fail("%s", err);
	if (pahole_parse(argc, argv, getenv("PAHOLE_LANG_EXCLUDE"), pool_ncpus(), claim, &po)) {
		if (!strncmp(po.err, "Feature '", 9)) {
			cli_fail("%s", po.err);
			print_supported(stderr);
		} else {
			cli_usage(pcmd(), "%s", po.err);
		}
		pahole_opts_free(&po);
		return EXIT_ERR;
	}
	switch (po.mode) {
	case PH_HELP:
		fputs(usage_text, stdout);
		rc = EXIT_OK;
		break;
	case PH_VERSION:
		printf("v%d.%02u\n", PAHOLE_COMPAT_MAJOR, po.claim);
		rc = EXIT_OK;
		break;
	case PH_NUMERIC_VERSION:
		printf("%d%02u\n", PAHOLE_COMPAT_MAJOR, po.claim);
		rc = EXIT_OK;
		break;
	case PH_SUPPORTED:
		print_supported(stdout);
		rc = EXIT_OK;
		break;
	case PH_ENCODE:
		rc = run_encode(&po);
		break;
	case PH_LAYOUT:
		rc = run_layout(&po);
		break;
	}
	pahole_opts_free(&po);
	return rc;
}

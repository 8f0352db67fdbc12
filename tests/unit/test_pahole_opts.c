// SPDX-License-Identifier: GPL-2.0-only
/* The pahole front end's command line: every form the kernel and users pass. */
#include <stdarg.h>

#include "cli/pahole.h"
#include "dwarf/consts.h"
#include "encode/encode.h"
#include "test.h"

#define NCPUS 7

/* The pahole version the parses below claim (pahole_claim's default unless a test sets it). */
static unsigned claim = PAHOLE_CLAIM_DEFAULT;

/* Parse a NULL-terminated list of arguments (argv[0] = "pahole"). */
static int parse(struct pahole_opts *po, const char *env_lang, ...)
{
	char *argv[64];
	int argc = 0;
	va_list ap;
	const char *a;

	argv[argc++] = (char *)"pahole";
	va_start(ap, env_lang);
	while ((a = va_arg(ap, const char *)) && argc < 63)
		argv[argc++] = (char *)a;
	va_end(ap);
	argv[argc] = NULL;
	return pahole_parse(argc, argv, env_lang, NCPUS, claim, po);
}

static bool has_layout_arg(const struct pahole_opts *po, const char *s)
{
	for (size_t i = 0; i < po->layout_argc; i++)
		if (!strcmp(po->layout_argv[i], s))
			return true;
	return false;
}

TEST(pahole_encode_in_place)
{
	struct pahole_opts po;

	REQUIRE(parse(&po, NULL, "-J", "vmlinux", NULL) == 0);
	CHECK(po.mode == PH_ENCODE);
	CHECK(po.encode);
	CHECK(po.detached == NULL);
	CHECK_EQ_U(po.nfiles, 1);
	CHECK_STR(po.files[0], "vmlinux");
	CHECK_EQ_U(po.jobs, 0);		/* no -j: one thread, as pahole */
	pahole_opts_free(&po);

	REQUIRE(parse(&po, NULL, "--btf_encode", "x.o", NULL) == 0);
	CHECK(po.mode == PH_ENCODE);
	pahole_opts_free(&po);
}

TEST(pahole_detached_and_base)
{
	struct pahole_opts po;

	/* 7.0's module line: --btf_base with a separate argument */
	REQUIRE(parse(&po, NULL, "-J", "--btf_base", "vmlinux", "--btf_encode_detached=foo.ko.BTF.1",
		      "foo.ko", NULL) == 0);
	CHECK(po.mode == PH_ENCODE);
	CHECK_STR(po.detached, "foo.ko.BTF.1");
	CHECK_STR(po.btf_base, "vmlinux");
	CHECK_EQ_U(po.nfiles, 1);
	CHECK_STR(po.files[0], "foo.ko");
	pahole_opts_free(&po);

	/* detached alone implies encoding; --btf_base=F */
	REQUIRE(parse(&po, NULL, "--btf_base=/b/vmlinux", "--btf_encode_detached", "out.btf", "m.ko",
		      NULL) == 0);
	CHECK(po.mode == PH_ENCODE);
	CHECK_STR(po.detached, "out.btf");
	CHECK_STR(po.btf_base, "/b/vmlinux");
	CHECK_STR(po.files[0], "m.ko");
	pahole_opts_free(&po);
}

TEST(pahole_jobs_forms)
{
	struct pahole_opts po;

	REQUIRE(parse(&po, NULL, "-J", "-j", "vmlinux", NULL) == 0);
	CHECK_EQ_U(po.jobs, NCPUS);		/* bare -j: all CPUs */
	CHECK_EQ_U(po.nfiles, 1);
	pahole_opts_free(&po);

	REQUIRE(parse(&po, NULL, "-J", "-j16", "vmlinux", NULL) == 0);
	CHECK_EQ_U(po.jobs, 16);
	pahole_opts_free(&po);

	REQUIRE(parse(&po, NULL, "-J", "--jobs", "vmlinux", NULL) == 0);
	CHECK_EQ_U(po.jobs, NCPUS);
	pahole_opts_free(&po);

	REQUIRE(parse(&po, NULL, "-J", "--jobs=3", "vmlinux", NULL) == 0);
	CHECK_EQ_U(po.jobs, 3);
	pahole_opts_free(&po);

	/* the count must be attached: "-j 4" is a bare -j and a file "4" */
	REQUIRE(parse(&po, NULL, "-J", "-j", "4", "vmlinux", NULL) == 0);
	CHECK_EQ_U(po.jobs, NCPUS);
	CHECK_EQ_U(po.nfiles, 2);
	CHECK_STR(po.files[0], "4");
	pahole_opts_free(&po);

	/* bundled with -J, and -j0 = one thread */
	REQUIRE(parse(&po, NULL, "-Jj2", "vmlinux", NULL) == 0);
	CHECK(po.encode);
	CHECK_EQ_U(po.jobs, 2);
	pahole_opts_free(&po);
	REQUIRE(parse(&po, NULL, "-J", "-j0", "vmlinux", NULL) == 0);
	CHECK_EQ_U(po.jobs, 1);
	pahole_opts_free(&po);

	REQUIRE(parse(&po, NULL, "-J", "--jobs=", "vmlinux", NULL) == 0);
	CHECK_EQ_U(po.jobs, 1);
	pahole_opts_free(&po);

	CHECK(parse(&po, NULL, "-J", "-jx", "vmlinux", NULL) == -1);
	CHECK(strstr(po.err, "jobs") != NULL);
	pahole_opts_free(&po);
}

TEST(pahole_features_defaults_without_btf_features)
{
	struct pahole_opts po;

	REQUIRE(parse(&po, NULL, "-J", "f.o", NULL) == 0);
	CHECK(po.feat[PF_VAR] && po.feat[PF_DECL_TAG] && po.feat[PF_TYPE_TAG] && po.feat[PF_ENUM64]);
	CHECK(!po.feat[PF_FLOAT] && !po.feat[PF_ENCODE_FORCE] && !po.feat[PF_CONSISTENT_FUNC]);
	CHECK(!po.feat[PF_DECL_TAG_KFUNCS] && !po.feat[PF_OPTIMIZED_FUNC]);
	CHECK(!po.features_reset);
	pahole_opts_free(&po);
}

TEST(pahole_features_first_resets_later_add)
{
	struct pahole_opts po;

	/* the first --btf_features turns every knob off, var included */
	REQUIRE(parse(&po, NULL, "-J", "--btf_features=float", "f.o", NULL) == 0);
	CHECK(po.feat[PF_FLOAT]);
	CHECK(!po.feat[PF_VAR] && !po.feat[PF_ENUM64] && !po.feat[PF_DECL_TAG] && !po.feat[PF_TYPE_TAG]);
	pahole_opts_free(&po);

	/* later ones only add */
	REQUIRE(parse(&po, NULL, "-J", "--btf_features=float", "--btf_features=var", "f.o", NULL) == 0);
	CHECK(po.feat[PF_FLOAT] && po.feat[PF_VAR]);
	CHECK(!po.feat[PF_ENUM64]);
	pahole_opts_free(&po);

	/* the 7.0 kernel line: a list, then attributes */
	REQUIRE(parse(&po, NULL, "-J", "-j2",
		      "--btf_features=encode_force,var,float,enum64,decl_tag,type_tag,optimized_func,"
		      "consistent_func,decl_tag_kfuncs",
		      "--btf_features=attributes", "--lang_exclude=rust",
		      "--btf_encode_detached=X.BTF.1", "vmlinux", NULL) == 0);
	for (int f = PF_ENCODE_FORCE; f <= PF_DECL_TAG_KFUNCS; f++)
		CHECK(po.feat[f]);
	CHECK(po.feat[PF_ATTRIBUTES]);
	CHECK(!po.feat[PF_GLOBAL_VAR] && !po.feat[PF_DISTILLED_BASE]);
	CHECK_EQ_U(po.jobs, 2);
	CHECK_STR(po.lang_exclude, "rust");
	CHECK_STR(po.detached, "X.BTF.1");
	pahole_opts_free(&po);

	/* strict resets too */
	REQUIRE(parse(&po, NULL, "-J", "--btf_features_strict=enum64", "f.o", NULL) == 0);
	CHECK(po.feat[PF_ENUM64] && !po.feat[PF_VAR]);
	pahole_opts_free(&po);
}

TEST(pahole_features_default_and_plus)
{
	struct pahole_opts po;

	REQUIRE(parse(&po, NULL, "-J", "--btf_features=default", "f.o", NULL) == 0);
	for (int f = PF_ENCODE_FORCE; f <= PF_DECL_TAG_KFUNCS; f++)
		CHECK(po.feat[f]);
	CHECK(!po.feat[PF_REPRODUCIBLE_BUILD] && !po.feat[PF_DISTILLED_BASE] &&
	      !po.feat[PF_GLOBAL_VAR] && !po.feat[PF_ATTRIBUTES]);
	pahole_opts_free(&po);

	REQUIRE(parse(&po, NULL, "-J", "--btf_features=+global_var", "f.o", NULL) == 0);
	CHECK(po.feat[PF_GLOBAL_VAR] && po.feat[PF_FLOAT] && po.feat[PF_CONSISTENT_FUNC]);
	pahole_opts_free(&po);

	REQUIRE(parse(&po, NULL, "-J", "--btf_features=default,distilled_base", "f.o", NULL) == 0);
	CHECK(po.feat[PF_DISTILLED_BASE] && po.feat[PF_VAR]);
	pahole_opts_free(&po);
}

TEST(pahole_features_unknown)
{
	struct pahole_opts po;

	/* ignored, remembered for -V */
	REQUIRE(parse(&po, NULL, "-J", "--btf_features=float,frobnicate,var", "f.o", NULL) == 0);
	CHECK(po.feat[PF_FLOAT] && po.feat[PF_VAR]);
	CHECK_EQ_U(po.nignored, 1);
	CHECK_STR(po.ignored[0], "frobnicate");
	pahole_opts_free(&po);

	/* pahole 1.31 has no layout or true_signature feature (later versions do) */
	REQUIRE(parse(&po, NULL, "-J", "--btf_features=layout,true_signature,var", "f.o", NULL) == 0);
	CHECK(po.feat[PF_VAR] && po.nignored == 2);
	pahole_opts_free(&po);

	/* "all" is not a feature since 1.27: the reset still happens */
	REQUIRE(parse(&po, NULL, "-J", "--btf_features=all", "f.o", NULL) == 0);
	CHECK(!po.feat[PF_VAR] && !po.feat[PF_FLOAT]);
	pahole_opts_free(&po);

	/* strict: fatal */
	CHECK(parse(&po, NULL, "-J", "--btf_features_strict=float,frobnicate", "f.o", NULL) == -1);
	CHECK(strstr(po.err, "'frobnicate'") != NULL);
	pahole_opts_free(&po);
}

TEST(pahole_legacy_flags_in_argv_order)
{
	struct pahole_opts po;

	REQUIRE(parse(&po, NULL, "-J", "--btf_gen_floats", "--skip_encoding_btf_vars",
		      "--skip_encoding_btf_enum64", "--skip_encoding_btf_decl_tag",
		      "--skip_encoding_btf_type_tag", "--skip_encoding_btf_inconsistent_proto",
		      "--btf_gen_optimized", "--btf_encode_force", "f.o", NULL) == 0);
	CHECK(po.feat[PF_FLOAT] && po.feat[PF_CONSISTENT_FUNC] && po.feat[PF_OPTIMIZED_FUNC] &&
	      po.feat[PF_ENCODE_FORCE]);
	CHECK(!po.feat[PF_VAR] && !po.feat[PF_ENUM64] && !po.feat[PF_DECL_TAG] && !po.feat[PF_TYPE_TAG]);
	pahole_opts_free(&po);

	/* a legacy flag before --btf_features is undone by its reset ... */
	REQUIRE(parse(&po, NULL, "-J", "--btf_gen_floats", "--btf_features=var", "f.o", NULL) == 0);
	CHECK(!po.feat[PF_FLOAT] && po.feat[PF_VAR]);
	pahole_opts_free(&po);
	/* ... and one after it applies */
	REQUIRE(parse(&po, NULL, "-J", "--btf_features=var", "--btf_gen_floats", "f.o", NULL) == 0);
	CHECK(po.feat[PF_FLOAT] && po.feat[PF_VAR]);
	pahole_opts_free(&po);

	/* --btf_gen_all: pahole 1.24's meaning (floats), defaults kept ... */
	claim = 24;
	REQUIRE(parse(&po, NULL, "-J", "--btf_gen_all", "f.o", NULL) == 0);
	CHECK(po.feat[PF_FLOAT] && po.feat[PF_VAR] && po.feat[PF_ENUM64]);
	pahole_opts_free(&po);
	/* ... 1.27+: "all" handed to the features parser, which resets and knows it not */
	claim = 31;
	REQUIRE(parse(&po, NULL, "-J", "--btf_gen_all", "f.o", NULL) == 0);
	CHECK(!po.feat[PF_FLOAT] && !po.feat[PF_VAR] && !po.feat[PF_ENUM64]);
	pahole_opts_free(&po);
}

TEST(pahole_lang_exclude)
{
	struct pahole_opts po;
	struct enc_opts o;
	uint32_t langs[16];

	REQUIRE(parse(&po, NULL, "-J", "--lang_exclude=rust", "f.o", NULL) == 0);
	REQUIRE(pahole_enc_opts(&po, &o, langs, 16, NULL, 0) == 0);
	CHECK(o.lang_exclude == langs);
	CHECK_EQ_U(langs[0], DW_LANG_Rust);
	CHECK_EQ_U(langs[1], 0);
	pahole_opts_free(&po);

	/* the environment, when the option is absent */
	REQUIRE(parse(&po, "rust,asm", "-J", "f.o", NULL) == 0);
	CHECK_STR(po.lang_exclude, "rust,asm");
	REQUIRE(pahole_enc_opts(&po, &o, langs, 16, NULL, 0) == 0);
	CHECK_EQ_U(langs[0], DW_LANG_Rust);
	CHECK_EQ_U(langs[1], DW_LANG_Mips_Assembler);
	CHECK_EQ_U(langs[2], 0);
	pahole_opts_free(&po);

	/* the option wins over the environment */
	REQUIRE(parse(&po, "rust", "-J", "--lang_exclude=c++", "f.o", NULL) == 0);
	CHECK_STR(po.lang_exclude, "c++");
	pahole_opts_free(&po);

	/* none: nothing excluded (pahole's default) */
	REQUIRE(parse(&po, NULL, "-J", "f.o", NULL) == 0);
	REQUIRE(pahole_enc_opts(&po, &o, langs, 16, NULL, 0) == 0);
	CHECK_EQ_U(langs[0], 0);
	pahole_opts_free(&po);

	REQUIRE(parse(&po, NULL, "-J", "--lang_exclude=klingon", "f.o", NULL) == 0);
	CHECK(pahole_enc_opts(&po, &o, langs, 16, NULL, 0) == -1);
	CHECK(strstr(po.err, "klingon") != NULL);
	pahole_opts_free(&po);
}

TEST(pahole_enc_opts_mapping)
{
	struct pahole_opts po;
	struct enc_opts o;
	uint32_t langs[8];
	char notes[2048];

	/* the 6.12 kernel line with a claimed 1.24 */
	claim = 24;
	REQUIRE(parse(&po, NULL, "-J", "--btf_gen_floats", "-j2", "--lang_exclude=rust", "vmlinux",
		      NULL) == 0);
	REQUIRE(pahole_enc_opts(&po, &o, langs, 8, notes, sizeof(notes)) == 0);
	CHECK(o.floats && o.vars && o.enum64 && o.decl_tags && o.type_tags);
	CHECK(!o.force && !o.consistent_func && !o.distilled_base);
	CHECK(o.compat == ENC_COMPAT_124);
	CHECK_EQ_U(o.jobs, 2);
	CHECK_STR(notes, "");
	pahole_opts_free(&po);

	/* no -j: one thread */
	REQUIRE(parse(&po, NULL, "-J", "vmlinux", NULL) == 0);
	REQUIRE(pahole_enc_opts(&po, &o, langs, 8, NULL, 0) == 0);
	CHECK_EQ_U(o.jobs, 1);
	CHECK(!o.floats);
	pahole_opts_free(&po);

	/* a 1.24 claim ignores what 1.24 did not have, and says so */
	REQUIRE(parse(&po, NULL, "-J", "--btf_features=+global_var", "vmlinux", NULL) == 0);
	REQUIRE(pahole_enc_opts(&po, &o, langs, 8, notes, sizeof(notes)) == 0);
	CHECK(o.compat == ENC_COMPAT_124 && !o.consistent_func && !o.global_vars &&
	      !o.decl_tag_kfuncs);
	CHECK(strstr(notes, "global_var: not in pahole 1.24") != NULL);
	pahole_opts_free(&po);

	/* 1.26+ line: 1.31's policy (1.30's under a 1.30 claim), every feature honoured */
	for (claim = 30; claim <= 31; claim++) {
		REQUIRE(parse(&po, NULL, "-J", "-V",
			      "--btf_features=encode_force,var,float,enum64,decl_tag,type_tag,optimized_func,"
			      "consistent_func,decl_tag_kfuncs,bogus",
			      "--btf_features=global_var,attributes", "vmlinux", NULL) == 0);
		REQUIRE(pahole_enc_opts(&po, &o, langs, 8, notes, sizeof(notes)) == 0);
		CHECK(o.force && o.floats && o.vars && o.enum64 && o.consistent_func &&
		      o.optimized_func && o.decl_tag_kfuncs && o.global_vars && o.attributes);
		CHECK(o.compat == (claim == 30 ? ENC_COMPAT_130 : ENC_COMPAT_131));
		CHECK_EQ_U(o.verbose, 1);
		CHECK(strstr(notes, "global_var") == NULL && strstr(notes, "attributes") == NULL);
		CHECK(strstr(notes, "decl_tag_kfuncs") == NULL);
		CHECK(strstr(notes, "Ignoring unsupported feature 'bogus'") != NULL);
		pahole_opts_free(&po);
	}
	claim = PAHOLE_CLAIM_DEFAULT;

	/* kfunc tags need decl tags (pahole) */
	REQUIRE(parse(&po, NULL, "-J", "--btf_features=decl_tag_kfuncs", "f.o", NULL) == 0);
	REQUIRE(pahole_enc_opts(&po, &o, langs, 8, notes, sizeof(notes)) == 0);
	CHECK(!o.decl_tags);
	CHECK(strstr(notes, "decl_tag_kfuncs: needs decl_tag") != NULL);
	pahole_opts_free(&po);
	REQUIRE(parse(&po, NULL, "-J", "--btf_features=+decl_tag_kfuncs", "f.o", NULL) == 0);
	REQUIRE(pahole_enc_opts(&po, &o, langs, 8, NULL, 0) == 0);
	CHECK(o.decl_tag_kfuncs && o.decl_tags);
	pahole_opts_free(&po);
	/* the defaults without --btf_features: no kfunc tags */
	REQUIRE(parse(&po, NULL, "-J", "--btf_gen_floats", "f.o", NULL) == 0);
	REQUIRE(pahole_enc_opts(&po, &o, langs, 8, NULL, 0) == 0);
	CHECK(!o.decl_tag_kfuncs);
	pahole_opts_free(&po);

	/* skip flags */
	REQUIRE(parse(&po, NULL, "-J", "--skip_encoding_btf_vars", "--skip_encoding_btf_enum64",
		      "--skip_encoding_btf_decl_tag", "--skip_encoding_btf_type_tag", "f.o", NULL) == 0);
	REQUIRE(pahole_enc_opts(&po, &o, langs, 8, NULL, 0) == 0);
	CHECK(!o.vars && !o.enum64 && !o.decl_tags && !o.type_tags);
	pahole_opts_free(&po);
}

TEST(pahole_distilled_base)
{
	struct pahole_opts po;
	struct enc_opts o;
	uint32_t langs[8];
	char notes[1024];

	/* ELF output + base: .BTF.base */
	REQUIRE(parse(&po, NULL, "-J", "--btf_features=default,distilled_base", "--btf_base", "vmlinux",
		      "m.ko", NULL) == 0);
	REQUIRE(pahole_enc_opts(&po, &o, langs, 8, notes, sizeof(notes)) == 0);
	CHECK(o.distilled_base);
	pahole_opts_free(&po);

	/* detached: ignored, as pahole */
	REQUIRE(parse(&po, NULL, "--btf_features=distilled_base", "--btf_base", "vmlinux",
		      "--btf_encode_detached=m.btf", "m.ko", NULL) == 0);
	REQUIRE(pahole_enc_opts(&po, &o, langs, 8, notes, sizeof(notes)) == 0);
	CHECK(!o.distilled_base);
	CHECK(strstr(notes, "distilled_base: ignored") != NULL);
	pahole_opts_free(&po);

	/* no base: an error */
	REQUIRE(parse(&po, NULL, "-J", "--btf_features=distilled_base", "m.ko", NULL) == 0);
	CHECK(pahole_enc_opts(&po, &o, langs, 8, NULL, 0) == -1);
	CHECK(strstr(po.err, "--btf_base") != NULL);
	pahole_opts_free(&po);
}

TEST(pahole_version_and_info_modes)
{
	struct pahole_opts po;

	REQUIRE(parse(&po, NULL, "--version", NULL) == 0);
	CHECK(po.mode == PH_VERSION);
	pahole_opts_free(&po);
	REQUIRE(parse(&po, NULL, "--numeric_version", NULL) == 0);
	CHECK(po.mode == PH_NUMERIC_VERSION);
	pahole_opts_free(&po);
	REQUIRE(parse(&po, NULL, "--supported_btf_features", NULL) == 0);
	CHECK(po.mode == PH_SUPPORTED);
	pahole_opts_free(&po);
	/* -V is --verbose, not --version */
	REQUIRE(parse(&po, NULL, "-V", "-J", "f.o", NULL) == 0);
	CHECK(po.mode == PH_ENCODE);
	CHECK_EQ_U(po.verbose, 1);
	pahole_opts_free(&po);
	CHECK_STR(pahole_feature_name(PF_CONSISTENT_FUNC), "consistent_func");
}

TEST(pahole_claim_env)
{
	char err[160];

	CHECK_EQ_U(pahole_claim(NULL, err, sizeof(err)), 31);
	CHECK_EQ_U(pahole_claim("", err, sizeof(err)), 31);
	CHECK_EQ_U(pahole_claim("1.24", err, sizeof(err)), 24);
	CHECK_EQ_U(pahole_claim("v1.30", err, sizeof(err)), 30);
	CHECK_EQ_U(pahole_claim("131", err, sizeof(err)), 31);
	CHECK_EQ_U(pahole_claim("1.27", err, sizeof(err)), 0);
	CHECK(strstr(err, "BTFC_PAHOLE_VERSION=1.27") != NULL);
}

TEST(pahole_layout_passthrough)
{
	struct pahole_opts po;

	/* bare `pahole TYPE`: layout mode, the name is positional */
	REQUIRE(parse(&po, NULL, "task_struct", NULL) == 0);
	CHECK(po.mode == PH_LAYOUT);
	CHECK_EQ_U(po.layout_argc, 1);
	CHECK_STR(po.layout_argv[0], "layout");
	CHECK_STR(po.files[0], "task_struct");
	pahole_opts_free(&po);

	REQUIRE(parse(&po, NULL, "-C", "sk_buff", "-E", "--hex", "-c", "128", "--suppress_packed",
		      "-F", "dwarf,btf", "--btf_base", "vmlinux", "mod.ko", NULL) == 0);
	CHECK(po.mode == PH_LAYOUT);
	CHECK(has_layout_arg(&po, "--class_name=sk_buff"));
	CHECK(has_layout_arg(&po, "--expand_types"));
	CHECK(has_layout_arg(&po, "--hex"));
	CHECK(has_layout_arg(&po, "--cacheline_size=128"));
	CHECK(has_layout_arg(&po, "--suppress_packed"));
	CHECK(has_layout_arg(&po, "--format_path=dwarf"));
	CHECK_STR(po.btf_base, "vmlinux");
	CHECK_STR(po.files[0], "mod.ko");
	pahole_opts_free(&po);

	REQUIRE(parse(&po, NULL, "-s", "--structs", "-y", "tcp_", "vmlinux", NULL) == 0);
	CHECK(has_layout_arg(&po, "--sizes") && has_layout_arg(&po, "--structs") &&
	      has_layout_arg(&po, "--prefix_filter=tcp_"));
	pahole_opts_free(&po);
	/* pahole 1.30's filter, which btfc layout has */
	REQUIRE(parse(&po, NULL, "--sizes", "--with_embedded_flexible_array", "vmlinux", NULL) == 0);
	CHECK(has_layout_arg(&po, "--with_embedded_flexible_array"));
	pahole_opts_free(&po);

	/* accepted and ignored; not supported; unknown */
	REQUIRE(parse(&po, NULL, "--hashbits=12", "--first_obj_only", "-C", "x", "f.o", NULL) == 0);
	CHECK_EQ_U(po.layout_argc, 2);
	pahole_opts_free(&po);
	CHECK(parse(&po, NULL, "--prettify=-", "f.o", NULL) == -1);
	CHECK(strstr(po.err, "not supported by btfc") != NULL);
	pahole_opts_free(&po);
	CHECK(parse(&po, NULL, "--no_such_option", "f.o", NULL) == -1);
	CHECK(strstr(po.err, "unrecognized") != NULL);
	pahole_opts_free(&po);
	CHECK(parse(&po, NULL, "-C", NULL) == -1);
	CHECK(strstr(po.err, "requires an argument") != NULL);
	pahole_opts_free(&po);
}

TEST(pahole_function_skip_wording)
{
	char out[256];

	CHECK(pahole_format_note("foo : skipping BTF encoding of function due to ambiguous address",
				 out, sizeof(out)) == 1);
	CHECK_STR(out, "foo : skipping BTF encoding of function due to ambiguous address");
	CHECK(pahole_format_note("function 'bar' skipped: unexpected register", out, sizeof(out)) == 1);
	CHECK_STR(out, "bar : skipping BTF encoding of function due to unexpected register used for parameter");
	CHECK(pahole_format_note("function 'baz' dropped: return type mismatch", out, sizeof(out)) == 1);
	CHECK_STR(out, "baz : skipping BTF encoding of function due to return type mismatch");
	CHECK(pahole_format_note("DIE 0x1c: DW_TAG_atomic_type dropped (no BTF equivalent)", out,
				 sizeof(out)) == 0);
	CHECK_STR(out, "DIE 0x1c: DW_TAG_atomic_type dropped (no BTF equivalent)");
}

/* SPDX-License-Identifier: GPL-2.0-only */
/*
 * The pahole-compatible front end (cli/pahole.c): btfc invoked as
 * `pahole` (argv[0]) or as `btfc pahole`.  Parsing is separate from
 * running so the option semantics can be unit-tested.
 */
#ifndef BTFC_CLI_PAHOLE_H
#define BTFC_CLI_PAHOLE_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

struct enc_opts;

/*
 * The pahole version btfc claims, as the kernel reads it
 * (scripts/pahole-version.sh -> CONFIG_PAHOLE_VERSION), and behaves as:
 * 1.31 unless $BTFC_PAHOLE_VERSION asks for 1.24 or 1.30 (to reproduce an
 * older distribution's build).  README.md "pahole compatibility".
 */
#define PAHOLE_COMPAT_MAJOR 1
#define PAHOLE_CLAIM_DEFAULT 31

/*
 * The minor version $BTFC_PAHOLE_VERSION (env, may be NULL or empty)
 * claims: 24, 30 or 31 ("1.30", "v1.30" and "130" are taken alike);
 * 0 with err set for anything else.
 */
unsigned pahole_claim(const char *env, char *err, size_t err_len);

/* --btf_features names, in pahole's table order. */
enum pahole_feature {
	PF_ENCODE_FORCE,
	PF_VAR,
	PF_FLOAT,
	PF_DECL_TAG,
	PF_TYPE_TAG,
	PF_ENUM64,
	PF_OPTIMIZED_FUNC,
	PF_CONSISTENT_FUNC,
	PF_DECL_TAG_KFUNCS,
	PF_REPRODUCIBLE_BUILD,
	PF_DISTILLED_BASE,
	PF_GLOBAL_VAR,
	PF_ATTRIBUTES,
	PF__NR
};

enum pahole_mode {
	PH_LAYOUT,		/* struct layouts: handed to `btfc layout` */
	PH_ENCODE,		/* -J / --btf_encode_detached */
	PH_VERSION,		/* --version */
	PH_NUMERIC_VERSION,	/* --numeric_version */
	PH_SUPPORTED,		/* --supported_btf_features */
	PH_HELP,
};

struct pahole_opts {
	enum pahole_mode mode;
	unsigned claim;			/* the minor version claimed: 24, 30 or 31 */
	bool encode;			/* -J or --btf_encode_detached seen */
	const char *detached;		/* --btf_encode_detached=FILE */
	const char *btf_base;		/* --btf_base[=]FILE */
	unsigned jobs;			/* 0: no -j (pahole: one thread) */
	int verbose;			/* -V */
	bool feat[PF__NR];		/* feature knobs after all options, in argv order */
	bool features_reset;		/* a --btf_features* option was seen */
	const char *lang_exclude;	/* --lang_exclude, else $PAHOLE_LANG_EXCLUDE */
	char **ignored;			/* unknown --btf_features names (printed under -V) */
	size_t nignored, ignored_cap;
	char **layout_argv;		/* argv for cmd_layout, [0] = "layout" */
	size_t layout_argc, layout_cap;
	char **files;			/* positional arguments */
	size_t nfiles, files_cap;
	char err[256];			/* why parsing failed */
};

/* Feature name (pahole's spelling). */
const char *pahole_feature_name(enum pahole_feature f);

/*
 * Parse a pahole command line (argv[0] is the program name) as pahole
 * 1.<claim> does.  env_lang is $PAHOLE_LANG_EXCLUDE (may be NULL), ncpus
 * what a bare -j means.  Returns 0, or -1 with po->err set.  Free with
 * pahole_opts_free either way.
 */
int pahole_parse(int argc, char **argv, const char *env_lang, unsigned ncpus, unsigned claim,
		 struct pahole_opts *po);
void pahole_opts_free(struct pahole_opts *po);

/*
 * Map parsed options onto encoder options.  langs (n entries) receives the
 * 0-terminated DW_LANG list o->lang_exclude points to.  Notes for
 * features the encoder cannot honour are written, one per line, into
 * notes (for -V).  Returns 0, or -1 with po->err set.
 */
int pahole_enc_opts(struct pahole_opts *po, struct enc_opts *o, uint32_t *langs, size_t n,
		    char *notes, size_t notes_len);

/*
 * One encoder log line in pahole's -V wording: a dropped function becomes
 * "<name> : skipping BTF encoding of function due to <reason>" (returns 1,
 * text in out); anything else returns 0 (out holds the line unchanged).
 */
int pahole_format_note(const char *line, char *out, size_t len);

/* The pahole front end; argv[0] is "pahole" (or any name). */
int cmd_pahole(int argc, char **argv);

#endif

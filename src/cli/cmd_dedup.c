// SPDX-License-Identifier: GPL-2.0-only
/*
 * btfc dedup IN... -o OUT [--base B] [-j N]
 *
 * Deduplicate BTF like libbpf's btf__dedup() (1.1.2 by default).  Several
 * inputs are first appended in order into one BTF (ids renumbered, like
 * libbpf btf__add_btf), which is how the tests build big inputs:
 *   --no-dedup   only append (write the concatenation)
 *   --flatten    with --base: the output is standalone, the base's types
 *                first, then the inputs (split on the base) appended
 *   --batch DIR  with --base: dedup every input on its own (split on the
 *                base), -j of them at a time, sharing one prepared base
 *                (btf_dedup_base_new); outputs DIR/NAME.  This is the
 *                batch encoder's call pattern, and --stats reports the
 *                per-input CPU time; --no-prepared-base prepares the base
 *                in every run instead (what a plain btf_dedup does).
 * Inputs and base are raw BTF or ELF files with .BTF; @FILE reads input
 * paths from FILE, one per line.
 */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "base/clock.h"
#include "base/file.h"
#include "base/mem.h"
#include "base/pool.h"
#include "btf/btf.h"
#include "btf/dedup.h"
#include "cli/cli.h"

static const char usage_text[] =
	"usage: btfc dedup IN... -o OUT [--base B] [-j N] [options]\n"
	"  deduplicate BTF like libbpf btf__dedup (IN: raw BTF or ELF .BTF; @LIST = paths in LIST)\n"
	"  --base B         inputs are split BTF on B; the output is split on B too\n"
	"  -j N             threads (default: all CPUs; output does not depend on N)\n"
	"  --keep-strings   leave the string section as is (libbpf's writer-built case)\n"
	"  --compat V       libbpf semantics: 1.1 (default, libbpf 1.1.x-1.5.x) or head\n"
	"  --no-dedup       only append the inputs and write the result\n"
	"  --flatten        with --base: write a standalone BTF (base types first)\n"
	"  --stats          print type counts and times on stderr\n"
	"  --batch DIR      with --base: dedup each input alone, -j at a time, one shared\n"
	"                   prepared base; outputs DIR/NAME (--no-prepared-base: prepare per run)\n"
	"  --relayout-strings  after dedup, strings in first-reference order (as the encoder)\n"
	"  --serial-refs    reference types one by one as libbpf, not level by level: faster on\n"
	"                   BTF in compile-unit order (btfc encode --no-dedup); same output\n"
	"  --exact          one pass in libbpf's order: libbpf 1.1.2's bytes (by default BTF of\n"
	"                   many units may be done in two levels: libbpf's type graph, in parallel)\n"
	"  --group-types N  testing: two levels with groups of at least N types\n"
	"  OUT may be - (stdout).  Exit status: 0 written, 2 error.\n";

struct paths {
	char **v;
	size_t n, cap;
};

static int paths_add(struct paths *p, const char *s)
{
	char *c = mem_strdup(s);

	if (!c || VEC_RESERVE(p->v, p->cap, p->n + 1)) {
		mem_free(c);
		return -ENOMEM;
	}
	p->v[p->n++] = c;
	return 0;
}

static int paths_add_list(struct paths *p, const char *file)
{
	char line[4096];
	FILE *f = fopen(file, "r");
	int err = 0;

	if (!f)
		return cli_fail("%s: %s", file, strerror(errno));
	while (!err && fgets(line, sizeof(line), f)) {
		size_t l = strlen(line);

		while (l && (line[l - 1] == '\n' || line[l - 1] == '\r' || line[l - 1] == ' '))
			line[--l] = 0;
		if (l)
			err = paths_add(p, line);
	}
	fclose(f);
	return err ? cli_fail("out of memory") : 0;
}

static void paths_free(struct paths *p)
{
	size_t i;

	for (i = 0; i < p->n; i++)
		mem_free(p->v[i]);
	mem_free(p->v);
}

static int load(const char *path, const struct btf *base, struct btf **out, struct diag *d)
{
	/*
	 * Mapped read-only: dedup does not write to its input's records (the
	 * string phase rewrites into a copy, the result is a new section).
	 * Strict: every type id is checked here, so dedup need not
	 * (opts.ids_checked).
	 */
	return cli_btf_parse_file(path, base, BTF_PARSE_NO_STR_INDEX, out, d);
}

/*
 * Append src (split on a base whose types are dst's first types) to the
 * standalone dst: ids below src's start id keep their value, own ids are
 * shifted, strings are re-added.
 */
static int append_flat(struct btf *dst, const struct btf *src, struct diag *d)
{
	uint32_t first = btf_type_count(dst), i, n = btf_type_count(src) - btf_start_id(src);
	int64_t delta = (int64_t)first - btf_start_id(src);

	if (btf_type_count(dst) < btf_start_id(src))
		return diag_err(d, EINVAL, "flatten: output has fewer types than the base");
	for (i = 0; i < n; i++) {
		const struct btf_type *t = btf_type_by_id(src, btf_start_id(src) + i);
		struct btf_field_iter it;
		struct btf_type *c;
		uint32_t *p;
		int id;

		id = btf_add_raw(dst, t, btf_type_size(t));
		if (id < 0)
			goto err;
		c = btf_type_mut(dst, (uint32_t)id);
		if (btf_field_iter_init(&it, c, BTF_FIELD_STRS))
			return diag_err(d, EINVAL, "flatten: type %u has an unknown kind",
					btf_start_id(src) + i);
		while ((p = btf_field_iter_next(&it))) {
			const char *s = *p ? btf_name(src, *p) : "";
			int64_t off;

			if (!s)
				return diag_err(d, EINVAL, "flatten: type %u: bad string offset %u",
						btf_start_id(src) + i, *p);
			if (!*p)
				continue;
			off = btf_add_str(dst, s);
			if (off < 0)
				goto err;
			c = btf_type_mut(dst, (uint32_t)id);
			*p = (uint32_t)off;
		}
		btf_field_iter_init(&it, c, BTF_FIELD_IDS);
		while ((p = btf_field_iter_next(&it)))
			if (*p >= btf_start_id(src))
				*p = (uint32_t)(*p + delta);
	}
	return 0;
err:
	*d = *btf_error(dst);
	return -d->code;
}

static int write_out(const struct btf *btf, const char *outp)
{
	struct diag d = { 0 };
	void *blob = NULL;
	size_t len;
	int err;

	if ((err = btf_write(btf, &blob, &len, &d)) ||
	    (err = file_write_atomic(outp, blob, len, &d))) {
		mem_free(blob);
		cli_report(&d, err);
		return EXIT_ERR;
	}
	mem_free(blob);
	return EXIT_OK;
}

/* ---- --batch: many split inputs on one base, each alone ---- */

struct batch {
	struct paths *in;
	const char *outdir;
	const struct btf *base;
	struct btf_dedup_opts o;	/* prepared_base set unless --no-prepared-base */
	double *cpu;			/* per input: thread CPU seconds of the dedup */
	uint32_t *nin, *nout;
	int *err;
	struct diag *diags;
};

static double thread_cpu(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_THREAD_CPUTIME_ID, &ts);
	return (double)ts.tv_sec + (double)ts.tv_nsec / 1e9;
}

static int batch_one(void *ctx, unsigned worker, size_t i)
{
	struct batch *b = ctx;
	struct diag *d = &b->diags[i];
	const char *name = strrchr(b->in->v[i], '/');
	struct btf *btf = NULL;
	char out[4096];
	double t;
	int err;

	name = name ? name + 1 : b->in->v[i];
	if ((err = load(b->in->v[i], b->base, &btf, d)))
		goto done;
	b->nin[i] = btf_type_count(btf) - btf_start_id(btf);
	t = thread_cpu();
	err = btf_dedup(btf, &b->o, d);
	b->cpu[i] = thread_cpu() - t;
	if (err)
		goto done;
	b->nout[i] = btf_type_count(btf) - btf_start_id(btf);
	if ((size_t)snprintf(out, sizeof(out), "%s/%s", b->outdir, name) >= sizeof(out)) {
		err = diag_err(d, ENAMETOOLONG, "%s: output path too long", name);
		goto done;
	}
	if (write_out(btf, out) != EXIT_OK)
		err = diag_err(d, EIO, "%s: cannot write", out);
done:
	b->err[i] = err;
	btf_free(btf);
	return 0;
}

static int run_batch(struct paths *in, const char *outdir, const struct btf *base,
		     const struct btf_dedup_opts *opts, bool prepared, bool stats)
{
	struct batch b = { .in = in, .outdir = outdir, .base = base, .o = *opts };
	struct btf_dedup_base *pb = NULL;
	struct btf_dedup_opts po = *opts;
	unsigned jobs = opts->nr_threads ? opts->nr_threads : 1;
	double t0 = clock_now(), t1, cpu = 0, maxcpu = 0;
	uint64_t tin = 0, tout = 0;
	struct diag d = { 0 };
	int rc = EXIT_OK;
	size_t i;

	b.cpu = mem_array(in->n, sizeof(*b.cpu));
	b.nin = mem_array(in->n, sizeof(*b.nin));
	b.nout = mem_array(in->n, sizeof(*b.nout));
	b.err = mem_array(in->n, sizeof(*b.err));
	b.diags = mem_array(in->n, sizeof(*b.diags));
	if (!b.cpu || !b.nin || !b.nout || !b.err || !b.diags) {
		rc = cli_fail("out of memory");
		goto out;
	}
	/* every run is serial; the parallelism is across inputs */
	b.o.nr_threads = 1;
	b.o.stats = NULL;
	b.o.ids_checked = true;		/* each input as load() parsed it */
	if (prepared) {
		if (!(pb = btf_dedup_base_new(base, &po, &d))) {
			cli_report(&d, -d.code);
			rc = EXIT_ERR;
			goto out;
		}
		b.o.prepared_base = pb;
	}
	t1 = clock_now();
	pool_for(jobs, in->n, batch_one, &b);
	for (i = 0; i < in->n; i++) {
		if (b.err[i]) {
			cli_report(&b.diags[i], b.err[i]);
			rc = EXIT_ERR;
		}
		cpu += b.cpu[i];
		maxcpu = MAX(maxcpu, b.cpu[i]);
		tin += b.nin[i];
		tout += b.nout[i];
	}
	if (stats)
		fprintf(stderr, "dedup batch: %zu inputs, %llu -> %llu types; prepare base %.3f s, "
			"dedups %.3f s wall (%u threads), dedup CPU %.3f s total, %.3f ms mean, "
			"%.3f ms max per input\n", in->n, (unsigned long long)tin,
			(unsigned long long)tout, t1 - t0, clock_now() - t1, jobs, cpu,
			in->n ? cpu * 1e3 / (double)in->n : 0.0, maxcpu * 1e3);
out:
	btf_dedup_base_free(pb);
	mem_free(b.cpu);
	mem_free(b.nin);
	mem_free(b.nout);
	mem_free(b.err);
	mem_free(b.diags);
	return rc;
}

/*
 * One piece (155 lines): the option loop, then one straight sequence
 * (load, append, dedup, write) sharing the options and one cleanup path.
 */
int cmd_dedup(int argc, char **argv)
{
	const char *base_path = NULL, *outp = NULL;
	struct btf_dedup_opts opts = { 0 };
	struct btf_dedup_stats st = { 0 };
	bool nodedup = false, flatten = false, stats = false, prepared = true;
	bool relayout = false;
	const char *batch = NULL;
	struct btf *base = NULL, *btf = NULL, *src = NULL;
	struct paths in = { 0 };
	struct diag d = { 0 };
	double t0, t1, t2;
	uint32_t nin;
	int i, err, rc = EXIT_ERR;
	size_t k;

	opts.nr_threads = cli_jobs(NULL);
	opts.stats = &st;
	for (i = 1; i < argc; i++) {
		const char *a = argv[i];

		if ((!strcmp(a, "--base") || !strcmp(a, "-B")) && i + 1 < argc) {
			base_path = argv[++i];
		} else if (!strcmp(a, "-o") && i + 1 < argc) {
			outp = argv[++i];
		} else if (!strncmp(a, "-j", 2) || !strcmp(a, "--jobs")) {
			const char *v = a[2] ? a + 2 : (i + 1 < argc ? argv[++i] : "");

			if (!(opts.nr_threads = cli_jobs(v)))
				return cli_usage("dedup", "bad thread count '%s'", v);
		} else if (!strcmp(a, "--keep-strings")) {
			opts.keep_strings = true;
		} else if (!strcmp(a, "--serial-refs")) {
			opts.serial_refs = true;
		} else if (!strcmp(a, "--exact")) {
			opts.exact = true;
		} else if (!strcmp(a, "--group-types") && i + 1 < argc) {
			char *end;
			unsigned long v = strtoul(argv[++i], &end, 10);

			if (*end || !v || v > 0x7fffffff)
				return cli_usage("dedup", "bad --group-types '%s'", argv[i]);
			opts.group_types = (uint32_t)v;
		} else if (!strcmp(a, "--compat") && i + 1 < argc) {
			const char *v = argv[++i];

			if (!strcmp(v, "1.1"))
				opts.compat = BTF_DEDUP_LIBBPF_1_1;
			else if (!strcmp(v, "head"))
				opts.compat = BTF_DEDUP_LIBBPF_HEAD;
			else
				return cli_usage("dedup", "unknown --compat '%s' (1.1 or head)", v);
		} else if (!strcmp(a, "--no-dedup")) {
			nodedup = true;
		} else if (!strcmp(a, "--flatten")) {
			flatten = true;
		} else if (!strcmp(a, "--stats")) {
			stats = true;
		} else if (!strcmp(a, "--batch") && i + 1 < argc) {
			batch = argv[++i];
		} else if (!strcmp(a, "--no-prepared-base")) {
			prepared = false;
		} else if (!strcmp(a, "--relayout-strings")) {
			relayout = true;
		} else if (!strcmp(a, "--help") || !strcmp(a, "-h")) {
			fputs(usage_text, stdout);
			return EXIT_OK;
		} else if (a[0] == '@' && a[1]) {
			if (paths_add_list(&in, a + 1))
				goto out;
		} else if (a[0] != '-') {
			if (paths_add(&in, a)) {
				rc = cli_fail("out of memory");
				goto out;
			}
		} else if (!strcmp(a, "--base") || !strcmp(a, "-B") || !strcmp(a, "-o") ||
			   !strcmp(a, "--compat") || !strcmp(a, "--batch")) {
			rc = cli_usage("dedup", "'%s' needs an argument", a);
			goto out;
		} else {
			rc = cli_usage("dedup", "unexpected argument '%s'", a);
			goto out;
		}
	}
	if (!in.n || (!outp && !batch)) {
		rc = cli_usage("dedup", "needs inputs and -o OUT (or --batch DIR)");
		goto out;
	}
	if (batch && (!base_path || flatten || nodedup || outp)) {
		rc = cli_usage("dedup", "--batch needs --base (and no -o, --flatten, --no-dedup)");
		goto out;
	}
	if (flatten && !base_path) {
		rc = cli_usage("dedup", "--flatten needs --base");
		goto out;
	}
	t0 = clock_now();
	if (base_path && (err = load(base_path, NULL, &base, &d))) {
		cli_report(&d, err);
		goto out;
	}
	if (batch) {
		rc = run_batch(&in, batch, base, &opts, prepared, stats);
		goto out;
	}
	if (flatten) {
		if ((err = load(base_path, NULL, &btf, &d))) {
			cli_report(&d, err);
			goto out;
		}
	} else if (in.n == 1) {
		if ((err = load(in.v[0], base, &btf, &d))) {
			cli_report(&d, err);
			goto out;
		}
	} else if (!(btf = btf_new(base))) {
		rc = cli_fail("out of memory");
		goto out;
	}
	for (k = 0; (flatten || in.n > 1) && k < in.n; k++) {
		if ((err = load(in.v[k], base, &src, &d))) {
			cli_report(&d, err);
			goto out;
		}
		if (flatten)
			err = append_flat(btf, src, &d);
		else if ((err = btf_append(btf, src)) > 0)
			err = 0;
		else if (err < 0)
			d = *btf_error(btf);
		if (err) {
			cli_report(&d, err);
			goto out;
		}
		btf_free(src);
		src = NULL;
	}
	nin = btf_type_count(btf) - btf_start_id(btf);
	opts.ids_checked = !flatten && in.n == 1;	/* as load() parsed it */
	t1 = clock_now();
	if (!nodedup && (err = btf_dedup(btf, &opts, &d))) {
		cli_report(&d, err);
		goto out;
	}
	if (relayout && (err = btf_strings_relayout(btf, &d))) {
		cli_report(&d, err);
		goto out;
	}
	t2 = clock_now();
	if (stats) {
		fprintf(stderr, "dedup: %u -> %u types, %zu string bytes; load %.3f s, dedup %.3f s (%u threads)\n",
			nin, btf_type_count(btf) - btf_start_id(btf), btf_strs_len(btf), t1 - t0,
			t2 - t1, opts.nr_threads);
		if (!nodedup) {
			fprintf(stderr, "dedup phases:");
			for (i = 0; i < BTF_DEDUP_NR_PH; i++)
				fprintf(stderr, " %s %.3f", btf_dedup_phase_names[i], st.secs[i]);
			if (!st.ngroups)	/* (the levels' line has the two levels' figure) */
				fprintf(stderr, "; phases 2-5 with work for one thread only %.3f s",
					st.serial_secs);
			fprintf(stderr, "\n");
			cli_dedup_levels(&st);
		}
	}
	rc = write_out(btf, outp);
out:
	btf_free(src);
	btf_free(btf);
	btf_free(base);
	paths_free(&in);
	return rc;
}

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
 * Inputs and base are raw BTF or ELF files with .BTF; @FILE reads input
 * paths from FILE, one per line.
 */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#include "base/mem.h"
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
	"  --stats          print type counts and times on stderr\n";

static double now(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (double)ts.tv_sec + (double)ts.tv_nsec / 1e9;
}

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
	char prefix[DIAG_MSG_MAX];
	void *data;
	size_t len;
	int err;

	if ((err = cli_btf_blob(path, &data, &len, d)))
		return err;
	err = btf_parse(data, len, base, out, d);
	mem_free(data);
	if (err) {
		snprintf(prefix, sizeof(prefix), "%s", d->msg);
		snprintf(d->msg, sizeof(d->msg), "%.200s: %.300s", path, prefix);
	}
	return err;
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
	char tmp[4096];
	FILE *f;
	int err;

	if ((err = btf_write(btf, &blob, &len, &d))) {
		cli_report(&d, err);
		return EXIT_ERR;
	}
	if ((size_t)snprintf(tmp, sizeof(tmp), "%s.tmp.%d", outp, (int)getpid()) >= sizeof(tmp)) {
		mem_free(blob);
		return cli_fail("dedup: output path too long");
	}
	f = fopen(tmp, "wb");
	if (!f) {
		mem_free(blob);
		return cli_fail("%s: %s", tmp, strerror(errno));
	}
	if (fwrite(blob, 1, len, f) != len || fclose(f)) {
		mem_free(blob);
		unlink(tmp);
		return cli_fail("%s: write failed: %s", tmp, strerror(errno));
	}
	mem_free(blob);
	if (rename(tmp, outp)) {
		unlink(tmp);
		return cli_fail("%s: rename: %s", outp, strerror(errno));
	}
	return EXIT_OK;
}

int cmd_dedup(int argc, char **argv)
{
	const char *base_path = NULL, *outp = NULL;
	struct btf_dedup_opts opts = { 0 };
	struct btf_dedup_stats st = { 0 };
	bool nodedup = false, flatten = false, stats = false;
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
				return cli_fail("dedup: bad thread count '%s'", v);
		} else if (!strcmp(a, "--keep-strings")) {
			opts.keep_strings = true;
		} else if (!strcmp(a, "--compat") && i + 1 < argc) {
			const char *v = argv[++i];

			if (!strcmp(v, "1.1"))
				opts.compat = BTF_DEDUP_LIBBPF_1_1;
			else if (!strcmp(v, "head"))
				opts.compat = BTF_DEDUP_LIBBPF_HEAD;
			else
				return cli_fail("dedup: unknown --compat '%s' (1.1 or head)", v);
		} else if (!strcmp(a, "--no-dedup")) {
			nodedup = true;
		} else if (!strcmp(a, "--flatten")) {
			flatten = true;
		} else if (!strcmp(a, "--stats")) {
			stats = true;
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
		} else {
			fputs(usage_text, stderr);
			rc = cli_fail("dedup: unexpected argument '%s'", a);
			goto out;
		}
	}
	if (!in.n || !outp) {
		fputs(usage_text, stderr);
		goto out;
	}
	if (flatten && !base_path) {
		rc = cli_fail("dedup: --flatten needs --base");
		goto out;
	}
	t0 = now();
	if (base_path && (err = load(base_path, NULL, &base, &d))) {
		cli_report(&d, err);
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
	t1 = now();
	nin = btf_type_count(btf) - btf_start_id(btf);
	if (!nodedup && (err = btf_dedup(btf, &opts, &d))) {
		cli_report(&d, err);
		goto out;
	}
	t2 = now();
	if (stats) {
		fprintf(stderr, "dedup: %u -> %u types, %zu string bytes; load %.3f s, dedup %.3f s (%u threads)\n",
			nin, btf_type_count(btf) - btf_start_id(btf), btf_strs_len(btf), t1 - t0,
			t2 - t1, opts.nr_threads);
		if (!nodedup) {
			fprintf(stderr, "dedup phases:");
			for (i = 0; i < BTF_DEDUP_NR_PH; i++)
				fprintf(stderr, " %s %.3f", btf_dedup_phase_names[i], st.secs[i]);
			fprintf(stderr, "\n");
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

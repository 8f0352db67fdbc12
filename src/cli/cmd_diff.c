// SPDX-License-Identifier: GPL-2.0-only
/*
 * btfc diff A B [--base-a F] [--base-b F] [--base F] [--show N]
 *               [--ignore-kinds K,K] [-q]
 *
 * Type-graph comparison with shared/tools/btfcanon.py's notion of
 * equality (src/btf/diff.h).  Output: btfcanon's per-kind table, then the
 * differing types named (causes first, with what changed), and a last line
 * in btfcanon's format:
 *   EQUAL|DIFFERENT types A=N B=N onlyA=N onlyB=N
 * Exit 0 when equal, 1 when not, 2 on error.  --format json: the same as
 * one JSON document.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "btf/btf.h"
#include "btf/diff.h"
#include "cli/cli.h"

static int parse_kinds(const char *s, uint32_t *mask)
{
	char name[32];

	while (*s) {
		size_t n = strcspn(s, ",");
		unsigned k;

		if (n && n < sizeof(name)) {
			memcpy(name, s, n);
			name[n] = 0;
			for (k = 1; k <= BTF_KIND_MAX; k++)
				if (!strcmp(name, btf_kind_str(k)))
					break;
			if (k > BTF_KIND_MAX)
				return -1;
			*mask |= 1u << k;
		} else if (n) {
			return -1;
		}
		s += n;
		if (*s == ',')
			s++;
	}
	return 0;
}

static int kind_name_cmp(const void *x, const void *y)
{
	return strcmp(btf_kind_str(*(const unsigned *)x), btf_kind_str(*(const unsigned *)y));
}

static void print_kinds(const struct btf_diff *r)
{
	unsigned kinds[NR_BTF_KINDS], n = 0, i;

	for (i = 0; i < NR_BTF_KINDS; i++)
		if (r->kinds_a[i] || r->kinds_b[i])
			kinds[n++] = i;
	qsort(kinds, n, sizeof(kinds[0]), kind_name_cmp);
	printf("kind          A        B\n");
	for (i = 0; i < n; i++) {
		unsigned k = kinds[i];

		printf("%-12s %7u  %7u%s\n", btf_kind_str(k), r->kinds_a[k], r->kinds_b[k],
		       r->kinds_a[k] == r->kinds_b[k] ? "" : "   <-");
	}
}

/* Output groups: causes, propagated, only in A, only in B. */
static unsigned group(unsigned how)
{
	return how <= BTF_DIFF_RETARGETED ? 0 : how - 1;
}

static void print_entry(const struct btf *a, const struct btf *b, const struct btf_diff_entry *e)
{
	char ts[200], via[200], desc[600];
	bool in_b = e->how == BTF_DIFF_ONLY_B;

	btf_diff_type_str(in_b ? b : a, in_b ? e->b_id : e->a_id, ts, sizeof(ts));
	printf("    %s", ts);
	if (e->how == BTF_DIFF_ONLY_A || e->how == BTF_DIFF_ONLY_B) {
		printf(" [%u]\n", in_b ? e->b_id : e->a_id);
		return;
	}
	printf(" [%u -> %u]", e->a_id, e->b_id);
	if (e->via_a)
		printf(" in %s", btf_diff_type_str(a, e->via_a, via, sizeof(via)));
	btf_diff_describe(a, b, e, desc, sizeof(desc));
	printf("%s%s\n", desc[0] ? ": " : "", desc);
}

/* --format json: the counts, the kinds and every entry (no --show limit). */
static void print_json(const struct btf *a, const struct btf *b, const struct btf_diff *r)
{
	static const char *const how[] = {
		[BTF_DIFF_CHANGED] = "changed", [BTF_DIFF_RETARGETED] = "retargeted",
		[BTF_DIFF_PROPAGATED] = "propagated", [BTF_DIFF_ONLY_A] = "only_a",
		[BTF_DIFF_ONLY_B] = "only_b",
	};
	char ts[200], desc[600];
	unsigned k, n = 0;

	printf("{\"equal\":%s,\"a\":{\"types\":%u,\"only\":%u},\"b\":{\"types\":%u,\"only\":%u},"
	       "\"kinds\":{", btf_diff_equal(r) ? "true" : "false", r->count_a, r->only_a,
	       r->count_b, r->only_b);
	for (k = 0; k < NR_BTF_KINDS; k++)
		if (r->kinds_a[k] || r->kinds_b[k])
			printf("%s\"%s\":[%u,%u]", n++ ? "," : "", btf_kind_str(k), r->kinds_a[k],
			       r->kinds_b[k]);
	fputs("},\"entries\":[", stdout);
	for (size_t i = 0; i < r->nentries; i++) {
		const struct btf_diff_entry *e = &r->entries[i];
		bool in_b = e->how == BTF_DIFF_ONLY_B;

		printf("%s{\"how\":\"%s\",\"a_id\":%u,\"b_id\":%u,\"type\":", i ? "," : "",
		       e->how < sizeof(how) / sizeof(how[0]) && how[e->how] ? how[e->how] : "?",
		       e->a_id, e->b_id);
		btf_diff_type_str(in_b ? b : a, in_b ? e->b_id : e->a_id, ts, sizeof(ts));
		cli_json_str(stdout, ts);
		if (e->via_a) {
			fputs(",\"via\":", stdout);
			cli_json_str(stdout, btf_diff_type_str(a, e->via_a, ts, sizeof(ts)));
		}
		if (e->how != BTF_DIFF_ONLY_A && !in_b) {
			btf_diff_describe(a, b, e, desc, sizeof(desc));
			if (desc[0]) {
				fputs(",\"change\":", stdout);
				cli_json_str(stdout, desc);
			}
		}
		putchar('}');
	}
	fputs("]}\n", stdout);
}

int cmd_diff(int argc, char **argv)
{
	const char *fa = NULL, *fb = NULL, *base_a = NULL, *base_b = NULL;
	struct btf *a = NULL, *b = NULL, *ab = NULL, *bb = NULL;
	struct btf_diff_opts opts = { 0 };
	struct btf_diff r;
	struct diag d = { 0 };
	long show = 8;
	bool quiet = false, json = false;
	size_t i, counts[4] = { 0 }, shown[4] = { 0 };
	int err, rc = EXIT_ERR;
	static const char *const heads[4] = {
		"changed (causes)", "changed only through references", "only in A", "only in B",
	};

	for (int k = 1; k < argc; k++) {
		const char *s = argv[k];

		if (!strcmp(s, "--base-a") && k + 1 < argc)
			base_a = argv[++k];
		else if (!strcmp(s, "--base-b") && k + 1 < argc)
			base_b = argv[++k];
		else if ((!strcmp(s, "--base") || !strcmp(s, "-B")) && k + 1 < argc)
			base_a = base_b = argv[++k];
		else if (!strcmp(s, "--show") && k + 1 < argc)
			show = strtol(argv[++k], NULL, 10);
		else if (!strcmp(s, "--ignore-kinds") && k + 1 < argc) {
			if (parse_kinds(argv[++k], &opts.ignore_kinds))
				return cli_usage("diff", "unknown kind in '%s'", argv[k]);
		} else if (!strcmp(s, "-q") || !strcmp(s, "--quiet"))
			quiet = true;
		else if (!strcmp(s, "--format") && k + 1 < argc &&
			 (!strcmp(argv[k + 1], "json") || !strcmp(argv[k + 1], "text")))
			json = !strcmp(argv[++k], "json");
		else if (!strcmp(s, "--format=json") || !strcmp(s, "--format=text"))
			json = !strcmp(s, "--format=json");
		else if (!strcmp(s, "--help") || !strcmp(s, "-h")) {
			printf("usage: btfc diff A B [--base-a F] [--base-b F] [--base F] [--show N]\n"
			       "                    [--ignore-kinds K,K] [-q] [--format text|json]\n"
			       "  compare two BTFs as type graphs (ids and order do not matter),\n"
			       "  with the equality of shared/tools/btfcanon.py; names the types\n"
			       "  that differ (at most N per group, default 8).  A or B may be -\n"
			       "  (raw BTF on stdin).  --format json: one document with every entry.\n"
			       "  Exit status: 0 equal, 1 different, 2 error.\n");
			return EXIT_OK;
		} else if ((s[0] != '-' || !s[1]) && !fa)
			fa = s;
		else if ((s[0] != '-' || !s[1]) && !fb)
			fb = s;
		else if (!strcmp(s, "--base-a") || !strcmp(s, "--base-b") || !strcmp(s, "--base") ||
			 !strcmp(s, "-B") || !strcmp(s, "--show") || !strcmp(s, "--ignore-kinds") ||
			 !strcmp(s, "--format"))
			return cli_usage("diff", "'%s' needs an argument%s", s,
					 strcmp(s, "--format") ? "" : " (text or json)");
		else
			return cli_usage("diff", "unexpected argument '%s'", s);
	}
	if (!fa || !fb)
		return cli_usage("diff", "needs two files, A and B");
	if (cli_is_stdio(fa) && cli_is_stdio(fb))
		return cli_usage("diff", "only one of A and B can be - (standard input)");
	if ((err = cli_btf_load(fa, base_a, &ab, &a, &d)) ||
	    (err = cli_btf_load(fb, base_b, &bb, &b, &d))) {
		cli_report(&d, err);
		goto out;
	}
	if ((err = btf_diff(a, b, &opts, &r, &d))) {
		cli_report(&d, err);
		goto out;
	}
	if (json) {
		print_json(a, b, &r);
		rc = btf_diff_equal(&r) ? EXIT_OK : EXIT_DIFF;
		btf_diff_free(&r);
		goto out;
	}
	if (!quiet) {
		print_kinds(&r);
		for (i = 0; i < r.nentries; i++)
			counts[group(r.entries[i].how)]++;
		if (r.rounds_a != r.rounds_b)
			printf("note: refinement stabilised after %u rounds in A, %u in B: btfcanon "
			       "counts every type as different; compared at depth %u: onlyA=%u "
			       "onlyB=%u\n", r.rounds_a, r.rounds_b, MAX(r.rounds_a, r.rounds_b),
			       r.aligned_only_a, r.aligned_only_b);
		for (i = 0; i < r.nentries; i++) {
			const struct btf_diff_entry *e = &r.entries[i];
			unsigned g = group(e->how);

			if (!i || g != group(r.entries[i - 1].how))
				printf("%s: %zu\n", heads[g], counts[g]);
			if (show >= 0 && shown[g] >= (size_t)show) {
				if (shown[g]++ == (size_t)show)
					printf("    ...\n");
				continue;
			}
			shown[g]++;
			print_entry(a, b, e);
		}
	}
	printf("%s types A=%u B=%u onlyA=%u onlyB=%u\n", btf_diff_equal(&r) ? "EQUAL" : "DIFFERENT",
	       r.count_a, r.count_b, r.only_a, r.only_b);
	rc = btf_diff_equal(&r) ? EXIT_OK : EXIT_DIFF;
	btf_diff_free(&r);
out:
	btf_free(a);
	btf_free(b);
	btf_free(ab);
	btf_free(bb);
	return rc;
}

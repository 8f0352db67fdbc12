// SPDX-License-Identifier: GPL-2.0-only
/* btfc relocate: will a module's BTF (with .BTF.base) load on that kernel? */
#include <getopt.h>
#include <stdio.h>
#include <string.h>

#include "base/file.h"
#include "base/mem.h"
#include "btf/distill.h"
#include "cli/cli.h"
#include "elf/elf.h"

static const char usage_text[] =
	"usage: btfc relocate MODULE --base VMLINUX_BTF [-o OUT] [--format text|json]\n"
	"  Rebase MODULE's split BTF from its distilled base (.BTF.base) onto\n"
	"  VMLINUX_BTF (ELF with .BTF, raw BTF, /sys/kernel/btf/vmlinux) the way the\n"
	"  kernel does at module load.  Lists every distilled type without a match.\n"
	"  -o OUT   write the relocated split BTF (raw) to OUT (- for stdout)\n"
	"  --format json  one document: {\"module\", \"base\", \"relocates\",\n"
	"           \"unmatched\": [...], \"distilled\", \"split\"}\n"
	"  Exit status: 0 relocates, 1 types do not match, 2 error.\n";

static int section(struct belf *e, const char *name, struct bslice *out, struct diag *d)
{
	size_t idx = belf_find(e, name);

	if (!idx)
		return diag_err(d, ENOENT, "%s: no %s section%s", belf_path(e), name,
				!strcmp(name, ".BTF.base") ?
				" (encode with --distilled-base to add one)" : "");
	return belf_raw(e, idx, out, d);
}

int cmd_relocate(int argc, char **argv)
{
	static const struct option opts[] = {
		{ "base", required_argument, NULL, 'b' },
		{ "output", required_argument, NULL, 'o' },
		{ "format", required_argument, NULL, 'f' },
		{ "help", no_argument, NULL, 'h' },
		{ NULL, 0, NULL, 0 },
	};
	bool json = false;
	const char *target = NULL, *output = NULL;
	struct btf *dist = NULL, *split = NULL, *b2 = NULL, *res = NULL;
	struct btf_reloc_report rep = { .max = 10000 };
	struct bslice sb, ss;
	struct belf *e = NULL;
	void *data = NULL;
	size_t len, i;
	struct diag d;
	int c, err, status = EXIT_ERR;

	optind = 1;
	opterr = 0;
	while ((c = getopt_long(argc, argv, "b:o:h", opts, NULL)) != -1) {
		switch (c) {
		case 'b': target = optarg; break;
		case 'o': output = optarg; break;
		case 'f':
			if (strcmp(optarg, "json") && strcmp(optarg, "text"))
				return cli_usage("relocate", "--format takes text or json, not '%s'",
						 optarg);
			json = !strcmp(optarg, "json");
			break;
		case 'h': fputs(usage_text, stdout); return EXIT_OK;
		default: return cli_bad_option("relocate", argv, "b:o:h");
		}
	}
	if (optind + 1 != argc || !target)
		return cli_usage("relocate", "needs MODULE and --base VMLINUX_BTF");
	if (json && cli_is_stdio(output))
		return cli_usage("relocate", "-o - and --format json would share stdout");
	diag_clear(&d);
	if ((err = belf_open(&e, argv[optind], &d)) || (err = section(e, ".BTF.base", &sb, &d)) ||
	    (err = section(e, ".BTF", &ss, &d)) ||
	    (err = btf_parse(sb.p, sb.len, NULL, &dist, &d)) ||
	    (err = btf_parse(ss.p, ss.len, dist, &split, &d)) ||
	    (err = cli_btf_blob(target, &data, &len, &d)) ||
	    (err = btf_parse(data, len, NULL, &b2, &d))) {
		cli_report(&d, err);
		goto out;
	}
	err = btf_relocate(split, b2, &res, &rep, &d);
	if (json && (!err || (err == -ENOENT && rep.n))) {
		fputs("{\"module\":", stdout);
		cli_json_str(stdout, argv[optind]);
		fputs(",\"base\":", stdout);
		cli_json_str(stdout, target);
		printf(",\"relocates\":%s,\"unmatched\":[", err ? "false" : "true");
		for (i = 0; i < rep.n; i++) {
			if (i)
				putchar(',');
			cli_json_str(stdout, rep.items[i].msg);
		}
		printf("],\"distilled\":%u,\"split\":%u}\n", btf_type_count(dist) - 1,
		       res ? btf_type_count(res) - btf_start_id(res) : 0);
	}
	for (i = 0; !json && i < rep.n; i++)
		printf("unmatched %s\n", rep.items[i].msg);
	if (err == -ENOENT && rep.n) {
		if (!json)
			printf("%s: %zu distilled base type%s do not match %s; the module's BTF would not load\n",
			       argv[optind], rep.n, rep.n == 1 ? "" : "s", target);
		status = EXIT_DIFF;
		goto out;
	}
	if (err) {
		cli_report(&d, err);
		goto out;
	}
	if (output) {
		void *raw;
		size_t rlen;

		if ((err = btf_write(res, &raw, &rlen, &d)) ||
		    (err = file_write_atomic(output, raw, rlen, &d))) {
			cli_report(&d, err);
			if (!err)
				mem_free(raw);
			goto out;
		}
		mem_free(raw);
	}
	if (!json && !cli_is_stdio(output))
		printf("%s: relocates onto %s (%u distilled types matched, %u split types)\n",
		       argv[optind], target, btf_type_count(dist) - 1,
		       btf_type_count(res) - btf_start_id(res));
	status = EXIT_OK;
out:
	btf_reloc_report_free(&rep);
	btf_free(res);
	btf_free(b2);
	btf_free(split);
	btf_free(dist);
	mem_free(data);
	belf_close(e);
	return status;
}

// SPDX-License-Identifier: GPL-2.0-only
/*
 * btfc dump / verify / convert: options, then the library.
 *
 * `dump --format raw` prints exactly what `bpftool btf dump file F format
 * raw` prints (bpftool v7.1, libbpf 1.1), and `--format json` exactly what
 * `bpftool -j btf dump ...` prints (btf/print.c); for split BTF only the
 * split's own types are listed, as bpftool does.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "base/file.h"
#include "base/mem.h"
#include "btf/btf.h"
#include "btf/dump.h"
#include "cli/cli.h"

static int c_emit(void *ctx, const char *s, size_t n)
{
	return fwrite(s, 1, n, ctx) == n ? 0 : -EIO;
}

int cmd_dump(int argc, char **argv)
{
	const char *file = NULL, *base_path = NULL, *format = "raw", *id_arg = NULL;
	struct btf *base = NULL, *btf = NULL;
	struct diag d = { 0 };
	char *obuf;
	int i, err, rc = EXIT_OK;

	for (i = 1; i < argc; i++) {
		if ((!strcmp(argv[i], "--base") || !strcmp(argv[i], "-B")) && i + 1 < argc)
			base_path = argv[++i];
		else if (!strcmp(argv[i], "--format") && i + 1 < argc)
			format = argv[++i];
		else if (!strncmp(argv[i], "--format=", 9))
			format = argv[i] + 9;
		else if (!strcmp(argv[i], "--help") || !strcmp(argv[i], "-h")) {
			printf("usage: btfc dump FILE [--base B] [--format raw|json|c]\n"
			       "       btfc dump id ID [--format raw|json|c]\n"
			       "  FILE: raw BTF, ELF with .BTF, /sys/kernel/btf/NAME, or - (raw BTF on stdin);\n"
			       "  id ID: the kernel's BTF object ID (see btfc list; needs root).\n"
			       "  raw: bpftool's text; json: bpftool -j's (one document); c: a C header.\n"
			       "  Exit status: 0 printed, 2 error.\n");
			return EXIT_OK;
		} else if (!strcmp(argv[i], "id") && !file && !id_arg && i + 1 < argc)
			id_arg = argv[++i];
		else if ((argv[i][0] != '-' || !argv[i][1]) && !file && !id_arg)
			file = argv[i];
		else if (!strcmp(argv[i], "--base") || !strcmp(argv[i], "-B") ||
			 !strcmp(argv[i], "--format") || !strcmp(argv[i], "id"))
			return cli_usage("dump", "'%s' needs an argument", argv[i]);
		else
			return cli_usage("dump", "unexpected argument '%s'", argv[i]);
	}
	if (!file && !id_arg)
		return cli_usage("dump", "no input file");
	if (strcmp(format, "raw") && strcmp(format, "json") && strcmp(format, "c"))
		return cli_usage("dump", "unknown format '%s' (raw, json or c)", format);
	if (id_arg) {
		char *end;
		unsigned long v = strtoul(id_arg, &end, 10);

		if (!*id_arg || *end || v > UINT32_MAX)
			return cli_usage("dump", "'%s' is not a BTF object id", id_arg);
		if (base_path)
			return cli_usage("dump", "--base does not go with id (a module's is vmlinux's)");
		err = cli_btf_load_id((uint32_t)v, &base, &btf, &d);
	} else {
		err = cli_btf_load(file, base_path, &base, &btf, &d);
	}
	if (err) {
		cli_report(&d, err);
		return EXIT_ERR;
	}
	obuf = mem_alloc(1 << 16);
	if (obuf)
		setvbuf(stdout, obuf, _IOFBF, 1 << 16);
	if (!strcmp(format, "raw"))
		err = btf_dump_raw(btf, c_emit, stdout, &d);
	else if (!strcmp(format, "json"))
		err = btf_dump_json(btf, c_emit, stdout, &d);
	else
		err = btf_dump_c(btf, c_emit, stdout, &d);
	if (err) {
		fflush(stdout);
		cli_fail("%s: %s", file ? file : id_arg, d.msg[0] ? d.msg : strerror(-err));
		rc = EXIT_ERR;
	}
	fflush(stdout);		/* before obuf goes; main() reports a lost write */
	if (obuf)
		setvbuf(stdout, NULL, _IOFBF, BUFSIZ);
	mem_free(obuf);
	btf_free(btf);
	btf_free(base);
	return rc;
}

int cmd_verify(int argc, char **argv)
{
	const char *file = NULL, *base_path = NULL;
	struct btf_report rep = { .max = 50 };
	struct btf *base = NULL, *tmp = NULL;
	struct diag d = { 0 };
	unsigned flags = 0;
	bool json = false;
	void *data = NULL;
	size_t len, k;
	int i, err, rc;

	for (i = 1; i < argc; i++) {
		if ((!strcmp(argv[i], "--base") || !strcmp(argv[i], "-B")) && i + 1 < argc)
			base_path = argv[++i];
		else if (!strcmp(argv[i], "--strict"))
			flags |= BTF_VALIDATE_STRICT;
		else if (!strncmp(argv[i], "--format=", 9) ||
			 (!strcmp(argv[i], "--format") && i + 1 < argc)) {
			const char *f = argv[i][8] == '=' ? argv[i] + 9 : argv[++i];

			if (strcmp(f, "json") && strcmp(f, "text"))
				return cli_usage("verify", "--format takes text or json, not '%s'", f);
			json = !strcmp(f, "json");
		} else if (!strcmp(argv[i], "--help") || !strcmp(argv[i], "-h")) {
			printf("usage: btfc verify FILE [--base B] [--strict] [--format text|json]\n"
			       "  default: the kernel's checks for vmlinux/module BTF;\n"
			       "  --strict: also the user-BTF resolve pass (BPF_BTF_LOAD rules)\n"
			       "  FILE may be - (raw BTF on stdin).  --format json: one document,\n"
			       "  {\"file\", \"mode\", \"ok\", \"findings\": [...], \"more\": N}\n"
			       "  Exit status: 0 valid, 1 findings, 2 error.\n");
			return EXIT_OK;
		} else if ((argv[i][0] != '-' || !argv[i][1]) && !file)
			file = argv[i];
		else if (!strcmp(argv[i], "--base") || !strcmp(argv[i], "-B") ||
			 !strcmp(argv[i], "--format"))
			return cli_usage("verify", "'%s' needs an argument (--format: text or json)",
					 argv[i]);
		else
			return cli_usage("verify", "unexpected argument '%s'", argv[i]);
	}
	if (!file)
		return cli_usage("verify", "no input file");
	if (!base_path)
		base_path = cli_btf_default_base(file);
	if (base_path) {
		/* Load the base through the common path (the file itself is re-read below). */
		err = cli_btf_load(base_path, NULL, &tmp, &base, &d);
		if (err) {
			cli_report(&d, err);
			return EXIT_ERR;
		}
	}
	if ((err = cli_btf_blob(file, &data, &len, &d))) {
		cli_report(&d, err);
		btf_free(base);
		return EXIT_ERR;
	}
	err = btf_validate(data, len, base, flags, &rep, &d);
	if (err == -ENOMEM) {
		cli_report(&d, err);
		rc = EXIT_ERR;
	} else if (json) {
		fputs("{\"file\":", stdout);
		cli_json_str(stdout, file);
		printf(",\"mode\":\"%s\",\"ok\":%s,\"findings\":[",
		       flags & BTF_VALIDATE_STRICT ? "strict" : "kernel", err ? "false" : "true");
		for (k = 0; err && k < rep.n; k++) {
			if (k)
				putchar(',');
			cli_json_str(stdout, rep.items[k].msg);
		}
		printf("],\"more\":%zu}\n", err ? rep.dropped : 0);
		rc = err ? EXIT_DIFF : EXIT_OK;
	} else if (err) {
		for (k = 0; k < rep.n; k++)
			printf("%s: %s\n", file, rep.items[k].msg);
		if (rep.dropped)
			printf("%s: ... %zu more findings\n", file, rep.dropped);
		rc = EXIT_DIFF;
	} else {
		printf("%s: OK (%s mode)\n", file, flags & BTF_VALIDATE_STRICT ? "strict" : "kernel");
		rc = EXIT_OK;
	}
	if (rc == EXIT_DIFF && base_path)
		cli_note("%s is split BTF: findings like these may mean %s is not the base it was "
			 "built on", file, base_path);
	btf_report_free(&rep);
	mem_free(data);
	btf_free(base);
	btf_free(tmp);
	return rc;
}

int cmd_convert(int argc, char **argv)
{
	const char *file = NULL, *base_path = NULL, *outp = NULL, *endian = NULL;
	struct btf *base = NULL, *btf = NULL;
	struct diag d = { 0 };
	void *blob = NULL;
	size_t len;
	int i, err, rc = EXIT_ERR;

	for (i = 1; i < argc; i++) {
		if ((!strcmp(argv[i], "--base") || !strcmp(argv[i], "-B")) && i + 1 < argc)
			base_path = argv[++i];
		else if (!strcmp(argv[i], "-o") && i + 1 < argc)
			outp = argv[++i];
		else if (!strcmp(argv[i], "--endian") && i + 1 < argc)
			endian = argv[++i];
		else if (!strcmp(argv[i], "--help") || !strcmp(argv[i], "-h")) {
			printf("usage: btfc convert FILE -o OUT [--base B] [--endian little|big|native]\n"
			       "  parse FILE (raw or ELF .BTF) and write it as a raw blob; FILE may be -\n"
			       "  (raw BTF on stdin), OUT - (stdout).  Exit status: 0 written, 2 error.\n");
			return EXIT_OK;
		} else if ((argv[i][0] != '-' || !argv[i][1]) && !file)
			file = argv[i];
		else if (!strcmp(argv[i], "--base") || !strcmp(argv[i], "-B") ||
			 !strcmp(argv[i], "-o") || !strcmp(argv[i], "--endian"))
			return cli_usage("convert", "'%s' needs an argument", argv[i]);
		else
			return cli_usage("convert", "unexpected argument '%s'", argv[i]);
	}
	if (!file || !outp)
		return cli_usage("convert", "needs FILE and -o OUT");
	if ((err = cli_btf_load(file, base_path, &base, &btf, &d))) {
		cli_report(&d, err);
		return EXIT_ERR;
	}
	if (endian) {
		if (!strcmp(endian, "little"))
			btf_set_endian(btf, BTF_LITTLE_ENDIAN);
		else if (!strcmp(endian, "big"))
			btf_set_endian(btf, BTF_BIG_ENDIAN);
		else if (!strcmp(endian, "native"))
			btf_set_endian(btf, btf_host_endian());
		else {
			rc = cli_usage("convert", "unknown byte order '%s' (little, big or native)",
				       endian);
			goto out;
		}
	}
	if ((err = btf_write(btf, &blob, &len, &d))) {
		cli_report(&d, err);
		goto out;
	}
	if ((err = file_write_atomic(outp, blob, len, &d))) {
		cli_report(&d, err);
		goto out;
	}
	rc = EXIT_OK;
out:
	mem_free(blob);
	btf_free(btf);
	btf_free(base);
	return rc;
}

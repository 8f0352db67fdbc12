// SPDX-License-Identifier: GPL-2.0-only
#include <errno.h>
#include <getopt.h>
#include <stdarg.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "base/pool.h"
#include "btf/dedup.h"
#include "cli/cli.h"

/*
 * The program name messages start with: "btfc", or "pahole" when run
 * under that name.  Set once by main() before any work (an exception to
 * "no mutable globals", ARCHITECTURE.md).
 */
static const char *prog_name = "btfc";

void cli_set_prog(const char *name)
{
	prog_name = name;
}

const char *cli_prog(void)
{
	return prog_name;
}

void cli_report(const struct diag *d, int err)
{
	if (d && d->code)
		fprintf(stderr, "%s: %s\n", prog_name, d->msg);
	else
		fprintf(stderr, "%s: %s\n", prog_name, strerror(err < 0 ? -err : err));
}

static void vline(const char *fmt, va_list ap)
{
	fprintf(stderr, "%s: ", prog_name);
	vfprintf(stderr, fmt, ap);
	fputc('\n', stderr);
}

int cli_fail(const char *fmt, ...)
{
	va_list ap;

	va_start(ap, fmt);
	vline(fmt, ap);
	va_end(ap);
	return EXIT_ERR;
}

void cli_note(const char *fmt, ...)
{
	va_list ap;

	va_start(ap, fmt);
	vline(fmt, ap);
	va_end(ap);
}

int cli_usage(const char *cmd, const char *fmt, ...)
{
	va_list ap;

	fprintf(stderr, "%s: %s%s", prog_name, cmd ? cmd : "", cmd ? ": " : "");
	va_start(ap, fmt);
	vfprintf(stderr, fmt, ap);
	va_end(ap);
	if (cmd && !strcmp(prog_name, "btfc"))
		fprintf(stderr, " (see 'btfc %s --help')\n", cmd);
	else
		fprintf(stderr, " (see '%s --help')\n", prog_name);
	return EXIT_ERR;
}

int cli_bad_option(const char *cmd, char **argv, const char *shortopts)
{
	const char *arg = optind > 0 ? argv[optind - 1] : NULL;

	if (!optopt)
		return cli_usage(cmd, "unknown option '%s'", arg ? arg : "?");
	if (arg && !strncmp(arg, "--", 2))
		return cli_usage(cmd, "option '%s' needs an argument", arg);
	if (optopt < 256 && strchr(shortopts, optopt))
		return cli_usage(cmd, "option '-%c' needs an argument", optopt);
	return cli_usage(cmd, "unknown option '-%c'", optopt);
}

void cli_json_str(FILE *f, const char *s)
{
	fputc('"', f);
	for (; *s; s++) {
		unsigned char c = (unsigned char)*s;

		if (c == '"' || c == '\\')
			fprintf(f, "\\%c", c);
		else if (c == '\n')
			fputs("\\n", f);
		else if (c == '\t')
			fputs("\\t", f);
		else if (c < 0x20)
			fprintf(f, "\\u%04x", c);
		else
			fputc(c, f);
	}
	fputc('"', f);
}

unsigned cli_jobs(const char *s)
{
	char *end;
	unsigned long n;

	if (!s || !*s)
		return pool_ncpus();
	n = strtoul(s, &end, 10);
	if (*end || n == 0 || n > 1024)
		return 0;
	return (unsigned)n;
}

int cli_close_stdout(int rc)
{
	bool lost;
	int e = 0;

	errno = 0;
	if (fflush(stdout))
		e = errno;
	lost = e || ferror(stdout);
	if (fclose(stdout) && !lost) {
		e = errno;
		lost = true;
	}
	if (!lost)
		return rc;
	if (e)
		fprintf(stderr, "%s: writing standard output: %s\n", prog_name, strerror(e));
	else
		fprintf(stderr, "%s: writing standard output failed: output lost\n", prog_name);
	return EXIT_ERR;
}

void cli_dedup_levels(const struct btf_dedup_stats *st)
{
	if (!st->ngroups) {
		if (st->conflicts)
			fprintf(stderr, "dedup: %llu is_equiv() calls ended by a conflict\n",
				(unsigned long long)st->conflicts);
		return;
	}
	fprintf(stderr, "dedup levels: %u groups kept %u of %u types in %.3f s, final pass the rest, "
		"serial %.3f s%s%s",
		st->ngroups, st->nr_kept, st->nr_in, st->groups_secs, st->serial_secs,
		st->fallback ? "; FELL BACK to one level" : "",
		st->conflicts ? " (conflicts)" : "");
	fputc('\n', stderr);
}

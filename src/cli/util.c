// SPDX-License-Identifier: GPL-2.0-only
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "base/pool.h"
#include "cli/cli.h"

void cli_report(const struct diag *d, int err)
{
	if (d && d->code)
		fprintf(stderr, "btfc: %s\n", d->msg);
	else
		fprintf(stderr, "btfc: %s\n", strerror(err < 0 ? -err : err));
}

int cli_fail(const char *fmt, ...)
{
	va_list ap;

	fputs("btfc: ", stderr);
	va_start(ap, fmt);
	vfprintf(stderr, fmt, ap);
	va_end(ap);
	fputc('\n', stderr);
	return EXIT_ERR;
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

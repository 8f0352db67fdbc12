/* SPDX-License-Identifier: GPL-2.0-only */
/*
 * cli/: every subcommand, all printing and exit codes.  Each command is
 * int cmd_NAME(int argc, char **argv) returning the process exit status
 * (0 ok, 1 "differs"/findings, 2 error).
 */
#ifndef BTFC_CLI_H
#define BTFC_CLI_H

#include "base/diag.h"

#define BTFC_VERSION "0.1.0"

enum { EXIT_OK = 0, EXIT_DIFF = 1, EXIT_ERR = 2 };

struct cli_cmd {
	const char *name;
	int (*fn)(int argc, char **argv);
	const char *summary;
};

int cmd_dwarf(int argc, char **argv);

/* Print "btfc: <msg>" for a failed diag (or the errno text) to stderr. */
void cli_report(const struct diag *d, int err);
/* Print "btfc: " + formatted line to stderr; returns EXIT_ERR. */
int cli_fail(const char *fmt, ...) __attribute__((format(printf, 1, 2)));
/* Parse a thread count ("" or NULL = all CPUs); returns 0 on error. */
unsigned cli_jobs(const char *s);

#endif

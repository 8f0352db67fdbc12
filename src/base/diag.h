/* SPDX-License-Identifier: GPL-2.0-only */
/*
 * Error reports.  Library code never prints: a failing function records one
 * line in the caller's struct diag (what failed, where: file, offset, DIE or
 * type id) and returns a negative errno.  Only cli/ prints it.
 */
#ifndef BTFC_BASE_DIAG_H
#define BTFC_BASE_DIAG_H

#include "base/common.h"

#define DIAG_MSG_MAX 512

struct diag {
	int code;			/* positive errno of the first error, 0 if none */
	char msg[DIAG_MSG_MAX];		/* one line, no trailing newline */
};

/*
 * Record an error (the first one wins; later calls keep the first message)
 * and return -code so callers can write `return diag_err(d, EINVAL, ...)`.
 * d may be NULL.
 */
int diag_err(struct diag *d, int code, const char *fmt, ...) PRINTF_LIKE(3, 4);
static inline void diag_clear(struct diag *d) { d->code = 0; d->msg[0] = 0; }

#endif
